//! Radix sort, least significant digit first, 8 bits a pass, each pass one launch (CUB's
//! `DeviceRadixSort` onesweep: Adinets and Merrill, "Onesweep: A Faster Least Significant Digit
//! Radix Sort for GPUs", 2022).
//!
//! [`radix_histogram_tiles`] counts every pass's digits in one read of the keys; each pass then
//! ([`radix_pass_tiles`]) ranks a tile's keys by their digit in shared memory, finds where each
//! digit's share of the tile goes by a look-back over the counts the tiles before it published
//! (one descriptor per tile and digit), and scatters keys (and values) there. The ranks keep the
//! input order among equal digits, so each pass is stable, and so is the sort.
use super::look_back::take_tile;
use crate::collective::Sum;
use crate::collective::block::{BLOCK_SCAN_SCRATCH, block_exclusive_scan};
use crate::global::{Element, Slice, SliceMut};
use crate::index::{block_dim, thread_idx_x};
use crate::shared::Tile1d;
use crate::sync::{nanosleep, sync_threads};
use crate::warp::{FULL_MASK, WARP_SIZE, lane_id, sync_warp, vote_ballot_sync};

/// Bits of a key each pass sorts by.
pub const RADIX_BITS: u32 = 8;
/// Digits of a pass: counters per pass in the histograms, descriptors per tile.
pub const RADIX_DIGITS: usize = 1 << RADIX_BITS;
/// Threads per block of a pass: one per digit.
pub const SORT_THREADS: usize = RADIX_DIGITS;
/// Keys each thread ranks.
pub const SORT_ITEMS: usize = 16;
/// Keys per tile: one block's share in a pass.
pub const SORT_TILE: usize = SORT_THREADS * SORT_ITEMS;
/// The most keys a sort takes: a descriptor holds a count in 30 bits.
pub const MAX_SORT_LEN: usize = COUNT_MASK as usize;
/// Warps per pass block.
const SORT_WARPS: usize = SORT_THREADS / WARP_SIZE;
/// Keys per warp's share of a tile.
const WARP_KEYS: usize = WARP_SIZE * SORT_ITEMS;

/// Repeats `$body` for each of a thread's keys, `$k` a constant in each copy (see `unroll!`).
macro_rules! for_each_key {
    ($k:ident => $body:block) => {
        crate::unroll!($k in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => $body)
    };
}
const _: () = assert!(SORT_ITEMS == 16, "for_each_key lists sixteen keys");

/// A descriptor's flag: it holds the tile's own count of the digit.
const AGGREGATE: u32 = 1 << 30;
/// A descriptor's flag: it holds the count of the digit in every tile up to this one.
const PREFIX: u32 = 2 << 30;
/// A descriptor's count.
const COUNT_MASK: u32 = (1 << 30) - 1;
/// Nanoseconds a thread sleeps between two polls of a descriptor not yet published.
const POLL_INTERVAL_NS: u32 = 200;

/// A key type the radix sort orders: its bits, turned so that unsigned order is the key's.
pub trait RadixKey: Element {
    /// Passes of [`RADIX_BITS`] bits that cover the key.
    const PASSES: usize;
    /// Digit `pass` (bits `8 pass ..`) of the key's ordered bits, complemented for a descending
    /// sort. Signed integers flip their sign bit; floats flip their sign bit when positive and
    /// every bit when negative, which orders them as `total_cmp` does (-NaN < -inf < .. < -0 <
    /// +0 < .. < +inf < +NaN).
    fn digit(self, pass: u32, descending: bool) -> u32;
}

macro_rules! radix_key {
    ($($t:ty => $bits:ty, $passes:expr, |$x:ident| $ordered:expr;)*) => {$(
        impl RadixKey for $t {
            const PASSES: usize = $passes;
            #[inline(always)]
            fn digit(self, pass: u32, descending: bool) -> u32 {
                let $x = self;
                let ordered: $bits = $ordered;
                let ordered = if descending { !ordered } else { ordered };
                (ordered >> (RADIX_BITS * pass)) as u32 & (RADIX_DIGITS as u32 - 1)
            }
        }
    )*};
}
radix_key! {
    u32 => u32, 4, |x| x;
    i32 => u32, 4, |x| x as u32 ^ 1 << 31;
    f32 => u32, 4, |x| {
        let bits = x.to_bits();
        bits ^ ((bits as i32 >> 31) as u32 | 1 << 31)
    };
    u64 => u64, 8, |x| x;
    i64 => u64, 8, |x| x as u64 ^ 1 << 63;
    f64 => u64, 8, |x| {
        let bits = x.to_bits();
        bits ^ ((bits as i64 >> 63) as u64 | 1 << 63)
    };
}

