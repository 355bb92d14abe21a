//! Increment a 2-D array with a 2-D grid of 2-D blocks (book §1.3.3).
use ferrocuda_device::prelude::*;

/// Arguments of [`increment_2d`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Increment2dArgs<'a> {
    /// `nx * ny` elements, row-major: x, the block's fastest dimension, is the contiguous index,
    /// as the book's Fortran maps x to its contiguous first index.
    pub a: SliceMut<'a, i32>,
    /// Row length.
    pub nx: u32,
    /// Row count.
    pub ny: u32,
    /// The increment.
    pub b: i32,
}

/// `a[j][i] += b` for the global (i, j), inside `nx x ny`.
#[kernel]
pub fn increment_2d(args: Increment2dArgs<'_>) {
    let i = global_idx_x();
    let j = global_idx_y();
    if i < args.nx as usize && j < args.ny as usize {
        args.a.update(j * args.nx as usize + i, |x| x + args.b);
    }
}
