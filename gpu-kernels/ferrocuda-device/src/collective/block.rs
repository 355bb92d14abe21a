//! Reductions and scans over a thread block: each warp reduces or scans by shuffles, warp leaders
//! meet in shared memory (CUB's `BlockReduce` with `WARP_REDUCTIONS`, `BlockScan` with
//! `WARP_SCANS`).
//!
//! Every function here is called by every thread of the block (it holds a barrier) and uses its
//! `scratch` tile until it returns: a barrier must separate two uses of one tile.
use super::ReduceOp;
use super::warp::{first_lanes, warp_inclusive_scan_partial, warp_reduce_to_lane0};
use crate::index::{block_dim, thread_rank_in_block};
use crate::shared::Tile1d;
use crate::sync::sync_threads;
use crate::warp::{Shuffle, WARP_SIZE, shfl_up_sync};

/// Shared-memory elements [`block_reduce`] needs: one per warp of the largest block.
pub const BLOCK_REDUCE_SCRATCH: usize = 32;

/// Combines `x` over every thread of the block with `O`.
///
/// Call from: every thread of the block, any block size up to 1024 (partial last warps are
/// fine). `scratch` is a shared tile of at least [`BLOCK_REDUCE_SCRATCH`] elements that no other
/// thread uses meanwhile. Result: the total, in thread 0 (other threads get partial values).
/// Cost: two warp reductions, one barrier.
#[inline(always)]
pub fn block_reduce<T: Shuffle, O: ReduceOp<T>>(x: T, scratch: &Tile1d<T>) -> T {
    let shape = BlockWarps::of_this_block();
    let warp_total = warp_reduce_to_lane0::<T, O>(x, shape.lanes_here);
    if shape.lane == 0 {
        scratch.set(shape.warp, warp_total);
    }
    // Every thread of the block reaches this barrier (the contract above).
    sync_threads();
    if shape.warp == 0 {
        let y = if shape.lane < shape.warps {
            scratch.get(shape.lane)
        } else {
            O::identity()
        };
        warp_reduce_to_lane0::<T, O>(y, shape.threads.min(WARP_SIZE))
    } else {
        warp_total
    }
}

/// Combines `x` over every thread of the block with `O`, the result in every thread.
///
/// Call from: every thread of the block, any block size up to 1024. `scratch`: a shared tile of
/// at least [`BLOCK_REDUCE_SCRATCH`] elements. Result: the total, in every thread. Cost: one warp
/// reduction, one barrier, then each thread folds the warps' totals (at most 32 shared reads,
/// broadcasts).
#[inline(always)]
pub fn block_all_reduce<T: Shuffle, O: ReduceOp<T>>(x: T, scratch: &Tile1d<T>) -> T {
    let shape = BlockWarps::of_this_block();
    let warp_total = warp_reduce_to_lane0::<T, O>(x, shape.lanes_here);
    if shape.lane == 0 {
        scratch.set(shape.warp, warp_total);
    }
    // Every thread of the block reaches this barrier (the contract above).
    sync_threads();
    (0..shape.warps).fold(O::identity(), |total, w| O::combine(total, scratch.get(w)))
}

/// Shared-memory elements the block scans need: one per warp of the largest block, and one that
/// carries the prefix of [`block_exclusive_scan_with_prefix`] to every warp.
pub const BLOCK_SCAN_SCRATCH: usize = 33;

/// Exclusive scan of `x` over the block in thread-rank order with `O`, after a prefix that
/// `block_prefix` computes from the block's total (CUB's `BlockScan::ExclusiveScan` with a
/// `BlockPrefixCallbackOp`): thread `r` gets `prefix ⊕ x_0 ⊕ .. ⊕ x_(r-1)`.
///
/// `block_prefix` is called by the 32 lanes of warp 0 together (converged, so it may use warp
/// collectives, as a device-wide scan's look-back does) with the block's total; lane 0's return
/// is the prefix. It is how blocks chain: the prefix is what the blocks before this one add up to.
///
/// Call from: every thread of the block, a block of 32 to 1024 threads. `scratch`: a shared tile
/// of at least [`BLOCK_SCAN_SCRATCH`] elements. Result: `(exclusive, total)` in every thread,
/// `total` the block's own (without the prefix). Cost: one warp scan, two barriers.
#[inline(always)]
pub fn block_exclusive_scan_with_prefix<T: Shuffle, O: ReduceOp<T>>(
    x: T,
    scratch: &Tile1d<T>,
    block_prefix: impl FnOnce(T) -> T,
) -> (T, T) {
    let shape = BlockWarps::of_this_block();
    let (in_warp, warp_prefix, total) = scan_in_warps::<T, O>(x, scratch, &shape);
    if shape.warp == 0 {
        let prefix = block_prefix(total);
        if shape.lane == 0 {
            scratch.set(BLOCK_SCAN_SCRATCH - 1, prefix);
        }
    }
    // Every thread reaches this barrier (the contract above): the prefix is written.
    sync_threads();
    let prefix = scratch.get(BLOCK_SCAN_SCRATCH - 1);
    (O::combine(prefix, O::combine(warp_prefix, in_warp)), total)
}

