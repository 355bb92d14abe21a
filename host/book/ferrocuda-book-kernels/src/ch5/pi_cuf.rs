//! ch5-pi-cuf: the fraction of uniform points `(x, y)` in the unit square that fall inside the
//! quarter circle, `x² + y² <= 1`, counted on the GPU (book §5.2, program `compute_pi`, whose CUF
//! kernel the compiler turns into a loop plus an integer sum reduction; here the reduction is
//! explicit: a block sum, then one `atomicAdd` per block).
//!
//! The points are the book's layout: one array of `2N` uniforms, `x(i) = data(i)` and
//! `y(i) = data(i + N)`.
use ferrocuda_device::collective::Sum;
use ferrocuda_device::collective::block::{BLOCK_REDUCE_SCRATCH, block_reduce};
use ferrocuda_device::math::{Rounded, add_rn, mul_rn};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of [`pi_count`] (and of `pi_fma`'s kernels): `inside[0] +=` the number of points
/// of `xy` inside the circle (the host zeroes it first).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PiCountArgs<'a, T> {
    /// `2N` uniforms: the `N` x coordinates, then the `N` y coordinates.
    pub xy: Slice<'a, T>,
    /// One element, accumulated atomically.
    pub inside: SliceMut<'a, u64>,
}

/// Shared memory of the counting kernels, bytes: the block reduction's scratch.
pub const fn shared_bytes() -> usize {
    Tile1d::<u64>::bytes(BLOCK_REDUCE_SCRATCH)
}

/// `x² + y²` rounded as a CPU without FMA does: two products, each rounded, then their sum.
#[inline(always)]
pub fn norm2_separate<T: Rounded>(x: T, y: T) -> T {
    add_rn(mul_rn(x, x), mul_rn(y, y))
}

/// Counts the points `i < N` with `norm2(x(i), y(i)) <= 1` over a grid-stride loop, sums the
/// counts over the block, and adds the block's total to `inside[0]`.
///
/// Call from: every thread of the block (it holds the block reduction's barrier); the launch
/// provides [`shared_bytes`].
#[inline(always)]
pub fn count_inside<T: Real>(args: PiCountArgs<'_, T>, norm2: impl Fn(T, T) -> T) {
    let n = args.xy.len() / 2;
    let one = T::from_f64(1.0);
    let mut inside = 0u64;
    for i in grid_stride_range(n) {
        inside += u64::from(norm2(args.xy.get(i), args.xy.get(i + n)) <= one);
    }
    // SAFETY: the launch provides `shared_bytes()` (host driver).
    let scratch = unsafe { Tile1d::<u64>::dynamic(BLOCK_REDUCE_SCRATCH) };
    let total = block_reduce::<u64, Sum>(inside, &scratch);
    if thread_idx_x() == 0 && total > 0 {
        args.inside.atomic_add(0, total);
    }
}

/// The book's CUF loop `if (x**2 + y**2 <= 1) inside_gpu = inside_gpu + 1`, with both squares
/// rounded before the add (`mul.rn`, `add.rn`), so the GPU counts exactly the points the CPU
/// counts; `pi_fma` shows what a fused multiply-add changes.
///
/// Launch: any 1-D shape, [`shared_bytes`] of shared memory.
#[kernel(f32, f64)]
pub fn pi_count<T: Real + Rounded>(args: PiCountArgs<'_, T>) {
    count_inside(args, norm2_separate::<T>)
}
