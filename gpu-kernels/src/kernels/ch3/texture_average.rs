//! Four- and eight-point neighbour averages of a 2-D array, reading through global loads or the
//! read-only path (book §3.2.3 and Appendix D.1, program `average`): the eight-point stencil
//! reads each input nine times over, the reuse that the book's texture reads (here `ld.global.nc`,
//! the same cache since Maxwell) turn into cache hits.
//!
//! Layout: `a` is `(n + 2) x (n + 2)` row-major with a one-element halo, `b` is `n x n`; the
//! thread's x, the contiguous index, is the book's first (contiguous) Fortran index `i`. Each sum
//! is formed left to right and then scaled, as in the book and the CPU reference, so the results
//! agree bit for bit.
use crate::prelude::*;

/// Arguments of the four average kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AverageArgs {
    /// Input, `(n + 2)^2` elements, halo included.
    pub a: Slice<f32>,
    /// Output, `n^2` elements.
    pub b: SliceMut<f32>,
    /// Interior side.
    pub n: usize,
}

/// The interior point `(i, j)` of the calling thread, 1-based as the book's, or `None` outside.
#[inline(always)]
fn interior(n: usize) -> Option<(usize, usize)> {
    let (i, j) = (global_idx_x() + 1, global_idx_y() + 1);
    (i <= n && j <= n).then_some((i, j))
}

/// `0.25 * (a(i-1,j) + a(i,j-1) + a(i,j+1) + a(i+1,j))` with loads from `load`.
#[inline(always)]
fn average4_with(args: &AverageArgs, load: impl Fn(usize) -> f32) {
    if let Some((i, j)) = interior(args.n) {
        let w = args.n + 2;
        let at = |i: usize, j: usize| load(j * w + i);
        let sum = at(i - 1, j) + at(i, j - 1) + at(i, j + 1) + at(i + 1, j);
        args.b.set((j - 1) * args.n + (i - 1), 0.25 * sum);
    }
}

/// `0.125 *` the sum of the eight neighbours, in the book's order.
#[inline(always)]
fn average8_with(args: &AverageArgs, load: impl Fn(usize) -> f32) {
    if let Some((i, j)) = interior(args.n) {
        let w = args.n + 2;
        let at = |i: usize, j: usize| load(j * w + i);
        let sum = at(i - 1, j - 1)
            + at(i - 1, j)
            + at(i - 1, j + 1)
            + at(i, j - 1)
            + at(i, j + 1)
            + at(i + 1, j - 1)
            + at(i + 1, j)
            + at(i + 1, j + 1);
        args.b.set((j - 1) * args.n + (i - 1), 0.125 * sum);
    }
}

/// The four-point average, global loads (the book's `average4`).
#[kernel]
pub fn average4(args: AverageArgs) {
    average4_with(&args, |k| args.a.get(k));
}

/// The eight-point average, global loads (`average8`).
#[kernel]
pub fn average8(args: AverageArgs) {
    average8_with(&args, |k| args.a.get(k));
}

/// The four-point average, read-only loads (`average4Tex`).
#[kernel]
pub fn average4_tex(args: AverageArgs) {
    average4_with(&args, |k| args.a.get_nc(k));
}

/// The eight-point average, read-only loads (`average8Tex`).
#[kernel]
pub fn average8_tex(args: AverageArgs) {
    average8_with(&args, |k| args.a.get_nc(k));
}
