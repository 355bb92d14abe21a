//! GPU-vs-CPU tests of the IT4I course's image and stencil examples: course-picture-kernel,
//! course-color-convert, course-equalise, course-matrix-sum, course-image-blur, course-convolution. Every output
//! is integer arithmetic, a doubling, or f32 operations in the CPU's order, so every comparison
//! is exact; sizes cover the source's and those that break tiles (1 x 1, 15 x 17, 16 x 16,
//! 17 x 33, widths that are not multiples of 4 or 16), masks 1, 3, 5, 7 and 9 wide.
mod common;
#[path = "course_images/cpu.rs"]
mod cpu;

use common::{GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda_book::examples::course::convolution::{self, ConstantMasks, mask_1d, mask_2d};
use ferrocuda_book::examples::course::image_blur::{self, Variant as BlurVariant};
use ferrocuda_book::examples::course::matrix_sum::{self, Sums};
use ferrocuda_book::examples::course::{color_convert, picture_kernel};
use ferrocuda_book::reference::course as reference;

/// Image sizes `(w, h)` that break 16 x 16 blocks, 4-pixel words and 8-row strips, and two
/// word-aligned ones large enough for interior threads of every mask.
const IMAGE_SIZES: [(usize, usize); 10] = [
    (1, 1),
    (15, 17),
    (16, 16),
    (17, 33),
    (33, 17),
    (4, 9),
    (131, 70),
    (200, 100),
    (264, 41),
    (3, 260),
];
/// Every mask width the fast kernel has.
const MASK_WIDTHS: [usize; 5] = [1, 3, 5, 7, 9];

fn course_picture_kernel_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-picture-kernel", &[])
}

fn course_picture_kernel_sizes(gpu: &Gpu) -> TestResult {
    for (n, m) in IMAGE_SIZES.into_iter().chain([(76, 62), (1000, 2)]) {
        let pin: Vec<f32> = (0..n * m).map(|i| i as f32 - 7.5).collect();
        let pin_d = gpu.upload(&pin).map_err(fail)?;
        let mut pout_d = gpu.upload(&vec![f32::NAN; n * m]).map_err(fail)?;
        picture_kernel::picture(gpu, &pin_d, &mut pout_d, n, m, picture_kernel::BLOCK).map_err(fail)?;
        let out = gpu.download(&pout_d).map_err(fail)?;
        ensure(out == reference::picture_kernel::picture(&pin).map_err(fail)?, || {
            format!("{n} x {m}: doubled picture differs")
        })?;
    }
    Ok(())
}

fn course_color_convert_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-color-convert", &["--reps", "1"])
}

fn course_equalise_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-equalise", &["--reps", "1"])?;
    // One pixel (one value: equalised to 0), a prime side, a wide strip.
    for size in ["1", "17", "100"] {
        passes_with(gpu, "course-equalise", &["--reps", "1", "--size", size])?;
    }
    Ok(())
}

/// The histogram kernel counts a picture of one value, and of every value, exactly: all pixels in
/// one bin (the most contention on one shared counter), then 256 equal bins.
fn course_equalise_histogram_extremes(gpu: &Gpu) -> TestResult {
    use ferrocuda_book::examples::course::equalise;
    for (pixels, want) in [
        (
            vec![7u8; 100_003],
            (0..256).map(|b| if b == 7 { 100_003 } else { 0 }).collect::<Vec<u32>>(),
        ),
        ((0..256 * 1000).map(|i| i as u8).collect(), vec![1000u32; 256]),
    ] {
        let pixels_d = gpu.upload(&pixels).map_err(fail)?;
        let mut bins_d = gpu.upload(&[9u32; 256]).map_err(fail)?;
        equalise::histogram(gpu, &pixels_d, &mut bins_d).map_err(fail)?;
        ensure(gpu.download(&bins_d).map_err(fail)? == want, || {
            format!("histogram of {} pixels differs", pixels.len())
        })?;
    }
    Ok(())
}

