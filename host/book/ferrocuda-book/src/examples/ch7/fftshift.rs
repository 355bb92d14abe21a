//! ch7-fftshift: the spectrum in natural order (`k = -n/2 .. n/2 - 1`) by multiplying the signal
//! by `(-1)^(i+1)` before the forward transform (book §7.1, after Solomon & Breckon 2011); the
//! constant `n` added to the signal marks `k = 0` with `16.0`. The same factor after the
//! inverse transform undoes the shift.
use super::{
    Ch7Float, FftOption, TEST_N, THREADS_PER_BLOCK, analytic_coefficients, check_test_size, coefficient_checks,
    coefficient_tolerance, complex, download_scaled, fixed, print_plan, test_signal, test_size, widen,
};
use crate::example::{Example, Outcome, Run, Size};
use book_kernels::ch7::spectral::AlternateSignArgs;
use ferrocuda::fft::{Complex, Direction, Engine, Plan, wavenumbers};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch7-fftshift in precision `T`.
pub struct Ch7Fftshift<T>(PhantomData<T>);

impl<T: Ch7Float> Example for Ch7Fftshift<T> {
    const ID: &'static str = "ch7-fftshift";
    const DESCRIPTION: &'static str = "C2C FFT of cos(2x) + sin(3x) + n pre-multiplied by (-1)^(i+1): the spectrum in natural order, 16 at k = 0 (book 7.1)";
    const SIZE: Option<Size> = test_size(
        "transform length n, even and at least 8 (a power of two for the Rust FFT kernels; cuFFT takes any)",
        TEST_N,
    );
    type Args = FftOption;

    /// The peak bytes of the example at length `n` in `T`: on the device the data (transformed
    /// in place) and an FFT work area of the same size; on the host the signal, its complex
    /// copy, the downloaded spectrum and recovered signal, then the checks' f64 arrays
    /// (computed, analytic, recovered and input).
    fn memory(run: &Run<FftOption>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE
            .device::<Complex<T>>(2, run.size)?
            .host::<T>(7, run.size)?
            .host::<f64>(7, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<FftOption>) -> Result<Outcome> {
        let n = check_test_size(run.size)?;
        if !n.is_multiple_of(2) {
            return Err(Error::InvalidArgument(format!(
                "the (-1)^i shift centres k = 0 only for an even length, not {n}"
            )));
        }
        let (input, spectrum, recovered) = shifted::<T>(gpu, run.args.engine(gpu)?, n)?;
        // Natural order: position m holds k = m - n/2.
        for (m, c) in spectrum.iter().enumerate() {
            println!(
                "{:4} {} {:4} {} {}",
                m + 1,
                fixed(input[m].into(), 9, 4),
                m as i64 - (n / 2) as i64,
                fixed(c.re.into(), 9, 4),
                fixed(c.im.into(), 9, 4)
            );
        }
        let mut natural = analytic_coefficients(n);
        natural[0].0 += n as f64;
        let mut want = vec![(0.0, 0.0); n];
        for (value, k) in natural.into_iter().zip(wavenumbers(n)) {
            want[(k + (n / 2) as i64) as usize] = value;
        }
        // Values reach n + 2, so the transform's absolute error scales with that magnitude.
        let tolerance = Tolerance {
            abs: coefficient_tolerance(n, T::EPSILON).abs * (n as f64 + 2.0),
            rel: 0.0,
        };
        let what = [
            "real part vs analytic (16 at k = 0, 0.5 at k = +-2)",
            "imaginary part vs analytic (-+0.5 at k = +-3)",
        ];
        let mut checks = Vec::from(coefficient_checks(&widen(&spectrum), &want, tolerance, what));
        let back: Vec<f64> = recovered.iter().map(|c| c.re.into()).collect();
        let input64: Vec<f64> = input.iter().map(|&x| x.into()).collect();
        let what = "inverse transform and factor give the signal back";
        checks.push(Check::compare(what, &back, &input64, tolerance));
        Ok(Outcome { checks })
    }
}

/// `data *= (-1)^i` elementwise on the GPU (rows of `nx`: `(-1)^(i+j)`).
pub fn alternate_sign<T: Ch7Float>(gpu: &Gpu, data_d: &mut DeviceBuffer<Complex<T>>, nx: usize) -> Result<()> {
    let nx = u32::try_from(nx)
        .map_err(|_| Error::InvalidArgument(format!("a row of {nx} values is too long for alternate_sign")))?;
    let shape = LaunchShape::cover_1d(data_d.len(), THREADS_PER_BLOCK)?;
    let args = AlternateSignArgs {
        data: data_d.view_mut(),
        nx,
    };
    T::alternate_sign(gpu, shape, args)
}

/// The signal, its shifted spectrum and the signal recovered (see [`shifted`]).
pub type Shifted<T> = (Vec<T>, Vec<Complex<T>>, Vec<Complex<T>>);

/// The shifted spectrum of `cos(2x) + sin(3x) + n`, divided by `n`, and the signal recovered
/// by the inverse transform and the same factor (divided by `n`), with `engine`: `(input,
/// spectrum, recovered)`.
pub fn shifted<T: Ch7Float>(gpu: &Gpu, engine: Engine, n: usize) -> Result<Shifted<T>> {
    let input: Vec<T> = test_signal::<T>(n)?
        .into_iter()
        .map(|x| T::from_f64(x.into() + n as f64))
        .collect();
    let mut data_d = gpu.upload(&complex(&input))?;
    let mut plan = Plan::<T>::c2c_1d(gpu, n, 1, engine)?;
    print_plan::<T>(&format!(" C2C, n = {n}, in place, sign pre-multiplied"), plan.engine());
    alternate_sign(gpu, &mut data_d, n)?;
    plan.c2c_in_place(gpu, &mut data_d, Direction::Forward)?;
    let spectrum = download_scaled(gpu, &data_d)?;
    plan.c2c_in_place(gpu, &mut data_d, Direction::Inverse)?;
    alternate_sign(gpu, &mut data_d, n)?;
    Ok((input, spectrum, download_scaled(gpu, &data_d)?))
}
