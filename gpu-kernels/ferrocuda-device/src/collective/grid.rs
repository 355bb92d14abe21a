//! Device-wide collectives: one launch whose blocks cooperate through global memory (CUB's agents,
//! `AgentScan` with its `ScanTileState`). A kernel hands its arguments to [`scan_tiles`]; the host
//! plans the launch and the temporary buffers (`ferrocuda::scan`), or a user's own kernel does the
//! same with its own associative operation.
//!
//! The scan is single-pass with decoupled look-back (Merrill and Garland, "Single-pass Parallel
//! Prefix Scan with Decoupled Look-back", NVIDIA 2016): each block takes the next tile in the
//! order blocks start, scans it, publishes the tile's total at once, then looks back over the
//! tiles before it, adding their totals until it meets one that has published its inclusive
//! prefix. Every element is read once and written once.
use super::ReduceOp;
use super::block::{BLOCK_SCAN_SCRATCH, block_exclusive_scan_with_prefix};
use super::warp::warp_reduce_reversed_to_lane0;
use crate::global::{Element4, Slice, SliceMut};
use crate::index::thread_idx_x;
use crate::shared::{Tile1d, Tile2d};
use crate::sync::{nanosleep, thread_fence};
use crate::warp::{FULL_MASK, Shuffle, WARP_SIZE, lane_id, sync_warp, vote_ballot_sync};

/// Threads per block of every scan launch: four warps, as CUB's sm_90 tuning for 4-byte sums.
pub const SCAN_THREADS: usize = 128;
/// Consecutive elements each thread scans.
pub const SCAN_ITEMS: usize = 24;
/// Elements per tile: one block's share.
pub const SCAN_TILE: usize = SCAN_THREADS * SCAN_ITEMS;
/// Chunks of four elements each thread scans.
const SCAN_CHUNKS: usize = SCAN_ITEMS / 4;

/// Repeats `$body` for each of a thread's chunks, `$k` a constant in each copy, so that the
/// thread's elements stay in registers (a loop LLVM leaves rolled would index them at run time).
macro_rules! for_each_chunk {
    ($k:ident => $body:block) => {
        crate::unroll!($k in [0, 1, 2, 3, 4, 5] => $body)
    };
}
const _: () = assert!(SCAN_CHUNKS == 6, "for_each_chunk lists six chunks");
/// Warps per scan block.
const SCAN_WARPS: usize = SCAN_THREADS / WARP_SIZE;
/// Elements per warp's share of a tile.
const WARP_TILE: usize = WARP_SIZE * SCAN_ITEMS;

/// 16-byte chunk slots per lane in the exchange: its chunks and one of padding, so that the eight
/// lanes of each phase of a 16-byte shared access start 28 words apart and meet eight different
/// groups of four banks (without the padding, 24 words apart, two lanes share a group).
const LANE_SLOTS: usize = SCAN_CHUNKS + 1;

/// Each warp's share of a full tile, in shared memory, one row per warp: loaded there in 16-byte
/// chunks that lanes take in turn (each load instruction reads 512 contiguous bytes), then read
/// back by each lane as its own consecutive elements; and the same way out (CUB's
/// `BLOCK_LOAD_WARP_TRANSPOSE`).
type Exchange<T> = Tile2d<T, SCAN_WARPS, { WARP_SIZE * LANE_SLOTS * 4 }, 0>;

/// The exchange slot of the warp's chunk `chunk` (in global order): lane `chunk / SCAN_CHUNKS`'s
/// slot `chunk % SCAN_CHUNKS`.
#[inline(always)]
fn exchange_slot(chunk: usize) -> usize {
    chunk / SCAN_CHUNKS * LANE_SLOTS + chunk % SCAN_CHUNKS
}

crate::shared_layout! {
    /// A scan block's shared memory: the exchange, the block scan's scratch, the tile number.
    struct ScanShared<T: Copy>() {
        exchange: Exchange<T>,
        scratch: Tile1d<T>[BLOCK_SCAN_SCRATCH],
        tile_number: Tile1d<u32>[1],
    }
}

/// Dynamic shared memory a scan launch of `T` needs, bytes.
pub fn scan_shared_bytes<T: Copy>() -> usize {
    ScanShared::<T>::bytes()
}

