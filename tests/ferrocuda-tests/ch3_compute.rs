//! GPU-vs-CPU tests of the book's chapter 3 compute examples (local memory, constant memory,
//! intrinsics, divergence) and of the course's tiled matrix multiply.
mod common;

use book_kernels::ch3::constant_increment::{B_WORD, COEFF_WORD};
use book_kernels::ch3::intrinsics::FLUSH_RESULTS;
use book_kernels::ch3::localmem::STRIDE;
use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::gpu::Cublas;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{DeviceBuffer, Gpu};
use ferrocuda_book::examples::ch3::constant_increment::{self, Source};
use ferrocuda_book::examples::ch3::divergence::{self, Variant as Branch};
use ferrocuda_book::examples::ch3::intrinsics::{self, ACCURATE, Variant as Intrinsic};
use ferrocuda_book::examples::ch3::localmem::{self, Variant as Localmem};
use ferrocuda_book::examples::course::matmul_tiled::{self, Operands, Variant as Matmul, random_matrix};
use ferrocuda_book::reference::ch3 as reference;
use ferrocuda_book::reference::course::matmul_tiled as matmul_reference;

/// Sizes around the 256-thread blocks.
const SIZES: [usize; 6] = [1, 31, 33, 255, 257, 10_007];

fn ch3_localmem_kernels_match_cpu(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.37 - 11.0).collect();
        let x_d = gpu.upload(&x).map_err(fail)?;
        let mut walk = vec![0.0; n];
        reference::localmem::localmem(&mut walk, &x, STRIDE);
        for variant in Localmem::ALL {
            // k3 writes b(2) of its array of ones.
            let expected = if variant == Localmem::LargeArray {
                vec![1.0; n]
            } else {
                walk.clone()
            };
            let mut a_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            localmem::launch(gpu, variant, &mut a_d, &x_d).map_err(fail)?;
            let check = Check::compare("a", &gpu.download(&a_d).map_err(fail)?, &expected, Tolerance::EXACT);
            ensure(check.passed(), || format!("{variant:?}, n = {n}: {check}"))?;
        }
    }
    Ok(())
}

fn ch3_localmem_program(gpu: &Gpu) -> TestResult {
    common::passes_with(gpu, "ch3-localmem", &["--size", "4099", "--reps", "1"])
}

/// Every source of `b`, at several sizes and values of `b`, and the constant bank rewritten
/// between launches (a stale bank would fail the second value). One test: the bank is shared by
/// the whole device, as a `__constant__` variable is.
fn ch3_constant_increment_sources_and_rewrites(gpu: &Gpu) -> TestResult {
    for n in [1usize, 31, 33, 256, 1023, 1024] {
        for b in [3, -7] {
            common::book(gpu)?.write_constant(B_WORD, &[b]).map_err(fail)?;
            let a: Vec<i32> = (0..n as i32).map(|i| i * 3 - 50).collect();
            let expected = reference::constant_increment::increment(&a, b);
            let b_d = gpu.upload(&[b]).map_err(fail)?;
            for source in Source::ALL {
                let mut a_d = gpu.upload(&a).map_err(fail)?;
                constant_increment::increment(gpu, source, &mut a_d, b, &b_d).map_err(fail)?;
                let got = gpu.download(&a_d).map_err(fail)?;
                ensure(got == expected, || format!("{source:?}, n = {n}, b = {b}"))?;
            }
        }
    }
    // The polynomial, coefficients from all three places, at sizes around the block.
    let coeffs = constant_increment::coefficients();
    common::book(gpu)?.write_constant(COEFF_WORD, &coeffs).map_err(fail)?;
    for n in SIZES {
        let x: Vec<f32> = (0..n).map(|i| (i % 201) as f32 / 100.0 - 1.0).collect();
        let expected = reference::constant_increment::poly(&x, &coeffs);
        let (x_d, c_d) = (gpu.upload(&x).map_err(fail)?, gpu.upload(&coeffs).map_err(fail)?);
        for source in Source::ALL {
            let mut y_d: DeviceBuffer<f32> = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            constant_increment::poly(gpu, source, &mut y_d, &x_d, &c_d).map_err(fail)?;
            let check = Check::compare("y", &gpu.download(&y_d).map_err(fail)?, &expected, Tolerance::EXACT);
            ensure(check.passed(), || format!("{source:?}, n = {n}: {check}"))?;
        }
    }
    // Then the example itself, which writes the bank again.
    common::passes_with(gpu, "ch3-constant-increment", &["--reps", "1"])
}

