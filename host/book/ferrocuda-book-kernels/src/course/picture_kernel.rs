//! `PictureKernel` (IT4I course, lecture "Multi-dimensional grids", after Kirk & Hwu's PMPP):
//! every pixel of an `n x m` picture doubled, one thread per pixel on a 2-D grid of 16 x 16
//! blocks, the lesson being the four paths a block takes at the picture's right and bottom edges.
use ferrocuda_device::prelude::*;

/// Arguments of [`picture_kernel`]: `d_Pin` and `d_Pout`, `n` columns (x) by `m` rows (y),
/// row-major.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(pin, pout))]
pub struct PictureArgs<'a> {
    pub pin: Slice<'a, f32>,
    pub pout: SliceMut<'a, f32>,
    /// Columns (the picture's width, the x extent).
    pub n: usize,
    /// Rows (the picture's height, the y extent).
    pub m: usize,
}

/// `d_Pout[Row*n+Col] = 2.0*d_Pin[Row*n+Col]` where `Row < m && Col < n`.
///
/// The course multiplies by the `double` 2.0 and stores a `float`; doubling is exact in both
/// precisions (and overflows to infinity in both), so the f32 product here is the same value.
///
/// Launch: 16 x 16 blocks, grid `((n-1)/16+1, (m-1)/16+1)`.
#[kernel]
pub fn picture_kernel(args: PictureArgs<'_>) {
    let row = global_idx_y();
    let col = global_idx_x();
    if row < args.m && col < args.n {
        let at = row * args.n + col;
        args.pout.set(at, 2.0 * args.pin.get(at));
    }
}
