//! Warp-wide reductions over the 32 lanes of a warp (CUB's `WarpReduce`).
use crate::device::warp::{FULL_MASK, Shuffle, shfl_xor_sync};
use core::ops::Add;

/// Combines `x` over the 32 lanes with `op` by an xor butterfly.
///
/// Call from: every lane of a full, converged warp. Result: the combination, in every lane.
/// Cost: five xor shuffles (ten for 64-bit values); no shared memory, no barrier.
#[inline(always)]
pub fn warp_reduce<T: Shuffle>(mut x: T, op: impl Fn(T, T) -> T) -> T {
    let mut lane_mask = 16;
    while lane_mask > 0 {
        // SAFETY: the contract above: all 32 lanes are converged here, so FULL_MASK is exact.
        let other = unsafe { shfl_xor_sync(FULL_MASK, x, lane_mask) };
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
