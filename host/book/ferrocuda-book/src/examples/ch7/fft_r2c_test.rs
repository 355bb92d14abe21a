//! ch7-fft-r2c-test: the same signal through an in-place real-to-complex transform (book §7.1,
//! program `fft_test_r2c`, device array `rinput_d(n+2)`): the `n/2 + 1` wavenumbers
//! `k = 0..n/2`, with `0.5` at `k = 2` and `-0.5 i` at `k = 3`.
use super::{Ch7Float, FFT_FLAG, MIN_TEST_SIZE, TEST_SIZE_UNIT, engine, engine_name, fixed, test_signal, test_size};
use super::{analytic_coefficients, coefficient_tolerance};
use crate::example::{LegacyExample, LegacySize, Options, Outcome, Precision};
use ferrocuda::fft::{Complex, Plan};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch7-fft-r2c-test",
    description: "in-place R2C FFT of cos(2x) + sin(3x), n = 16: the n/2+1 wavenumbers of the half spectrum (book 7.1)",
    size: Some(LegacySize {
        unit: TEST_SIZE_UNIT,
        gpu: super::TEST_N,
        simulator: super::TEST_N,
        min: MIN_TEST_SIZE,
        max: usize::MAX,
        memory,
    }),
    f64: true,
    reps: false,
    flags: &[FFT_FLAG],
    run,
};

/// Transforms the signal in place on padded storage (`n + 2` reals) and returns the half
/// spectrum divided by `n`, `(re, im)` for `k = 0..=n/2`.
pub fn half_spectrum<T: Ch7Float>(gpu: &Gpu, options: &Options, n: usize) -> Result<Vec<(f64, f64)>> {
    let mut padded = test_signal::<T>(n)?;
    padded.resize(n + 2, T::default());
    let mut data_d = gpu.upload(&padded)?;
    let mut plan = Plan::<T>::r2c_1d(gpu, n, 1, engine(gpu, options)?)?;
    println!(
        " {} R2C, n = {n}, in place on n + 2 reals ({})",
        T::LABEL,
        engine_name(plan.engine())
    );
    plan.r2c_in_place(gpu, &mut data_d)?;
    let reals = gpu.download(&data_d)?;
    Ok(reals
        .chunks_exact(2)
        .map(|pair| (pair[0].into() / n as f64, pair[1].into() / n as f64))
        .collect())
}

fn run_typed<T: Ch7Float>(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = test_size(options, super::TEST_N)?;
    let output = half_spectrum::<T>(gpu, options, n)?;
    for (k, &(re, im)) in output.iter().enumerate() {
        println!("{:4} {:4} {} {}", k + 1, k, fixed(re, 8, 4), fixed(im, 8, 4));
    }
    let want = &analytic_coefficients(n)[..n / 2 + 1];
    let (re, im): (Vec<f64>, Vec<f64>) = output.into_iter().unzip();
    // The Nyquist value of cuFFT's layout sits at k = n/2, which the C2C order calls -n/2: zero here.
    let (want_re, want_im): (Vec<f64>, Vec<f64>) = want.iter().copied().unzip();
    let tolerance = coefficient_tolerance(n, T::EPSILON);
    Ok(Outcome {
        checks: vec![
            Check::compare("real part vs analytic (0.5 at k = 2)", &re, &want_re, tolerance),
            Check::compare("imaginary part vs analytic (-0.5 at k = 3)", &im, &want_im, tolerance),
        ],
    })
}

/// The peak bytes of the test at length `n` in `T`: on the device the `n + 2` padded reals and
/// an FFT work area of `n` complex values (more than either engine's); on the host the padded
/// signal and its downloaded transform, then the half spectrum, the analytic coefficients (all
/// `n`) and the checks' f64 arrays.
pub fn plan<T: Ch7Float>(n: usize) -> Option<Footprint> {
    let padded = n.checked_add(2)?;
    Footprint::NONE
        .device::<T>(1, padded)?
        .device::<Complex<T>>(1, n)?
        .host::<T>(2, padded)?
        .host::<f64>(7, padded)
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
