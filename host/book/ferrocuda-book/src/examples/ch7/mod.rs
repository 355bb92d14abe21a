//! Book chapter 7: applications of the FFT, on `ferrocuda::fft` (either engine, `--fft`).
pub mod fft_c2c_test;
pub mod fft_convolution;
pub mod fft_r2c_test;
pub mod fftshift;
pub mod poisson;
pub mod spectral_deriv;

use crate::example::Size;
use book_kernels::ch7::poisson::{
    ComplexToReal, ComplexToRealArgs, RealToComplex, RealToComplexArgs, SolvePoisson, SolvePoissonArgs,
};
use book_kernels::ch7::spectral::{AlternateSign, AlternateSignArgs, SpectralDerivative, SpectralDerivativeArgs};
use ferrocuda::fft::{Complex, Engine, FftFloat, wavenumbers};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

// The `--fft` option every chapter-7 example takes (a plain comment: clap would print a doc comment
// in place of the example's description in its --help).
#[derive(clap::Args, Clone, Debug)]
pub struct FftOption {
    /// the FFT engine: this library's kernels or cuFFT (default: cuFFT on a GPU where it loads, the Rust kernels on the simulator)
    #[arg(long, value_name = "rust|cufft")]
    pub fft: Option<Engine>,
}

impl FftOption {
    /// The engine `--fft` asks for (`Auto` when absent). cuFFT on the simulator is refused in
    /// one sentence here, before any plan is made.
    pub fn engine(&self, gpu: &Gpu) -> Result<Engine> {
        let engine = self.fft.unwrap_or_default();
        if engine == Engine::Cufft && gpu.is_simulator() {
            return Err(Error::InvalidArgument(
                "--fft cufft needs a GPU: the simulator runs only the Rust FFT kernels (--fft rust)".into(),
            ));
        }
        Ok(engine)
    }
}

/// Prints the line that opens a transform's output: ` SP` (or ` DP`), `what`, and the engine.
pub fn print_plan<T: Ch7Float>(what: &str, engine: Engine) {
    println!(" {}{what} ({})", T::LABEL, engine_name(engine));
}

/// The engine's name for output.
pub fn engine_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Rust => "Rust kernels",
        Engine::Cufft => "cuFFT",
        Engine::Auto => "auto",
    }
}

/// A value printed with `decimals` decimals, without the `-` of a value that rounds to zero
/// (Fortran's F format prints such values as `0.0000` in the book's tables).
pub fn fixed(value: f64, width: usize, decimals: usize) -> String {
    let text = format!("{value:width$.decimals$}");
    if text.trim_start().starts_with('-') && text.trim_start()[1..].chars().all(|c| c == '0' || c == '.') {
        format!("{:width$.decimals$}", 0.0)
    } else {
        text
    }
}

/// Threads per block of the chapter's 1-D elementwise kernels.
pub const THREADS_PER_BLOCK: u32 = 256;

