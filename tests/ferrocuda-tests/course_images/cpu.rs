//! The tests of tests/ferrocuda-tests/course_images.rs that need no GPU: CPU references against hand-worked
//! values and closed forms, the lecture's numbers, and the kernels' PTX.
use crate::common::{CpuTest, TestResult, ensure};
use book_kernels::course::image_filter::Reciprocal;
use ferrocuda::ptx;
use ferrocuda_book::examples::course::convolution::report::{
    COURSE_1D, COURSE_2D, TABLE_TILES_1D, TABLE_TILES_2D, ratio_1d, ratio_2d,
};
use ferrocuda_book::examples::course::convolution::{mask_1d, mask_2d, packed};
use ferrocuda_book::examples::course::matrix_sum::{bus_utilisation, scenarios};
use ferrocuda_book::examples::course::{color_convert, image_blur, picture_kernel};
use ferrocuda_book::reference::course as reference;

/// The lecture prints its ratios to one decimal, sometimes rounding down (19.75 as 19.7): a
/// formula value is the lecture's when within 0.06 of it.
const PRINTED_DECIMAL: f64 = 0.06;

/// `Reciprocal` divides exactly: every numerator of every divisor up to 400, and the numerators
/// around every multiple of the largest divisors the masks make (the 9 x 9 mask of 255s).
fn course_image_filter_reciprocal_is_exact() -> TestResult {
    for d in 1u32..=400 {
        let r = Reciprocal::new(d, 255 * d).ok_or(format!("no reciprocal of {d}"))?;
        if let Some(n) = (0..=255 * d).find(|&n| r.divide(n) != n / d) {
            return Err(format!("{n} / {d}: {} not {}", r.divide(n), n / d));
        }
    }
    for d in [25u32, 65, 165, 1000, 4096, 20_655] {
        let max = 255 * d;
        let r = Reciprocal::new(d, max).ok_or(format!("no reciprocal of {d}"))?;
        for k in 0..=255 {
            for n in [k * d, (k * d).saturating_sub(1), k * d + 1, k * d + d / 2]
                .into_iter()
                .filter(|&n| n <= max)
            {
                ensure(r.divide(n) == n / d, || {
                    format!("{n} / {d}: {} not {}", r.divide(n), n / d)
                })?;
            }
        }
    }
    ensure(Reciprocal::new(0, 10).is_none(), || "a reciprocal of 0".into())
}

/// The blur of the pattern: the rayon reference equals the closed form from row and column
/// sums, and keeps the pixels whose box lies in one period.
fn course_image_blur_pattern_closed_form() -> TestResult {
    for (w, h) in [(1, 1), (15, 17), (70, 130), (333, 250)] {
        let image = image_blur::pattern(w, h).map_err(|e| e.to_string())?;
        let blurred = reference::image_blur::blur(&image, w, h).map_err(|e| e.to_string())?;
        let closed = image_blur::pattern_blur_closed_form(w, h).map_err(|e| e.to_string())?;
        ensure(blurred == closed, || {
            format!("{w} x {h}: reference and closed form differ")
        })?;
        let unchanged = image_blur::unchanged_pixels(w, h);
        ensure(unchanged.iter().all(|&(i, v)| blurred[i] == v), || {
            format!("{w} x {h}: a pixel inside one period changed")
        })?;
    }
    ensure(!image_blur::unchanged_pixels(333, 250).is_empty(), || {
        "no pixel to keep".into()
    })
}

/// The course's blur is the 2-D convolution with a 5 x 5 mask of ones, on the CPU.
fn course_image_blur_reference_is_the_ones_convolution() -> TestResult {
    let (w, h) = (37, 29);
    let image: Vec<u8> = (0..w * h).map(|i| (i * 7919 % 256) as u8).collect();
    ensure(
        reference::image_blur::blur(&image, w, h).unwrap()
            == reference::convolution::convolution_2d(&image, w, h, &[1; 25], 5).unwrap(),
        || "blur and ones convolution differ".into(),
    )
}

/// The slide's 5 x 5 mask, the 1-D mask, and the packing for `dp4a`.
fn course_convolution_masks() -> TestResult {
    let slide: [u8; 25] = [
        1, 2, 3, 2, 1, 2, 3, 4, 3, 2, 3, 4, 5, 4, 3, 2, 3, 4, 3, 2, 1, 2, 3, 2, 1,
    ];
    ensure(mask_2d(5) == slide, || format!("{:?}", mask_2d(5)))?;
    ensure(mask_1d(5) == [1.0, 2.0, 3.0, 2.0, 1.0], || format!("{:?}", mask_1d(5)))?;
    ensure(mask_2d(1) == [1] && mask_2d(9)[40] == 9, || "masks of 1 and 9".into())?;
    let words = packed(&slide, 5);
    ensure(
        words.len() == 15 && words[0] == 0x0203_0201 && words[1] == 1 && words[2] == 0 && words[6] == 0x0405_0403,
        || format!("{words:x?}"),
    )
}

