//! Reductions over a thread block: each warp reduces by shuffles, warp leaders meet in shared
//! memory, warp 0 reduces their totals (CUB's `BlockReduce` with `WARP_REDUCTIONS`).
use super::ReduceOp;
use super::warp::warp_reduce_to_lane0;
use crate::index::{block_dim, thread_rank_in_block};
use crate::shared::Tile1d;
use crate::sync::sync_threads;
use crate::warp::{Shuffle, WARP_SIZE};

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
    let threads = block_dim().x * block_dim().y * block_dim().z;
    let rank = thread_rank_in_block();
    let (warp, lane) = (rank / WARP_SIZE, rank % WARP_SIZE);
    let lanes_here = (threads - warp * WARP_SIZE).min(WARP_SIZE);
    let warp_total = warp_reduce_to_lane0::<T, O>(x, lanes_here);
    if lane == 0 {
        scratch.set(warp, warp_total);
    }
    // Every thread of the block reaches this barrier (the contract above).
    sync_threads();
    let warps = threads.div_ceil(WARP_SIZE);
    if warp == 0 {
        let y = if lane < warps { scratch.get(lane) } else { O::identity() };
        warp_reduce_to_lane0::<T, O>(y, threads.min(WARP_SIZE))
    } else {
        warp_total
    }
}
