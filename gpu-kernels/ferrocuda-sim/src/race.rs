//! The shared-memory race detector (compute-sanitizer's racecheck, on the CPU).
//!
//! The model is sm_70's independent thread scheduling: two accesses of one block to the same
//! shared-memory byte, at least one a write and not both atomics, race unless something orders
//! them: a barrier between them (they fall in different *barrier intervals*), or, for two lanes
//! of one warp, a warp operation both took part in after the first access (`__syncwarp`, a
//! shuffle, a vote), directly or through other lanes of the warp. Lanes of a warp are not
//! ordered by running in lockstep: since Volta they need not.
//!
//! An `mbarrier` orders too: an arrival releases what the arriving thread did before it into the
//! barrier's phase, a wait that finds the phase complete acquires all of it. Each thread counts
//! its arrivals, each access carries the count then, and each thread keeps, per other thread,
//! the count it has acquired (kept only once a block arrives on a barrier).
//!
//! Each byte keeps the last write and the reads since it (FastTrack's shadow, by interval): the
//! last reader, the lanes of its warp that read too, and one reader of another warp. Within a
//! warp, each lane keeps a vector clock of the warp operations it knows of.
use super::context::BlockCtx;
use core::panic::Location;
use std::string::String;
use std::vec::Vec;

/// Where in the kernel's source an access was made.
pub(crate) type Site = &'static Location<'static>;

use super::ops::{Access, lanes};

/// One access, as the shadow remembers it.
#[derive(Clone, Copy)]
struct Stamp {
    /// The block's serial number and barrier generation; 0 for none.
    interval: u64,
    /// The warp's count of completed warp operations when the access was made.
    seq: u32,
    rank: u32,
    /// The thread's count of mbarrier arrivals when the access was made.
    released: u32,
    access: Access,
    site: Option<Site>,
}

impl Stamp {
    const NONE: Stamp = Stamp {
        interval: 0,
        seq: 0,
        rank: 0,
        released: 0,
        access: Access::Read,
        site: None,
    };
}

/// The shadow of one shared-memory byte.
#[derive(Clone, Copy)]
struct ByteShadow {
    write: Stamp,
    /// The first reader since the write, with the largest `seq` of its warp's readers.
    read: Stamp,
    /// The lanes of `read`'s warp that read the byte.
    read_lanes: u32,
    /// A reader of another warp than `read`'s.
    cross: Stamp,
}

const UNTOUCHED: ByteShadow = ByteShadow {
    write: Stamp::NONE,
    read: Stamp::NONE,
    read_lanes: 0,
    cross: Stamp::NONE,
};

/// The warp operations one warp has completed, and what each lane knows of them.
struct WarpClocks {
    seq: u32,
    /// The latest operation all 32 lanes took part in: it ordered every lane after every other,
    /// so each entry of `known` is at least this (kept apart so that such an operation, the
    /// common one, costs O(1) instead of rewriting 32 x 32 clocks).
    full: u32,
    /// `known[lane][m]`, raised to `full`: the latest operation lane `m` took part in that
    /// `lane` is ordered after.
    known: [[u32; 32]; 32],
}

impl WarpClocks {
    /// The latest operation of lane `m` that `lane` is ordered after.
    fn known(&self, lane: usize, m: usize) -> u32 {
        self.known[lane][m].max(self.full)
    }
}

std::thread_local! {
    /// A shadow kept for the next block on this host thread: stale stamps carry an older block
    /// serial, so it needs no clearing.
    static SPARE: core::cell::RefCell<Vec<ByteShadow>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// Serial numbers of blocks, process-wide, so that intervals of different blocks never match.
static BLOCK_SERIAL: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);

/// The race detector's state of one block.
pub(crate) struct SharedRace {
    serial: u64,
    bytes: Vec<ByteShadow>,
    warps: Vec<WarpClocks>,
    /// Each thread's count of mbarrier arrivals.
    released: Vec<u32>,
    /// `acquired[t][u]`: the arrivals of thread `u` that thread `t` is ordered after, through
    /// mbarrier phases; empty until the block's first arrival.
    acquired: Vec<Vec<u32>>,
    /// Per barrier (its shared offset): the arrivals gathered in its running phase, and what the
    /// last completed phase of each parity released.
    barriers: std::collections::HashMap<usize, PhaseClocks>,
}

/// What one mbarrier's phases release (vectors over the block's threads).
#[derive(Default)]
struct PhaseClocks {
    gathering: Vec<u32>,
    completed: [Vec<u32>; 2],
}

/// `into[i] = max(into[i], from[i])`, `into` grown to `from`'s length.
fn join(into: &mut Vec<u32>, from: &[u32]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, &b) in into.iter_mut().zip(from) {
        *a = (*a).max(b);
    }
}

/// The access a race was found with.
struct Conflict {
    other: Stamp,
    same_warp: bool,
    first: usize,
    last: usize,
}