fn course_color_convert_sizes(gpu: &Gpu) -> TestResult {
    for (w, h) in IMAGE_SIZES {
        let rgb = color_convert::picture(w, h).map_err(fail)?;
        let rgb_d = gpu.upload(&rgb).map_err(fail)?;
        let mut gray_d = gpu.upload(&vec![0xa5u8; w * h]).map_err(fail)?;
        color_convert::color_convert(gpu, &mut gray_d, &rgb_d, w, h).map_err(fail)?;
        ensure(
            gpu.download(&gray_d).map_err(fail)? == reference::color_convert::color_convert(&rgb).map_err(fail)?,
            || format!("{w} x {h}: gray image differs"),
        )?;
    }
    Ok(())
}

/// Every colour of one 2^24-pixel picture's first 2^18 pixels, through the kernel, against the
/// CPU: the fused order, bit for bit.
fn course_color_convert_many_colours(gpu: &Gpu) -> TestResult {
    let (w, h) = (512, 512);
    let rgb = color_convert::picture(w, h).map_err(fail)?;
    let rgb_d = gpu.upload(&rgb).map_err(fail)?;
    let mut gray_d = gpu.zeros::<u8>(w * h).map_err(fail)?;
    color_convert::color_convert(gpu, &mut gray_d, &rgb_d, w, h).map_err(fail)?;
    let gray = gpu.download(&gray_d).map_err(fail)?;
    let wrong = gray
        .iter()
        .zip(rgb.chunks(3))
        .filter(|(g, p)| **g != reference::color_convert::gray(p[0], p[1], p[2]))
        .count();
    ensure(wrong == 0, || format!("{wrong} of {} colours differ", w * h))
}

fn course_matrix_sum_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-matrix-sum", &["--reps", "1"])
}

fn course_matrix_sum_sizes(gpu: &Gpu) -> TestResult {
    for (rows, cols) in [(1, 1), (15, 17), (16, 16), (17, 33), (1, 300), (300, 1), (257, 255)] {
        let a = matrix_sum::matrix(rows, cols, 9).map_err(fail)?;
        let a_d = gpu.upload(&a).map_err(fail)?;
        for (which, expected) in [
            (Sums::EachRow, reference::matrix_sum::row_sums(&a, cols)),
            (Sums::EachCol, reference::matrix_sum::col_sums(&a, cols)),
        ] {
            let mut sums_d = gpu.upload(&vec![f32::NAN; expected.len()]).map_err(fail)?;
            matrix_sum::matrix_sum(gpu, which, &a_d, &mut sums_d, rows, cols).map_err(fail)?;
            let sums = gpu.download(&sums_d).map_err(fail)?;
            ensure(sums == expected, || {
                format!("{rows} x {cols}: {} differ", which.label())
            })?;
        }
    }
    Ok(())
}

fn course_matrix_sum_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let a_d = gpu.upload(&[1.0f32; 12]).map_err(fail)?;
    let mut three = gpu.zeros::<f32>(3).map_err(fail)?;
    ensure(
        matrix_sum::matrix_sum(gpu, Sums::EachRow, &a_d, &mut three, 4, 3).is_err(),
        || "4 row sums written into 3".into(),
    )?;
    ensure(
        matrix_sum::matrix_sum(gpu, Sums::EachCol, &a_d, &mut three, 3, 3).is_err(),
        || "a 12-element matrix taken for 3 x 3".into(),
    )?;
    ensure(matrix_sum::matrix(0, 5, 1).is_err(), || {
        "an empty matrix accepted".into()
    })
}

fn course_image_blur_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-image-blur", &["--reps", "1"])
}

/// Both blurs on seeded random bytes (harder than the pattern) at every awkward size.
fn course_image_blur_sizes(gpu: &Gpu) -> TestResult {
    // 256 x 200: word-aligned, with `blur_stream` strips inside the image (rows 32..64 and on)
    // beside the edge strips, so both of its paths run.
    for (w, h) in IMAGE_SIZES.into_iter().chain([(256, 200)]) {
        let input = convolution::image(w * h, (w * 1000 + h) as u64).map_err(fail)?;
        let expected = reference::image_blur::blur(&input, w, h).map_err(fail)?;
        let in_d = gpu.upload(&input).map_err(fail)?;
        for variant in BlurVariant::ALL {
            let mut out_d = gpu.upload(&vec![0xa5u8; w * h]).map_err(fail)?;
            image_blur::blur(gpu, variant, &in_d, &mut out_d, w, h).map_err(fail)?;
            ensure(gpu.download(&out_d).map_err(fail)? == expected, || {
                format!("{} at {w} x {h} differs from the CPU", variant.kernel())
            })?;
        }
    }
    Ok(())
}