fn ch3_constant_increment_bank_bounds(gpu: &Gpu) -> TestResult {
    let words = ferrocuda::device::constant::CONSTANT_BANK_BYTES / 4;
    let err = common::book(gpu)?.write_constant(words - 1, &[1u32, 2]);
    ensure(err.is_err(), || "a write past the constant bank was accepted".into())?;
    ensure(
        common::run_args(gpu, "ch3-constant-increment", &["--size", "1025", "--reps", "1"]).is_err(),
        || "--size 1025 was accepted".into(),
    )
}

fn ch3_intrinsics_kernels_match_cpu(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let x = intrinsics::inputs(n).map_err(fail)?;
        let x_d = gpu.upload(&x).map_err(fail)?;
        for variant in Intrinsic::ALL {
            let mut y_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            intrinsics::launch(gpu, variant, &mut y_d, &x_d).map_err(fail)?;
            let y = gpu.download(&y_d).map_err(fail)?;
            let check = match variant {
                Intrinsic::Accurate => {
                    Check::compare("y", &y, &reference::intrinsics::terms_f32(&x).map_err(fail)?, ACCURATE)
                }
                Intrinsic::Fast => {
                    let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
                    Check::compare(
                        "y",
                        &y64,
                        &reference::intrinsics::terms_f64(&x).map_err(fail)?,
                        intrinsics::FAST,
                    )
                }
                Intrinsic::HornerFused => Check::compare(
                    "y",
                    &y,
                    &reference::intrinsics::horner_f32(&x, true).map_err(fail)?,
                    Tolerance::EXACT,
                ),
                Intrinsic::HornerUnfused => Check::compare(
                    "y",
                    &y,
                    &reference::intrinsics::horner_f32(&x, false).map_err(fail)?,
                    Tolerance::EXACT,
                ),
            };
            ensure(check.passed(), || format!("{variant:?}, n = {n}: {check}"))?;
        }
    }
    Ok(())
}

fn ch3_intrinsics_program(gpu: &Gpu) -> TestResult {
    common::passes_with(gpu, "ch3-intrinsics", &["--size", "5000", "--reps", "1"])
}

/// Directed rounding in both precisions, at sizes around the block: round down and up bracket
/// every exact sum and product, one ulp apart or equal, toward zero follows the sign, and round
/// to nearest is the CPU's.
fn ch3_intrinsics_directed_rounding_brackets_exact(gpu: &Gpu) -> TestResult {
    fn case<T>(gpu: &Gpu, n: usize) -> TestResult
    where
        T: ferrocuda::device::real::Real + reference::intrinsics::RoundingReal + ferrocuda::gpu::Element,
        book_kernels::ch3::intrinsics::DirectedRounding:
            for<'a> ferrocuda::Kernel<book_kernels::ch3::intrinsics::RoundingArgs<'a, T>>,
    {
        let (a, b) = intrinsics::rounding_inputs::<T>(n).map_err(fail)?;
        let mut out_d = gpu
            .upload(&vec![
                T::from_f64(f64::NAN);
                book_kernels::ch3::intrinsics::ROUNDINGS * n
            ])
            .map_err(fail)?;
        let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
        intrinsics::directed_rounding(gpu, &mut out_d, &a_d, &b_d).map_err(fail)?;
        let tally = reference::intrinsics::check_roundings(&a, &b, &gpu.download(&out_d).map_err(fail)?);
        ensure(tally.violations == 0, || format!("{}, n = {n}: {tally:?}", T::NAME))?;
        ensure(n < 16 || (tally.exact > 0 && tally.inexact > 0), || {
            format!("{}, n = {n}: no exact or no inexact case: {tally:?}", T::NAME)
        })
    }
    for n in SIZES {
        case::<f32>(gpu, n)?;
        case::<f64>(gpu, n)?;
    }
    Ok(())
}

