//! ch7-fft-c2c-test: the forward complex transform of `cos(2x) + sin(3x)` (book §7.1, program
//! `fft_test_c2c`): `0.5` at `k = +-2`, `-0.5 i` at `k = 3` and `+0.5 i` at `k = -3`.
use super::{
    Ch7Float, FftOption, TEST_N, TEST_SIZE_UNIT, analytic_coefficients, check_test_size, coefficient_checks,
    coefficient_tolerance, complex, download_scaled, fixed, print_plan, test_signal, test_size, widen,
};
use crate::example::{Example, Outcome, Run, Size};
use ferrocuda::fft::{Complex, Direction, Engine, Plan, wavenumbers};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use std::marker::PhantomData;

/// ch7-fft-c2c-test in precision `T`.
pub struct Ch7FftC2cTest<T>(PhantomData<T>);

impl<T: Ch7Float> Example for Ch7FftC2cTest<T> {
    const ID: &'static str = "ch7-fft-c2c-test";
    const DESCRIPTION: &'static str =
        "forward C2C FFT of cos(2x) + sin(3x), n = 16, printed as i, input, k, output/n (book 7.1)";
    const SIZE: Option<Size> = test_size(TEST_SIZE_UNIT, TEST_N);
    type Args = FftOption;

    /// The peak bytes of the test at length `n` in `T`: on the device the input, the output and
    /// an FFT work area of the same size (cuFFT's, or the Rust kernels' scratch); on the host
    /// the signal with the downloaded output, then the printed columns and the checks' f64
    /// arrays (computed and analytic parts, wavenumbers).
    fn memory(run: &Run<FftOption>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE
            .device::<Complex<T>>(3, run.size)?
            .host::<T>(3, run.size)?
            .host::<f64>(7, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<FftOption>) -> Result<Outcome> {
        let n = check_test_size(run.size)?;
        let (input, output) = transform::<T>(gpu, run.args.engine(gpu)?, n)?;
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
        let what = [
            "real part vs analytic (0.5 at k = +-2)",
            "imaginary part vs analytic (-+0.5 at k = +-3)",
        ];
        let tolerance = coefficient_tolerance(n, T::EPSILON);
        let checks = coefficient_checks(&widen(&output), &analytic_coefficients(n), tolerance, what);
        Ok(Outcome { checks: checks.into() })
    }
}

/// Transforms the signal on `gpu` with `engine` and returns `(input, output / n)`.
pub fn transform<T: Ch7Float>(gpu: &Gpu, engine: Engine, n: usize) -> Result<(Vec<T>, Vec<Complex<T>>)> {
    let input = test_signal::<T>(n)?;
    let input_d = gpu.upload(&complex(&input))?;
    let mut output_d = gpu.zeros::<Complex<T>>(n)?;
    let mut plan = Plan::<T>::c2c_1d(gpu, n, 1, engine)?;
    print_plan::<T>(&format!(" C2C, n = {n}, out of place"), plan.engine());
    plan.c2c(gpu, &input_d, &mut output_d, Direction::Forward)?;
    Ok((input, download_scaled(gpu, &output_d)?))
}
