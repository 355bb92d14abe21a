//! `colorConvert` (IT4I course, lecture "Multi-dimensional grids", after PMPP): an RGB picture
//! (`CHANNELS = 3` bytes per pixel, interleaved) to 8-bit grayscale,
//! `gray = 0.21f*r + 0.71f*g + 0.07f*b`.
//!
//! Rounding, exactly as the course's C compiles with nvcc's defaults (`-fmad=true`), checked in
//! its PTX: `0.71f*g` rounded, then `fma(r, 0.21f, .)`, then `fma(b, 0.07f, .)`, and the float to
//! `unsigned char` conversion truncates toward zero (`cvt.rzi`). The kernel spells that order
//! out with explicit fused multiply-adds, so the PTX is the same on every compiler and the CPU
//! reference (`f32::mul_add` in the same order) matches it bit for bit. The unfused order
//! (five roundings) differs for some colours: course-color-convert counts them.
use ferrocuda_device::prelude::*;

/// Bytes per RGB pixel.
pub const CHANNELS: usize = 3;
/// The weights of red, green and blue.
pub const WEIGHTS: [f32; 3] = [0.21, 0.71, 0.07];

/// Arguments of [`color_convert`]: `width x height` pixels, row-major.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ColorConvertArgs<'a> {
    /// `width * height` gray bytes.
    pub gray_image: SliceMut<'a, u8>,
    /// `CHANNELS * width * height` bytes, `r g b r g b ...`.
    pub rgb_image: Slice<'a, u8>,
    pub width: usize,
    pub height: usize,
}

/// `0.21f*r + 0.71f*g + 0.07f*b` as nvcc contracts it, truncated to a byte.
#[inline(always)]
pub fn gray_of(r: u8, g: u8, b: u8) -> u8 {
    let [wr, wg, wb] = WEIGHTS;
    let gray = math::fma(f32::from(b), wb, math::fma(f32::from(r), wr, f32::from(g) * wg));
    // In [0, 252.45]: `as` truncates toward zero, as C's conversion does.
    gray as u8
}

/// The course's `colorConvert`: one thread per pixel, `x` the column, `y` the row.
///
/// Launch: any 2-D grid covering `width x height` (the course uses 16 x 16 blocks).
#[kernel]
pub fn color_convert(args: ColorConvertArgs<'_>) {
    let x = global_idx_x();
    let y = global_idx_y();
    if x < args.width && y < args.height {
        let gray_offset = y * args.width + x;
        let rgb_offset = gray_offset * CHANNELS;
        let r = args.rgb_image.get(rgb_offset);
        let g = args.rgb_image.get(rgb_offset + 1);
        let b = args.rgb_image.get(rgb_offset + 2);
        args.gray_image.set(gray_offset, gray_of(r, g, b));
    }
}