/// Flush to zero: the kernel's four results per pair are the definition's (subnormal operands
/// and results read as zeros of their sign on the `.ftz` path, kept on the IEEE one).
fn ch3_intrinsics_flush_to_zero(gpu: &Gpu) -> TestResult {
    let (a, b): (Vec<f32>, Vec<f32>) = intrinsics::FLUSH_PAIRS.iter().copied().unzip();
    let mut out_d = gpu.upload(&vec![f32::NAN; FLUSH_RESULTS * a.len()]).map_err(fail)?;
    let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
    intrinsics::flush_to_zero(gpu, &mut out_d, &a_d, &b_d).map_err(fail)?;
    let out = gpu.download(&out_d).map_err(fail)?;
    for (i, (&a, &b)) in a.iter().zip(&b).enumerate() {
        let want = reference::intrinsics::flush_to_zero(a, b);
        let got = &out[FLUSH_RESULTS * i..][..FLUSH_RESULTS];
        ensure(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()), || {
            format!("{a:e}, {b:e}: got {got:?}, want {want:?}")
        })?;
    }
    // The first pair is a subnormal plus zero: kept, then flushed.
    ensure(out[0].is_subnormal() && out[1] == 0.0, || {
        format!("first pair: {:?}", &out[..4])
    })
}

/// sincos with one reduction: within an ulp of the f64 sine and cosine, at every size.
fn ch3_intrinsics_sincos_within_an_ulp(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let x = intrinsics::sincos_inputs(n).map_err(fail)?;
        let x_d = gpu.upload(&x).map_err(fail)?;
        let (mut s_d, mut c_d) = (gpu.zeros::<f32>(n).map_err(fail)?, gpu.zeros::<f32>(n).map_err(fail)?);
        for variant in intrinsics::SinCos::ALL {
            intrinsics::sincos(gpu, variant, &mut s_d, &mut c_d, &x_d).map_err(fail)?;
            let (s, c) = (gpu.download(&s_d).map_err(fail)?, gpu.download(&c_d).map_err(fail)?);
            let bound = match variant {
                intrinsics::SinCos::OneReduction => intrinsics::SINCOS_ULPS,
                intrinsics::SinCos::Separate => intrinsics::SEPARATE_ULPS,
            };
            for i in 0..n {
                let wide = x[i] as f64;
                let ulps = intrinsics::ulps_apart(s[i], wide.sin() as f32)
                    .max(intrinsics::ulps_apart(c[i], wide.cos() as f32));
                ensure(ulps <= bound, || format!("{variant:?}, x = {}: {ulps} ulps", x[i]))?;
            }
        }
    }
    Ok(())
}

fn ch3_cache_config_program(gpu: &Gpu) -> TestResult {
    let size = (3 * book_kernels::ch3::cache_config::CHUNK + 5).to_string();
    common::passes_with(gpu, "ch3-cache-config", &["--size", &size, "--reps", "1"])
}

/// The library's L1/shared calls: each context preference and carveout reads back as set, a
/// carveout outside 0..=100 is refused in a sentence, and the defaults are restored.
fn ch3_cache_config_set_and_read_back(gpu: &Gpu) -> TestResult {
    use book_kernels::ch3::cache_config::StagedCopy;
    use ferrocuda::gpu::{CARVEOUT_DEFAULT, CachePreference};
    for preference in CachePreference::ALL {
        gpu.set_cache_config(preference).map_err(fail)?;
        let read = gpu.cache_config().map_err(fail)?;
        ensure(read == preference, || format!("set {preference:?}, read {read:?}"))?;
    }
    gpu.set_cache_config(CachePreference::None).map_err(fail)?;
    let kernels = common::book(gpu)?;
    kernels
        .set_cache_config(StagedCopy, CachePreference::L1)
        .map_err(fail)?;
    if gpu.is_simulator() {
        ensure(
            kernels.kernel_cache_config(StagedCopy) == Some(CachePreference::L1),
            || "the simulator did not record the kernel's preference".into(),
        )?;
    }
    kernels
        .set_cache_config(StagedCopy, CachePreference::None)
        .map_err(fail)?;
    for percent in [0, 25, 50, 100, CARVEOUT_DEFAULT] {
        kernels.set_shared_carveout(StagedCopy, percent).map_err(fail)?;
        let read = kernels.shared_carveout(StagedCopy).map_err(fail)?;
        ensure(read == percent, || format!("carveout {percent}, read back {read}"))?;
    }
    match kernels.set_shared_carveout(StagedCopy, 101) {
        Err(ferrocuda::Error::InvalidArgument(message)) => ensure(message.contains("0 to 100"), || message),
        other => Err(format!("a carveout of 101% gave {other:?}")),
    }
}

