//! Four- and eight-point neighbour averages of a 2-D array, reading through global loads or the
//! read-only path (book §3.2.3 and Appendix D.1, program `average`): the eight-point stencil
//! reads each input nine times over, the reuse that the book's texture reads (here `ld.global.nc`,
//! the same cache since Maxwell) turn into cache hits.
//!
//! Layout: `a` is `(n + 2) x (n + 2)` row-major with a one-element halo, `b` is `n x n`; the
//! thread's x, the contiguous index, is the book's first (contiguous) Fortran index `i`. Each sum
//! is formed left to right and then scaled, as in the book and the CPU reference, so the results
//! agree bit for bit.
use ferrocuda_device::prelude::*;

/// Arguments of the four average kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AverageArgs<'a> {
    /// Input, `(n + 2)^2` elements, halo included.
    pub a: Slice<'a, f32>,
    /// Output, `n^2` elements.
    pub b: SliceMut<'a, f32>,
    /// Interior side.
    pub n: usize,
}

/// The interior point `(i, j)` of the calling thread, 1-based as the book's, or `None` outside.
#[inline(always)]
fn interior(n: usize) -> Option<(usize, usize)> {
    let (i, j) = (global_idx_x() + 1, global_idx_y() + 1);
    (i <= n && j <= n).then_some((i, j))
}

/// `0.25 * (a(i-1,j) + a(i,j-1) + a(i,j+1) + a(i+1,j))`, `at(i, j)` loading `a(i, j)`: the
/// kernels' and the CPU reference's sum, in the book's order.
#[inline(always)]
pub fn average4_at(at: impl Fn(usize, usize) -> f32, i: usize, j: usize) -> f32 {
    0.25 * (at(i - 1, j) + at(i, j - 1) + at(i, j + 1) + at(i + 1, j))
}

/// `0.125 *` the sum of the eight neighbours of `a(i, j)`, in the book's order.
#[inline(always)]
pub fn average8_at(at: impl Fn(usize, usize) -> f32, i: usize, j: usize) -> f32 {
    0.125
        * (at(i - 1, j - 1)
            + at(i - 1, j)
            + at(i - 1, j + 1)
            + at(i, j - 1)
            + at(i, j + 1)
            + at(i + 1, j - 1)
            + at(i + 1, j)
            + at(i + 1, j + 1))
}

/// `b(i, j) = average(at, i, j)` at the calling thread's interior point, where `at(i, j)` is
/// `load` of `a(i, j)`'s index.
macro_rules! average_kernel_body {
    ($args:expr, $load:ident, $average:ident) => {{
        let args = $args;
        if let Some((i, j)) = interior(args.n) {
            let w = args.n + 2;
            let value = $average(|i, j| args.a.$load(j * w + i), i, j);
            args.b.set((j - 1) * args.n + (i - 1), value);
        }
    }};
}

/// The four-point average, global loads (the book's `average4`).
#[kernel]
pub fn average4(args: AverageArgs<'_>) {
    average_kernel_body!(args, get, average4_at);
}

/// The eight-point average, global loads (`average8`).
#[kernel]
pub fn average8(args: AverageArgs<'_>) {
    average_kernel_body!(args, get, average8_at);
}

/// The four-point average, read-only loads (`average4Tex`).
#[kernel]
pub fn average4_tex(args: AverageArgs<'_>) {
    average_kernel_body!(args, get_nc, average4_at);
}

/// The eight-point average, read-only loads (`average8Tex`).
#[kernel]
pub fn average8_tex(args: AverageArgs<'_>) {
    average_kernel_body!(args, get_nc, average8_at);
}