/// The arguments of [`radix_histogram_tiles`]: `histograms[RADIX_DIGITS * pass + d]` gains the
/// number of `keys` whose digit `pass` is `d`, for every pass.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
pub struct RadixHistogramArgs<'a, K> {
    pub keys: Slice<'a, K>,
    /// `K::PASSES * RADIX_DIGITS` counters, zero before the launch.
    pub histograms: SliceMut<'a, u32>,
    /// 1 for a descending sort.
    pub descending: u32,
}

crate::shared_layout! {
    /// A histogram block's shared memory: its counts of every pass's digits.
    struct HistogramShared() {
        counts: Tile1d<u32>[8 * RADIX_DIGITS],
    }
}

/// Dynamic shared memory a histogram launch needs, bytes.
pub fn radix_histogram_shared_bytes() -> usize {
    HistogramShared::bytes()
}

/// Counts every pass's digits of `args.keys` into `args.histograms`.
///
/// Call from: every thread of any grid of one-dimensional blocks (grid-stride), with
/// [`radix_histogram_shared_bytes`] of dynamic shared memory. Cost: each key read once; per key
/// one shared atomic a pass; per block one global atomic per non-zero counter.
#[inline(always)]
pub fn radix_histogram_tiles<K: RadixKey>(args: RadixHistogramArgs<'_, K>) {
    let HistogramShared { counts } = HistogramShared::carve();
    let (t, threads) = (thread_idx_x(), block_dim().x);
    let counters = K::PASSES * RADIX_DIGITS;
    let mut i = t;
    while i < counters {
        counts.set(i, 0);
        i += threads;
    }
    sync_threads();
    let descending = args.descending != 0;
    for i in crate::index::grid_stride_range(args.keys.len()) {
        let key = args.keys.get(i);
        for pass in 0..K::PASSES {
            let digit = key.digit(pass as u32, descending) as usize;
            counts.atomic_add_shared(RADIX_DIGITS * pass + digit, 1);
        }
    }
    sync_threads();
    let mut i = t;
    while i < counters {
        let count = counts.get(i);
        if count != 0 {
            args.histograms.atomic_add_no_return(i, count);
        }
        i += threads;
    }
}

/// The arguments of one pass ([`radix_pass_tiles`]): `keys_in` ordered by digit `pass` (stably)
/// into `keys_out`, and `values_in` into `values_out` alongside when they are not empty.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
#[kernel_args(same_len(keys_in, keys_out), same_len(values_in, values_out))]
pub struct RadixPassArgs<'a, K> {
    pub keys_in: Slice<'a, K>,
    pub keys_out: SliceMut<'a, K>,
    /// As long as the keys, or empty for a sort of keys alone.
    pub values_in: Slice<'a, u32>,
    pub values_out: SliceMut<'a, u32>,
    /// The counts of [`radix_histogram_tiles`].
    pub histograms: Slice<'a, u32>,
    /// `RADIX_DIGITS` descriptors per tile, zero before the launch.
    pub tile_status: SliceMut<'a, u32>,
    pub tile_counter: SliceMut<'a, u32>,
    pub pass: u32,
    pub descending: u32,
    /// `tile_counter` before this launch (see `ScanArgs::ticket_base`).
    pub ticket_base: u32,
}

crate::shared_layout! {
    /// A pass block's shared memory: each warp's count of each digit, the block scan's scratch,
    /// each digit's start in the tile and its shift from there to the output, the tile number,
    /// and the tile's keys and values in digit order.
    struct PassShared<K: Copy>() {
        warp_counts: Tile1d<u32>[SORT_WARPS * RADIX_DIGITS],
        scratch: Tile1d<u32>[BLOCK_SCAN_SCRATCH],
        digit_start: Tile1d<u32>[RADIX_DIGITS],
        digit_shift: Tile1d<u32>[RADIX_DIGITS],
        tile_number: Tile1d<u32>[1],
        keys: Tile1d<K>[SORT_TILE],
        values: Tile1d<u32>[SORT_TILE],
    }
}