/// A precision the chapter's kernels run in: `f32` or `f64`, with their launches.
pub trait Ch7Float: FftFloat + Into<f64> {
    /// The book's label: `SP` or `DP`.
    const LABEL: &'static str;
    /// `T::EPSILON` as f64.
    const EPSILON: f64;
    /// `e^self` in this precision, on the host (std's, correctly rounded to within an ulp).
    fn exp_host(self) -> Self;
    /// Launches `alternate_sign`.
    fn alternate_sign(gpu: &Gpu, shape: LaunchShape, args: AlternateSignArgs<'_, Self>) -> Result<()>;
    /// Launches `spectral_derivative`.
    fn spectral_derivative(gpu: &Gpu, shape: LaunchShape, args: SpectralDerivativeArgs<'_, Self>) -> Result<()>;
    /// Launches `real_to_complex`.
    fn real_to_complex(gpu: &Gpu, shape: LaunchShape, args: RealToComplexArgs<'_, Self>) -> Result<()>;
    /// Launches `solve_poisson`.
    fn solve_poisson(gpu: &Gpu, shape: LaunchShape, args: SolvePoissonArgs<'_, Self>) -> Result<()>;
    /// Launches `complex_to_real`.
    fn complex_to_real(gpu: &Gpu, shape: LaunchShape, args: ComplexToRealArgs<'_, Self>) -> Result<()>;
}

macro_rules! ch7_float {
    ($($t:ty: $label:literal;)*) => {$(
        impl Ch7Float for $t {
            const LABEL: &'static str = $label;
            const EPSILON: f64 = <$t>::EPSILON as f64;
            fn exp_host(self) -> Self {
                self.exp()
            }
            fn alternate_sign(gpu: &Gpu, shape: LaunchShape, args: AlternateSignArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(AlternateSign, shape, args)
            }
            fn spectral_derivative(gpu: &Gpu, shape: LaunchShape, args: SpectralDerivativeArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(SpectralDerivative, shape, args)
            }
            fn real_to_complex(gpu: &Gpu, shape: LaunchShape, args: RealToComplexArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(RealToComplex, shape, args)
            }
            fn solve_poisson(gpu: &Gpu, shape: LaunchShape, args: SolvePoissonArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(SolvePoisson, shape, args)
            }
            fn complex_to_real(gpu: &Gpu, shape: LaunchShape, args: ComplexToRealArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(ComplexToReal, shape, args)
            }
        }
    )*};
}

ch7_float! {
    f32: "SP";
    f64: "DP";
}

/// The test signal of §7.1 and §7.2: `cos(2 x) + sin(3 x)` at `x_j = 2 pi j / n` (in f64,
/// then rounded to `T`, as the book computes in `fp_kind` from an f64 `twopi`); allocated
/// fallibly.
pub fn test_signal<T: Ch7Float>(n: usize) -> Result<Vec<T>> {
    let h = std::f64::consts::TAU / n as f64;
    ferrocuda::footprint::try_from_fn(n, |j| {
        let x = j as f64 * h;
        T::from_f64((2.0 * x).cos() + (3.0 * x).sin())
    })
}

/// The signal as complex values with zero imaginary parts.
pub fn complex<T: Ch7Float>(real: &[T]) -> Vec<Complex<T>> {
    real.iter().map(|&x| Complex::new(x, T::default())).collect()
}

/// `data_d` downloaded and divided by its length, as the book prints a transform.
pub fn download_scaled<T: Ch7Float>(gpu: &Gpu, data_d: &DeviceBuffer<Complex<T>>) -> Result<Vec<Complex<T>>> {
    let scale = T::from_f64(1.0 / data_d.len() as f64);
    Ok(gpu.download(data_d)?.into_iter().map(|c| c.scale(scale)).collect())
}

/// What `--size` counts in the 1-D tests (§7.1, §7.2).
pub const TEST_SIZE_UNIT: &str =
    "transform length n, at least 8 (a power of two for the Rust FFT kernels; cuFFT takes any)";

/// The smallest length of the 1-D tests: `k = 3` must lie below the Nyquist wavenumber.
pub const MIN_TEST_SIZE: usize = 8;

/// The `--size` of a 1-D test (§7.1, §7.2): a length of at least [`MIN_TEST_SIZE`] counted as
/// `unit`, the book's `n` by default.
pub const fn test_size(unit: &'static str, n: usize) -> Option<Size> {
    Some(Size::new(unit, n, n).at_least(MIN_TEST_SIZE))
}

/// Refuses a length below [`MIN_TEST_SIZE`], so that `k = 3` is below the Nyquist wavenumber
/// and the analytic coefficients are the transform's.
pub fn check_test_size(n: usize) -> Result<usize> {
    if n < MIN_TEST_SIZE {
        return Err(Error::InvalidArgument(format!(
            "the chapter-7 test signal cos(2x) + sin(3x) needs at least 8 points, not {n}"
        )));
    }
    Ok(n)
}

/// Complex values widened to `(re, im)` in f64.
pub fn widen<T: Ch7Float>(values: &[Complex<T>]) -> Vec<(f64, f64)> {
    values.iter().map(|c| (c.re.into(), c.im.into())).collect()
}

/// The book's transform length in §7.1's tests (`fft_test_c2c`, `fft_test_r2c`, `fftshift`).
pub const TEST_N: usize = 16;

/// The analytic coefficients `X_k / n` of `cos(2x) + sin(3x)` in cuFFT's order (`n >= 8`).
pub fn analytic_coefficients(n: usize) -> Vec<(f64, f64)> {
    wavenumbers(n)
        .into_iter()
        .map(|k| match k {
            2 | -2 => (0.5, 0.0),
            3 => (0.0, -0.5),
            -3 => (0.0, 0.5),
            _ => (0.0, 0.0),
        })
        .collect()
}

/// The tolerance of a normalized transform of `n` values of magnitude at most 2: the FFT's
/// error bound of a small multiple of `log2(n)` epsilons (8, as the library's tests allow 2 on
/// the relative L2 error and a single coefficient can carry a few times the average).
pub fn coefficient_tolerance(n: usize, epsilon: f64) -> Tolerance {
    let log2_n = (n as f64).log2().max(1.0);
    Tolerance {
        abs: 8.0 * log2_n * epsilon,
        rel: 0.0,
    }
}

/// The checks of computed coefficients `got` against `want`, `(re, im)` each: the real parts
/// and the imaginary parts, described by `what`.
pub fn coefficient_checks(
    got: &[(f64, f64)],
    want: &[(f64, f64)],
    tolerance: Tolerance,
    what: [&str; 2],
) -> [Check; 2] {
    let part = |values: &[(f64, f64)], im: bool| -> Vec<f64> {
        values.iter().map(|&(re, i)| if im { i } else { re }).collect()
    };
    [false, true].map(|im| Check::compare(what[usize::from(im)], &part(got, im), &part(want, im), tolerance))
}