/// Block sizes that split warps and blocks unevenly: the warp-uniform split follows the global
/// index, not the block.
fn ch3_divergence_kernels_match_cpu(gpu: &Gpu) -> TestResult {
    for n in [1, 31, 33, 65, 1000] {
        for threads in [1, 7, 32, 65, 128] {
            for variant in Branch::ALL {
                let mut x_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
                divergence::launch(gpu, variant, &mut x_d, threads).map_err(fail)?;
                let expected = reference::divergence::divergence(n, |i| variant.first_side(i)).map_err(fail)?;
                let check = Check::compare("x", &gpu.download(&x_d).map_err(fail)?, &expected, Tolerance::EXACT);
                ensure(check.passed(), || {
                    format!("{variant:?}, n = {n}, {threads} threads: {check}")
                })?;
            }
        }
    }
    Ok(())
}

fn ch3_divergence_program(gpu: &Gpu) -> TestResult {
    common::passes_with(gpu, "ch3-divergence", &["--size", "3000", "--reps", "1"])
}

/// Each kernel variant against the CPU at `dims`, inputs from `seed`.
fn matmul_case(gpu: &Gpu, dims: (usize, usize, usize), seed: u64) -> TestResult {
    let (m, n, k) = dims;
    let (a, b) = (
        random_matrix(m * k, seed).map_err(fail)?,
        random_matrix(k * n, seed + 1).map_err(fail)?,
    );
    let (expected, scale) = matmul_reference::sgemm(&a, &b, dims).map_err(fail)?;
    let mut ops = Operands::new(gpu, dims, &a, &b).map_err(fail)?;
    for variant in Matmul::KERNELS {
        ops.launch(gpu, variant).map_err(fail)?;
        let got = gpu.download(&ops.c_d).map_err(fail)?;
        let check = matmul_reference::check(variant.kernel(), &got, &expected, &scale, k);
        ensure(check.passed(), || format!("{variant:?}, {m} x {n} x {k}: {check}"))?;
        // Clear C, so the next variant cannot pass on this one's output.
        gpu.upload_into(&vec![f32::NAN; m * n], &mut ops.c_d).map_err(fail)?;
    }
    Ok(())
}

fn course_matmul_tiled_odd_sizes(gpu: &Gpu) -> TestResult {
    for dims in [
        (1, 1, 1),
        (33, 65, 17),
        (17, 33, 65),
        (1, 129, 3),
        (130, 1, 9),
        (127, 129, 31),
    ] {
        matmul_case(gpu, dims, dims.0 as u64 * 7 + dims.2 as u64)?;
    }
    Ok(())
}

/// Tile multiples, where the register-tiled kernel takes its 16-byte full-tile path, and one
/// block of it next to edge blocks.
fn course_matmul_tiled_full_tiles(gpu: &Gpu) -> TestResult {
    for dims in [(128, 128, 8), (256, 128, 64), (160, 256, 40), (136, 132, 16)] {
        matmul_case(gpu, dims, 11)?;
    }
    Ok(())
}

