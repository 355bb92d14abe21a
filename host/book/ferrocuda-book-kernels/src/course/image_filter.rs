//! What the course's 8-bit image filters share (IT4I course: image blur, 2-D convolution): the
//! normalisation of a weighted sum over the taps inside the image, and the machinery of the fast
//! kernels, which give each thread 4 adjacent pixels (one 4-byte word) of
//! [`ROWS_PER_THREAD`] rows.
//!
//! **Normalisation.** A filter output is `floor(sum / weight)`: `sum` adds pixel times weight over
//! the taps that lie inside the image, `weight` adds those taps' weights (0 when it is 0). With
//! every weight 1 that is the course's blur, `pixVal / pixels`; with the slide's 5 x 5 mask it is
//! a weighted average that never overflows a byte and does not darken the borders.
//!
//! **Fast kernels.** A thread loads, per input row, the word of its 4 pixels and the words left
//! and right of it (`ld.global.nc`, 3 loads for 4 pixels; the neighbours' words hit in L1),
//! forms the 4-byte windows it needs with funnel shifts, multiplies and adds bytes four at a time
//! with `dp4a`, and stores its 4 outputs as one word. Rows and words outside the image load as
//! zeros, so the sums are those of the in-range taps; the weight of a pixel whose window crosses
//! an edge is summed on the spot, and inside the image the division by the full weight is a
//! multiply and a shift ([`Reciprocal`]). Images whose width is not a multiple of 4 have rows
//! that do not start on a word: the kernels then load and store bytes one at a time.
use ferrocuda_device::global::bounds_failure;
use ferrocuda_device::prelude::*;

/// Output rows per thread of the fast kernels: each input row loaded is used by up to
/// `mask width` of them, so `(8 + mask width - 1) / 8` rows are read per row written.
pub const ROWS_PER_THREAD: usize = 8;
/// Pixels per thread and row of the fast kernels: one 4-byte word.
pub const PIXELS_PER_THREAD: usize = 4;
/// Block of the fast kernels: 32 words (128 pixels, one 128-byte line per warp and row) by 8
/// thread rows (64 pixel rows).
pub const FAST_BLOCK: (u32, u32) = (32, 8);

/// `floor(sum / weight)`, 0 when `weight` is 0: a filter's output byte.
#[inline(always)]
pub fn normalise(sum: u32, weight: u32) -> u8 {
    sum.checked_div(weight).map_or(0, |q| q as u8)
}

/// The taps `0..count` of a mask of half-width `half` centred at `center` that land in
/// `0..len`: `(first, last + 1)`, empty when none does.
#[inline(always)]
pub fn taps_in_range(center: usize, half: usize, count: usize, len: usize) -> (usize, usize) {
    // Tap t reads `center + t - half`: in range when `half - center <= t < len + half - center`.
    let first = half.saturating_sub(center);
    let end = (len + half).saturating_sub(center).min(count);
    (first, end.max(first))
}

/// Division by a fixed divisor `d` as a multiply and shifts: `floor(n / d)` is
/// `(n * multiplier) >> s` for every `n <= max_numerator`, where `multiplier = ceil(2^s / d)`
/// and `2^s > max_numerator * d` (the error `n (multiplier d - 2^s) / (d 2^s)` stays below `1/d`, too
/// little to reach the next integer). On the GPU: `mul.hi.u32` of `n << pre_shift` (making the
/// shift 32 when `s < 32`), then `>> post_shift` (the rest of `s` above 32).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reciprocal {
    pub multiplier: u32,
    pub pre_shift: u32,
    pub post_shift: u32,
}

// SAFETY: a `#[repr(C)]` struct of numbers: plain data a kernel may take.
unsafe impl ferrocuda_device::launch::DeviceCopy for Reciprocal {}