/// Exclusive scan of `x` over the block in thread-rank order with `O`: thread `r` gets
/// `x_0 ⊕ .. ⊕ x_(r-1)`, thread 0 the identity.
///
/// Call from: every thread of the block, any block size up to 1024. `scratch`: a shared tile of
/// at least [`BLOCK_SCAN_SCRATCH`] elements. Result: `(exclusive, total)` in every thread. Cost:
/// one warp scan, one barrier.
#[inline(always)]
pub fn block_exclusive_scan<T: Shuffle, O: ReduceOp<T>>(x: T, scratch: &Tile1d<T>) -> (T, T) {
    let shape = BlockWarps::of_this_block();
    let (in_warp, warp_prefix, total) = scan_in_warps::<T, O>(x, scratch, &shape);
    (O::combine(warp_prefix, in_warp), total)
}

/// Inclusive scan of `x` over the block in thread-rank order with `O`: thread `r` gets
/// `x_0 ⊕ .. ⊕ x_r`.
///
/// Call from: as [`block_exclusive_scan`]. Result: `(inclusive, total)` in every thread.
#[inline(always)]
pub fn block_inclusive_scan<T: Shuffle, O: ReduceOp<T>>(x: T, scratch: &Tile1d<T>) -> (T, T) {
    let (exclusive, total) = block_exclusive_scan::<T, O>(x, scratch);
    (O::combine(exclusive, x), total)
}

/// Where the calling thread sits among the block's warps.
struct BlockWarps {
    warp: usize,
    lane: usize,
    /// Threads in the calling thread's warp (fewer than 32 in a partial last warp).
    lanes_here: usize,
    warps: usize,
    threads: usize,
}

impl BlockWarps {
    #[inline(always)]
    fn of_this_block() -> Self {
        let threads = block_dim().x * block_dim().y * block_dim().z;
        let rank = thread_rank_in_block();
        let warp = rank / WARP_SIZE;
        Self {
            warp,
            lane: rank % WARP_SIZE,
            lanes_here: (threads - warp * WARP_SIZE).min(WARP_SIZE),
            warps: threads.div_ceil(WARP_SIZE),
            threads,
        }
    }
}

/// Each warp scans its lanes, the warps' totals meet in `scratch`: returns the thread's exclusive
/// scan within its warp (identity in lane 0), the combination of the warps before its own, and
/// the block's total.
#[inline(always)]
fn scan_in_warps<T: Shuffle, O: ReduceOp<T>>(x: T, scratch: &Tile1d<T>, shape: &BlockWarps) -> (T, T, T) {
    let inclusive = warp_inclusive_scan_partial(x, shape.lanes_here, O::combine);
    if shape.lane == shape.lanes_here - 1 {
        scratch.set(shape.warp, inclusive);
    }
    let mask = first_lanes(shape.lanes_here);
    // The lanes of `mask` are converged here (the warp scan above needs them so).
    let lower = shfl_up_sync(mask, inclusive, 1);
    let in_warp = if shape.lane == 0 { O::identity() } else { lower };
    // Every thread of the block reaches this barrier (the callers' contract).
    sync_threads();
    let (mut warp_prefix, mut total) = (O::identity(), O::identity());
    for w in 0..shape.warps {
        let warp_total = scratch.get(w);
        if w < shape.warp {
            warp_prefix = O::combine(warp_prefix, warp_total);
        }
        total = O::combine(total, warp_total);
    }
    (in_warp, warp_prefix, total)
}