/// Freivalds' check (used past 2048^3 multiply-adds) passes every kernel's product of an odd
/// size, and fails one whose single element is off by 0.05 (its rows' tolerance is about
/// 16 u sqrt(203) 3300 / sqrt(65) ~ 6e-3 here) or is NaN.
fn course_matmul_tiled_freivalds(gpu: &Gpu) -> TestResult {
    let dims @ (m, n, k) = (97, 131, 203);
    let (a, b) = (
        random_matrix(m * k, 11).map_err(fail)?,
        random_matrix(k * n, 12).map_err(fail)?,
    );
    let freivalds = matmul_reference::Freivalds::new(&a, &b, dims).map_err(fail)?;
    let mut ops = Operands::new(gpu, dims, &a, &b).map_err(fail)?;
    for variant in Matmul::KERNELS {
        ops.launch(gpu, variant).map_err(fail)?;
        let mut got = gpu.download(&ops.c_d).map_err(fail)?;
        let check = freivalds.check("c", &got).map_err(fail)?;
        ensure(check.passed(), || format!("{variant:?}: {check}"))?;
        for (at, value) in [(n * 40 + 77, got[n * 40 + 77] + 0.05), (m * n - 1, f32::NAN)] {
            let kept = got[at];
            got[at] = value;
            let wrong = freivalds.check("c", &got).map_err(fail)?;
            ensure(!wrong.passed(), || {
                format!("{variant:?}: element {at} = {value} passed: {wrong}")
            })?;
            got[at] = kept;
        }
    }
    ensure(
        freivalds.check("c", &[0.0; 5]).map_err(fail)?.mismatches == m * matmul_reference::FREIVALDS_TRIALS,
        || "a product of the wrong length passed".into(),
    )
}

/// Integer-valued inputs in -2..=2: every product and partial sum is an exact f32 integer, so
/// every summation order gives the same result, and any index error shows exactly.
fn course_matmul_tiled_exact_on_integers(gpu: &Gpu) -> TestResult {
    let dims @ (m, n, k) = (131, 257, 72);
    let int = |len: usize, s: usize| -> Vec<f32> { (0..len).map(|i| ((i * 7 + s * 13) % 5) as f32 - 2.0).collect() };
    let (a, b) = (int(m * k, 1), int(k * n, 2));
    let (expected, _) = matmul_reference::sgemm(&a, &b, dims).map_err(fail)?;
    ensure(
        matmul_reference::sgemm(&a[1..], &b, dims).is_err() && matmul_reference::sgemm(&a, &b, (m, n + 1, k)).is_err(),
        || "the reference accepted operands of the wrong lengths".into(),
    )?;
    let mut ops = Operands::new(gpu, dims, &a, &b).map_err(fail)?;
    for variant in Matmul::KERNELS {
        ops.launch(gpu, variant).map_err(fail)?;
        let check = Check::compare("c", &gpu.download(&ops.c_d).map_err(fail)?, &expected, Tolerance::EXACT);
        ensure(check.passed(), || format!("{variant:?}: {check}"))?;
    }
    Ok(())
}

/// The program at its default (non-square, as hands-on 6) and at a small non-square size.
fn course_matmul_tiled_program(gpu: &Gpu) -> TestResult {
    common::passes_with(gpu, "course-matmul-tiled", &["--reps", "2"])?;
    common::passes_with(gpu, "course-matmul-tiled", &["--m", "70", "--n", "45", "--k", "33"])
}

/// The default product is non-square, as the course's, and no dimension is a multiple of the
/// widest tile, so the zero-fill at the edges runs.
fn course_matmul_tiled_default_is_non_square() -> TestResult {
    use matmul_tiled::{COURSE_DIMS, SIMULATOR_DIMS};
    for (m, n, k) in [COURSE_DIMS, SIMULATOR_DIMS] {
        ensure(m != n && n != k && m != k, || {
            format!("{m} x {n} x {k} is not non-square")
        })?;
        ensure([m, n, k].iter().all(|d| d % 32 != 0), || {
            format!("{m} x {n} x {k}: a dimension is a multiple of 32")
        })?;
    }
    Ok(())
}

fn course_matmul_tiled_rejects_zero_dimension(gpu: &Gpu) -> TestResult {
    ensure(
        common::run_args(gpu, "course-matmul-tiled", &["--k", "0"]).is_err(),
        || "--k 0 was accepted".into(),
    )
}

/// cuBLAS through the column-major trick against the CPU, at non-square sizes (a transposed
/// or swapped call would fail them).
fn course_matmul_tiled_cublas_matches_cpu(gpu: &Gpu) -> TestResult {
    let mut cublas = Cublas::new(gpu.cuda("cuBLAS").map_err(fail)?).map_err(fail)?;
    for dims @ (m, n, k) in [(1, 1, 1), (33, 65, 17), (300, 200, 100)] {
        let (a, b) = (
            random_matrix(m * k, 3).map_err(fail)?,
            random_matrix(k * n, 4).map_err(fail)?,
        );
        let (expected, scale) = matmul_reference::sgemm(&a, &b, dims).map_err(fail)?;
        let mut ops = Operands::new(gpu, dims, &a, &b).map_err(fail)?;
        ops.cublas(&mut cublas).map_err(fail)?;
        let check = matmul_reference::check("cublas", &gpu.download(&ops.c_d).map_err(fail)?, &expected, &scale, k);
        ensure(check.passed(), || format!("{m} x {n} x {k}: {check}"))?;
    }
    Ok(())
}