impl SharedRace {
    pub fn new(shared_bytes: usize, warps: usize) -> Self {
        let mut bytes = SPARE.with_borrow_mut(core::mem::take);
        if bytes.len() < shared_bytes {
            bytes.resize(shared_bytes, UNTOUCHED);
        }
        Self {
            serial: BLOCK_SERIAL.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            released: std::vec![0; 32 * warps],
            acquired: Vec::new(),
            barriers: std::collections::HashMap::new(),
            bytes,
            warps: (0..warps)
                .map(|_| WarpClocks {
                    seq: 0,
                    full: 0,
                    known: [[0; 32]; 32],
                })
                .collect(),
        }
    }

    /// Records that the lanes of `mask` of `warp` completed a warp operation together.
    pub fn warp_synced(&mut self, warp: usize, mask: u32) {
        let clocks = &mut self.warps[warp];
        clocks.seq += 1;
        if mask == u32::MAX {
            clocks.full = clocks.seq;
            return;
        }
        let mut joined = [clocks.full; 32];
        for lane in lanes(mask) {
            for (j, &k) in joined.iter_mut().zip(&clocks.known[lane]) {
                *j = (*j).max(k);
            }
        }
        for lane in lanes(mask) {
            joined[lane] = clocks.seq;
        }
        for lane in lanes(mask) {
            clocks.known[lane] = joined;
        }
    }

    /// Thread `rank` arrives on the barrier at `offset`: what it did so far (and what it had
    /// acquired) joins the barrier's running phase.
    pub fn arrive(&mut self, rank: usize, offset: usize) {
        let threads = self.released.len();
        if self.acquired.is_empty() {
            self.acquired = std::vec![std::vec![0; threads]; threads];
        }
        self.released[rank] += 1;
        let gathering = &mut self.barriers.entry(offset).or_default().gathering;
        join(gathering, &self.acquired[rank]);
        gathering[rank] = gathering[rank].max(self.released[rank]);
    }

    /// The running phase (of parity `parity`) of the barrier at `offset` completed.
    pub fn complete(&mut self, offset: usize, parity: u32) {
        let phases = self.barriers.entry(offset).or_default();
        phases.completed[parity as usize & 1] = core::mem::take(&mut phases.gathering);
    }

    /// Thread `rank` found the phase of parity `parity` of the barrier at `offset` complete:
    /// it is ordered after what that phase released.
    pub fn acquire(&mut self, rank: usize, offset: usize, parity: u32) {
        if let Some(phases) = self.barriers.get(&offset)
            && let Some(mine) = self.acquired.get_mut(rank)
        {
            join(mine, &phases.completed[parity as usize & 1]);
        }
    }

    /// The barrier at `offset` is initialised (again): its phases start afresh.
    pub fn forget_barrier(&mut self, offset: usize) {
        self.barriers.remove(&offset);
    }

    /// Checks an access of `rank` to bytes `offset..offset + bytes` in the block's current
    /// barrier interval, then records it; `Err` with the fault's message on a race.
    pub fn access(
        &mut self,
        block: &BlockCtx,
        rank: usize,
        offset: usize,
        bytes: usize,
        access: Access,
        site: Site,
    ) -> Result<(), String> {
        let (warp, lane) = (rank / 32, rank % 32);
        let me = Stamp {
            interval: self.serial << 32 | block.barrier_generation.get(),
            seq: self.warps[warp].seq,
            rank: rank as u32,
            released: self.released[rank],
            access,
            site: Some(site),
        };
        let clocks = &self.warps[warp];
        let acquired = self.acquired.get(rank);
        // Ordered before this access: by a barrier, by program order, through the warp, or
        // through an mbarrier phase.
        let before = |s: &Stamp| {
            s.interval != me.interval
                || s.rank == me.rank
                || (s.rank as usize / 32 == warp && clocks.known(lane, s.rank as usize % 32) > s.seq)
                || acquired.is_some_and(|known| known[s.rank as usize] > s.released)
        };
        let mut conflict: Option<Conflict> = None;
        for (k, shadow) in self.bytes[offset..offset + bytes].iter().enumerate() {
            let clash = conflict_at(shadow, &me, access, &before);
            match (&mut conflict, clash) {
                (None, Some(other)) => {
                    conflict = Some(Conflict {
                        other,
                        same_warp: other.rank as usize / 32 == warp,
                        first: offset + k,
                        last: offset + k,
                    })
                }
                (Some(c), Some(other)) if other.rank == c.other.rank && c.last + 1 == offset + k => c.last += 1,
                _ => {}
            }
        }
        if let Some(c) = conflict {
            return Err(describe(block, &me, &c));
        }
        for shadow in &mut self.bytes[offset..offset + bytes] {
            record(shadow, &me, lane, &before);
        }
        Ok(())
    }
}

