//! Warp-wide reductions and scans over the lanes of a warp (CUB's `WarpReduce`, `WarpScan`).
use super::{ReduceOp, Reducible};
use crate::warp::{
    FULL_MASK, Shuffle, lane_id, shfl_down_sync, shfl_down_sync_clamped, shfl_sync, shfl_up_sync, shfl_xor_sync,
};
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
    let mask = first_lanes(lanes);
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

/// The mask of lanes `0..lanes`.
#[inline(always)]
pub(crate) fn first_lanes(lanes: usize) -> u32 {
    if lanes >= 32 { FULL_MASK } else { (1u32 << lanes) - 1 }
}

/// Inclusive scan of `x` over the first `lanes` lanes with `op`, in lane order (Kogge-Stone:
/// each lane reads only lower lanes, so a partial warp never reads an absent lane).
///
/// Call from: lanes `0..lanes` of one warp, converged, `1 <= lanes <= 32`. Result: lane `l` gets
/// `x_0 ⊕ x_1 ⊕ .. ⊕ x_l`. Cost: five shuffles (ten for 64-bit values); no shared memory.
#[inline(always)]
pub fn warp_inclusive_scan_partial<T: Shuffle>(mut x: T, lanes: usize, op: impl Fn(T, T) -> T) -> T {
    let mask = first_lanes(lanes);
    let lane = lane_id();
    let mut delta = 1;
    while delta < 32 {
        // Lanes 0..lanes are converged here and `mask` names exactly them.
        let lower = shfl_up_sync(mask, x, delta as u32);
        if lane >= delta {
            x = op(lower, x);
        }
        delta *= 2;
    }
    x
}

/// Inclusive scan of `x` over the 32 lanes with `op` (any associative operation), in lane order.
///
/// Call from: every lane of a full, converged warp. Result: lane `l` gets `x_0 ⊕ .. ⊕ x_l`.
/// Cost: five shuffles (ten for 64-bit values); no shared memory, no barrier.
#[inline(always)]
pub fn warp_inclusive_scan<T: Shuffle>(x: T, op: impl Fn(T, T) -> T) -> T {
    warp_inclusive_scan_partial(x, 32, op)
}

/// Exclusive scan of `x` over the 32 lanes with `op`, whose identity is `identity`.
///
/// Call from: every lane of a full, converged warp. Result: `(exclusive, total)`: lane `l` gets
/// `x_0 ⊕ .. ⊕ x_(l-1)` (`identity` in lane 0), and every lane the warp's total. Cost: seven
/// shuffles; no shared memory, no barrier.
#[inline(always)]
pub fn warp_exclusive_scan<T: Shuffle>(x: T, identity: T, op: impl Fn(T, T) -> T) -> (T, T) {
    let inclusive = warp_inclusive_scan(x, op);
    let total = shfl_sync(FULL_MASK, inclusive, 31);
    let lower = shfl_up_sync(FULL_MASK, inclusive, 1);
    (if lane_id() == 0 { identity } else { lower }, total)
}

/// Inclusive prefix sum of `x` over the 32 lanes.
///
/// Call from: every lane of a full, converged warp. Result: lane `l` gets `x_0 + .. + x_l`.
/// Cost: five shuffles; no shared memory, no barrier.
#[inline(always)]
pub fn warp_inclusive_sum<T: Reducible>(x: T) -> T {
    warp_inclusive_scan(x, |a, b| a + b)
}

/// Exclusive prefix sum of `x` over the 32 lanes: `(exclusive, total)`, lane 0 getting zero.
///
/// Call from: every lane of a full, converged warp. Cost: seven shuffles; no shared memory.
#[inline(always)]
pub fn warp_exclusive_sum<T: Reducible>(x: T) -> (T, T) {
    warp_exclusive_scan(x, T::ZERO, |a, b| a + b)
}

/// Combines `x` over the 32 lanes with `O` in lane order, highest lane first: lane 0 gets
/// `x_31 ⊕ x_30 ⊕ .. ⊕ x_0`. What a look-back needs, where lane `l` holds the tile `l + 1`
/// places back, so the farther tile comes first for an operation that does not commute.
///
/// Call from: every lane of a full, converged warp. Result: in lane 0. Cost: five shuffles.
#[inline(always)]
pub fn warp_reduce_reversed_to_lane0<T: Shuffle, O: ReduceOp<T>>(mut x: T) -> T {
    let lane = lane_id();
    let mut delta = 1;
    while delta < 32 {
        let higher = shfl_down_sync(FULL_MASK, x, delta as u32);
        if lane + delta < 32 {
            x = O::combine(higher, x);
        }
        delta *= 2;
    }
    x
}
