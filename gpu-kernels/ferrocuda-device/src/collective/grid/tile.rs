//! A tile's elements between global memory and the registers of its block: each thread holds
//! [`SCAN_ITEMS`] consecutive elements, loaded and stored through a shared-memory exchange so
//! that every warp access is contiguous.
use crate::global::{Element4, Slice, SliceMut};
use crate::index::thread_idx_x;
use crate::shared::Tile2d;
use crate::warp::{FULL_MASK, WARP_SIZE, lane_id, sync_warp};

/// Threads per block of every scan launch: four warps, as CUB's sm_90 tuning for 4-byte sums.
pub const SCAN_THREADS: usize = 128;
/// Consecutive elements each thread scans.
pub const SCAN_ITEMS: usize = 24;
/// Elements per tile: one block's share.
pub const SCAN_TILE: usize = SCAN_THREADS * SCAN_ITEMS;
/// Chunks of four elements each thread scans.
pub(super) const SCAN_CHUNKS: usize = SCAN_ITEMS / 4;

/// Repeats `$body` for each of a thread's chunks, `$k` a constant in each copy, so that the
/// thread's elements stay in registers (a loop LLVM leaves rolled would index them at run time).
macro_rules! for_each_chunk {
    ($k:ident => $body:block) => {
        crate::unroll!($k in [0, 1, 2, 3, 4, 5] => $body)
    };
}
const _: () = assert!(SCAN_CHUNKS == 6, "for_each_chunk lists six chunks");
/// Warps per scan block.
pub(super) const SCAN_WARPS: usize = SCAN_THREADS / WARP_SIZE;
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
pub(super) type Exchange<T> = Tile2d<T, SCAN_WARPS, EXCHANGE_ROW, 0>;

/// The exchange slot of the warp's chunk `chunk` (in global order): lane `chunk / SCAN_CHUNKS`'s
/// slot `chunk % SCAN_CHUNKS`.
#[inline(always)]
fn exchange_slot(chunk: usize) -> usize {
    chunk / SCAN_CHUNKS * LANE_SLOTS + chunk % SCAN_CHUNKS
}

pub(super) use for_each_chunk;

/// A thread's elements of a tile, as chunks of four.
pub(super) type Items<T> = [[T; 4]; SCAN_CHUNKS];

/// The exchange's row length, elements.
const EXCHANGE_ROW: usize = WARP_SIZE * LANE_SLOTS * 4;
const _: () = assert!(SCAN_WARPS * EXCHANGE_ROW >= SCAN_TILE, "a tile fits the exchange flat");

/// Element `i` of the exchange read as one flat array of `SCAN_WARPS * EXCHANGE_ROW` elements:
/// where a block compacts a tile once its threads have read their elements.
#[inline(always)]
pub(super) fn flat_slot(i: usize) -> (usize, usize) {
    (i / EXCHANGE_ROW, i % EXCHANGE_ROW)
}

/// Whether the tile of `input` at `start` is whole and allows 16-byte loads.
#[inline(always)]
pub(super) fn is_full<T: Element4>(input: &Slice<'_, T>, start: usize) -> bool {
    input.len() - start >= SCAN_TILE && input.is_aligned16()
}

/// Index of the calling thread's first element in the tile at `start`.
#[inline(always)]
pub(super) fn first_item(start: usize) -> usize {
    start + thread_idx_x() * SCAN_ITEMS
}

/// The calling thread's elements of the tile at `start`; those past the end are `fill`.
///
/// Call from: every thread of a block of [`SCAN_THREADS`], converged per warp. `full`: what
/// [`is_full`] says of the tile (and, for [`store_items`], that the output allows 16-byte stores). The warp's lanes write the exchange, so a barrier or warp
/// barrier must separate the reads of an earlier use from this one.
#[inline(always)]
pub(super) fn load_items<T: Element4>(
    input: &Slice<'_, T>,
    exchange: &Exchange<T>,
    start: usize,
    full: bool,
    fill: T,
) -> Items<T> {
    let mut items = [[fill; 4]; SCAN_CHUNKS];
    if full {
        let (warp, lane) = (thread_idx_x() / WARP_SIZE, lane_id());
        let warp_chunk = (start + warp * WARP_TILE) / 4;
        for_each_chunk!(k => {
            let chunk = lane + WARP_SIZE * k;
            exchange.set4(warp, exchange_slot(chunk), input.get4(warp_chunk + chunk));
        });
        // The warp's lanes wrote its share; each now reads its own elements.
        sync_warp(FULL_MASK);
        for_each_chunk!(k => {
            items[k] = exchange.get4(warp, lane * LANE_SLOTS + k);
        });
    } else {
        let (first, n) = (first_item(start), input.len());
        for_each_chunk!(k => {
            crate::unroll!(j in [0, 1, 2, 3] => {
                if first + 4 * k + j < n {
                    items[k][j] = input.get(first + 4 * k + j);
                }
            });
        });
    }
    items
}

/// Stores the calling thread's elements of the tile at `start`, those before `output`'s end.
///
/// Call from: as [`load_items`], after a barrier that ends every lane's reads of the exchange.
#[inline(always)]
pub(super) fn store_items<T: Element4>(
    output: &SliceMut<'_, T>,
    exchange: &Exchange<T>,
    start: usize,
    full: bool,
    items: Items<T>,
) {
    if full {
        let (warp, lane) = (thread_idx_x() / WARP_SIZE, lane_id());
        let warp_chunk = (start + warp * WARP_TILE) / 4;
        for_each_chunk!(k => {
            exchange.set4(warp, lane * LANE_SLOTS + k, items[k]);
        });
        sync_warp(FULL_MASK);
        for_each_chunk!(k => {
            let chunk = lane + WARP_SIZE * k;
            output.set4(warp_chunk + chunk, exchange.get4(warp, exchange_slot(chunk)));
        });
    } else {
        let (first, n) = (first_item(start), output.len());
        for_each_chunk!(k => {
            crate::unroll!(j in [0, 1, 2, 3] => {
                if first + 4 * k + j < n {
                    output.set(first + 4 * k + j, items[k][j]);
                }
            });
        });
    }
}