impl Drop for SharedRace {
    fn drop(&mut self) {
        SPARE.with_borrow_mut(|spare| {
            if spare.len() < self.bytes.len() {
                *spare = core::mem::take(&mut self.bytes);
            }
        });
    }
}

/// The earlier access `me` races with at this byte, if any.
fn conflict_at(shadow: &ByteShadow, me: &Stamp, access: Access, before: &impl Fn(&Stamp) -> bool) -> Option<Stamp> {
    let both_atomic = |s: &Stamp| s.access == Access::ReadWrite && access == Access::ReadWrite;
    let w = &shadow.write;
    if w.interval == me.interval && !before(w) && !both_atomic(w) {
        return Some(*w);
    }
    if access == Access::Read {
        return None;
    }
    let r = &shadow.read;
    if r.interval == me.interval {
        let reader_warp = r.rank as usize / 32;
        for m in (0..32).filter(|m| shadow.read_lanes & (1 << m) != 0) {
            let reader = Stamp {
                rank: (reader_warp * 32 + m) as u32,
                ..*r
            };
            if !before(&reader) {
                return Some(reader);
            }
        }
    }
    let c = &shadow.cross;
    (c.interval == me.interval && !before(c)).then_some(*c)
}

/// Records `me` in the byte's shadow (after `conflict_at` found no race).
fn record(shadow: &mut ByteShadow, me: &Stamp, lane: usize, before: &impl Fn(&Stamp) -> bool) {
    if me.access != Access::Read {
        shadow.write = *me;
        shadow.read.interval = 0;
        shadow.cross.interval = 0;
        return;
    }
    let r = shadow.read;
    let warp = me.rank / 32;
    let readers_before = || {
        let all_lanes = (0..32).filter(|m| shadow.read_lanes & (1 << m) != 0).all(|m| {
            before(&Stamp {
                rank: r.rank / 32 * 32 + m,
                ..r
            })
        });
        all_lanes && (shadow.cross.interval != me.interval || before(&shadow.cross))
    };
    if r.interval != me.interval || readers_before() {
        shadow.read = *me;
        shadow.read_lanes = 1 << lane;
        shadow.cross.interval = 0;
    } else if r.rank / 32 == warp {
        shadow.read_lanes |= 1 << lane;
        shadow.read.seq = r.seq.max(me.seq);
    } else if shadow.cross.interval != me.interval {
        shadow.cross = *me;
    }
}

/// The fault's message: both threads, the bytes, each access, and the fix.
fn describe(block: &BlockCtx, me: &Stamp, c: &Conflict) -> String {
    let verb = |a: Access| match a {
        Access::Read => "load",
        Access::Write => "store",
        Access::ReadWrite => "atomic",
    };
    let at = |s: &Stamp| s.site.map_or(String::from("an unknown site"), |l| std::format!("{l}"));
    let [x, y, z] = block.thread_idx(c.other.rank as usize);
    let between = std::format!(
        "between the {} at {} and the {} at {}",
        verb(c.other.access),
        at(&c.other),
        verb(me.access),
        at(me)
    );
    let fix = if c.same_warp {
        std::format!(
            "both threads are lanes of warp {}, which sm_70+ does not run in lockstep: a sync_warp (__syncwarp) \
             {between}, or a barrier (sync_threads) where other warps share these bytes too",
            me.rank / 32
        )
    } else {
        std::format!("a barrier (sync_threads) {between}")
    };
    std::format!(
        "shared-memory race on bytes {}..{}: this thread's {} ({}) and thread ({x}, {y}, {z})'s earlier {} ({}) in \
         the same barrier interval, nothing ordering them; the usual fix is {fix}",
        c.first,
        c.last + 1,
        verb(me.access),
        at(me),
        verb(c.other.access),
        at(&c.other),
    )
}

#[cfg(test)]
mod tests {
    use super::SharedRace;

    /// A full-warp operation orders every lane after every other at once (the floor); a later
    /// partial one joins only its own lanes' clocks, on top of that floor.
    #[test]
    fn full_warp_floor_then_partial_join() {
        let mut race = SharedRace::new(0, 1);
        race.warp_synced(0, 0b11);
        let w = &race.warps[0];
        assert_eq!((w.known(0, 1), w.known(1, 0), w.known(2, 0)), (1, 1, 0));
        race.warp_synced(0, u32::MAX);
        let w = &race.warps[0];
        assert!((0..32).all(|l| (0..32).all(|m| w.known(l, m) == 2)));
        race.warp_synced(0, 0b100);
        race.warp_synced(0, 0b110);
        let w = &race.warps[0];
        assert_eq!((w.known(1, 2), w.known(2, 1), w.known(1, 0)), (4, 4, 2));
        assert_eq!((w.known(0, 2), w.known(3, 1), w.known(2, 2)), (2, 2, 4));
    }
}
