//! Image blur (IT4I course, hands-on 4 `04_image_blur`, after PMPP's `blurKernel`): each output
//! pixel of an 8-bit grayscale image is the integer average of the `(2 BLUR_SIZE + 1)^2` box
//! around it, over the pixels of the box that lie inside the image.
//!
//! [`blur_kernel`] is the course's solution, one thread per pixel in 16 x 16 blocks. It avoids
//! the errata of the slides' task kernel (§4.3): it writes `out[Row * w + Col]`, not
//! `outImage[col * height + row]`, and tests `curRow > -1`, not `curRow > 0` (which would drop
//! the first row from every box). [`blur_fast`] computes the same image with 4 pixels x 8 rows
//! per thread (see [`super::image_filter`]): 5-pixel row sums by `dp4a`, then 5-row column sums.
//! [`blur_stream`] (performance pass) walks each thread down a strip of [`STREAM_ROWS`] rows
//! keeping a running column sum, so each input row is loaded once per strip, not 12/8 times.
use super::image_filter::{
    FAST_BLOCK, PIXELS_PER_THREAD, ROWS_PER_THREAD, Reciprocal, WordImage, byte, normalise, pack, taps_in_range, window,
};
use ferrocuda_device::prelude::*;

/// The course's `BLUR_SIZE`: the box reaches 2 pixels each way, 5 x 5 in all.
pub const BLUR_SIZE: usize = 2;
/// The box's side.
pub const BLUR_WIDTH: usize = 2 * BLUR_SIZE + 1;
/// The course's blocks: 16 x 16 threads.
pub const BLOCK: (u32, u32) = (16, 16);
/// [`blur_fast`]'s block.
pub const FAST_BLUR_BLOCK: (u32, u32) = FAST_BLOCK;

/// [`blur_stream`]'s output rows per thread: the 4 halo rows it reads cost 4/32 = 12.5% over
/// one read per pixel (against 50% for [`blur_fast`]'s 8).
pub const STREAM_ROWS: usize = 32;
/// [`blur_stream`]'s rows per step: it issues the loads of 4 input rows (12 words) before it
/// uses them, 48 bytes in flight per thread.
pub const STREAM_STEP: usize = 4;
/// [`blur_stream`]'s block: 32 words (one 128-byte line per warp and row) by 8 strips.
pub const STREAM_BLUR_BLOCK: (u32, u32) = (32, 8);

/// Arguments of the blur kernels: `in` and `out`, `w x h` bytes each, row-major.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(in_image, out_image))]
pub struct BlurArgs<'a> {
    pub in_image: Slice<'a, u8>,
    pub out_image: SliceMut<'a, u8>,
    pub w: usize,
    pub h: usize,
}

/// The course's `blurKernel`: `pixVal` and `pixels` over the in-image part of the box, then
/// `out = pixVal / pixels` (integer division).
///
/// Launch: 16 x 16 blocks, grid `((w-1)/16+1, (h-1)/16+1)`.
#[kernel]
pub fn blur_kernel(args: BlurArgs<'_>) {
    let col = global_idx_x();
    let row = global_idx_y();
    if col < args.w && row < args.h {
        let (mut pix_val, mut pixels) = (0u32, 0u32);
        let reach = BLUR_SIZE as isize;
        for blur_row in -reach..reach + 1 {
            for blur_col in -reach..reach + 1 {
                let cur_row = row as isize + blur_row;
                let cur_col = col as isize + blur_col;
                if cur_row > -1 && cur_row < args.h as isize && cur_col > -1 && cur_col < args.w as isize {
                    pix_val += u32::from(args.in_image.get(cur_row as usize * args.w + cur_col as usize));
                    pixels += 1;
                }
            }
        }
        // `pixVal / pixels`; `pixels >= 1` (the pixel itself), but `normalise` spells the
        // division so that no division-by-zero panic is linked into the PTX.
        args.out_image.set(row * args.w + col, normalise(pix_val, pixels));
    }
}

/// Division by 25 of sums up to 25 * 255.
const BY_BOX: Reciprocal =
    match Reciprocal::new((BLUR_WIDTH * BLUR_WIDTH) as u32, (BLUR_WIDTH * BLUR_WIDTH * 255) as u32) {
        Some(r) => r,
        None => panic!("25 has a reciprocal"),
    };

/// The blur of [`blur_kernel`], 4 pixels by [`ROWS_PER_THREAD`] rows per thread: each of the
/// 12 input rows it reads gives the 5-pixel sums of its 4 pixels (one `dp4a` of a 4-byte window
/// with `0x01010101`, plus the fifth byte), each output row adds 5 of those, and the 4 bytes
/// are stored as one word. Threads whose windows all lie inside the image take a path without
/// bounds tests.
///
/// Launch: [`FAST_BLUR_BLOCK`] blocks; thread `(x, y)` covers pixels `4x..4x+4` of rows
/// `8y..8y+8`: grid `(ceil(w / 4 / 32), ceil(h / 8 / 8))`.
#[kernel]
pub fn blur_fast(args: BlurArgs<'_>) {
    let image = WordImage::new(args.in_image, args.out_image, args.w, args.h);
    let c = global_idx_x();
    let y0 = global_idx_y() * ROWS_PER_THREAD;
    if PIXELS_PER_THREAD * c >= args.w || y0 >= args.h {
        return;
    }
    if image.interior(c, y0, BLUR_SIZE) {
        blur_fast_rows::<true>(&image, c, y0);
    } else {
        blur_fast_rows::<false>(&image, c, y0);
    }
}

