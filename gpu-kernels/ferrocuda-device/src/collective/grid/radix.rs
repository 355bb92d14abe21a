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
use crate::warp::{FULL_MASK, WARP_SIZE, lane_id, sync_warp};

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
    /// The unsigned integer of the key's width.
    type Ordered: RadixBits;
    /// The key's bits, turned so that unsigned order is the key's, complemented for a
    /// descending sort. Signed integers flip their sign bit; floats flip their sign bit when
    /// positive and every bit when negative, which orders them as `total_cmp` does (-NaN < -inf
    /// < .. < -0 < +0 < .. < +inf < +NaN).
    fn ordered(self, descending: bool) -> Self::Ordered;
    /// The key whose [`RadixKey::ordered`] bits are `bits`.
    fn from_ordered(bits: Self::Ordered, descending: bool) -> Self;
    /// Digit `pass` (bits `8 pass ..`) of the key's ordered bits.
    #[inline(always)]
    fn digit(self, pass: u32, descending: bool) -> u32 {
        self.ordered(descending).digit(pass)
    }
}

/// The ordered bits of a [`RadixKey`]: what a pass ranks and moves through shared memory, so a
/// key is turned once when it is read and back once when it is written.
pub trait RadixBits: Copy {
    /// Bits `8 pass .. 8 pass + 8`.
    fn digit(self, pass: u32) -> u32;
    /// [`RadixBits::digit`] by other operations (shifted to the top, then down), for a loop
    /// that needs a digit again: with one expression LLVM keeps a tile's sixteen digits in
    /// registers from the counting loop through the barriers to the ranking loop, and a pass
    /// of 4-byte keys spills at 64 registers.
    fn digit_again(self, pass: u32) -> u32;
}

macro_rules! radix_bits {
    ($($bits:ty),*) => {$(
        impl RadixBits for $bits {
            #[inline(always)]
            fn digit(self, pass: u32) -> u32 {
                (self >> (RADIX_BITS * pass)) as u32 & (RADIX_DIGITS as u32 - 1)
            }
            #[inline(always)]
            fn digit_again(self, pass: u32) -> u32 {
                const TOP: u32 = <$bits>::BITS - RADIX_BITS;
                ((self << (TOP - RADIX_BITS * pass)) >> TOP) as u32
            }
        }
    )*};
}
radix_bits!(u32, u64);

