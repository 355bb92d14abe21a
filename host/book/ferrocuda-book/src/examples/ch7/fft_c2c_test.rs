//! ch7-fft-c2c-test: the forward complex transform of `cos(2x) + sin(3x)` (book §7.1, program
//! `fft_test_c2c`): `0.5` at `k = +-2`, `-0.5 i` at `k = 3` and `+0.5 i` at `k = -3`.
use super::{
    Ch7Float, FFT_FLAG, MIN_TEST_SIZE, TEST_N, TEST_SIZE_UNIT, analytic_coefficients, coefficient_tolerance, engine,
    engine_name, fixed, test_signal, test_size, widen,
};
use crate::example::{LegacyExample, LegacySize, Options, Outcome, Precision};
use ferrocuda::fft::{Complex, Direction, Plan, wavenumbers};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch7-fft-c2c-test",
    description: "forward C2C FFT of cos(2x) + sin(3x), n = 16, printed as i, input, k, output/n (book 7.1)",
    size: Some(LegacySize {
        unit: TEST_SIZE_UNIT,
        gpu: TEST_N,
        simulator: TEST_N,
        min: MIN_TEST_SIZE,
        max: usize::MAX,
        memory,
    }),
    f64: true,
    reps: false,
    flags: &[FFT_FLAG],
    run,
};

/// Transforms the signal on `gpu` and returns `(input, output / n)`.
pub fn transform<T: Ch7Float>(gpu: &Gpu, options: &Options, n: usize) -> Result<(Vec<T>, Vec<Complex<T>>)> {
    let input = test_signal::<T>(n)?;
    let complex: Vec<Complex<T>> = input.iter().map(|&x| Complex::new(x, T::default())).collect();
    let input_d = gpu.upload(&complex)?;
    let mut output_d = gpu.zeros::<Complex<T>>(n)?;
    let mut plan = Plan::<T>::c2c_1d(gpu, n, 1, engine(gpu, options)?)?;
    println!(
        " {} C2C, n = {n}, out of place ({})",
        T::LABEL,
        engine_name(plan.engine())
    );
    plan.c2c(gpu, &input_d, &mut output_d, Direction::Forward)?;
    let scale = T::from_f64(1.0 / n as f64);
    let output = gpu.download(&output_d)?.into_iter().map(|c| c.scale(scale)).collect();
    Ok((input, output))
}

fn run_typed<T: Ch7Float>(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = test_size(options, TEST_N)?;
    let (input, output) = transform::<T>(gpu, options, n)?;
    let kx = wavenumbers(n);
    for i in 0..n {
        println!(
            "{:4} {} {} {:4} {} {}",
            i + 1,
            fixed(input[i].into(), 8, 4),
            fixed(0.0, 7, 4),
            kx[i],
            fixed(output[i].re.into(), 8, 4),
            fixed(output[i].im.into(), 8, 4)
        );
    }
    let (re, im): (Vec<f64>, Vec<f64>) = widen(&output).into_iter().unzip();
    let (want_re, want_im): (Vec<f64>, Vec<f64>) = analytic_coefficients(n).into_iter().unzip();
    let tolerance = coefficient_tolerance(n, T::EPSILON);
    Ok(Outcome {
        checks: vec![
            Check::compare("real part vs analytic (0.5 at k = +-2)", &re, &want_re, tolerance),
            Check::compare(
                "imaginary part vs analytic (-+0.5 at k = +-3)",
                &im,
                &want_im,
                tolerance,
            ),
        ],
    })
}

/// The peak bytes of the test at length `n` in `T`: on the device the input, the output and an
/// FFT work area of the same size (cuFFT's, or the Rust kernels' scratch); on the host the
/// signal with the downloaded output, then the printed columns and the checks' f64 arrays
/// (computed and analytic parts, wavenumbers).
pub fn plan<T: Ch7Float>(n: usize) -> Option<Footprint> {
    Footprint::NONE
        .device::<Complex<T>>(3, n)?
        .host::<T>(3, n)?
        .host::<f64>(7, n)
}

/// [`plan`] in `--precision`.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    match options.precision {
        Precision::F32 => plan::<f32>(n),
        Precision::F64 => plan::<f64>(n),
    }
}

/// Runs the test in `--precision`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options),
        Precision::F64 => run_typed::<f64>(gpu, options),
    }
}