/// Dynamic shared memory a pass of keys `K` needs, bytes.
pub fn radix_pass_shared_bytes<K: Copy>() -> usize {
    PassShared::<K>::bytes()
}

/// One pass of the sort: one tile of [`SORT_TILE`] keys per block.
///
/// Call from: every thread of a kernel launched with blocks of [`SORT_THREADS`] threads (it traps
/// otherwise), one block per tile, [`radix_pass_shared_bytes`] of dynamic shared memory, after
/// [`radix_histogram_tiles`] has counted the keys, at most [`MAX_SORT_LEN`] keys (the host's
/// plan does all of it). Cost: each key (and value) read once and written once; per tile four
/// barriers and a look-back by each thread over its digit.
#[inline(always)]
pub fn radix_pass_tiles<K: RadixKey>(args: RadixPassArgs<'_, K>) {
    let PassShared {
        warp_counts,
        scratch,
        digit_start,
        digit_shift,
        tile_number,
        keys: tile_keys,
        values: tile_values,
    } = PassShared::<K>::carve();
    // The unchecked shared accesses below count on `SORT_THREADS` threads: at most 8 warps.
    if block_dim().x != SORT_THREADS {
        crate::global::bounds_failure()
    }
    let tile = take_tile(&args.tile_counter, args.ticket_base, &tile_number);
    let n = args.keys_in.len();
    let start = tile * SORT_TILE;
    if start >= n {
        return;
    }
    let (t, warp, lane) = (thread_idx_x(), thread_idx_x() / WARP_SIZE, lane_id());
    let (pass, descending) = (args.pass, args.descending != 0);
    crate::unroll!(w in [0, 1, 2, 3, 4, 5, 6, 7] => {
        warp_counts.set(RADIX_DIGITS * w + t, 0);
    });
    // Thread `t` stands for digit `t`: where the keys with that digit start in the output.
    let digit_count = args.histograms.get(RADIX_DIGITS * pass as usize + t);
    let (digit_offset, _) = block_exclusive_scan::<u32, Sum>(digit_count, &scratch);

    // Warp-striped: key `k` of lane `l` is the warp's key `32 k + l`, so (k, lane) order is
    // input order and each load is 32 consecutive keys.
    let warp_start = start + warp * WARP_KEYS;
    // The warp's keys: key `32 k + lane` is there when below this.
    let warp_keys = n.saturating_sub(warp_start).min(WARP_KEYS) as u32;
    let fill = args.keys_in.get(start);
    let mut keys = [fill; SORT_ITEMS];
    let lane32 = lane as u32;
    for_each_key!(k => {
        let at = WARP_SIZE as u32 * k as u32 + lane32;
        if at < warp_keys {
            keys[k] = args.keys_in.get(warp_start + at as usize);
        }
    });
    // Each key's rank among the keys of its warp with its digit, in input order; the warp's
    // count of each digit accumulates in `warp_counts`.
    let lanes_below = (1u32 << lane) - 1;
    let mut ranks = [0u32; SORT_ITEMS];
    for_each_key!(k => {
        let valid = WARP_SIZE as u32 * k as u32 + lane32 < warp_keys;
        let digit = keys[k].digit(pass, descending);
        let peers = lanes_with_digit(digit, vote_ballot_sync(FULL_MASK, valid));
        let before = (peers & lanes_below).count_ones();
        let slot = RADIX_DIGITS * warp + digit as usize;
        // SAFETY: `slot < 8 * 256`, the tile's length (`warp < 8`: the block size is checked
        // above; `digit < 256`).
        let counted = if valid { unsafe { warp_counts.get_unchecked(slot) } } else { 0 };
        // Every peer has read the count before the first of them raises it.
        sync_warp(FULL_MASK);
        if valid && before == 0 {
            // SAFETY: as above.
            unsafe { warp_counts.set_unchecked(slot, counted + peers.count_ones()) };
        }
        sync_warp(FULL_MASK);
        ranks[k] = counted + before;
    });
    // Every warp has counted its keys.
    sync_threads();
    // Thread `t`: the tile's count of digit `t`, and each warp's start among those keys.
    let mut tile_count = 0;
    crate::unroll!(w in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let count = warp_counts.get(RADIX_DIGITS * w + t);
        warp_counts.set(RADIX_DIGITS * w + t, tile_count);
        tile_count += count;
    });
    let before_tile = digit_prefix(&args.tile_status, tile, t, tile_count);
    let (local_start, _) = block_exclusive_scan::<u32, Sum>(tile_count, &scratch);
    digit_start.set(t, local_start);
    digit_shift.set(t, (digit_offset + before_tile).wrapping_sub(local_start));
    // The digits' starts and shifts and the warps' starts are written.
    sync_threads();
    // Each key's (and value's) place in the tile, in digit order.
    let with_values = !args.values_in.is_empty();
    for_each_key!(k => {
        let at_in_warp = WARP_SIZE as u32 * k as u32 + lane32;
        if at_in_warp < warp_keys {
            let digit = keys[k].digit(pass, descending) as usize;
            // SAFETY: `digit < 256` and `warp < 8` (as above), inside both tiles.
            let at = ranks[k]
                + unsafe { digit_start.get_unchecked(digit) + warp_counts.get_unchecked(RADIX_DIGITS * warp + digit) };
            let at = at as usize;
            tile_keys.set(at, keys[k]);
            if with_values {
                tile_values.set(at, args.values_in.get(warp_start + at_in_warp as usize));
            }
        }
    });
    // The tile's keys and values are in digit order.
    sync_threads();
    // Thread `t` writes places `t + 256 j`: runs of one digit go to consecutive addresses.
    let in_tile = (n - start).min(SORT_TILE);
    for_each_key!(j => {
        let at = t + SORT_THREADS * j;
        if at < in_tile {
            // SAFETY: `at < in_tile <= SORT_TILE`, the tile's length.
            let key = unsafe { tile_keys.get_unchecked(at) };
            // SAFETY: a digit is below 256, `digit_shift`'s length.
            let shift = unsafe { digit_shift.get_unchecked(key.digit(pass, descending) as usize) };
            let to = (at as u32).wrapping_add(shift) as usize;
            args.keys_out.set(to, key);
            if with_values {
                // SAFETY: as for the key.
                args.values_out.set(to, unsafe { tile_values.get_unchecked(at) });
            }
        }
    });
}

