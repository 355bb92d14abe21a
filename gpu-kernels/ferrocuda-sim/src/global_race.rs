//! The cross-block global-memory race detector ([`super::Checks::global_race`]).
//!
//! Blocks of one launch are not ordered: two blocks touching the same global bytes, one of
//! them writing, race, unless a lock orders them, the book's pattern (§5.3.1): the first block
//! makes its accesses, then a `__threadfence` and an atomic (it *releases*); the second makes an
//! atomic (it *acquires*) before its accesses. A launch-wide table keeps, per 4-byte word, the
//! last writing block and up to two reading blocks, each with the count of releases its block had
//! made before the access; an access of another block is exempt when that block has released
//! since and the accessing block has made an atomic. Accesses within one block are not checked
//! (the shared-memory detector's rules would need global barriers' happens-before), nor are
//! atomics, which are defined to race.
use super::context::{BlockCtx, ThreadCtx};
use super::ops::Access;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::string::String;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::vec::Vec;

/// Launches running with the check on, process-wide: while 0, an access costs one load (the
/// device library reads it inline, so it lives in the interface crate).
pub(crate) use ferrocuda_sim_abi::LAUNCHES_CHECKED;

/// Shards of the table, so that blocks on different host threads rarely wait for each other.
const SHARDS: usize = 64;

/// One block's access: its linear index plus one (0: none), a thread, and its block's releases.
#[derive(Clone, Copy, Default)]
struct Stamp {
    block: u64,
    rank: u32,
    releases: u32,
}

/// The shadow of one 4-byte word; the masks say which of its bytes each stamp touched.
#[derive(Clone, Copy, Default)]
struct WordShadow {
    write: Stamp,
    write_mask: u8,
    read: Stamp,
    read_mask: u8,
    cross: Stamp,
    cross_mask: u8,
}

/// A multiplicative hash of a word address: the table's keys need no protection from collisions.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, word: usize) {
        self.0 = (word as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Table = HashMap<usize, WordShadow, BuildHasherDefault<WordHasher>>;

/// The table of one launch, shared by the host threads that run its blocks.
pub(crate) struct GlobalRace {
    shards: Vec<Mutex<Table>>,
    /// Releases (`__threadfence` then an atomic) each block has made, by linear index.
    releases: Mutex<HashMap<u64, u32>>,
}

impl GlobalRace {
    /// A table for one launch; counts it in [`LAUNCHES_CHECKED`] until dropped.
    pub fn new() -> Self {
        LAUNCHES_CHECKED.fetch_add(1, Ordering::Relaxed);
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(Table::default())).collect(),
            releases: Mutex::new(HashMap::new()),
        }
    }

    fn releases_of(&self, block: u64) -> u32 {
        let releases = self.releases.lock().unwrap_or_else(|p| p.into_inner());
        releases.get(&block).copied().unwrap_or(0)
    }
}

impl Drop for GlobalRace {
    fn drop(&mut self) {
        LAUNCHES_CHECKED.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `__threadfence`: the thread's next atomic releases its block's accesses so far.
pub(crate) fn fence(thread: &ThreadCtx) {
    thread.fenced.set(true);
}

/// An atomic of `thread`: an acquire for its block, and a release after a fence.
pub(crate) fn atomic(thread: &ThreadCtx, block: &BlockCtx, race: &GlobalRace) {
    block.acquired.set(true);
    if thread.fenced.replace(false) {
        let releases = block.releases.get() + 1;
        block.releases.set(releases);
        let mut table = race.releases.lock().unwrap_or_else(|p| p.into_inner());
        table.insert(block.linear_index(), releases);
    }
}

/// Checks an access of `bytes` bytes at `address` by `thread` against other blocks' accesses,
/// and records it; `Err` with the fault's message on a race.
pub(crate) fn access(
    thread: &ThreadCtx,
    block: &BlockCtx,
    race: &GlobalRace,
    address: usize,
    bytes: usize,
    access: Access,
) -> Result<(), String> {
    let me = Stamp {
        block: block.linear_index() + 1,
        rank: thread.rank as u32,
        releases: block.releases.get(),
    };
    let exempt = |s: &Stamp| block.acquired.get() && race.releases_of(s.block - 1) > s.releases;
    let foreign = |s: &Stamp, mask: u8, mine: u8| s.block != 0 && s.block != me.block && mask & mine != 0;
    for word in address / 4..(address + bytes).div_ceil(4) {
        let first = address.max(word * 4) - word * 4;
        let end = (address + bytes).min(word * 4 + 4) - word * 4;
        let mine = ((1u16 << end) - (1u16 << first)) as u8;
        let mut shard = race.shards[(word >> 4) % SHARDS]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let shadow = shard.entry(word).or_default();
        let mut clash = None;
        if foreign(&shadow.write, shadow.write_mask, mine) && !exempt(&shadow.write) {
            clash = Some((shadow.write, "store"));
        }
        if access == Access::Write {
            for (s, mask) in [(shadow.read, shadow.read_mask), (shadow.cross, shadow.cross_mask)] {
                if clash.is_none() && foreign(&s, mask, mine) && !exempt(&s) {
                    clash = Some((s, "load"));
                }
            }
        }
        if let Some((other, verb)) = clash {
            drop(shard);
            return Err(describe(block, &other, verb, access, word * 4 + first, word * 4 + end));
        }
        record(shadow, me, mine, access);
    }
    Ok(())
}

/// Records `me` in the word's shadow (after `access` found no race).
fn record(shadow: &mut WordShadow, me: Stamp, mine: u8, access: Access) {
    let merge = |stamp: &mut Stamp, mask: &mut u8| {
        *mask = if stamp.block == me.block { *mask | mine } else { mine };
        *stamp = me;
    };
    if access == Access::Write {
        merge(&mut shadow.write, &mut shadow.write_mask);
    } else if shadow.read.block == 0 || shadow.read.block == me.block {
        merge(&mut shadow.read, &mut shadow.read_mask);
    } else if shadow.cross.block == 0 || shadow.cross.block == me.block {
        merge(&mut shadow.cross, &mut shadow.cross_mask);
    }
}

/// The fault's message: both blocks and threads, the bytes, each access, and the fix.
fn describe(block: &BlockCtx, other: &Stamp, other_verb: &str, access: Access, start: usize, end: usize) -> String {
    let [gx, gy, _] = block.grid_dim.map(u64::from);
    let linear = other.block - 1;
    let (bx, by, bz) = (linear % gx, linear / gx % gy, linear / (gx * gy));
    let [tx, ty, tz] = block.thread_idx(other.rank as usize);
    let verb = if access == Access::Write { "store" } else { "load" };
    std::format!(
        "global-memory race on bytes {start:#x}..{end:#x}: this thread's {verb} and the earlier {other_verb} of thread \
         ({tx}, {ty}, {tz}) of block ({bx}, {by}, {bz}), in the same launch, nothing ordering the two blocks; the usual \
         fix is to give each block its own bytes, to make the update an atomic, or to order the blocks: a second launch \
         after the {other_verb}, or a __threadfence and an atomic (a lock or a flag) between the {other_verb} and the \
         {verb}"
    )
}
