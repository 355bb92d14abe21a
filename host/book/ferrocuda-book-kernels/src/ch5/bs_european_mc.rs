//! ch5-bs-european-mc: European put and call options priced by Monte Carlo (book §5.5, program
//! `mc`), as the book's two CUF kernels: [`mc_payoffs`] (the discounted payoffs of each normal
//! sample, and their sums; `mc_111_gpu` in the book's profile) and [`mc_squared_deviations`] (the
//! sums of the squared deviations from the means, the second pass of a two-pass variance;
//! `mc_122_gpu`).
//!
//! The book's compiler turns each CUF loop into a kernel of 128-thread blocks that writes one
//! partial sum per block and a second kernel that folds the partials (`mc_116_gpu_red`,
//! `mc_124_gpu_red`); here each kernel writes one partial per block of each sum, and the host
//! folds the partials with the reduction library.
use ferrocuda_device::collective::block::{BLOCK_REDUCE_SCRATCH, block_reduce};
use ferrocuda_device::collective::{Reducible, Sum};
use ferrocuda_device::elementary::Exp;
use ferrocuda_device::math::{Rounded, fma, mul_rn};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// The model's constants in the kernel's precision, computed once on the host (the book's loop
/// recomputes them per sample; they are loop invariants).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McModel<T> {
    /// Spot price `S`.
    pub s: T,
    /// Strike `E`.
    pub e: T,
    /// `(R - sigma^2/2) T`, the drift of `ln S_T`.
    pub drift: T,
    /// `sigma sqrt(T)`, the scale of the normal sample in `ln S_T`.
    pub vol: T,
    /// `e^(-R T)`.
    pub discount: T,
}

// SAFETY: a `#[repr(C)]` struct of numbers: plain data a kernel may take.
unsafe impl<T: ferrocuda_device::launch::DeviceCopy> ferrocuda_device::launch::DeviceCopy for McModel<T> {}

/// Arguments of [`mc_payoffs`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct McPayoffsArgs<'a, T> {
    /// Standard normal samples, at least as many as `put` holds (cuRAND makes them in pairs).
    pub normals: Slice<'a, T>,
    /// The discounted put payoff of each sample (the book's `putValue`): `N` elements.
    pub put: SliceMut<'a, T>,
    /// The discounted call payoff of each sample (`callValue`): `N` elements.
    pub call: SliceMut<'a, T>,
    /// One sum of put payoffs per block.
    pub put_partials: SliceMut<'a, T>,
    /// One sum of call payoffs per block.
    pub call_partials: SliceMut<'a, T>,
    pub model: McModel<T>,
}

/// Arguments of [`mc_squared_deviations`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct McSquaredDeviationsArgs<'a, T> {
    /// The put payoffs [`mc_payoffs`] wrote.
    pub put: Slice<'a, T>,
    /// The call payoffs, as many as `put`.
    pub call: Slice<'a, T>,
    /// One sum of `(put - mean_put)^2` per block.
    pub put_partials: SliceMut<'a, T>,
    /// One sum of `(call - mean_call)^2` per block.
    pub call_partials: SliceMut<'a, T>,
    pub mean_put: T,
    pub mean_call: T,
}

/// Shared memory of both kernels, bytes: the block reduction's scratch.
pub const fn shared_bytes<T: Copy>() -> usize {
    Tile1d::<T>::bytes(BLOCK_REDUCE_SCRATCH)
}

/// `max(x, 0)`, Fortran's `max(x, 0._fp_kind)`.
#[inline(always)]
fn positive_part<T: Real>(x: T) -> T {
    if x > T::default() { x } else { T::default() }
}

/// The discounted `(put, call)` payoffs of one normal sample `z`:
/// `S_T = S exp(drift + vol z)`, `put = e^(-RT) max(E - S_T, 0)`, `call = e^(-RT) max(S_T - E, 0)`.
///
/// Every rounding is explicit, so the CPU reference rounds as the GPU does: the exponent is one
/// fused multiply-add, the exponential is [`Exp`], and the products are `mul.rn`, which the
/// backend cannot fuse into the subtraction or the caller's sum.
#[inline(always)]
pub fn payoffs<T: Exp>(model: McModel<T>, z: T) -> (T, T) {
    let s_t = mul_rn(model.s, Exp::exp(fma(model.vol, z, model.drift)));
    (
        mul_rn(model.discount, positive_part(model.e - s_t)),
        mul_rn(model.discount, positive_part(s_t - model.e)),
    )
}

/// Stores the block's totals of `put` and `call` (over its threads) in the partials at
/// `blockIdx.x`.
///
/// Call from: every thread of the block (two block reductions, three barriers); the launch
/// provides [`shared_bytes`].
#[inline(always)]
fn store_block_sums<T: Real + Reducible>(
    put: T,
    call: T,
    put_partials: SliceMut<'_, T>,
    call_partials: SliceMut<'_, T>,
) {
    // SAFETY: the launch provides `shared_bytes::<T>()` (host driver).
    let scratch = unsafe { Tile1d::<T>::dynamic(BLOCK_REDUCE_SCRATCH) };
    let put_total = block_reduce::<T, Sum>(put, &scratch);
    // Every thread of the block reaches this barrier; it keeps the warp leaders of the
    // second reduction from overwriting `scratch` before warp 0 has read the first's totals.
    sync_threads();
    let call_total = block_reduce::<T, Sum>(call, &scratch);
    if thread_idx_x() == 0 {
        put_partials.set(block_idx().x, put_total);
        call_partials.set(block_idx().x, call_total);
    }
}

/// The book's first CUF kernel: `put[i]` and `call[i]` for every sample `i < put.len()` (a
/// grid-stride loop), and one partial sum of each per block.
///
/// Launch: 1-D blocks of any size up to 1024 (the book's compiler chose 128), any grid with as
/// many partials as blocks, [`shared_bytes`] of shared memory.
#[kernel(f32, f64)]
pub fn mc_payoffs<T: Exp + Reducible>(args: McPayoffsArgs<'_, T>) {
    let (mut put_sum, mut call_sum) = (T::ZERO, T::ZERO);
    for i in grid_stride_range(args.put.len()) {
        let (put, call) = payoffs(args.model, args.normals.get(i));
        args.put.set(i, put);
        args.call.set(i, call);
        put_sum = put_sum + put;
        call_sum = call_sum + call;
    }
    store_block_sums(put_sum, call_sum, args.put_partials, args.call_partials);
}

/// `acc + (x - mean)^2`, the square fused into the sum (written out, so that the CPU can do the
/// same).
#[inline(always)]
pub fn add_squared_deviation<T: Real + Rounded>(acc: T, x: T, mean: T) -> T {
    let deviation = x - mean;
    fma(deviation, deviation, acc)
}

/// The book's second CUF kernel: one partial per block of `(put[i] - mean_put)^2` and
/// `(call[i] - mean_call)^2` over every sample (a grid-stride loop).
///
/// Launch: as [`mc_payoffs`].
#[kernel(f32, f64)]
pub fn mc_squared_deviations<T: Real + Rounded + Reducible>(args: McSquaredDeviationsArgs<'_, T>) {
    let (mut put_sum, mut call_sum) = (T::ZERO, T::ZERO);
    for i in grid_stride_range(args.put.len()) {
        put_sum = add_squared_deviation(put_sum, args.put.get(i), args.mean_put);
        call_sum = add_squared_deviation(call_sum, args.call.get(i), args.mean_call);
    }
    store_block_sums(put_sum, call_sum, args.put_partials, args.call_partials);
}