macro_rules! radix_key {
    ($($t:ty => $bits:ty, $passes:expr, |$x:ident| $ordered:expr, |$o:ident| $key:expr;)*) => {$(
        impl RadixKey for $t {
            const PASSES: usize = $passes;
            type Ordered = $bits;
            #[inline(always)]
            fn ordered(self, descending: bool) -> $bits {
                let $x = self;
                let ordered: $bits = $ordered;
                if descending { !ordered } else { ordered }
            }
            #[inline(always)]
            fn from_ordered(bits: $bits, descending: bool) -> $t {
                let $o: $bits = if descending { !bits } else { bits };
                $key
            }
        }
    )*};
}
radix_key! {
    u32 => u32, 4, |x| x, |o| o;
    i32 => u32, 4, |x| x as u32 ^ 1 << 31, |o| (o ^ 1 << 31) as i32;
    f32 => u32, 4, |x| {
        let bits = x.to_bits();
        bits ^ ((bits as i32 >> 31) as u32 | 1 << 31)
    }, |o| {
        // A set top bit marks a key that was positive: only its sign bit was flipped.
        f32::from_bits(o ^ (((o as i32 >> 31) as u32 ^ u32::MAX) | 1 << 31))
    };
    u64 => u64, 8, |x| x, |o| o;
    i64 => u64, 8, |x| x as u64 ^ 1 << 63, |o| (o ^ 1 << 63) as i64;
    f64 => u64, 8, |x| {
        let bits = x.to_bits();
        bits ^ ((bits as i64 >> 63) as u64 | 1 << 63)
    }, |o| {
        // As for `f32`.
        f64::from_bits(o ^ (((o as i64 >> 63) as u64 ^ u64::MAX) | 1 << 63))
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
        let key = args.keys.get(i).ordered(descending);
        for pass in 0..K::PASSES {
            let digit = key.digit(pass as u32) as usize;
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
    /// A pass block's shared memory: each warp's count of each digit (then where its keys of
    /// that digit go in the tile), each warp's mask of the lanes with each digit, the block
    /// scan's scratch, each digit's shift from its place
    /// in the tile to the output, the tile number, and the tile's keys and values in digit order.
    struct PassShared<K: Copy>() {
        warp_counts: Tile1d<u32>[SORT_WARPS * RADIX_DIGITS],
        peer_masks: Tile1d<u32>[SORT_WARPS * RADIX_DIGITS],
        scratch: Tile1d<u32>[BLOCK_SCAN_SCRATCH],
        digit_shift: Tile1d<u32>[RADIX_DIGITS],
        tile_number: Tile1d<u32>[1],
        keys: Tile1d<K>[SORT_TILE],
        values: Tile1d<u32>[SORT_TILE],
    }
}

/// Dynamic shared memory a pass of keys `K` needs, bytes.
pub fn radix_pass_shared_bytes<K: RadixKey>() -> usize {
    PassShared::<K::Ordered>::bytes()
}

/// One pass of the sort: one tile of [`SORT_TILE`] keys per block.
///
/// Call from: every thread of a kernel launched with blocks of [`SORT_THREADS`] threads (it traps
/// otherwise), one block per tile, [`radix_pass_shared_bytes`] of dynamic shared memory, after
/// [`radix_histogram_tiles`] has counted the keys, at most [`MAX_SORT_LEN`] keys (the host's
/// plan does all of it). Cost: each key (and value) read once and written once; per key two
/// shared atomics; per tile five barriers and a look-back by each thread over
/// its digit.
///
/// The tile's counts are taken first (CUB's early counts) and published before the keys are
/// ranked, so the tiles after this one find them while it ranks; by the time it looks back, the
/// tiles before it have most often published their prefixes.
#[inline(always)]
pub fn radix_pass_tiles<K: RadixKey>(args: RadixPassArgs<'_, K>) {
    let PassShared {
        warp_counts,
        peer_masks,
        scratch,
        digit_shift,
        tile_number,
        keys: tile_keys,
        values: tile_values,
    } = PassShared::<K::Ordered>::carve();
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
        peer_masks.set(RADIX_DIGITS * w + t, 0);
    });
    // Thread `t` stands for digit `t`: where the keys with that digit start in the output.
    let digit_count = args.histograms.get(RADIX_DIGITS * pass as usize + t);
    // Its barrier also orders the zeroing above before the counting below.
    let (digit_offset, _) = block_exclusive_scan::<u32, Sum>(digit_count, &scratch);

    // Warp-striped: key `k` of lane `l` is the warp's key `32 k + l`, so (k, lane) order is
    // input order and each load is 32 consecutive keys.
    let warp_start = start + warp * WARP_KEYS;
    // The warp's keys: key `32 k + lane` is there when below this.
    let warp_keys = n.saturating_sub(warp_start).min(WARP_KEYS) as u32;
    // Each key as its ordered bits, turned back as it is written.
    let fill = args.keys_in.get(start).ordered(descending);
    let mut keys = [fill; SORT_ITEMS];
    let lane32 = lane as u32;
    // Every load is issued before the first count: the counts' atomics would order each load
    // after the count before it.
    for_each_key!(k => {
        let at = WARP_SIZE as u32 * k as u32 + lane32;
        if at < warp_keys {
            keys[k] = args.keys_in.get(warp_start + at as usize).ordered(descending);
        }
    });
    for_each_key!(k => {
        if WARP_SIZE as u32 * k as u32 + lane32 < warp_keys {
            let slot = RADIX_DIGITS * warp + keys[k].digit(pass) as usize;
            // SAFETY: `slot < 8 * 256`, the tile's length (`warp < 8`: the block size is
            // checked above; a digit is below 256).
            unsafe { warp_counts.atomic_add_shared_unchecked(slot, 1) };
        }
    });
    // Every warp has counted its keys.
    sync_threads();
    // Thread `t`: the tile's count of digit `t`, published at once for the tiles after it.
    let mut tile_count = 0;
    crate::unroll!(w in [0, 1, 2, 3, 4, 5, 6, 7] => {
        tile_count += warp_counts.get(RADIX_DIGITS * w + t);
    });
    publish_count(&args.tile_status, tile, t, tile_count);
    // Where the tile's keys of digit `t` start in the tile, then where each warp's start.
    let (local_start, _) = block_exclusive_scan::<u32, Sum>(tile_count, &scratch);
    let mut warp_start_of_digit = local_start;
    for w in 0..SORT_WARPS {
        let slot = RADIX_DIGITS * w + t;
        let count = warp_counts.get(slot);
        warp_counts.set(slot, warp_start_of_digit);
        warp_start_of_digit += count;
    }
    // The warps' starts are written.
    sync_threads();
    // Each key's place in the tile, in input order among the keys of its digit; the key (and
    // value) go there at once.
    let lanes_below = (1u32 << lane) - 1;
    let mut places = [0u32; SORT_ITEMS];
    for_each_key!(k => {
        let valid = WARP_SIZE as u32 * k as u32 + lane32 < warp_keys;
        let slot = RADIX_DIGITS * warp + keys[k].digit_again(pass) as usize;
        // The lanes with this key's digit gather their bits in the digit's mask (CUB's
        // `WARP_MATCH_ATOMIC_OR`: one shared atomic where eight ballots cost forty instructions).
        if valid {
            // SAFETY: `slot < 8 * 256`, both tiles' length (as above).
            unsafe { peer_masks.atomic_or_shared_unchecked(slot, 1 << lane) };
        }
        // Every bit is in.
        sync_warp(FULL_MASK);
        let (peers, placed) = if valid {
            // SAFETY: as above.
            unsafe { (peer_masks.get_unchecked(slot), warp_counts.get_unchecked(slot)) }
        } else {
            (0, 0)
        };
        // Every peer has read the mask and the place before the first of them resets them.
        sync_warp(FULL_MASK);
        if valid {
            let before = (peers & lanes_below).count_ones();
            if before == 0 {
                // SAFETY: as above.
                unsafe {
                    warp_counts.set_unchecked(slot, placed + peers.count_ones());
                    peer_masks.set_unchecked(slot, 0);
                }
            }
            places[k] = placed + before;
            tile_keys.set(places[k] as usize, keys[k]);
        }
        // The next key's peers find the mask clear and the place moved on.
        sync_warp(FULL_MASK);
    });
    if !args.values_in.is_empty() {
        // Loaded together, as the keys, then placed as they were.
        let mut values = [0u32; SORT_ITEMS];
        for_each_key!(k => {
            let at = WARP_SIZE as u32 * k as u32 + lane32;
            if at < warp_keys {
                values[k] = args.values_in.get(warp_start + at as usize);
            }
        });
        for_each_key!(k => {
            if WARP_SIZE as u32 * k as u32 + lane32 < warp_keys {
                tile_values.set(places[k] as usize, values[k]);
            }
        });
    }
    let before_tile = look_back(&args.tile_status, tile, t, tile_count);
    digit_shift.set(t, (digit_offset + before_tile).wrapping_sub(local_start));
    // The tile's keys and values are in digit order; the digits' shifts are written.
    sync_threads();
    // Thread `t` writes places `t + 256 j`: runs of one digit go to consecutive addresses.
    let in_tile = (n - start).min(SORT_TILE);
    for_each_key!(j => {
        let at = t + SORT_THREADS * j;
        if at < in_tile {
            // SAFETY: `at < in_tile <= SORT_TILE`, the tile's length.
            let key = unsafe { tile_keys.get_unchecked(at) };
            // SAFETY: a digit is below 256, `digit_shift`'s length.
            let shift = unsafe { digit_shift.get_unchecked(key.digit(pass) as usize) };
            let to = (at as u32).wrapping_add(shift) as usize;
            args.keys_out.set(to, K::from_ordered(key, descending));
            if !args.values_in.is_empty() {
                // SAFETY: as for the key.
                args.values_out.set(to, unsafe { tile_values.get_unchecked(at) });
            }
        }
    });
}

