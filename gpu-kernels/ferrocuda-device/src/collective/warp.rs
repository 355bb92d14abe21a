//! Warp-wide reductions over the 32 lanes of a warp (CUB's `WarpReduce`).
use super::ReduceOp;
use crate::warp::{FULL_MASK, Shuffle, lane_id, shfl_down_sync_clamped, shfl_xor_sync};
use core::ops::Add;

/// Combines `x` over the 32 lanes with `op` by an xor butterfly.
///
/// Call from: every lane of a full, converged warp. Result: the combination, in every lane.
/// Cost: five xor shuffles (ten for 64-bit values); no shared memory, no barrier.
#[inline(always)]
pub fn warp_reduce<T: Shuffle>(mut x: T, op: impl Fn(T, T) -> T) -> T {
    let mut lane_mask = 16;
    while lane_mask > 0 {
        // The contract above: all 32 lanes are converged here, so FULL_MASK is exact.
        let other = shfl_xor_sync(FULL_MASK, x, lane_mask);
        x = op(x, other);
        lane_mask /= 2;
    }
    x
}

/// Sums `x` over the 32 lanes of the calling warp.
///
/// Call from: every lane of a full, converged warp. Result: the total, in every lane.
/// Cost: five xor shuffles; no shared memory, no barrier.
#[inline(always)]
pub fn warp_sum<T: Shuffle + Add<Output = T>>(x: T) -> T {
    warp_reduce(x, |a, b| a + b)
}

/// The maximum of `x` over the 32 lanes of the calling warp (NaN-free input; a NaN lane makes the
/// result depend on lane order, as `fmaxf` chains do).
///
/// Call from: every lane of a full, converged warp. Result: the maximum, in every lane.
/// Cost: five xor shuffles; no shared memory, no barrier.
#[inline(always)]
pub fn warp_max<T: Shuffle + PartialOrd>(x: T) -> T {
    warp_reduce(x, |a, b| if b > a { b } else { a })
}

/// Combines `x` over the first `lanes` lanes of the calling warp with `O`, by a shift-down tree
/// clamped to those lanes (so a partial warp never reads an absent lane).
///
/// Call from: lanes `0..lanes` of one warp, converged, `1 <= lanes <= 32`. Result: the total, in
/// lane 0. Cost: five clamped shuffles; no shared memory, no barrier.
#[inline(always)]
pub fn warp_reduce_to_lane0<T: Shuffle, O: ReduceOp<T>>(mut x: T, lanes: usize) -> T {
    let mask = if lanes >= 32 { FULL_MASK } else { (1u32 << lanes) - 1 };
    let lane = lane_id();
    let mut delta = 1;
    while delta < 32 {
        // Lanes 0..lanes are converged here and `mask` names exactly them.
        let other = shfl_down_sync_clamped(mask, x, delta as u32, (lanes - 1) as u32);
        if lane + delta < lanes {
            x = O::combine(x, other);
        }
        delta *= 2;
    }
    x
}
