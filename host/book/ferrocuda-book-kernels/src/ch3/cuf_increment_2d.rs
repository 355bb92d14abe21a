//! The loop body of the book's two-level CUF kernel (book §3.7, `!$cuf kernel do (2) <<<(*,*),
//! (32,8)>>>`): `a(i,j) = a(i,j) + b` over an `nx x ny` array, `threadIdx%x` along the inner,
//! contiguous `i`, `threadIdx%y` along `j`, as a 2-D grid-stride loop: a grid covering the array
//! gives each thread one element, a smaller one (a grid capped at CUDA's 65535 blocks in y) several.
use ferrocuda_device::prelude::*;

/// Arguments of [`cuf_increment_2d`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct CufIncrement2dArgs<'a> {
    /// `nx * ny` elements, row-major: `i`, the contiguous index, is the row position, as the
    /// book's Fortran `a(i, j)` is contiguous in `i`.
    pub a: SliceMut<'a, i32>,
    /// Row length (the extent of `i`).
    pub nx: u32,
    /// Row count (the extent of `j`).
    pub ny: u32,
    /// The increment.
    pub b: i32,
}

/// `a[j * nx + i] += b` for every `(i, j)` of this thread's 2-D grid-stride share of `nx x ny`.
#[kernel]
pub fn cuf_increment_2d(args: CufIncrement2dArgs<'_>) {
    let nx = args.nx as usize;
    for (i, j) in grid_stride_range_2d(nx, args.ny as usize) {
        args.a.update(j * nx + i, |x| x.wrapping_add(args.b));
    }
}