/// Descriptor `digit` of `tile`.
#[inline(always)]
fn status_slot(tile: usize, digit: usize) -> usize {
    RADIX_DIGITS * tile + digit
}

/// Publishes this tile's `count` of digit `digit`: as its prefix when it is the first tile, as
/// its own count for [`look_back`] to finish otherwise.
///
/// Call from: the thread of digit `digit` of every tile's block, each tile once per pass.
#[inline(always)]
fn publish_count(status: &SliceMut<'_, u32>, tile: usize, digit: usize, count: u32) {
    let flag = if tile == 0 { PREFIX } else { AGGREGATE };
    status.set_volatile(status_slot(tile, digit), flag | count);
}

/// The count of digit `digit` in the tiles before `tile`: reads the tiles before it, nearest
/// first, until one holds its inclusive prefix; then publishes this tile's.
///
/// Call from: the thread that ran [`publish_count`] for `tile` and `digit`, with its `count`.
#[inline(always)]
fn look_back(status: &SliceMut<'_, u32>, tile: usize, digit: usize, count: u32) -> u32 {
    if tile == 0 {
        return 0;
    }
    let mut before = 0;
    let mut earlier = tile;
    loop {
        earlier -= 1;
        let word = loop {
            let word = status.get_volatile(status_slot(earlier, digit));
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
    status.set_volatile(status_slot(tile, digit), PREFIX | (before + count));
    before
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn round_trips_in_order<K: RadixKey + BitsEq + core::fmt::Debug>(sorted: &[K])
    where
        K::Ordered: Ord + core::fmt::Debug,
    {
        for descending in [false, true] {
            let ordered: Vec<K::Ordered> = sorted.iter().map(|k| k.ordered(descending)).collect();
            for (k, &bits) in sorted.iter().zip(&ordered) {
                assert!(K::from_ordered(bits, descending).to_bits_eq(k), "{k:?}");
            }
            let rising = ordered
                .windows(2)
                .all(|w| if descending { w[0] > w[1] } else { w[0] < w[1] });
            assert!(rising, "{sorted:?} descending {descending}: {ordered:?}");
        }
    }

    /// Equality of bits, so NaNs and zeros count as the keys they are.
    trait BitsEq {
        fn to_bits_eq(&self, other: &Self) -> bool;
    }
    macro_rules! bits_eq {
        ($($t:ty => |$x:ident| $bits:expr),*) => {$(
            impl BitsEq for $t {
                fn to_bits_eq(&self, other: &Self) -> bool {
                    let bits = |$x: &$t| $bits;
                    bits(self) == bits(other)
                }
            }
        )*};
    }
    bits_eq!(u32 => |x| u64::from(*x), i32 => |x| *x as u64, f32 => |x| u64::from(x.to_bits()),
             u64 => |x| *x, i64 => |x| *x as u64, f64 => |x| x.to_bits());

    /// `from_ordered` undoes `ordered`, and the ordered bits rise as the keys (as `total_cmp`
    /// orders floats), both ways.
    #[test]
    fn ordered_bits_round_trip_in_key_order() {
        round_trips_in_order(&[0u32, 1, 255, 256, u32::MAX]);
        round_trips_in_order(&[i32::MIN, -256, -1, 0, 1, i32::MAX]);
        round_trips_in_order(&[0u64, 1 << 40, u64::MAX]);
        round_trips_in_order(&[i64::MIN, -1, 0, i64::MAX]);
        let nan = f32::NAN;
        round_trips_in_order(&[
            -nan,
            f32::NEG_INFINITY,
            -1.5,
            -f32::MIN_POSITIVE / 2.0,
            -0.0,
            0.0,
            1e-45,
            2.5,
            f32::INFINITY,
            nan,
        ]);
        let nan = f64::NAN;
        round_trips_in_order(&[
            -nan,
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            5e-324,
            2.5,
            f64::INFINITY,
            nan,
        ]);
    }
}