/// [`blur_fast`] for the thread at word `c`, rows `y0..`; `INTERIOR`: [`WordImage::interior`]
/// holds, so loads and divisions need no tests.
#[inline(always)]
fn blur_fast_rows<const INTERIOR: bool>(image: &WordImage<'_>, c: usize, y0: usize) {
    const _: () = assert!(ROWS_PER_THREAD == 8 && BLUR_SIZE == 2);
    let (w, h) = (image.width, image.height);
    // `row_sums[k][p]`: the 5 pixels of input row `y0 - 2 + k` centred on pixel `4c + p`, which
    // are bytes `p + 2 ..= p + 6` of the row buffer.
    let mut row_sums = [[0u32; 4]; ROWS_PER_THREAD + 2 * BLUR_SIZE];
    unroll!(k in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] => {
        let buffer = if INTERIOR {
            // SAFETY: `interior(c, y0, BLUR_SIZE)` holds, and row `y0 - 2 + k` is in its range.
            unsafe { image.row_buffer_interior(y0 + k - BLUR_SIZE, c) }
        } else {
            image.row_buffer(y0 as isize - BLUR_SIZE as isize + k as isize, c)
        };
        unroll!(p in [0, 1, 2, 3] => {
            row_sums[k][p] = math::dp4a(window(&buffer, p + 2), 0x0101_0101, byte(&buffer, p + 6));
        });
    });
    unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let y = y0 + r;
        if INTERIOR || y < h {
            let mut pixels = [0u8; 4];
            unroll!(p in [0, 1, 2, 3] => {
                let sum = row_sums[r][p] + row_sums[r + 1][p] + row_sums[r + 2][p]
                    + row_sums[r + 3][p] + row_sums[r + 4][p];
                let x = PIXELS_PER_THREAD * c + p;
                let inside = y >= BLUR_SIZE && y + BLUR_SIZE < h && x >= BLUR_SIZE && x + BLUR_SIZE < w;
                pixels[p] = if INTERIOR || inside {
                    BY_BOX.divide(sum) as u8
                } else {
                    normalise(sum, box_pixels(x, y, w, h))
                };
            });
            image.store_word(y, c, pack(pixels));
        }
    });
}

/// Pixels of the box around `(x, y)` inside a `w x h` image (0 for `x >= w`).
#[inline(always)]
pub fn box_pixels(x: usize, y: usize, w: usize, h: usize) -> u32 {
    if x >= w {
        return 0;
    }
    let (r0, r1) = taps_in_range(y, BLUR_SIZE, BLUR_WIDTH, h);
    let (c0, c1) = taps_in_range(x, BLUR_SIZE, BLUR_WIDTH, w);
    ((r1 - r0) * (c1 - c0)) as u32
}

/// The blur of [`blur_kernel`], each thread walking down a strip of 4 pixels by
/// [`STREAM_ROWS`] rows: per input row, the 5-pixel sums of its 4 pixels by `dp4a` (as in
/// [`blur_fast`]); per output row, a running column sum that adds the row entering the box and
/// drops the one leaving it, so the work and the loads per pixel do not grow with the box and
/// only 16 row sums are kept (fewer registers than [`blur_fast`]'s 48, more threads per SM).
///
/// Launch: [`STREAM_BLUR_BLOCK`] blocks; thread `(x, y)` covers pixels `4x..4x+4` of rows
/// `32y..32y+32`: grid `(ceil(w / 4 / 32), ceil(h / 32 / 8))`.
#[kernel]
pub fn blur_stream(args: BlurArgs<'_>) {
    let image = WordImage::new(args.in_image, args.out_image, args.w, args.h);
    let c = global_idx_x();
    let y0 = global_idx_y() * STREAM_ROWS;
    if PIXELS_PER_THREAD * c >= args.w || y0 >= args.h {
        return;
    }
    if image.interior_rows(c, y0, STREAM_ROWS, BLUR_SIZE) {
        blur_stream_rows::<true>(&image, c, y0);
    } else {
        blur_stream_edge(&image, c, y0);
    }
}

