//! The course's image and stencil kernels (course-picture-kernel, -color-convert, -matrix-sum,
//! -image-blur, -convolution) on both backends: every output is integer arithmetic, a doubling,
//! f32 sums in a fixed order or fused multiply-adds in a fixed order, so all compare exactly.
//! Sizes are multiples of neither 16 nor the fast kernels' 4 x 8 pixels, and the fast kernels
//! also run on a word-aligned image, where most threads take their path without bounds tests.
use super::Comparison;
use crate::examples::course::convolution::{self, ConstantMasks, mask_1d, mask_2d};
use crate::examples::course::image_blur::{self, Variant as BlurVariant};
use crate::examples::course::matrix_sum::{self, Sums};
use crate::examples::course::{color_convert, equalise, picture_kernel};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// An image that is not a multiple of 16, 4 or 8 in either direction.
const AWKWARD: (usize, usize) = (203, 77);
/// A word-aligned image with interior threads for masks up to 9 wide.
const ALIGNED: (usize, usize) = (264, 90);

/// Compares every kernel of the five examples.
pub fn course_images(c: &mut Comparison) -> Result<()> {
    c.compare("picture_kernel", Tolerance::EXACT, |gpu| {
        let (n, m) = (picture_kernel::N, picture_kernel::M);
        let pin: Vec<f32> = (0..n * m).map(|i| i as f32 * 0.75 - 1000.0).collect();
        let pin_d = gpu.upload(&pin)?;
        let mut pout_d = gpu.zeros::<f32>(n * m)?;
        picture_kernel::picture(gpu, &pin_d, &mut pout_d, n, m, picture_kernel::BLOCK)?;
        gpu.download(&pout_d)
    })?;
    c.compare("histogram_u8", Tolerance::EXACT, |gpu| {
        let pixels_d = gpu.upload(&equalise::picture(100_003)?)?;
        let mut bins_d = gpu.zeros::<u32>(book_kernels::course::equalise::BINS)?;
        equalise::histogram(gpu, &pixels_d, &mut bins_d)?;
        gpu.download(&bins_d)
    })?;
    c.compare("equalise_map", Tolerance::EXACT, |gpu| {
        let picture = equalise::picture(100_003)?;
        let pixels_d = gpu.upload(&picture)?;
        let cdf: Vec<u32> = (0..256u32).map(|v| 390 * v).collect();
        let cdf_d = gpu.upload(&cdf)?;
        let mut equalised_d = gpu.zeros::<u8>(picture.len())?;
        equalise::equalise(gpu, &pixels_d, &cdf_d, 0, &mut equalised_d)?;
        gpu.download(&equalised_d)
    })?;
    c.compare("color_convert", Tolerance::EXACT, |gpu| {
        let (w, h) = AWKWARD;
        let rgb_d = gpu.upload(&color_convert::picture(w, h)?)?;
        let mut gray_d = gpu.zeros::<u8>(w * h)?;
        color_convert::color_convert(gpu, &mut gray_d, &rgb_d, w, h)?;
        gpu.download(&gray_d)
    })?;
    for which in [Sums::EachRow, Sums::EachCol] {
        c.compare(which.kernel(), Tolerance::EXACT, |gpu| {
            let (rows, cols) = (301, 257);
            let a_d = gpu.upload(&matrix_sum::matrix(rows, cols, 3)?)?;
            let mut sums_d = gpu.zeros::<f32>(if which == Sums::EachRow { rows } else { cols })?;
            matrix_sum::matrix_sum(gpu, which, &a_d, &mut sums_d, rows, cols)?;
            gpu.download(&sums_d)
        })?;
    }
    for variant in BlurVariant::ALL {
        for (w, h) in [AWKWARD, ALIGNED] {
            c.compare(&format!("{} {w}x{h}", variant.kernel()), Tolerance::EXACT, |gpu| {
                let in_d = gpu.upload(&convolution::image(w * h, 5)?)?;
                let mut out_d = gpu.zeros::<u8>(w * h)?;
                image_blur::blur(gpu, variant, &in_d, &mut out_d, w, h)?;
                gpu.download(&out_d)
            })?;
        }
    }
    convolutions(c)
}

/// The 1-D and 2-D convolution kernels, the fast one at every mask width.
fn convolutions(c: &mut Comparison) -> Result<()> {
    let width = 10_007;
    c.compare("convolution_1d_basic_kernel", Tolerance::EXACT, |gpu| {
        let (n_d, m_d) = (gpu.upload(&convolution::signal(width, 1)?)?, gpu.upload(&mask_1d(9))?);
        let mut p_d = gpu.zeros::<f32>(width)?;
        convolution::convolution_1d_basic(gpu, &n_d, &m_d, &mut p_d)?;
        gpu.download(&p_d)
    })?;
    c.compare("convolution_1d_tiled_kernel", Tolerance::EXACT, |gpu| {
        let n_d = gpu.upload(&convolution::signal(width, 1)?)?;
        let mut p_d = gpu.zeros::<f32>(width)?;
        let mut masks = ConstantMasks::lock(gpu);
        masks.set_1d(&mask_1d(9))?;
        convolution::convolution_1d_tiled(gpu, &masks, 100, &n_d, &mut p_d)?;
        gpu.download(&p_d)
    })?;
    let (w, h) = AWKWARD;
    c.compare("convolution_2d_basic_kernel", Tolerance::EXACT, |gpu| {
        let (in_d, mask_d) = (gpu.upload(&convolution::image(w * h, 2)?)?, gpu.upload(&mask_2d(5))?);
        let mut out_d = gpu.zeros::<u8>(w * h)?;
        convolution::convolution_2d_basic(gpu, &in_d, &mask_d, &mut out_d, 5, (w, h))?;
        gpu.download(&out_d)
    })?;
    c.compare("convolution_2d_tiled_kernel", Tolerance::EXACT, |gpu| {
        let in_d = gpu.upload(&convolution::image(w * h, 2)?)?;
        let mut out_d = gpu.zeros::<u8>(w * h)?;
        let mut masks = ConstantMasks::lock(gpu);
        masks.set_2d(&mask_2d(5), 5)?;
        convolution::convolution_2d_tiled(gpu, &masks, 12, &in_d, &mut out_d, (w, h))?;
        gpu.download(&out_d)
    })?;
    for mask_width in [1, 3, 5, 7, 9] {
        for (w, h) in [AWKWARD, ALIGNED] {
            let name = format!("convolution_2d_fast_m{mask_width} {w}x{h}");
            c.compare(&name, Tolerance::EXACT, |gpu| {
                let in_d = gpu.upload(&convolution::image(w * h, 3)?)?;
                let mut out_d = gpu.zeros::<u8>(w * h)?;
                let mut masks = ConstantMasks::lock(gpu);
                masks.set_2d(&mask_2d(mask_width), mask_width)?;
                convolution::convolution_2d_fast(gpu, &masks, &in_d, &mut out_d, (w, h))?;
                gpu.download(&out_d)
            })?;
        }
    }
    Ok(())
}