fn course_image_blur_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let in_d = gpu.upload(&[1u8; 12]).map_err(fail)?;
    let mut out_d = gpu.zeros::<u8>(12).map_err(fail)?;
    for variant in BlurVariant::ALL {
        ensure(image_blur::blur(gpu, variant, &in_d, &mut out_d, 5, 3).is_err(), || {
            format!("{}: 12 pixels taken for 5 x 3", variant.kernel())
        })?;
        ensure(image_blur::blur(gpu, variant, &in_d, &mut out_d, 0, 0).is_err(), || {
            format!("{}: a 0 x 0 image accepted", variant.kernel())
        })?;
    }
    Ok(())
}

fn course_convolution_program(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "course-convolution",
        &["--size", "41", "--reps", "1", "--mask", "3"],
    )
}

/// Both 1-D kernels at lengths around the tiles, every mask width, tiles of 1, 16 and the
/// widest block.
fn course_convolution_1d_sizes(gpu: &Gpu) -> TestResult {
    for width in [1usize, 2, 31, 33, 1019, 1020, 1021, 4099] {
        let n = convolution::signal(width, width as u64).map_err(fail)?;
        let n_d = gpu.upload(&n).map_err(fail)?;
        for mask_width in MASK_WIDTHS {
            let m = mask_1d(mask_width);
            let expected = reference::convolution::convolution_1d(&n, &m).map_err(fail)?;
            let m_d = gpu.upload(&m).map_err(fail)?;
            let mut p_d = gpu.upload(&vec![f32::NAN; width]).map_err(fail)?;
            convolution::convolution_1d_basic(gpu, &n_d, &m_d, &mut p_d).map_err(fail)?;
            ensure(gpu.download(&p_d).map_err(fail)? == expected, || {
                format!("1-D basic, width {width}, mask {mask_width}")
            })?;
            let mut masks = ConstantMasks::lock(gpu);
            masks.set_1d(&m).map_err(fail)?;
            for o_tile in [1, 16, 1025 - mask_width] {
                gpu.upload_into(&vec![f32::NAN; width], &mut p_d).map_err(fail)?;
                convolution::convolution_1d_tiled(gpu, &masks, o_tile, &n_d, &mut p_d).map_err(fail)?;
                ensure(gpu.download(&p_d).map_err(fail)? == expected, || {
                    format!("1-D tiled, width {width}, mask {mask_width}, O_TILE_WIDTH {o_tile}")
                })?;
            }
        }
    }
    Ok(())
}

/// The three 2-D kernels at every awkward size and mask width (tiles of 1, 8 and the widest).
fn course_convolution_2d_sizes(gpu: &Gpu) -> TestResult {
    for (w, h) in IMAGE_SIZES {
        let input = convolution::image(w * h, (w + 7 * h) as u64).map_err(fail)?;
        let in_d = gpu.upload(&input).map_err(fail)?;
        let mut out_d = gpu.zeros::<u8>(w * h).map_err(fail)?;
        for mask_width in MASK_WIDTHS {
            let mask = mask_2d(mask_width);
            let expected = reference::convolution::convolution_2d(&input, w, h, &mask, mask_width).map_err(fail)?;
            let mask_d = gpu.upload(&mask).map_err(fail)?;
            let check = |out_d: &ferrocuda::DeviceBuffer<u8>, what: &str| {
                let out = gpu.download(out_d).map_err(fail)?;
                ensure(out == expected, || format!("{what}, {w} x {h}, mask {mask_width}"))
            };
            gpu.upload_into(&vec![0xa5; w * h], &mut out_d).map_err(fail)?;
            convolution::convolution_2d_basic(gpu, &in_d, &mask_d, &mut out_d, mask_width, (w, h)).map_err(fail)?;
            check(&out_d, "2-D basic")?;
            let mut masks = ConstantMasks::lock(gpu);
            masks.set_2d(&mask, mask_width).map_err(fail)?;
            for o_tile in [1, 8, 33 - mask_width] {
                gpu.upload_into(&vec![0xa5; w * h], &mut out_d).map_err(fail)?;
                convolution::convolution_2d_tiled(gpu, &masks, o_tile, &in_d, &mut out_d, (w, h)).map_err(fail)?;
                check(&out_d, &format!("2-D tiled, O_TILE_WIDTH {o_tile}"))?;
            }
            gpu.upload_into(&vec![0xa5; w * h], &mut out_d).map_err(fail)?;
            convolution::convolution_2d_fast(gpu, &masks, &in_d, &mut out_d, (w, h)).map_err(fail)?;
            check(&out_d, "2-D fast")?;
        }
    }
    Ok(())
}

