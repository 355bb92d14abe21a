//! ch7-spectral-deriv: the derivative of `f = cos(2x) + sin(3x)` by FFT (book §7.2, program
//! `fft_derivative`, n = 8): forward C2C, multiply by `i k / n` (Nyquist wavenumber zeroed)
//! or by `-k^2 / n`, inverse C2C in place; compared with `f' = -2 sin(2x) + 3 cos(3x)` (the
//! code's cosine; the book's displayed formula says `3 sin(3x)`, a typo) and
//! `f'' = -4 cos(2x) - 9 sin(3x)`.
use super::{
    Ch7Float, FftOption, TEST_SIZE_UNIT, THREADS_PER_BLOCK, check_test_size, complex, fixed, print_plan, test_signal,
    test_size,
};
use crate::example::{Example, Outcome, Run, Size};
use book_kernels::ch7::spectral::SpectralDerivativeArgs;
use ferrocuda::fft::{Complex, Direction, Plan, wavenumbers};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch7-spectral-deriv in precision `T`.
pub struct Ch7SpectralDeriv<T>(PhantomData<T>);

impl<T: Ch7Float> Example for Ch7SpectralDeriv<T> {
    const ID: &'static str = "ch7-spectral-deriv";
    const DESCRIPTION: &'static str =
        "first and second spectral derivatives of cos(2x) + sin(3x), n = 8, against the exact ones (book 7.2)";
    const SIZE: Option<Size> = test_size(TEST_SIZE_UNIT, N);
    type Args = FftOption;

    /// The peak bytes of the example at length `n` in `T`: on the device the signal, the
    /// spectrum, the wavenumbers and an FFT work area of the transform's size; on the host the
    /// signal (real and complex), the downloaded result, and the computed and exact derivatives
    /// in f64.
    fn memory(run: &Run<FftOption>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE
            .device::<Complex<T>>(3, run.size)?
            .device::<T>(1, run.size)?
            .host::<T>(6, run.size)?
            .host::<f64>(2, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<FftOption>) -> Result<Outcome> {
        let n = check_test_size(run.size)?;
        let mut plan = Plan::<T>::c2c_1d(gpu, n, 1, run.args.engine(gpu)?)?;
        print_plan::<T>(&format!(", n = {n}"), plan.engine());
        let h = std::f64::consts::TAU / n as f64;
        let mut checks = Vec::new();
        for order in [1, 2] {
            let computed = derivative::<T>(gpu, &mut plan, n, order)?;
            let want: Vec<f64> = (0..n).map(|j| T::from_f64(exact(order, j as f64 * h)).into()).collect();
            println!(
                " {} derivative: i, computed, exact, difference",
                if order == 1 { "first" } else { "second" }
            );
            let got: Vec<f64> = computed.iter().map(|&v| v.into()).collect();
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                println!("{:4} {} {} {:15.7E}", i + 1, fixed(g, 8, 4), fixed(w, 8, 4), g - w);
            }
            let tolerance = tolerance(order, n, T::EPSILON);
            let what = format!("derivative {order} vs exact (|error| <= {:.1e})", tolerance.abs);
            checks.push(Check::compare(&what, &got, &want, tolerance));
        }
        Ok(Outcome { checks })
    }
}

/// The book's length.
pub const N: usize = 8;

/// The book's largest first-derivative difference at n = 8, DP (`0.3108624E-14`, "agreement to
/// the round-off error", 14 epsilons), rounded up: the Rust engine's largest is that same
/// 3.108624e-15 (at the same point, x = 5 pi / 4).
pub const FIRST_DP_BOOK_ERROR: f64 = 3.2e-15;
/// The book's largest first-derivative difference at n = 8, SP (`-.2145767E-05`), 18 epsilons.
pub const FIRST_SP_BOOK_ERROR: f64 = 2.2e-6;

/// The largest difference allowed for derivative `order` (1 or 2) of length `n` in a
/// precision of `epsilon`. At the book's n = 8, first derivative: the book's own largest
/// difference. Otherwise a round-off bound: each coefficient carries about `log2(n) eps` of the
/// signal's magnitude (2), the multiplier amplifies it by up to `n/2` (first derivative) or
/// `(n/2)^2` (second, whose Nyquist coefficient is kept), with a factor 4 of room.
pub fn tolerance(order: u32, n: usize, epsilon: f64) -> Tolerance {
    if order == 1 && n == N {
        let book = if epsilon < 1e-10 {
            FIRST_DP_BOOK_ERROR
        } else {
            FIRST_SP_BOOK_ERROR
        };
        return Tolerance { abs: book, rel: 0.0 };
    }
    let half = (n / 2) as f64;
    let amplification = if order == 1 { half } else { half * half };
    Tolerance {
        abs: 4.0 * (n as f64).log2() * epsilon * 2.0 * amplification,
        rel: 0.0,
    }
}

/// The exact derivative of `order` at `x`.
pub fn exact(order: u32, x: f64) -> f64 {
    if order == 1 {
        -2.0 * (2.0 * x).sin() + 3.0 * (3.0 * x).cos()
    } else {
        -4.0 * (2.0 * x).cos() - 9.0 * (3.0 * x).sin()
    }
}

/// The wavenumbers of derivative `order` in `T`: cuFFT's order, the Nyquist one zeroed for the
/// first derivative (its `i k` would give an imaginary part to a real signal), kept for `-k^2`.
pub fn derivative_wavenumbers<T: Ch7Float>(order: u32, n: usize) -> Vec<T> {
    wavenumbers(n)
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            if order == 1 && n.is_multiple_of(2) && i == n / 2 {
                0.0
            } else {
                k as f64
            }
        })
        .map(T::from_f64)
        .collect()
}

/// Multiplies the spectrum by `i k / n` or `-k^2 / n` on the GPU.
pub fn multiply<T: Ch7Float>(
    gpu: &Gpu,
    data_d: &mut DeviceBuffer<Complex<T>>,
    kx_d: &DeviceBuffer<T>,
    order: u32,
) -> Result<()> {
    let n = data_d.len();
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    let args = SpectralDerivativeArgs {
        data: data_d.view_mut(),
        kx: kx_d.view(),
        n: T::from_f64(n as f64),
        order,
    };
    T::spectral_derivative(gpu, shape, args)
}

/// Derivative `order` of the test signal of length `n`, computed on `gpu`.
pub fn derivative<T: Ch7Float>(gpu: &Gpu, plan: &mut Plan<T>, n: usize, order: u32) -> Result<Vec<T>> {
    let input_d = gpu.upload(&complex(&test_signal::<T>(n)?))?;
    let mut data_d = gpu.zeros::<Complex<T>>(n)?;
    let kx_d = gpu.upload(&derivative_wavenumbers::<T>(order, n))?;
    plan.c2c(gpu, &input_d, &mut data_d, Direction::Forward)?;
    multiply(gpu, &mut data_d, &kx_d, order)?;
    plan.c2c_in_place(gpu, &mut data_d, Direction::Inverse)?;
    Ok(gpu.download(&data_d)?.into_iter().map(|c| c.re).collect())
}