/// The arguments of a device-wide scan: `output[i]` receives the scan of `input[..=i]`
/// (inclusive) or of `input[..i]` (exclusive), after `initial`.
///
/// `tile_status` holds one descriptor per tile, `tile_values` two values per tile (its total,
/// then its inclusive prefix, for the types a descriptor cannot hold whole), `tile_counter` the
/// tickets blocks have taken. A scan reads only descriptors stamped with its own `epoch`, so the
/// next scan needs no zeroing pass: the host's plan counts epochs and tickets, and zeroes the
/// buffers (`scan_init`) once in [`MAX_EPOCH`] scans.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
#[kernel_args(same_len(input, output))]
pub struct ScanArgs<'a, T> {
    pub input: Slice<'a, T>,
    pub output: SliceMut<'a, T>,
    pub tile_status: SliceMut<'a, u64>,
    pub tile_values: SliceMut<'a, T>,
    pub tile_counter: SliceMut<'a, u32>,
    /// What comes before `input[0]`: the operation's identity for a plain scan.
    pub initial: T,
    /// 1 for an exclusive scan, 0 for an inclusive one.
    pub exclusive: u32,
    /// This scan's stamp, 1 to [`MAX_EPOCH`], different from the last scan's with these buffers.
    pub epoch: u32,
    /// `tile_counter` before this launch: in the simulator the block that takes ticket
    /// `ticket_base + t` scans tile `t` (on the GPU, block `t` does).
    pub ticket_base: u32,
}

/// The largest epoch: two bits of a descriptor's stamp hold its flag.
pub const MAX_EPOCH: u32 = (1 << 30) - 1;

/// A descriptor's flag: it holds the tile's own total.
const AGGREGATE: u32 = 1;
/// A descriptor's flag: it holds the total of every element up to the tile's last, `initial`
/// included.
const PREFIX: u32 = 2;

/// An element type a device-wide scan publishes tile totals of: its descriptor is seen whole by
/// the blocks that look back at it.
pub trait TileDescriptor: Shuffle + Element4 {
    /// Publishes `value` as tile `tile`'s descriptor, stamped `stamp` (epoch and flag).
    fn publish(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self);
    /// Waits until tile `tile` has published in `epoch`; its flag and value.
    fn wait(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self);
}

/// A descriptor's stamp: the scan's epoch above its flag.
#[inline(always)]
fn stamp(epoch: u32, flag: u32) -> u32 {
    epoch << 2 | flag
}

/// Nanoseconds a lane sleeps between two polls of a descriptor: long enough that the polls of
/// the waiting warps do not crowd the loads and stores of the others, short beside a tile's scan.
const POLL_INTERVAL_NS: u32 = 500;

/// Nanoseconds a look-back waits after publishing the tile's total before its first poll: about
/// the L2 write latency, so that the tiles before it have had time to publish too (CUB's
/// `fixed_delay_constructor_t`, 1140 ns on sm_90).
const FIRST_POLL_DELAY_NS: u32 = 1000;

/// 4-byte values share one 8-byte word with their stamp: one store publishes both, one load reads
/// both, no fence between.
macro_rules! packed_descriptor {
    ($($t:ty),*) => {$(
        impl TileDescriptor for $t {
            #[inline(always)]
            fn publish(status: &SliceMut<'_, u64>, _: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self) {
                status.set_volatile(tile, u64::from(stamp) << 32 | u64::from(value.to_bits_u32()));
            }
            #[inline(always)]
            fn wait(status: &SliceMut<'_, u64>, _: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self) {
                loop {
                    let word = status.get_volatile(tile);
                    let stamp = (word >> 32) as u32;
                    if stamp >> 2 == epoch {
                        return (stamp & 3, <$t>::from_bits_u32(word as u32));
                    }
                    nanosleep(POLL_INTERVAL_NS);
                }
            }
        }
    )*};
}
packed_descriptor!(i32, u32, f32);