/// The 5-pixel sums centred on pixels `4c .. 4c+4` of input row `y` (zero rows outside).
#[inline(always)]
fn row_sums<const INTERIOR: bool>(image: &WordImage<'_>, y: isize, c: usize) -> [u32; 4] {
    let buffer = if INTERIOR {
        // SAFETY: `interior_rows(c, y0, STREAM_ROWS, BLUR_SIZE)` holds and the caller reads
        // rows `y0 - 2 .. y0 + STREAM_ROWS + 2` only, so `0 <= y < height`.
        unsafe { image.row_buffer_interior(y as usize, c) }
    } else {
        image.row_buffer(y, c)
    };
    let mut sums = [0u32; 4];
    unroll!(p in [0, 1, 2, 3] => {
        sums[p] = math::dp4a(window(&buffer, p + 2), 0x0101_0101, byte(&buffer, p + 6));
    });
    sums
}

/// [`blur_stream`] for a strip at the image's edge: one row per step and the box's 5 row sums
/// kept whole, so that this path, with its bounds tests and byte loads, needs fewer registers
/// than the interior one (the kernel's register count is the larger of the two).
#[inline(always)]
fn blur_stream_edge(image: &WordImage<'_>, c: usize, y0: usize) {
    let (w, h) = (image.width, image.height);
    let top = y0 as isize - BLUR_SIZE as isize;
    // `rows[k]`: the row sums of input row `y - 2 + k` for output row `y`.
    let mut rows = [[0u32; 4]; BLUR_WIDTH];
    unroll!(k in [1, 2, 3, 4] => {
        rows[k] = row_sums::<false>(image, top + k as isize - 1, c);
    });
    let end = (y0 + STREAM_ROWS).min(h);
    for y in y0..end {
        unroll!(k in [0, 1, 2, 3] => {
            rows[k] = rows[k + 1];
        });
        rows[BLUR_WIDTH - 1] = row_sums::<false>(image, (y + BLUR_SIZE) as isize, c);
        let mut pixels = [0u8; 4];
        unroll!(p in [0, 1, 2, 3] => {
            let sum = rows[0][p] + rows[1][p] + rows[2][p] + rows[3][p] + rows[4][p];
            let x = PIXELS_PER_THREAD * c + p;
            let inside = y >= BLUR_SIZE && y + BLUR_SIZE < h && x >= BLUR_SIZE && x + BLUR_SIZE < w;
            pixels[p] = if inside { BY_BOX.divide(sum) as u8 } else { normalise(sum, box_pixels(x, y, w, h)) };
        });
        image.store_word(y, c, pack(pixels));
    }
}

/// [`blur_stream`] for the thread at word `c`, rows `y0 .. y0 + STREAM_ROWS`; `INTERIOR`:
/// [`WordImage::interior_rows`] holds, so loads and divisions need no tests.
#[inline(always)]
fn blur_stream_rows<const INTERIOR: bool>(image: &WordImage<'_>, c: usize, y0: usize) {
    const _: () = assert!(BLUR_SIZE == 2 && STREAM_STEP == 4 && STREAM_ROWS.is_multiple_of(STREAM_STEP));
    let (w, h) = (image.width, image.height);
    let top = y0 as isize - BLUR_SIZE as isize;
    // `history[k]`: the row sums of input row `y - 2 + k` for the step's first output row `y`;
    // `column`: their total, the box of row `y` but for its bottom row.
    let mut history = [[0u32; 4]; STREAM_STEP];
    unroll!(k in [0, 1, 2, 3] => {
        history[k] = row_sums::<INTERIOR>(image, top + k as isize, c);
    });
    let mut column = [0u32; 4];
    unroll!(p in [0, 1, 2, 3] => {
        column[p] = history[0][p] + history[1][p] + history[2][p] + history[3][p];
    });
    for step in 0..STREAM_ROWS / STREAM_STEP {
        let y_step = y0 + step * STREAM_STEP;
        if !INTERIOR && y_step >= h {
            return;
        }
        // Rows `y_step + 2 .. y_step + 6`, loaded together before any is used.
        let mut incoming = [[0u32; 4]; STREAM_STEP];
        unroll!(k in [0, 1, 2, 3] => {
            incoming[k] = row_sums::<INTERIOR>(image, top + (step * STREAM_STEP + BLUR_WIDTH - 1 + k) as isize, c);
        });
        unroll!(r in [0, 1, 2, 3] => {
            let y = y_step + r;
            let mut pixels = [0u8; 4];
            unroll!(p in [0, 1, 2, 3] => {
                // Rows `y - 2 ..= y + 2`.
                let sum = column[p] + incoming[r][p];
                let x = PIXELS_PER_THREAD * c + p;
                let inside = y >= BLUR_SIZE && y + BLUR_SIZE < h && x >= BLUR_SIZE && x + BLUR_SIZE < w;
                pixels[p] = if INTERIOR || inside {
                    BY_BOX.divide(sum) as u8
                } else {
                    normalise(sum, box_pixels(x, y, w, h))
                };
                // Drop row `y - 2`: `history[r]`, the row `STREAM_STEP - 1` rows above `incoming[r]`.
                column[p] = sum - history[r][p];
            });
            if INTERIOR || y < h {
                image.store_word(y, c, pack(pixels));
            }
        });
        history = incoming;
    }
}
