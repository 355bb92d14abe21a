//! Misaligned and strided accesses: the array increment at an offset and at a stride, in place
//! (the book's `offset` and `stride` kernels, §3.2.2, program `offsetNStride`) and out of place
//! (`b = a + 1`, the variant of the book's Figures 3.12 and 3.13, whose code the book omits).
use ferrocuda_device::prelude::*;

/// Arguments of [`offset`] and [`stride`]: thread `i < n` increments `a[i + s]` or `a[i * s]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct InPlaceArgs<'a, T> {
    /// The array, at least `n + s` (offset) or `(n - 1) * s + 1` (stride) elements long; the
    /// book allocates `33 * n` for both sweeps.
    pub a: SliceMut<'a, T>,
    /// Threads that do work (the book launches exactly `n / blockSize` blocks).
    pub n: usize,
    /// The offset or the stride, in elements.
    pub s: usize,
}

/// Arguments of [`offset_out_of_place`] and [`stride_out_of_place`]: `b[k] = a[k] + 1` for
/// `k = i + s` or `k = i * s`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct OutOfPlaceArgs<'a, T> {
    /// Input, as long as `b`.
    pub a: Slice<'a, T>,
    /// Output, as long as [`InPlaceArgs::a`].
    pub b: SliceMut<'a, T>,
    /// Threads that do work.
    pub n: usize,
    /// The offset or the stride, in elements.
    pub s: usize,
}

/// `a[i + s] += 1`: each warp reads and writes 32 consecutive elements starting `s` elements past
/// an aligned boundary, so an offset that is not a multiple of the 32-byte sector touches one
/// more sector per warp.
#[kernel(f32, f64)]
pub fn offset<T: Real>(args: InPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        args.a.update(i + args.s, |x| x + T::from_f64(1.0));
    }
}

/// `a[i * s] += 1`: a warp's 32 accesses spread over `32 * s` elements, so from a stride of 8
/// (f32) each access has a 32-byte sector to itself and 7/8 of the bytes moved are wasted.
#[kernel(f32, f64)]
pub fn stride<T: Real>(args: InPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        args.a.update(i * args.s, |x| x + T::from_f64(1.0));
    }
}

/// `b[i + s] = a[i + s] + 1`.
#[kernel(f32, f64)]
pub fn offset_out_of_place<T: Real>(args: OutOfPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        let k = i + args.s;
        args.b.set(k, args.a.get(k) + T::from_f64(1.0));
    }
}

/// `b[i * s] = a[i * s] + 1`.
#[kernel(f32, f64)]
pub fn stride_out_of_place<T: Real>(args: OutOfPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        let k = i * args.s;
        args.b.set(k, args.a.get(k) + T::from_f64(1.0));
    }
}

/// [`stride`] with the load cached in L2 only (`ld.global.cg`), the book's `-Mcuda=noL1`
/// (§3.2.2.2, Figures 3.15-3.17): each access fetches its 32-byte sector into L2 but allocates
/// no 128-byte L1 line.
#[kernel(f32, f64)]
pub fn stride_cg<T: Real + L2Element>(args: InPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        let k = i * args.s;
        args.a.set(k, args.a.get_cg(k) + T::from_f64(1.0));
    }
}

/// [`stride_out_of_place`] with the load cached in L2 only (`ld.global.cg`).
#[kernel(f32, f64)]
pub fn stride_out_of_place_cg<T: Real + L2Element>(args: OutOfPlaceArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.n {
        let k = i * args.s;
        args.b.set(k, args.a.get_cg(k) + T::from_f64(1.0));
    }
}
