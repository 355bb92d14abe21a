//! The loop body of the book's CUF kernels (book §3.7, `incrementTest` with
//! `!$cuf kernel do <<<*,tPB>>>`): `a(i) = a(i) + b` over a 1-D range, as a grid-stride loop, so
//! that any grid covers the range: `ceil(n / tPB)` blocks give each thread one element (the
//! book's `<<<*,tPB>>>`), a fixed grid gives each several (its `<<<1024,tPB>>>`, ch3-cuf-ilp).
//! Launched through `ferrocuda::cuf::KernelLoop`, which picks the grid as CUF does.
use ferrocuda_device::prelude::*;

/// Arguments of [`cuf_increment`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct CufIncrementArgs<'a> {
    /// The array, updated in place; its length is the loop's range.
    pub a: SliceMut<'a, i32>,
    /// The increment (the book's host scalar `b`, passed by value).
    pub b: i32,
}

/// `a[i] += b` for every `i` of this thread's grid-stride share of `0..a.len()`.
#[kernel]
pub fn cuf_increment(args: CufIncrementArgs<'_>) {
    for i in grid_stride_range(args.a.len()) {
        args.a.update(i, |x| x.wrapping_add(args.b));
    }
}
