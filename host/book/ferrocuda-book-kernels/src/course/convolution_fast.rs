//! The 2-D convolution of course-convolution, made fast (our addition beside the course's
//! kernels): 4 pixels by 8 rows per thread, input words through the read-only path, the mask in
//! the constant bank packed four weights to a word, four multiply-adds per `dp4a`, one word
//! stored per 4 outputs (see [`super::image_filter`]). The same outputs as
//! [`super::convolution::convolution_2d_basic_kernel`], bit for bit.
//!
//! A mask width is a compile-time constant here (the loops over it unroll into straight code
//! whose weights are constant-bank operands): one kernel per odd width 1 to 9.
use super::convolution::{MASK_2D_PACKED_WORD, PACKED_WORDS_PER_ROW, in_image_weight};
use super::image_filter::{
    FAST_BLOCK, PIXELS_PER_THREAD, ROWS_PER_THREAD, Reciprocal, WordImage, normalise, pack, window,
};
use ferrocuda_device::constant::constant_load;
use ferrocuda_device::prelude::*;

/// The fast kernels' block.
pub const FAST_CONVOLUTION_BLOCK: (u32, u32) = FAST_BLOCK;

/// Arguments of the `convolution_2d_fast_m*` kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(in_image, out_image))]
pub struct Convolution2dFastArgs<'a> {
    pub in_image: Slice<'a, u8>,
    pub out_image: SliceMut<'a, u8>,
    pub w: usize,
    pub h: usize,
    /// Division by the sum of all the mask's weights (the weight of a pixel whose window lies
    /// inside), for numerators up to 255 times it; zero multiplier for an all-zero mask.
    pub by_mask_sum: Reciprocal,
}

/// The convolution with a `MW x MW` mask (`K = ceil(MW / 4)` packed words per mask row).
///
/// Threads whose windows all lie inside the image take a path without bounds tests.
#[inline(always)]
fn convolution_2d_fast<const MW: usize, const K: usize>(args: Convolution2dFastArgs<'_>) {
    let image = WordImage::new(args.in_image, args.out_image, args.w, args.h);
    let c = global_idx_x();
    let y0 = global_idx_y() * ROWS_PER_THREAD;
    if PIXELS_PER_THREAD * c >= args.w || y0 >= args.h {
        return;
    }
    if image.interior(c, y0, MW / 2) {
        convolution_2d_fast_rows::<MW, K, true>(&image, c, y0, args.by_mask_sum);
    } else {
        convolution_2d_fast_rows::<MW, K, false>(&image, c, y0, args.by_mask_sum);
    }
}

/// `convolution_2d_fast` for the thread at word `c`, rows `y0..`; `INTERIOR`:
/// [`WordImage::interior`] holds, so loads and divisions need no tests.
///
/// Input row `k` of the thread's `8 + MW - 1` feeds output rows `k - i` for mask rows `i`; the
/// taps of pixel `p` in that row are bytes `4 - MW/2 + p ..` of the row buffer, `K` windows of
/// four each multiplied by a packed mask word (weights past `MW` are zero).
#[inline(always)]
fn convolution_2d_fast_rows<const MW: usize, const K: usize, const INTERIOR: bool>(
    image: &WordImage<'_>,
    c: usize,
    y0: usize,
    by_mask_sum: Reciprocal,
) {
    const { assert!(MW % 2 == 1 && MW <= 9 && K == MW.div_ceil(4) && ROWS_PER_THREAD == 8) };
    let (w, h) = (image.width, image.height);
    let half = MW / 2;
    let mut acc = [[0u32; 4]; ROWS_PER_THREAD];
    unroll!(k in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] => {
        if k < ROWS_PER_THREAD + MW - 1 {
            let buffer = if INTERIOR {
                // SAFETY: `interior(c, y0, MW / 2)` holds, and row `y0 - MW/2 + k` is in its range.
                unsafe { image.row_buffer_interior(y0 + k - half, c) }
            } else {
                image.row_buffer(y0 as isize - half as isize + k as isize, c)
            };
            unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8] => {
                let r = k.wrapping_sub(i);
                if i < MW && r < ROWS_PER_THREAD {
                    unroll!(q in [0, 1, 2] => {
                        if q < K {
                            let weights: u32 = constant_load(MASK_2D_PACKED_WORD + PACKED_WORDS_PER_ROW * i + q);
                            unroll!(p in [0, 1, 2, 3] => {
                                acc[r][p] = math::dp4a(window(&buffer, 4 - half + p + 4 * q), weights, acc[r][p]);
                            });
                        }
                    });
                }
            });
        }
    });
    unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let y = y0 + r;
        if INTERIOR || y < h {
            let mut pixels = [0u8; 4];
            unroll!(p in [0, 1, 2, 3] => {
                let x = PIXELS_PER_THREAD * c + p;
                let inside = y >= half && y + half < h && x >= half && x + half < w;
                pixels[p] = if INTERIOR || inside {
                    by_mask_sum.divide(acc[r][p]) as u8
                } else if x < w {
                    normalise(acc[r][p], in_image_weight(MW, x, y, w, h))
                } else {
                    0
                };
            });
            image.store_word(y, c, pack(pixels));
        }
    });
}

/// `convolution_2d_fast` with a 1 x 1 mask.
///
/// Launch: [`FAST_CONVOLUTION_BLOCK`] blocks, grid `(ceil(w / 4 / 32), ceil(h / 8 / 8))`; the
/// mask in the constant bank, unpacked and packed (`course-convolution`'s `upload_mask`).
#[kernel]
pub fn convolution_2d_fast_m1(args: Convolution2dFastArgs<'_>) {
    convolution_2d_fast::<1, 1>(args);
}

/// `convolution_2d_fast` with a 3 x 3 mask; launch as [`convolution_2d_fast_m1`].
#[kernel]
pub fn convolution_2d_fast_m3(args: Convolution2dFastArgs<'_>) {
    convolution_2d_fast::<3, 1>(args);
}

/// `convolution_2d_fast` with a 5 x 5 mask (the course's); launch as [`convolution_2d_fast_m1`].
#[kernel]
pub fn convolution_2d_fast_m5(args: Convolution2dFastArgs<'_>) {
    convolution_2d_fast::<5, 2>(args);
}

/// `convolution_2d_fast` with a 7 x 7 mask; launch as [`convolution_2d_fast_m1`].
#[kernel]
pub fn convolution_2d_fast_m7(args: Convolution2dFastArgs<'_>) {
    convolution_2d_fast::<7, 2>(args);
}

/// `convolution_2d_fast` with a 9 x 9 mask; launch as [`convolution_2d_fast_m1`].
#[kernel]
pub fn convolution_2d_fast_m9(args: Convolution2dFastArgs<'_>) {
    convolution_2d_fast::<9, 3>(args);
}