/// 8-byte values go to their own array before the stamp, a device fence between, and are read
/// after the stamp, a fence between (the message-passing pattern of the PTX memory model). A tile's
/// total and its inclusive prefix have a slot each (`tile` and `tiles + tile`), each written once
/// per launch: a reader that saw the total's stamp cannot read the prefix written after it.
macro_rules! fenced_descriptor {
    ($($t:ty),*) => {$(
        impl TileDescriptor for $t {
            #[inline(always)]
            fn publish(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self) {
                values.set_volatile(value_slot(status, tile, stamp & 3), value);
                thread_fence();
                status.set_volatile(tile, u64::from(stamp));
            }
            #[inline(always)]
            fn wait(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self) {
                loop {
                    let stamp = status.get_volatile(tile) as u32;
                    if stamp >> 2 == epoch {
                        thread_fence();
                        return (stamp & 3, values.get_volatile(value_slot(status, tile, stamp & 3)));
                    }
                    nanosleep(POLL_INTERVAL_NS);
                }
            }
        }
    )*};
}
fenced_descriptor!(u64, f64);

/// Where tile `tile`'s value with `flag` lives in `tile_values`.
#[inline(always)]
fn value_slot(status: &SliceMut<'_, u64>, tile: usize, flag: u32) -> usize {
    if flag == PREFIX { status.len() + tile } else { tile }
}

/// The bits of a 4-byte value, for packing beside a flag.
trait Bits32: Copy {
    fn to_bits_u32(self) -> u32;
    fn from_bits_u32(bits: u32) -> Self;
}
macro_rules! bits32 {
    ($($t:ty),*) => {$(
        impl Bits32 for $t {
            #[inline(always)]
            fn to_bits_u32(self) -> u32 {
                u32::from_ne_bytes(self.to_ne_bytes())
            }
            #[inline(always)]
            fn from_bits_u32(bits: u32) -> Self {
                <$t>::from_ne_bytes(bits.to_ne_bytes())
            }
        }
    )*};
}
bits32!(i32, u32, f32);

/// Scans `args.input` into `args.output` with `O`, one tile of [`SCAN_TILE`] elements per block.
///
/// Call from: every thread of a kernel launched with blocks of [`SCAN_THREADS`] threads, at least
/// `ceil(n / SCAN_TILE)` blocks (extra blocks return at once), [`scan_shared_bytes`] of dynamic
/// shared memory, and the epoch and tickets of [`ScanArgs`] (the host's plan does all of it). `O`
/// may be any associative operation; it need not commute. Cost: each element read once and
/// written once; per tile three barriers and a look-back by one warp.
#[inline(always)]
pub fn scan_tiles<T: TileDescriptor, O: ReduceOp<T>>(args: ScanArgs<'_, T>) {
    let ScanShared {
        exchange,
        scratch,
        tile_number,
    } = ScanShared::<T>::carve();
    let rank = thread_idx_x();
    let tile = take_tile(&args, &tile_number);
    let n = args.input.len();
    let start = tile * SCAN_TILE;
    if start >= n {
        return;
    }
    let (warp, lane) = (rank / WARP_SIZE, lane_id());
    // In 16-byte chunks: the first of this warp's share, and the first of this lane's elements.
    let warp_chunk = (start + warp * WARP_TILE) / 4;
    let lane_slot = lane * LANE_SLOTS;
    let first = start + rank * SCAN_ITEMS;
    let full_tile = n - start >= SCAN_TILE && args.input.is_aligned16() && args.output.is_aligned16();
    // The thread's elements as chunks of four, every index a constant (`unroll!`), so the array
    // stays in registers.
    let mut items = [[O::identity(); 4]; SCAN_CHUNKS];
    if full_tile {
        for_each_chunk!(k => {
            let chunk = lane + WARP_SIZE * k;
            exchange.set4(warp, exchange_slot(chunk), args.input.get4(warp_chunk + chunk));
        });
        // The warp's lanes wrote its share; each now reads its own elements.
        sync_warp(FULL_MASK);
        for_each_chunk!(k => {
            items[k] = exchange.get4(warp, lane_slot + k);
        });
    } else {
        for_each_chunk!(k => {
            crate::unroll!(j in [0, 1, 2, 3] => {
                if first + 4 * k + j < n {
                    items[k][j] = args.input.get(first + 4 * k + j);
                }
            });
        });
    }
    // Inclusive within the thread; `before[k][j]` is what comes before element `4k + j`.
    let mut running = O::identity();
    let mut before = items;
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            before[k][j] = running;
            running = O::combine(running, items[k][j]);
        });
    });
    let (prefix, _) = block_exclusive_scan_with_prefix::<T, O>(running, &scratch, |tile_total| {
        tile_prefix::<T, O>(&args, tile, tile_total)
    });
    let exclusive = args.exclusive != 0;
    let mut scanned = items;
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            let within = if exclusive { before[k][j] } else { O::combine(before[k][j], items[k][j]) };
            scanned[k][j] = O::combine(prefix, within);
        });
    });
    if full_tile {
        // The block scan's barriers separate every lane's reads of the exchange from these writes.
        for_each_chunk!(k => {
            exchange.set4(warp, lane_slot + k, scanned[k]);
        });
        sync_warp(FULL_MASK);
        for_each_chunk!(k => {
            let chunk = lane + WARP_SIZE * k;
            args.output.set4(warp_chunk + chunk, exchange.get4(warp, exchange_slot(chunk)));
        });
    } else {
        for_each_chunk!(k => {
            crate::unroll!(j in [0, 1, 2, 3] => {
                if first + 4 * k + j < n {
                    args.output.set(first + 4 * k + j, scanned[k][j]);
                }
            });
        });
    }
}

