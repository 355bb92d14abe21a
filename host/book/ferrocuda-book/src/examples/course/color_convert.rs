//! course-color-convert: the course's `colorConvert` (after PMPP §3.3): an RGB picture to 8-bit
//! gray, `gray = 0.21f*r + 0.71f*g + 0.07f*b`, 16 x 16 blocks, checked bit for bit.
//!
//! The picture is 4096 x 4096 on a GPU, holding each of the 2^24 colours exactly once (pixel `i`
//! has colour `i * 2654435761 mod 2^24`, a permutation), so the exact check covers every colour;
//! 256 x 192 pixels of that sequence on the simulator. The rounding is nvcc's (see
//! `book_kernels::course::color_convert`); the run also counts the colours whose gray byte an
//! unfused evaluation (`nvcc -fmad=false`) would change.
use super::image_shape::shape;
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::course::color_convert as reference;
use book_kernels::course::color_convert::{CHANNELS, ColorConvert, ColorConvertArgs};
use ferrocuda::footprint::{self, Footprint, try_with_capacity};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// course-color-convert.
pub struct CourseColorConvert;

/// Side of the GPU's picture: 4096^2 = 2^24 pixels, one per colour.
pub const SIDE: usize = 4096;
/// The simulator's picture.
pub const SIMULATOR_SIZE: (usize, usize) = (256, 192);
/// Blocks of 16 x 16 threads, as the course's 2-D examples.
pub const BLOCK: (u32, u32) = (16, 16);

/// Pixel `i`'s colour, `(r, g, b)`: `i * 2654435761 mod 2^24` (odd, so every colour once per
/// 2^24 pixels), red in the low byte.
pub fn colour(i: usize) -> [u8; 3] {
    let c = (i as u32).wrapping_mul(2_654_435_761) & 0xff_ffff;
    let [r, g, b, _] = c.to_le_bytes();
    [r, g, b]
}

/// The interleaved RGB bytes of a `width x height` picture of [`colour`]s.
pub fn picture(width: usize, height: usize) -> Result<Vec<u8>> {
    let pixels = pixels(width, height)?;
    let mut rgb = try_with_capacity(CHANNELS * pixels)?;
    rgb.extend((0..pixels).flat_map(colour));
    Ok(rgb)
}

/// `width * height`, refusing an empty picture or one whose RGB bytes overflow.
pub fn pixels(width: usize, height: usize) -> Result<usize> {
    match width.checked_mul(height) {
        Some(p) if p > 0 && p.checked_mul(CHANNELS).is_some() => Ok(p),
        _ => Err(Error::InvalidArgument(format!(
            "a {width} x {height} picture has no pixels or more bytes than memory can address"
        ))),
    }
}

/// `gray_d = colorConvert(rgb_d)` for a `width x height` picture.
pub fn color_convert(
    gpu: &Gpu,
    gray_d: &mut DeviceBuffer<u8>,
    rgb_d: &DeviceBuffer<u8>,
    width: usize,
    height: usize,
) -> Result<()> {
    let p = pixels(width, height)?;
    if gray_d.len() != p || rgb_d.len() != CHANNELS * p {
        return Err(Error::InvalidArgument(format!(
            "a {width} x {height} picture needs {} RGB and {p} gray bytes, not {} and {}",
            CHANNELS * p,
            rgb_d.len(),
            gray_d.len()
        )));
    }
    let args = ColorConvertArgs {
        gray_image: gray_d.view_mut(),
        rgb_image: rgb_d.view(),
        width,
        height,
    };
    crate::kernels(gpu)?.launch(ColorConvert, LaunchShape::cover_2d(width, height, BLOCK)?, args)
}

impl Example for CourseColorConvert {
    const ID: &'static str = "course-color-convert";
    const DESCRIPTION: &'static str = "colorConvert: RGB to gray bytes, 0.21r + 0.71g + 0.07b as nvcc rounds it, every colour once (IT4I course, PMPP)";
    const SIZE: Option<Size> = Some(Size::new(
        "picture side in pixels, N x N (the simulator's default picture is 256 x 192)",
        SIDE,
        SIMULATOR_SIZE.0,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak for an `n x n` picture: RGB and gray bytes on the device; on the host the
    /// RGB bytes, the downloaded gray image and the reference's.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let p = footprint::elements(&[run.size, run.size])?;
        Footprint::NONE
            .device::<u8>(CHANNELS + 1, p)?
            .host::<u8>(CHANNELS + 2, p)
    }

    /// Converts the picture (`--size N`: N x N), times it, and checks it bit for bit.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let (width, height) = shape(run, gpu.pick((SIDE, SIDE), SIMULATOR_SIZE));
        let rgb = picture(width, height)?;
        let rgb_d = gpu.upload(&rgb)?;
        let mut gray_d = gpu.zeros::<u8>(width * height)?;
        let stats = time_reps(gpu, run.reps, || color_convert(gpu, &mut gray_d, &rgb_d, width, height))?;
        let bytes = (CHANNELS + 1) * width * height;
        println!(
            "colorConvert: {width} x {height} pixels, CHANNELS = {CHANNELS}, blocks of {} x {}",
            BLOCK.0, BLOCK.1
        );
        println!(
            " {:.4} ms ({}), {:.1} GB/s (3 bytes read + 1 written per pixel)",
            stats.median_ms,
            gpu.timing_label(),
            gb_per_s(bytes, stats.median_ms)
        );
        println!(" gray = 0.21f*r + 0.71f*g + 0.07f*b as nvcc contracts it: fma(b, 0.07f, fma(r, 0.21f, 0.71f*g)),");
        println!(" truncated toward zero to unsigned char (cvt.rzi)");
        let changed = reference::colours_changed_by_fusion();
        println!(
            " {changed} of the {} colours give another gray byte when every operation rounds on its own (-fmad=false)",
            1 << 24
        );
        let checks = vec![Check::compare(
            "gray image",
            &gpu.download(&gray_d)?,
            &reference::color_convert(&rgb)?,
            Tolerance::EXACT,
        )];
        Ok(Outcome { checks })
    }
}