/// The lecture's tile reduction ratios (L6) are the formulas' values, as printed.
fn course_convolution_ratios_match_the_lecture() -> TestResult {
    for (mask, values) in COURSE_1D {
        for (o, course) in TABLE_TILES_1D.into_iter().zip(values) {
            let ours = ratio_1d(mask, o);
            ensure((ours - course).abs() < PRINTED_DECIMAL, || {
                format!("1-D mask {mask}, O_TILE {o}: {ours} vs {course}")
            })?;
        }
    }
    for (mask, values) in COURSE_2D {
        for (o, course) in TABLE_TILES_2D.into_iter().zip(values) {
            let ours = ratio_2d(mask, o);
            ensure((ours - course).abs() < PRINTED_DECIMAL, || {
                format!("2-D mask {mask}, O_TILE {o}: {ours} vs {course}")
            })?;
        }
    }
    Ok(())
}

/// Gray bytes worked by hand in f32: 0.71f * 255 = 181.05, 0.21f * 255 = 53.55, 0.07f * 255 =
/// 17.85, white 252.45, each truncated; some colours round differently unfused.
fn course_color_convert_gray_by_hand() -> TestResult {
    let gray = reference::color_convert::gray;
    for (rgb, expected) in [
        ([0, 0, 0], 0),
        ([255, 0, 0], 53),
        ([0, 255, 0], 181),
        ([0, 0, 255], 17),
        ([255, 255, 255], 252),
    ] {
        ensure(gray(rgb[0], rgb[1], rgb[2]) == expected, || {
            format!("{rgb:?}: {} not {expected}", gray(rgb[0], rgb[1], rgb[2]))
        })?;
    }
    let changed = reference::color_convert::colours_changed_by_fusion();
    ensure(changed > 0 && changed < 1 << 18, || {
        format!("{changed} colours change unfused")
    })
}

/// The picture holds every colour once per 2^24 pixels.
fn course_color_convert_every_colour_once() -> TestResult {
    let mut seen = vec![false; 1 << 24];
    for i in 0..1 << 24 {
        let [r, g, b] = color_convert::colour(i);
        let c = usize::from(r) | usize::from(g) << 8 | usize::from(b) << 16;
        ensure(!seen[c], || format!("colour {c:06x} twice"))?;
        seen[c] = true;
    }
    Ok(())
}

/// The lecture's coalescing scenarios (L7): 100%, 100%, 12.5%, 12.5% for 32 sectors, 5 sectors
/// and 80%, 9 sectors and 88.9%; the row kernel's warp 12.5%, the column kernel's 100%.
fn course_matrix_sum_coalescing_scenarios() -> TestResult {
    let expected = [
        (4, 1.0),
        (4, 1.0),
        (1, 0.125),
        (32, 0.125),
        (5, 0.8),
        (9, 256.0 / 288.0),
        (4, 1.0),
        (32, 0.125),
    ];
    let got: Vec<(usize, f64)> = scenarios(16384).iter().map(|s| bus_utilisation(&s.addresses)).collect();
    ensure(got.len() == expected.len(), || format!("{} scenarios", got.len()))?;
    for ((sectors, used), (want_sectors, want_used)) in got.into_iter().zip(expected) {
        ensure(sectors == want_sectors && (used - want_used).abs() < 1e-12, || {
            format!("{sectors} sectors, {used}: expected {want_sectors}, {want_used}")
        })?;
    }
    Ok(())
}

/// The course's picture takes 4 paths: 12 blocks inside, 3 on the right edge (12 x 16 threads
/// work), 4 on the bottom (16 x 14), 1 in the corner (12 x 14); at any size the paths account
/// for every pixel once.
fn course_picture_kernel_paths() -> TestResult {
    let paths = picture_kernel::paths(76, 62, (16, 16));
    let got: Vec<(usize, usize)> = paths.iter().map(|p| (p.blocks, p.working_threads)).collect();
    ensure(got == [(12, 256), (3, 192), (4, 224), (1, 168)], || format!("{got:?}"))?;
    for (n, m) in [(1, 1), (15, 17), (16, 16), (17, 33), (100, 3)] {
        let covered: usize = picture_kernel::paths(n, m, (16, 16))
            .iter()
            .map(|p| p.blocks * p.working_threads)
            .sum();
        let by_thread: usize = reference::picture_kernel::working_threads_per_block(n, m, (16, 16))
            .iter()
            .sum();
        ensure(covered == n * m && by_thread == n * m, || {
            format!("{n} x {m}: paths cover {covered}, threads {by_thread}")
        })?;
    }
    Ok(())
}