/// The tile the calling block scans. A block looks back only at tiles of blocks that started
/// before it, so the scan progresses as long as a block that started runs on.
///
/// On the GPU, tile `blockIdx.x`: blocks of a one-dimensional grid start in index order (CUB's
/// `DeviceScan` relies on it too), and the block's loads need not wait for a ticket.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn take_tile<T>(_: &ScanArgs<'_, T>, _: &Tile1d<u32>) -> usize {
    crate::index::block_idx().x
}

/// The tile the calling block scans: in the simulator, which runs blocks in any order, the next
/// ticket, in the order blocks start (thread 0 takes it, the block reads it from `tile_number`).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn take_tile<T>(args: &ScanArgs<'_, T>, tile_number: &Tile1d<u32>) -> usize {
    if thread_idx_x() == 0 {
        tile_number.set(0, args.tile_counter.atomic_add(0, 1).wrapping_sub(args.ticket_base));
    }
    crate::sync::sync_threads();
    tile_number.get(0) as usize
}

/// The total of every element before tile `tile` (with `initial`), found by looking back over
/// the tiles' descriptors; publishes this tile's total first and its inclusive prefix last.
///
/// Call from: the 32 lanes of warp 0, converged. Result: in lane 0.
#[inline(always)]
fn tile_prefix<T: TileDescriptor, O: ReduceOp<T>>(args: &ScanArgs<'_, T>, tile: usize, tile_total: T) -> T {
    let lane = lane_id();
    let (status, values) = (&args.tile_status, &args.tile_values);
    if tile == 0 {
        if lane == 0 {
            T::publish(
                status,
                values,
                0,
                stamp(args.epoch, PREFIX),
                O::combine(args.initial, tile_total),
            );
        }
        return args.initial;
    }
    if lane == 0 {
        T::publish(status, values, tile, stamp(args.epoch, AGGREGATE), tile_total);
    }
    nanosleep(FIRST_POLL_DELAY_NS);
    // Lane `l` reads the tile `l + 1` places before `window_end`; a window with a PREFIX ends
    // the look-back at the nearest one (tile 0 always publishes one).
    let mut before = O::identity();
    let mut window_end = tile;
    loop {
        let (flag, value) = match window_end.checked_sub(lane + 1) {
            Some(earlier) => T::wait(status, values, earlier, args.epoch),
            None => (PREFIX, O::identity()),
        };
        let prefixes = vote_ballot_sync(FULL_MASK, flag == PREFIX);
        let nearest_prefix = if prefixes == 0 {
            32
        } else {
            prefixes.trailing_zeros() as usize
        };
        let counted = if lane <= nearest_prefix { value } else { O::identity() };
        before = O::combine(warp_reduce_reversed_to_lane0::<T, O>(counted), before);
        if prefixes != 0 {
            break;
        }
        window_end -= 32;
    }
    if lane == 0 {
        T::publish(
            status,
            values,
            tile,
            stamp(args.epoch, PREFIX),
            O::combine(before, tile_total),
        );
    }
    before
}
