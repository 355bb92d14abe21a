//! Strided reads through global loads and through the read-only path (book §3.2.3, program
//! `strideTexture`): `b[i] = a[i * s] + 1`, coalesced writes, strided reads.
//!
//! The book's `strideTex` reads a texture bound to `a`. On every GPU since Maxwell (sm_50) the
//! texture cache and L1 are one unit, and `ld.global.nc` (CUDA C's `__ldg`) reads global memory
//! through it with the texture path's properties (32-byte sectors, non-coherent, more loads in
//! flight), so `stride_tex` uses that load instead of a texture object.
use ferrocuda_device::prelude::*;

/// Arguments of [`stride_global`] and [`stride_tex`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct StrideReadArgs<'a, T> {
    /// Input, at least `(n - 1) * s + 1` elements (the book allocates `33 * n`).
    pub a: Slice<'a, T>,
    /// Output: `n` elements.
    pub b: SliceMut<'a, T>,
    /// The read stride, in elements.
    pub s: usize,
}

/// `b[i] = a[i * s] + 1` with plain global loads (the book's `stride(b, a, s)`).
#[kernel(f32, f64)]
pub fn stride_global<T: Real>(args: StrideReadArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.b.len() {
        args.b.set(i, args.a.get(i * args.s) + T::from_f64(1.0));
    }
}

/// `b[i] = a[i * s] + 1`, reading `a` through the read-only path (the book's `strideTex(b, s)`).
#[kernel(f32, f64)]
pub fn stride_tex<T: Real + ReadOnlyElement>(args: StrideReadArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.b.len() {
        args.b.set(i, args.a.get_nc(i * args.s) + T::from_f64(1.0));
    }
}