impl Reciprocal {
    /// Division by `divisor` of numerators up to `max_numerator`; `None` for 0, or when the
    /// multiplier would not fit 32 bits (`max_numerator` of 2^31 or more).
    pub const fn new(divisor: u32, max_numerator: u32) -> Option<Self> {
        if divisor == 0 || max_numerator >= 1 << 31 {
            return None;
        }
        let bound = max_numerator as u64 * divisor as u64;
        // The least `s >= 1` with `2^s > bound` (strictly: then `n < 2^s`, and `n << pre_shift`
        // cannot overflow).
        let mut shift = 1;
        while (1u64 << shift) <= bound {
            shift += 1;
        }
        // `ceil(2^s / d) <= 2^s` for `s < 32`; for `s > 32`, `2^s < 2 bound` makes it below
        // `2 max_numerator + 1`; for `s == 32`, below 2^32 unless `d == 1`, refused below.
        let multiplier = (1u64 << shift).div_ceil(divisor as u64);
        if multiplier > u32::MAX as u64 {
            return None;
        }
        let (pre_shift, post_shift) = if shift < 32 { (32 - shift, 0) } else { (0, shift - 32) };
        Some(Self {
            multiplier: multiplier as u32,
            pre_shift,
            post_shift,
        })
    }

    /// `floor(n / divisor)` for `n <= max_numerator` (then `n << pre_shift` fits 32 bits).
    #[inline(always)]
    pub fn divide(self, n: u32) -> u32 {
        let high = (u64::from(n << self.pre_shift) * u64::from(self.multiplier)) >> 32;
        (high as u32) >> self.post_shift
    }
}

/// An 8-bit `width x height` image in and out, read and written a word (4 pixels) at a time
/// where its rows are word-aligned.
#[derive(Clone, Copy)]
pub struct WordImage<'a> {
    input: Slice<'a, u8>,
    output: SliceMut<'a, u8>,
    /// The word views, when every row starts on a word (`width % 4 == 0`).
    words: Option<(Slice<'a, u32>, SliceMut<'a, u32>)>,
    pub width: usize,
    pub height: usize,
}

impl<'a> WordImage<'a> {
    /// The image; traps unless both views hold `width * height` bytes.
    #[inline(always)]
    pub fn new(input: Slice<'a, u8>, output: SliceMut<'a, u8>, width: usize, height: usize) -> Self {
        match width.checked_mul(height) {
            Some(n) if input.len() == n && output.len() == n => {}
            _ => bounds_failure(),
        }
        let words = match (input.words(), output.words()) {
            (Some(i), Some(o)) if width.is_multiple_of(PIXELS_PER_THREAD) => Some((i, o)),
            _ => None,
        };
        Self {
            input,
            output,
            words,
            width,
            height,
        }
    }

    /// Pixels `4c .. 4c+4` of row `y` as one little-endian word, zero where outside the image.
    #[inline(always)]
    pub fn load_word(&self, y: isize, c: isize) -> u32 {
        if y < 0 || y >= self.height as isize || c < 0 {
            return 0;
        }
        let (y, c) = (y as usize, c as usize);
        match self.words {
            Some((words, _)) => {
                let words_per_row = self.width / PIXELS_PER_THREAD;
                if c < words_per_row {
                    // SAFETY: `y < height` and `c < width / 4`, and `words` holds
                    // `width * height / 4` words (`new` checked the byte length).
                    unsafe { words.get_nc_unchecked(y * words_per_row + c) }
                } else {
                    0
                }
            }
            None => {
                let mut word = 0;
                for k in 0..PIXELS_PER_THREAD {
                    let x = PIXELS_PER_THREAD * c + k;
                    if x < self.width {
                        word |= u32::from(self.input.get(y * self.width + x)) << (8 * k);
                    }
                }
                word
            }
        }
    }

    /// The words `c - 1`, `c`, `c + 1` of row `y`, and a zero word: the 12 bytes around the
    /// thread's 4 pixels, byte `b` of the buffer being pixel `4c - 4 + b`.
    #[inline(always)]
    pub fn row_buffer(&self, y: isize, c: usize) -> [u32; 4] {
        let c = c as isize;
        [
            self.load_word(y, c - 1),
            self.load_word(y, c),
            self.load_word(y, c + 1),
            0,
        ]
    }

    /// True when the image is word-aligned and a thread's words `c - 1 ..= c + 1` of rows
    /// `y0 - reach .. y0 + ROWS_PER_THREAD + reach` all lie inside it: its loads need no tests,
    /// and every window of its outputs (reaching `reach <= 4` pixels each way) lies inside.
    #[inline(always)]
    pub fn interior(&self, c: usize, y0: usize, reach: usize) -> bool {
        self.interior_rows(c, y0, ROWS_PER_THREAD, reach)
    }