/// The lanes of `valid` whose digit is the calling lane's: eight ballots, one per bit (the
/// emulation of `match.any.sync` CUB uses too).
///
/// Call from: the 32 lanes of the warp, converged.
#[inline(always)]
fn lanes_with_digit(digit: u32, valid: u32) -> u32 {
    let mut peers = valid;
    crate::unroll!(bit in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let set = digit >> bit & 1 != 0;
        let votes = vote_ballot_sync(FULL_MASK, set);
        peers &= if set { votes } else { !votes };
    });
    peers
}

/// The count of digit `digit` in the tiles before `tile`: publishes this tile's `count` at once,
/// then reads the tiles before it, nearest first, until one holds its inclusive prefix; then
/// publishes this tile's.
///
/// Call from: the thread of digit `digit` of every tile's block, each tile once per pass.
#[inline(always)]
fn digit_prefix(status: &SliceMut<'_, u32>, tile: usize, digit: usize, count: u32) -> u32 {
    let slot = |tile: usize| RADIX_DIGITS * tile + digit;
    if tile == 0 {
        status.set_volatile(slot(0), PREFIX | count);
        return 0;
    }
    status.set_volatile(slot(tile), AGGREGATE | count);
    let mut before = 0;
    let mut earlier = tile;
    loop {
        earlier -= 1;
        let word = loop {
            let word = status.get_volatile(slot(earlier));
            if word != 0 {
                break word;
            }
            nanosleep(POLL_INTERVAL_NS);
        };
        before += word & COUNT_MASK;
        if word & PREFIX != 0 {
            break;
        }
    }
    status.set_volatile(slot(tile), PREFIX | (before + count));
    before
}