/// The goal of issue 4: register tiling at 4096^3 reaches half of cuBLAS's FP32 SGEMM on the
/// same GPU, in the same run.
fn course_matmul_tiled_half_of_cublas_at_4096(gpu: &Gpu) -> TestResult {
    let dims = (4096, 4096, 4096);
    let (a, b) = (
        random_matrix(4096 * 4096, 5).map_err(fail)?,
        random_matrix(4096 * 4096, 6).map_err(fail)?,
    );
    let mut ops = Operands::new(gpu, dims, &a, &b).map_err(fail)?;
    let mut cublas = Cublas::new(gpu.cuda("cuBLAS").map_err(fail)?).map_err(fail)?;
    let (rows, _) = matmul_tiled::measure(gpu, &mut ops, Some(&mut cublas), 5, None).map_err(fail)?;
    let ms = |v: Matmul| {
        rows.iter()
            .find(|r| r.variant == v)
            .map(|r| r.stats.median_ms)
            .unwrap_or(f64::NAN)
    };
    // The faster of the two register-tiled builds (k loop rolled or spelled out).
    let register_ms = ms(Matmul::RegisterTiled).min(ms(Matmul::RegisterTiledUnrolled));
    let fraction = ms(Matmul::Cublas) / register_ms;
    ensure(fraction >= 0.5, || {
        format!("register-tiled reaches {fraction:.3} of cuBLAS")
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch3_localmem_kernels_match_cpu", ch3_localmem_kernels_match_cpu),
        ("ch3_localmem_program", ch3_localmem_program),
        (
            "ch3_constant_increment_sources_and_rewrites",
            ch3_constant_increment_sources_and_rewrites,
        ),
        ("ch3_constant_increment_bank_bounds", ch3_constant_increment_bank_bounds),
        ("ch3_intrinsics_kernels_match_cpu", ch3_intrinsics_kernels_match_cpu),
        ("ch3_intrinsics_program", ch3_intrinsics_program),
        (
            "ch3_intrinsics_directed_rounding_brackets_exact",
            ch3_intrinsics_directed_rounding_brackets_exact,
        ),
        ("ch3_intrinsics_flush_to_zero", ch3_intrinsics_flush_to_zero),
        ("ch3_cache_config_program", ch3_cache_config_program),
        ("ch3_cache_config_set_and_read_back", ch3_cache_config_set_and_read_back),
        (
            "ch3_intrinsics_sincos_within_an_ulp",
            ch3_intrinsics_sincos_within_an_ulp,
        ),
        ("ch3_divergence_kernels_match_cpu", ch3_divergence_kernels_match_cpu),
        ("ch3_divergence_program", ch3_divergence_program),
        ("course_matmul_tiled_odd_sizes", course_matmul_tiled_odd_sizes),
        ("course_matmul_tiled_full_tiles", course_matmul_tiled_full_tiles),
        (
            "course_matmul_tiled_exact_on_integers",
            course_matmul_tiled_exact_on_integers,
        ),
        ("course_matmul_tiled_program", course_matmul_tiled_program),
        ("course_matmul_tiled_freivalds", course_matmul_tiled_freivalds),
        (
            "course_matmul_tiled_rejects_zero_dimension",
            course_matmul_tiled_rejects_zero_dimension,
        ),
    ];
    let cuda_tests: Vec<GpuTest> = vec![
        (
            "course_matmul_tiled_cublas_matches_cpu",
            course_matmul_tiled_cublas_matches_cpu,
        ),
        (
            "course_matmul_tiled_half_of_cublas_at_4096",
            course_matmul_tiled_half_of_cublas_at_4096,
        ),
    ];
    let cpu_tests: Vec<common::CpuTest> = vec![(
        "course_matmul_tiled_default_is_non_square",
        course_matmul_tiled_default_is_non_square,
    )];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