/// A mask of ones is the blur: the 2-D kernels with the 5 x 5 ones mask give `blur_kernel`'s
/// image; with a mask of zeros, a black one.
fn course_convolution_ones_is_the_blur(gpu: &Gpu) -> TestResult {
    let (w, h) = (131, 70);
    let in_d = gpu.upload(&convolution::image(w * h, 4).map_err(fail)?).map_err(fail)?;
    let mut blurred_d = gpu.zeros::<u8>(w * h).map_err(fail)?;
    image_blur::blur(gpu, BlurVariant::Course, &in_d, &mut blurred_d, w, h).map_err(fail)?;
    let blurred = gpu.download(&blurred_d).map_err(fail)?;
    let mut out_d = gpu.zeros::<u8>(w * h).map_err(fail)?;
    for (weight, expected) in [(1u8, blurred), (0, vec![0; w * h])] {
        let mut masks = ConstantMasks::lock(gpu);
        masks.set_2d(&[weight; 25], 5).map_err(fail)?;
        convolution::convolution_2d_tiled(gpu, &masks, 12, &in_d, &mut out_d, (w, h)).map_err(fail)?;
        ensure(gpu.download(&out_d).map_err(fail)? == expected, || {
            format!("tiled, mask of {weight}s")
        })?;
        convolution::convolution_2d_fast(gpu, &masks, &in_d, &mut out_d, (w, h)).map_err(fail)?;
        ensure(gpu.download(&out_d).map_err(fail)? == expected, || {
            format!("fast, mask of {weight}s")
        })?;
    }
    Ok(())
}

/// PMPP's worked 1-D example: N = 1..7, M = 3 4 5 4 3 gives P[1] = 38 (a ghost cell) and
/// P[2] = 57, by hand.
fn course_convolution_1d_by_hand(gpu: &Gpu) -> TestResult {
    let n: Vec<f32> = (1..=7).map(|v| v as f32).collect();
    let m = [3.0f32, 4.0, 5.0, 4.0, 3.0];
    let (n_d, m_d) = (gpu.upload(&n).map_err(fail)?, gpu.upload(&m).map_err(fail)?);
    let mut p_d = gpu.zeros::<f32>(7).map_err(fail)?;
    convolution::convolution_1d_basic(gpu, &n_d, &m_d, &mut p_d).map_err(fail)?;
    let p = gpu.download(&p_d).map_err(fail)?;
    ensure(p[1] == 38.0 && p[2] == 57.0, || format!("P = {p:?}"))
}