/// Every embedded module's body of kernel `name`.
fn bodies(name: &str) -> Vec<&'static str> {
    ferrocuda_book::KERNEL_SETS
        .iter()
        .flat_map(|set| set.modules())
        .filter_map(|m| ptx::entry_ptx(m.ptx, name))
        .collect()
}

/// The kernels use the instructions they were written for: nvcc's fused order in
/// `color_convert`, fused multiply-adds in the 1-D convolutions, the constant bank and a barrier
/// in the tiled ones, `dp4a`, read-only word loads and word stores in the fast ones, and no
/// local memory anywhere.
fn course_images_ptx() -> TestResult {
    let expect = |name: &str, present: &[&str], absent: &[&str]| -> TestResult {
        let bodies = bodies(name);
        ensure(!bodies.is_empty(), || format!("no PTX for `{name}`"))?;
        for body in bodies {
            for p in present {
                ensure(body.contains(p), || format!("`{name}` lacks `{p}`"))?;
            }
            for a in absent.iter().chain(&[".local"]) {
                ensure(!body.contains(a), || format!("`{name}` has `{a}`"))?;
            }
        }
        Ok(())
    };
    expect(
        "color_convert",
        &["mul.rn.f32", "fma.rn.f32", "cvt.rzi"],
        &["add.f32", "add.rn.f32"],
    )?;
    expect("picture_kernel", &["ld.global.f32", "st.global.f32"], &[])?;
    expect("matrix_sum_each_row", &["add.rn.f32"], &[])?;
    expect("matrix_sum_each_col", &["add.rn.f32"], &[])?;
    expect("blur_kernel", &["ld.global.u8", "st.global.u8"], &["bar.sync"])?;
    expect(
        "blur_fast",
        &["dp4a.u32.u32", "ld.global.nc.b32", "st.global.b32"],
        &["bar.sync"],
    )?;
    expect(
        "blur_stream",
        &["dp4a.u32.u32", "ld.global.nc.b32", "st.global.b32"],
        &["bar.sync", ".local"],
    )?;
    expect("convolution_1d_basic_kernel", &["fma.rn.f32"], &["ld.const"])?;
    expect(
        "convolution_1d_tiled_kernel",
        &["fma.rn.f32", "ld.const.b32", "bar.sync"],
        &[],
    )?;
    expect("convolution_2d_basic_kernel", &["ld.global.u8"], &["ld.const"])?;
    expect(
        "convolution_2d_tiled_kernel",
        &["ld.const.b32", "bar.sync", "ld.shared"],
        &[],
    )?;
    for width in [1, 3, 5, 7, 9] {
        let name = format!("convolution_2d_fast_m{width}");
        expect(
            &name,
            &["dp4a.u32.u32", "ld.global.nc.b32", "ld.const.b32", "st.global.b32"],
            &["bar.sync"],
        )?;
    }
    Ok(())
}

/// The CPU tests.
pub fn tests() -> Vec<CpuTest> {
    vec![
        (
            "course_image_filter_reciprocal_is_exact",
            course_image_filter_reciprocal_is_exact,
        ),
        (
            "course_image_blur_pattern_closed_form",
            course_image_blur_pattern_closed_form,
        ),
        (
            "course_image_blur_reference_is_the_ones_convolution",
            course_image_blur_reference_is_the_ones_convolution,
        ),
        ("course_convolution_masks", course_convolution_masks),
        (
            "course_convolution_ratios_match_the_lecture",
            course_convolution_ratios_match_the_lecture,
        ),
        ("course_color_convert_gray_by_hand", course_color_convert_gray_by_hand),
        (
            "course_color_convert_every_colour_once",
            course_color_convert_every_colour_once,
        ),
        (
            "course_matrix_sum_coalescing_scenarios",
            course_matrix_sum_coalescing_scenarios,
        ),
        ("course_picture_kernel_paths", course_picture_kernel_paths),
        ("course_images_ptx", course_images_ptx),
    ]
}
