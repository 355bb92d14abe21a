//! GPU-vs-CPU tests of the FFT library (`ferrocuda::fft`, `gpu_kernels::fft`): every transform
//! against `rustfft`/`realfft` in `f64`, judged by the relative L2 error.
use ferrocuda_testing as common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda::fft::cpu::{self, C64};
use ferrocuda::fft::{Complex, Direction, Engine, FftFloat, Plan, Shape, Transform};

/// The error bound is `ERROR_FACTOR * log2(n) * eps` of the precision: an FFT of `log2 n`
/// passes adds about one rounding per pass (and twiddle) to each value, and the relative L2
/// error of a radix-8 Stockham FFT stays well below one `eps` per pass in practice; 2 leaves
/// room for the twiddle rounding without hiding a wrong twiddle (that costs an error of order 1).
const ERROR_FACTOR: f64 = 2.0;

/// Seeded values in [-1, 1) (a 64-bit LCG), so a wrong index shows.
fn values(count: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

fn complex_values(count: usize, seed: u64) -> Vec<C64> {
    values(2 * count, seed)
        .chunks(2)
        .map(|p| C64::new(p[0], p[1]))
        .collect()
}

/// The bound on the relative L2 error of a transform over `shape` in `T`.
fn bound<T: FftFloat>(shape: &Shape) -> f64 {
    let log2_n = shape.dims().iter().map(|&d| (d as f64).log2()).sum::<f64>().max(1.0);
    let eps = if T::NAME == "f32" {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    ERROR_FACTOR * log2_n * eps
}

fn within<T: FftFloat>(what: &str, shape: &Shape, error: f64) -> TestResult {
    let limit = bound::<T>(shape);
    // FFT_PRINT_ERRORS=1 prints every error as a fraction of its bound (with --nocapture).
    if std::env::var_os("FFT_PRINT_ERRORS").is_some() {
        eprintln!(
            "{what} {} {:?} x {}: {:.3} of the bound",
            T::NAME,
            shape.dims(),
            shape.batch(),
            error / limit
        );
    }
    ensure(error <= limit, || {
        format!(
            "{what} {} {:?} x {}: relative L2 error {error:.3e}, more than {limit:.3e}",
            T::NAME,
            shape.dims(),
            shape.batch()
        )
    })
}

/// C2C of `shape` both directions, out of place and in place, against the reference.
fn check_c2c<T: FftFloat>(gpu: &Gpu, engine: Engine, shape: Shape, seed: u64) -> TestResult {
    let input = complex_values(shape.complex_len(), seed);
    let mut plan = Plan::<T>::new(gpu, shape, Transform::C2c, engine).map_err(fail)?;
    ensure(plan.engine() == engine, || {
        format!("asked for {engine:?}, got {:?}", plan.engine())
    })?;
    let input_d = gpu.upload(&cpu::from_c64::<T>(&input)).map_err(fail)?;
    let mut output_d = gpu.zeros::<Complex<T>>(input.len()).map_err(fail)?;
    for direction in [Direction::Forward, Direction::Inverse] {
        let mut want = input.clone();
        cpu::c2c(&shape, &mut want, direction).map_err(fail)?;
        plan.c2c(gpu, &input_d, &mut output_d, direction).map_err(fail)?;
        let got = cpu::to_c64(&gpu.download(&output_d).map_err(fail)?);
        within::<T>(
            &format!("C2C {direction:?}"),
            &shape,
            cpu::relative_l2_error(&got, &want),
        )?;
        // The Rust engine leaves the input as it was (cuFFT does not promise it).
        if engine == Engine::Rust {
            let kept = cpu::to_c64(&gpu.download(&input_d).map_err(fail)?);
            ensure(kept == cpu::to_c64(&cpu::from_c64::<T>(&input)), || {
                "C2C changed its input".into()
            })?;
        }
        let mut data_d = gpu.upload(&cpu::from_c64::<T>(&input)).map_err(fail)?;
        plan.c2c_in_place(gpu, &mut data_d, direction).map_err(fail)?;
        let got = cpu::to_c64(&gpu.download(&data_d).map_err(fail)?);
        within::<T>(
            &format!("C2C in place {direction:?}"),
            &shape,
            cpu::relative_l2_error(&got, &want),
        )?;
    }
    Ok(())
}

fn fft_c2c_1d_sizes_and_batches(gpu: &Gpu) -> TestResult {
    // 1 (no pass), 2 and 4 (one radix-2/4 pass), 8 (one radix-8), 16 and 32 (radix 8 then 2
    // and 4), up to 4096 (one block per row), with batches that leave a block partly empty.
    for (k, log2_n) in (0..=12).enumerate() {
        let n = 1usize << log2_n;
        for batch in [1, 3, 33] {
            let batch = batch.min((1 << 16) / n).max(1);
            check_c2c::<f32>(gpu, Engine::Rust, Shape::new(&[n], batch).map_err(fail)?, k as u64)?;
            check_c2c::<f64>(
                gpu,
                Engine::Rust,
                Shape::new(&[n], batch).map_err(fail)?,
                100 + k as u64,
            )?;
        }
    }
    Ok(())
}

fn fft_c2c_1d_four_step(gpu: &Gpu) -> TestResult {
    // Longer than a block: 2^13 = 64 x 128, 2^16 = 256 x 256; 2^18 = 512 x 512 once.
    for (n, batch) in [(1usize << 13, 3), (1 << 16, 1), (1 << 18, 1)] {
        check_c2c::<f32>(gpu, Engine::Rust, Shape::new(&[n], batch).map_err(fail)?, n as u64)?;
        check_c2c::<f64>(gpu, Engine::Rust, Shape::new(&[n], batch).map_err(fail)?, n as u64 + 1)?;
    }
    Ok(())
}

fn fft_c2c_2d_and_3d_non_square(gpu: &Gpu) -> TestResult {
    for (dims, batch) in [
        (&[8usize, 32][..], 1),
        (&[64, 16], 2),
        (&[1, 8], 3),
        (&[128, 2], 1),
        (&[256, 256], 1),
        (&[4, 8, 16], 2),
        (&[16, 2, 4], 1),
    ] {
        check_c2c::<f32>(
            gpu,
            Engine::Rust,
            Shape::new(dims, batch).map_err(fail)?,
            dims[0] as u64,
        )?;
        check_c2c::<f64>(
            gpu,
            Engine::Rust,
            Shape::new(dims, batch).map_err(fail)?,
            dims[1] as u64,
        )?;
    }
    Ok(())
}

/// A forward then an inverse transform multiplies by the element count (cuFFT's convention).
fn fft_c2c_round_trip_scales_by_n(gpu: &Gpu) -> TestResult {
    for dims in [&[1024usize][..], &[32, 64]] {
        let shape = Shape::new(dims, 2).map_err(fail)?;
        let count: usize = dims.iter().product();
        let input = complex_values(shape.complex_len(), 7);
        let mut plan = Plan::<f32>::new(gpu, shape, Transform::C2c, Engine::Rust).map_err(fail)?;
        let mut data_d = gpu.upload(&cpu::from_c64::<f32>(&input)).map_err(fail)?;
        plan.c2c_in_place(gpu, &mut data_d, Direction::Forward).map_err(fail)?;
        plan.c2c_in_place(gpu, &mut data_d, Direction::Inverse).map_err(fail)?;
        let got: Vec<C64> = cpu::to_c64(&gpu.download(&data_d).map_err(fail)?)
            .iter()
            .map(|c| c / count as f64)
            .collect();
        within::<f32>("round trip", &shape, cpu::relative_l2_error(&got, &input) / 2.0)?;
    }
    Ok(())
}

/// R2C against realfft, then C2R of the reference spectrum against the reference's inverse.
fn check_real<T: FftFloat>(gpu: &Gpu, engine: Engine, shape: Shape, seed: u64) -> TestResult {
    let input = values(shape.real_len(), seed);
    let mut r2c = Plan::<T>::new(gpu, shape, Transform::R2c, engine).map_err(fail)?;
    let input_d = gpu
        .upload(&input.iter().map(|&x| T::from_f64(x)).collect::<Vec<_>>())
        .map_err(fail)?;
    let mut spectrum_d = gpu.zeros::<Complex<T>>(shape.half_spectrum_len()).map_err(fail)?;
    r2c.r2c(gpu, &input_d, &mut spectrum_d).map_err(fail)?;
    let want = cpu::r2c(&shape, &input).map_err(fail)?;
    let got = cpu::to_c64(&gpu.download(&spectrum_d).map_err(fail)?);
    within::<T>("R2C", &shape, cpu::relative_l2_error(&got, &want))?;

    let mut c2r = Plan::<T>::new(gpu, shape, Transform::C2r, engine).map_err(fail)?;
    let mut spectrum_d = gpu.upload(&cpu::from_c64::<T>(&want)).map_err(fail)?;
    let mut real_d = gpu.zeros::<T>(shape.real_len()).map_err(fail)?;
    c2r.c2r(gpu, &mut spectrum_d, &mut real_d).map_err(fail)?;
    let want_real = cpu::c2r(&shape, &want).map_err(fail)?;
    let got_real: Vec<f64> = gpu
        .download(&real_d)
        .map_err(fail)?
        .iter()
        .map(|x| x.to_f64())
        .collect();
    within::<T>("C2R", &shape, cpu::relative_l2_error_real(&got_real, &want_real))?;

    // In place on padded rows of 2 (nx / 2 + 1) reals, cuFFT's layout.
    let (nx, pitch) = (shape.nx(), 2 * (shape.nx() / 2 + 1));
    let mut padded = vec![T::from_f64(0.0); shape.padded_real_len()];
    for (row, values) in padded.chunks_mut(pitch).zip(input.chunks(nx)) {
        for (p, &x) in row.iter_mut().zip(values) {
            *p = T::from_f64(x);
        }
    }
    let mut data_d = gpu.upload(&padded).map_err(fail)?;
    r2c.r2c_in_place(gpu, &mut data_d).map_err(fail)?;
    let parts = gpu.download(&data_d).map_err(fail)?;
    let got: Vec<C64> = parts
        .chunks(2)
        .map(|p| C64::new(p[0].to_f64(), p[1].to_f64()))
        .collect();
    within::<T>("R2C in place", &shape, cpu::relative_l2_error(&got, &want))?;
    let spectrum_parts: Vec<T> = want
        .iter()
        .flat_map(|c| [T::from_f64(c.re), T::from_f64(c.im)])
        .collect();
    let mut data_d = gpu.upload(&spectrum_parts).map_err(fail)?;
    c2r.c2r_in_place(gpu, &mut data_d).map_err(fail)?;
    let padded = gpu.download(&data_d).map_err(fail)?;
    let got_real: Vec<f64> = padded
        .chunks(pitch)
        .flat_map(|row| row[..nx].iter().map(|x| x.to_f64()))
        .collect();
    within::<T>(
        "C2R in place",
        &shape,
        cpu::relative_l2_error_real(&got_real, &want_real),
    )
}

fn fft_r2c_c2r_1d(gpu: &Gpu) -> TestResult {
    // Up to 2^14: a complex transform of 2^13, the four-step path.
    for log2_n in 1..=14 {
        let n = 1usize << log2_n;
        let batch = [1, 5, 2][log2_n % 3];
        check_real::<f32>(gpu, Engine::Rust, Shape::new(&[n], batch).map_err(fail)?, log2_n as u64)?;
        check_real::<f64>(
            gpu,
            Engine::Rust,
            Shape::new(&[n], batch).map_err(fail)?,
            50 + log2_n as u64,
        )?;
    }
    Ok(())
}

fn fft_r2c_c2r_2d_and_3d(gpu: &Gpu) -> TestResult {
    for (dims, batch) in [
        (&[8usize, 32][..], 1),
        (&[32, 8], 2),
        (&[16, 2], 1),
        (&[128, 64], 1),
        (&[4, 8, 16], 1),
    ] {
        check_real::<f32>(
            gpu,
            Engine::Rust,
            Shape::new(dims, batch).map_err(fail)?,
            dims[1] as u64,
        )?;
        check_real::<f64>(
            gpu,
            Engine::Rust,
            Shape::new(dims, batch).map_err(fail)?,
            dims[0] as u64,
        )?;
    }
    Ok(())
}

/// The same transform queued on a stream gives the same values.
fn fft_on_a_stream(gpu: &Gpu) -> TestResult {
    let shape = Shape::new(&[16, 64], 2).map_err(fail)?;
    let input = cpu::from_c64::<f32>(&complex_values(shape.complex_len(), 3));
    let mut plan = Plan::<f32>::new(gpu, shape, Transform::C2c, Engine::Rust).map_err(fail)?;
    let input_d = gpu.upload(&input).map_err(fail)?;
    let mut a_d = gpu.zeros::<Complex<f32>>(input.len()).map_err(fail)?;
    let mut b_d = gpu.zeros::<Complex<f32>>(input.len()).map_err(fail)?;
    plan.c2c(gpu, &input_d, &mut a_d, Direction::Forward).map_err(fail)?;
    let stream = gpu.new_stream().map_err(fail)?;
    plan.c2c_on(gpu, &stream, &input_d, &mut b_d, Direction::Forward)
        .map_err(fail)?;
    drop(stream);
    let (a, b) = (gpu.download(&a_d).map_err(fail)?, gpu.download(&b_d).map_err(fail)?);
    ensure(a == b, || {
        "the transform on a stream differs from the one on the device's stream".into()
    })
}

/// Unsupported sizes and wrong buffers are refused with one sentence naming them.
fn fft_refuses_bad_sizes(gpu: &Gpu) -> TestResult {
    let expect_error = |result: ferrocuda::Result<()>, words: &str| -> TestResult {
        match result {
            Err(e) if e.to_string().contains(words) => Ok(()),
            Err(e) => Err(format!("expected an error about `{words}`, got `{e}`")),
            Ok(()) => Err(format!("expected an error about `{words}`, got none")),
        }
    };
    let plan = |dims: &[usize], transform| -> ferrocuda::Result<()> {
        Plan::<f32>::new(gpu, Shape::new(dims, 1)?, transform, Engine::Rust).map(|_| ())
    };
    expect_error(plan(&[1000], Transform::C2c), "1000 is not one")?;
    expect_error(
        plan(&[8192, 8], Transform::C2c),
        "outer dimensions of at most 4096, not 8192",
    )?;
    expect_error(plan(&[1 << 25], Transform::C2c), "at most 2^24")?;
    expect_error(plan(&[1], Transform::R2c), "at least 2 values")?;
    expect_error(plan(&[0], Transform::C2c), "at least 1")?;
    expect_error(plan(&[2, 2, 2, 2], Transform::C2c), "1, 2 or 3 dimensions")?;
    let mut c2c = Plan::<f32>::c2c_1d(gpu, 64, 2, Engine::Rust).map_err(fail)?;
    let input_d = gpu.zeros::<Complex<f32>>(100).map_err(fail)?;
    let mut output_d = gpu.zeros::<Complex<f32>>(128).map_err(fail)?;
    expect_error(
        c2c.c2c(gpu, &input_d, &mut output_d, Direction::Forward),
        "the input of this FFT plan ([64] x 2) has 128 elements, not 100",
    )?;
    let real_d = gpu.zeros::<f32>(128).map_err(fail)?;
    let mut spectrum_d = gpu.zeros::<Complex<f32>>(66).map_err(fail)?;
    expect_error(c2c.r2c(gpu, &real_d, &mut spectrum_d), "computes C2c, not R2c")?;
    let mut r2c = Plan::<f32>::r2c_1d(gpu, 64, 2, Engine::Rust).map_err(fail)?;
    let mut unpadded_d = gpu.zeros::<f32>(128).map_err(fail)?;
    expect_error(
        r2c.r2c_in_place(gpu, &mut unpadded_d),
        "the padded real data of this FFT plan ([64] x 2) has 132 elements, not 128",
    )?;
    if gpu.is_simulator() {
        expect_error(
            Plan::<f32>::c2c_1d(gpu, 64, 1, Engine::Cufft).map(|_| ()),
            "cuFFT needs a CUDA device, and this run uses the CPU simulator",
        )?;
        let auto = Plan::<f32>::c2c_1d(gpu, 64, 1, Engine::Auto).map_err(fail)?;
        ensure(auto.engine() == Engine::Rust, || {
            "Auto did not pick the Rust engine on the simulator".into()
        })?;
    }
    Ok(())
}

/// The reference itself against a direct O(n^2) DFT, so a wrong convention cannot hide.
fn fft_reference_matches_direct_dft() -> TestResult {
    let n = 12;
    let x = complex_values(n, 1);
    let mut fast = x.clone();
    cpu::c2c(&Shape::new(&[n], 1).map_err(fail)?, &mut fast, Direction::Forward).map_err(fail)?;
    let direct: Vec<C64> = (0..n)
        .map(|k| {
            (0..n)
                .map(|j| x[j] * C64::from_polar(1.0, -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64))
                .sum()
        })
        .collect();
    let error = cpu::relative_l2_error(&fast, &direct);
    ensure(error < 1e-14, || format!("rustfft against the direct DFT: {error:e}"))
}

/// cuFFT through the same plans (CUDA only): power-of-two and other sizes, every transform,
/// against the same reference and bound; `Auto` picks it; a stream gives the same values.
fn fft_cufft_engine_matches_the_reference(gpu: &Gpu) -> TestResult {
    let cufft = Engine::Cufft;
    for (dims, batch) in [
        (&[1usize][..], 3),
        (&[8], 5),
        (&[1000], 3),
        (&[4096], 7),
        (&[1 << 16], 1),
        (&[64, 16], 2),
        (&[96, 100], 1),
        (&[4, 8, 16], 1),
    ] {
        check_c2c::<f32>(gpu, cufft, Shape::new(dims, batch).map_err(fail)?, 1)?;
        check_c2c::<f64>(gpu, cufft, Shape::new(dims, batch).map_err(fail)?, 2)?;
    }
    for (dims, batch) in [
        (&[2usize][..], 3),
        (&[64], 5),
        (&[1000], 2),
        (&[4096], 1),
        (&[32, 8], 2),
        (&[100, 96], 1),
    ] {
        check_real::<f32>(gpu, cufft, Shape::new(dims, batch).map_err(fail)?, 3)?;
        check_real::<f64>(gpu, cufft, Shape::new(dims, batch).map_err(fail)?, 4)?;
    }
    let auto = Plan::<f32>::c2c_1d(gpu, 64, 1, Engine::Auto).map_err(fail)?;
    ensure(auto.engine() == Engine::Cufft, || {
        format!("Auto picked {:?} on a GPU", auto.engine())
    })?;
    let shape = Shape::new(&[16, 64], 2).map_err(fail)?;
    let input = cpu::from_c64::<f32>(&complex_values(shape.complex_len(), 3));
    let mut plan = Plan::<f32>::new(gpu, shape, Transform::C2c, cufft).map_err(fail)?;
    let input_d = gpu.upload(&input).map_err(fail)?;
    let mut a_d = gpu.zeros::<Complex<f32>>(input.len()).map_err(fail)?;
    let mut b_d = gpu.zeros::<Complex<f32>>(input.len()).map_err(fail)?;
    plan.c2c(gpu, &input_d, &mut a_d, Direction::Forward).map_err(fail)?;
    let stream = gpu.new_stream().map_err(fail)?;
    plan.c2c_on(gpu, &stream, &input_d, &mut b_d, Direction::Forward)
        .map_err(fail)?;
    drop(stream);
    let (a, b) = (gpu.download(&a_d).map_err(fail)?, gpu.download(&b_d).map_err(fail)?);
    ensure(a == b, || {
        "cuFFT on a stream differs from cuFFT on the device's stream".into()
    })
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![("fft_reference_matches_direct_dft", fft_reference_matches_direct_dft)];
    let gpu_tests: Vec<GpuTest> = vec![
        ("fft_c2c_1d_sizes_and_batches", fft_c2c_1d_sizes_and_batches),
        ("fft_c2c_1d_four_step", fft_c2c_1d_four_step),
        ("fft_c2c_2d_and_3d_non_square", fft_c2c_2d_and_3d_non_square),
        ("fft_c2c_round_trip_scales_by_n", fft_c2c_round_trip_scales_by_n),
        ("fft_r2c_c2r_1d", fft_r2c_c2r_1d),
        ("fft_r2c_c2r_2d_and_3d", fft_r2c_c2r_2d_and_3d),
        ("fft_on_a_stream", fft_on_a_stream),
        ("fft_refuses_bad_sizes", fft_refuses_bad_sizes),
    ];
    let cuda_tests: Vec<GpuTest> = vec![(
        "fft_cufft_engine_matches_the_reference",
        fft_cufft_engine_matches_the_reference,
    )];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