    /// [`WordImage::interior`] for a thread writing `rows` rows from `y0` (the streaming
    /// kernels' strips): rows `y0 - reach .. y0 + rows + reach` and words `c - 1 ..= c + 1` lie
    /// inside a word-aligned image.
    #[inline(always)]
    pub fn interior_rows(&self, c: usize, y0: usize, rows: usize, reach: usize) -> bool {
        self.words.is_some()
            && c >= 1
            && c + 1 < self.width / PIXELS_PER_THREAD
            && y0 >= reach
            && y0 + rows + reach <= self.height
    }

    /// [`WordImage::row_buffer`] of an interior thread: three loads, no tests.
    ///
    /// # Safety
    /// [`WordImage::interior`] (or [`WordImage::interior_rows`]) holds for `c` and a range of
    /// rows holding `y`.
    #[inline(always)]
    pub unsafe fn row_buffer_interior(&self, y: usize, c: usize) -> [u32; 4] {
        match self.words {
            Some((words, _)) => {
                let at = y * (self.width / PIXELS_PER_THREAD) + c;
                // SAFETY: `1 <= c`, `c + 1 < width / 4` and `y < height` (the caller's
                // contract): words `at - 1 ..= at + 1` lie in row `y` of the image.
                unsafe {
                    [
                        words.get_nc_unchecked(at - 1),
                        words.get_nc_unchecked(at),
                        words.get_nc_unchecked(at + 1),
                        0,
                    ]
                }
            }
            None => [0; 4],
        }
    }

    /// Stores `pixels` (pixel `4c + k` in byte `k`) in row `y`, dropping pixels past the width.
    #[inline(always)]
    pub fn store_word(&self, y: usize, c: usize, pixels: u32) {
        match self.words {
            Some((_, words)) => {
                let words_per_row = self.width / PIXELS_PER_THREAD;
                // SAFETY: callers store words with `4c < width` and `y < height`; with
                // `width % 4 == 0` that is `c < width / 4`, inside the `width * height / 4` words.
                unsafe { words.set_unchecked(y * words_per_row + c, pixels) }
            }
            None => {
                for k in 0..PIXELS_PER_THREAD {
                    let x = PIXELS_PER_THREAD * c + k;
                    if x < self.width {
                        self.output.set(y * self.width + x, (pixels >> (8 * k)) as u8);
                    }
                }
            }
        }
    }
}

/// Bytes `b .. b+4` of a row buffer as one word (a funnel shift of two of its words).
///
/// `b` is a constant after unrolling; windows reaching past the buffer read its zero word.
#[inline(always)]
pub fn window(buffer: &[u32; 4], b: usize) -> u32 {
    let (low, high) = (buffer[(b / 4).min(3)], buffer[(b / 4 + 1).min(3)]);
    match b % 4 {
        0 => low,
        // A funnel shift, `shf.r` on the GPU.
        shift => (low >> (8 * shift)) | (high << (32 - 8 * shift)),
    }
}

/// Byte `b` of a row buffer.
#[inline(always)]
pub fn byte(buffer: &[u32; 4], b: usize) -> u32 {
    (buffer[(b / 4).min(3)] >> (8 * (b % 4))) & 0xff
}

/// Four output bytes packed into a word, pixel `k` in byte `k`.
#[inline(always)]
pub fn pack(pixels: [u8; 4]) -> u32 {
    u32::from_le_bytes(pixels)
}

/// The grid of a fast kernel over a `width x height` image, `(x, y)` blocks of [`FAST_BLOCK`]:
/// one thread per 4 pixels of 8 rows.
pub const fn fast_grid(width: usize, height: usize) -> (usize, usize) {
    let threads_x = width.div_ceil(PIXELS_PER_THREAD);
    let threads_y = height.div_ceil(ROWS_PER_THREAD);
    (
        threads_x.div_ceil(FAST_BLOCK.0 as usize),
        threads_y.div_ceil(FAST_BLOCK.1 as usize),
    )
}
