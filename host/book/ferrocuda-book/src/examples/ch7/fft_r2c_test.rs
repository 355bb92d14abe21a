//! ch7-fft-r2c-test: the same signal through an in-place real-to-complex transform (book §7.1,
//! program `fft_test_r2c`, device array `rinput_d(n+2)`): the `n/2 + 1` wavenumbers
//! `k = 0..n/2`, with `0.5` at `k = 2` and `-0.5 i` at `k = 3`.
use super::{
    Ch7Float, FftOption, TEST_N, TEST_SIZE_UNIT, analytic_coefficients, check_test_size, coefficient_checks,
    coefficient_tolerance, fixed, print_plan, test_signal, test_size,
};
use crate::example::{Example, Outcome, Run, Size};
use ferrocuda::fft::{Complex, Engine, Plan};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use std::marker::PhantomData;

/// ch7-fft-r2c-test in precision `T`.
pub struct Ch7FftR2cTest<T>(PhantomData<T>);

impl<T: Ch7Float> Example for Ch7FftR2cTest<T> {
    const ID: &'static str = "ch7-fft-r2c-test";
    const DESCRIPTION: &'static str =
        "in-place R2C FFT of cos(2x) + sin(3x), n = 16: the n/2+1 wavenumbers of the half spectrum (book 7.1)";
    const SIZE: Option<Size> = test_size(TEST_SIZE_UNIT, TEST_N);
    type Args = FftOption;

    /// The peak bytes of the test at length `n` in `T`: on the device the `n + 2` padded reals
    /// and an FFT work area of `n` complex values (more than either engine's); on the host the
    /// padded signal and its downloaded transform, then the half spectrum, the analytic
    /// coefficients (all `n`) and the checks' f64 arrays.
    fn memory(run: &Run<FftOption>, _gpu: &Gpu) -> Option<Footprint> {
        let padded = run.size.checked_add(2)?;
        Footprint::NONE
            .device::<T>(1, padded)?
            .device::<Complex<T>>(1, run.size)?
            .host::<T>(2, padded)?
            .host::<f64>(7, padded)
    }

    fn run(gpu: &Gpu, run: &Run<FftOption>) -> Result<Outcome> {
        let n = check_test_size(run.size)?;
        let output = half_spectrum::<T>(gpu, run.args.engine(gpu)?, n)?;
        for (k, &(re, im)) in output.iter().enumerate() {
            println!("{:4} {:4} {} {}", k + 1, k, fixed(re, 8, 4), fixed(im, 8, 4));
        }
        // The Nyquist value of cuFFT's layout sits at k = n/2, which the C2C order calls -n/2:
        // zero here.
        let want = &analytic_coefficients(n)[..n / 2 + 1];
        let what = [
            "real part vs analytic (0.5 at k = 2)",
            "imaginary part vs analytic (-0.5 at k = 3)",
        ];
        let checks = coefficient_checks(&output, want, coefficient_tolerance(n, T::EPSILON), what);
        Ok(Outcome { checks: checks.into() })
    }
}

/// Transforms the signal in place on padded storage (`n + 2` reals) with `engine` and returns
/// the half spectrum divided by `n`, `(re, im)` for `k = 0..=n/2`.
pub fn half_spectrum<T: Ch7Float>(gpu: &Gpu, engine: Engine, n: usize) -> Result<Vec<(f64, f64)>> {
    let mut padded = test_signal::<T>(n)?;
    padded.resize(n + 2, T::default());
    let mut data_d = gpu.upload(&padded)?;
    let mut plan = Plan::<T>::r2c_1d(gpu, n, 1, engine)?;
    print_plan::<T>(&format!(" R2C, n = {n}, in place on n + 2 reals"), plan.engine());
    plan.r2c_in_place(gpu, &mut data_d)?;
    let reals = gpu.download(&data_d)?;
    Ok(reals
        .chunks_exact(2)
        .map(|pair| (pair[0].into() / n as f64, pair[1].into() / n as f64))
        .collect())
}