fn course_convolution_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let (w, h) = (20, 10);
    let in_d = gpu.upload(&vec![1u8; w * h]).map_err(fail)?;
    let mut out_d = gpu.zeros::<u8>(w * h).map_err(fail)?;
    let mut masks = ConstantMasks::lock(gpu);
    ensure(
        convolution::convolution_2d_fast(gpu, &masks, &in_d, &mut out_d, (w, h)).is_err(),
        || "a launch with no mask in the constant bank".into(),
    )?;
    for width in [0, 2, 11] {
        ensure(masks.set_2d(&vec![1; width * width], width).is_err(), || {
            format!("a 2-D mask {width} wide accepted")
        })?;
    }
    ensure(masks.set_2d(&[1; 24], 5).is_err(), || {
        "24 weights taken for 5 x 5".into()
    })?;
    ensure(masks.set_1d(&[1.0; 4]).is_err(), || "an even 1-D mask accepted".into())?;
    masks.set_2d(&mask_2d(5), 5).map_err(fail)?;
    for o_tile in [0, 29] {
        ensure(
            convolution::convolution_2d_tiled(gpu, &masks, o_tile, &in_d, &mut out_d, (w, h)).is_err(),
            || format!("O_TILE_WIDTH {o_tile} accepted with a 5 x 5 mask"),
        )?;
    }
    ensure(
        convolution::convolution_2d_fast(gpu, &masks, &in_d, &mut out_d, (w, h + 1)).is_err(),
        || "200 pixels taken for 20 x 11".into(),
    )?;
    masks.set_1d(&mask_1d(5)).map_err(fail)?;
    let n_d = gpu.upload(&vec![1.0f32; 100]).map_err(fail)?;
    let mut p_d = gpu.zeros::<f32>(99).map_err(fail)?;
    ensure(
        convolution::convolution_1d_tiled(gpu, &masks, 16, &n_d, &mut p_d).is_err(),
        || "100 values convolved into 99".into(),
    )?;
    let mut p_d = gpu.zeros::<f32>(100).map_err(fail)?;
    for o_tile in [1021, usize::MAX] {
        ensure(
            convolution::convolution_1d_tiled(gpu, &masks, o_tile, &n_d, &mut p_d).is_err(),
            || format!("O_TILE_WIDTH {o_tile} accepted with a 5-wide mask"),
        )?;
    }
    ensure(
        convolution::convolution_2d_tiled(gpu, &masks, usize::MAX, &in_d, &mut out_d, (w, h)).is_err(),
        || "O_TILE_WIDTH usize::MAX accepted in 2-D".into(),
    )
}

/// The benchmark's rows run (here at 1 MiB, one repetition) and each declares its bytes.
fn course_images_bench_rows(gpu: &Gpu) -> TestResult {
    use ferrocuda_book::bench::{Settings, course_images};
    let settings = Settings {
        working_set_mib: 1,
        reps: 1,
        ..Settings::default()
    };
    let rows = course_images::run(gpu, &settings, None).map_err(fail)?;
    ensure(
        rows.len() == 11 && rows.iter().all(|r| r.bytes > 0 && r.rust.median_ms > 0.0),
        || {
            format!(
                "{} rows: {:?}",
                rows.len(),
                rows.iter().map(|r| &r.name).collect::<Vec<_>>()
            )
        },
    )
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("course_picture_kernel_program", course_picture_kernel_program),
        ("course_picture_kernel_sizes", course_picture_kernel_sizes),
        ("course_color_convert_program", course_color_convert_program),
        ("course_color_convert_sizes", course_color_convert_sizes),
        ("course_color_convert_many_colours", course_color_convert_many_colours),
        ("course_equalise_program", course_equalise_program),
        ("course_equalise_histogram_extremes", course_equalise_histogram_extremes),
        ("course_matrix_sum_program", course_matrix_sum_program),
        ("course_matrix_sum_sizes", course_matrix_sum_sizes),
        (
            "course_matrix_sum_rejects_bad_arguments",
            course_matrix_sum_rejects_bad_arguments,
        ),
        ("course_image_blur_program", course_image_blur_program),
        ("course_image_blur_sizes", course_image_blur_sizes),
        (
            "course_image_blur_rejects_bad_arguments",
            course_image_blur_rejects_bad_arguments,
        ),
        ("course_convolution_program", course_convolution_program),
        ("course_convolution_1d_sizes", course_convolution_1d_sizes),
        ("course_convolution_2d_sizes", course_convolution_2d_sizes),
        (
            "course_convolution_ones_is_the_blur",
            course_convolution_ones_is_the_blur,
        ),
        ("course_convolution_1d_by_hand", course_convolution_1d_by_hand),
        (
            "course_convolution_rejects_bad_arguments",
            course_convolution_rejects_bad_arguments,
        ),
        ("course_images_bench_rows", course_images_bench_rows),
    ];
    common::main(cpu::tests(), gpu_tests)
}
