//! Fast Fourier transforms on the GPU (book chapter 7): plans shaped as cuFFT's and rustfft's,
//! run by this library's own kernels ([`Engine::Rust`], on a GPU or the simulator) or by cuFFT
//! ([`Engine::Cufft`], on a GPU).
//!
//! - Transforms: complex to complex ([`Transform::C2c`], forward or inverse), real to complex
//!   ([`Transform::R2c`]) and complex to real ([`Transform::C2r`]); in `f32` and `f64`; 1-D, 2-D
//!   and 3-D ([`Shape`]), batched.
//! - Conventions, cuFFT's: forward `X[k] = sum_j x[j] exp(-2 pi i j k / n)`, inverse with `+`,
//!   neither normalised (a forward then inverse transform multiplies by the element count).
//!   Arrays are row-major, the last dimension contiguous. R2C keeps the `nx / 2 + 1` values
//!   `k = 0..=nx/2` of each row (the rest are their conjugates), so its output has
//!   `batch * ... * ny * (nx / 2 + 1)` elements; C2R takes that and returns the real array.
//! - Out of place ([`Plan::c2c`], [`Plan::r2c`], [`Plan::c2r`]) or in place
//!   ([`Plan::c2c_in_place`], and [`Plan::r2c_in_place`], [`Plan::c2r_in_place`] on cuFFT's padded
//!   real rows of `2 (nx / 2 + 1)` values); on the device's stream
//!   or on a [`Stream`] (the `*_on` methods).
//! - [`Engine::Rust`] needs powers of two (each at most 4096 for the outer dimensions of 2-D
//!   and 3-D arrays, and at most 2^24 for the innermost); cuFFT takes any size. A size a plan
//!   cannot take is an `Error::InvalidArgument` naming it.
//!
//! Accuracy (Rust engine): the relative L2 error against an `f64` reference stays within a
//! small multiple of `log2(n)` times the precision's epsilon (`host/ferrocuda/tests/fft.rs` checks `2 log2(n)
//! eps` over sizes 2 to 2^18, batches and both directions); twiddles are tabulated on the host
//! (see `twiddle`), each within about 1 ulp.
//!
//! ```
//! use ferrocuda::fft::{Complex, Direction, Engine, Plan};
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let n = 64;
//! // One cosine period: the forward transform puts n / 2 at k = 1 and k = n - 1.
//! let x: Vec<Complex<f32>> = (0..n)
//!     .map(|j| Complex::new((2.0 * std::f32::consts::PI * j as f32 / n as f32).cos(), 0.0))
//!     .collect();
//! let x_d = gpu.upload(&x)?;
//! let mut y_d = gpu.zeros::<Complex<f32>>(n)?;
//! let mut plan = Plan::<f32>::c2c_1d(&gpu, n, 1, Engine::Auto)?;
//! plan.c2c(&gpu, &x_d, &mut y_d, Direction::Forward)?;
//! let y = gpu.download(&y_d)?;
//! assert!((y[1].re - 32.0).abs() < 1e-4 && (y[n - 1].re - 32.0).abs() < 1e-4);
//! assert!(y[2].re.abs() < 1e-4);
//! // Unnormalised: the inverse gives back n x.
//! plan.c2c_in_place(&gpu, &mut y_d, Direction::Inverse)?;
//! assert!((gpu.download(&y_d)?[0].re - 64.0).abs() < 1e-3);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
pub mod cpu;
pub mod rust;
pub mod twiddle;

use crate::gpu::{Cufft, CufftFloat, CufftKind, DeviceBuffer, Element, Error, Gpu, Result, Stream};
pub use ferrocuda_device::complex::{Complex, ComplexScalar};
use rust::RustPlan;
use std::str::FromStr;

/// The wavenumber of each output index of a transform of `n`, in cuFFT's (and the book's)
/// order: `0, 1, ..., n/2 - 1`, then `-n/2, ..., -1` (for odd `n`, `0..=(n-1)/2` then the
/// negatives), as spectral derivatives and Poisson solvers need them.
///
/// ```
/// assert_eq!(ferrocuda::fft::wavenumbers(8), [0, 1, 2, 3, -4, -3, -2, -1]);
/// assert_eq!(ferrocuda::fft::wavenumbers(5), [0, 1, 2, -2, -1]);
/// ```
pub fn wavenumbers(n: usize) -> Vec<i64> {
    let n = n as i64;
    (0..n).map(|i| if i < (n + 1) / 2 { i } else { i - n }).collect()
}

/// The sign of the exponent: forward `-`, inverse `+`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Inverse,
}

/// What a plan transforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// Complex to complex, either direction.
    C2c,
    /// Real to complex (forward).
    R2c,
    /// Complex to real (inverse).
    C2r,
}

/// Who computes the transforms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// cuFFT when on a GPU and `libcufft` loads, the Rust kernels otherwise.
    #[default]
    Auto,
    /// This library's kernels (`gpu_kernels::fft`), on a GPU or the simulator.
    Rust,
    /// cuFFT (loaded at run time); an error on the simulator.
    Cufft,
}

impl FromStr for Engine {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" | "" => Ok(Self::Auto),
            "rust" => Ok(Self::Rust),
            "cufft" => Ok(Self::Cufft),
            other => Err(Error::InvalidArgument(format!(
                "the FFT engine is auto, rust or cufft, not `{other}`"
            ))),
        }
    }
}

/// The dimensions of one array (1 to 3, outermost first, the last contiguous) and how many
/// arrays a plan transforms at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    dims: [usize; 3],
    rank: usize,
    batch: usize,
}

impl Shape {
    /// `batch` arrays of `dims` (`[nx]`, `[ny, nx]` or `[nz, ny, nx]`).
    pub fn new(dims: &[usize], batch: usize) -> Result<Self> {
        if dims.is_empty() || dims.len() > 3 {
            return Err(Error::InvalidArgument(format!(
                "an FFT has 1, 2 or 3 dimensions, not {}",
                dims.len()
            )));
        }
        if dims.contains(&0) || batch == 0 {
            return Err(Error::InvalidArgument(format!(
                "an FFT of dimensions {dims:?} and batch {batch} has no element: every size must be at least 1"
            )));
        }
        let total = dims.iter().try_fold(batch, |acc, &d| acc.checked_mul(d));
        if total.and_then(|t| t.checked_mul(16)).is_none() {
            return Err(Error::InvalidArgument(format!(
                "an FFT of dimensions {dims:?} and batch {batch} does not fit in memory"
            )));
        }
        let mut all = [1; 3];
        all[..dims.len()].copy_from_slice(dims);
        Ok(Self {
            dims: all,
            rank: dims.len(),
            batch,
        })
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// Arrays per execution.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// The innermost (contiguous) dimension.
    pub fn nx(&self) -> usize {
        self.dims[self.rank - 1]
    }

    /// Rows of `nx` in all: the batch times every dimension but the innermost.
    pub fn rows(&self) -> usize {
        self.batch * self.dims()[..self.rank - 1].iter().product::<usize>()
    }

    /// Elements of the complex arrays of a C2C plan (and of the real arrays of R2C and C2R).
    pub fn complex_len(&self) -> usize {
        self.rows() * self.nx()
    }

    /// Elements of the real arrays of an R2C or C2R plan.
    pub fn real_len(&self) -> usize {
        self.complex_len()
    }

    /// Elements of the half spectrum of an R2C or C2R plan: `nx / 2 + 1` per row.
    pub fn half_spectrum_len(&self) -> usize {
        self.rows() * (self.nx() / 2 + 1)
    }

    /// Elements of the padded real arrays of the in-place R2C and C2R: `2 (nx / 2 + 1)` per row
    /// (cuFFT's in-place layout: the complex output fits where the real input was).
    pub fn padded_real_len(&self) -> usize {
        2 * self.half_spectrum_len()
    }

    /// The same shape with the innermost dimension `nx` (unchecked: for the half spectrum).
    pub(crate) fn with_nx(&self, nx: usize) -> Self {
        let mut shape = *self;
        shape.dims[self.rank - 1] = nx;
        shape
    }
}

/// `f32` or `f64`: a precision both engines transform.
///
/// `Complex<T>` is then a device-buffer element too (`T` is plain data, so is the pair).
pub trait FftFloat: ComplexScalar + CufftFloat + Element + rust::LaunchFft {}
impl FftFloat for f32 {}
impl FftFloat for f64 {}

enum Backend<T: FftFloat> {
    Rust(RustPlan<T>),
    Cufft(Cufft),
}

/// A transform of one [`Shape`], ready to run many times: its kernels' launch shapes, twiddle
/// tables and scratch memory (Rust engine) or its cuFFT plan.
pub struct Plan<T: FftFloat> {
    shape: Shape,
    transform: Transform,
    backend: Backend<T>,
}

impl<T: FftFloat> Plan<T> {
    /// A plan of `transform` for `shape` on `gpu`, run by `engine`.
    pub fn new(gpu: &Gpu, shape: Shape, transform: Transform, engine: Engine) -> Result<Self> {
        if transform != Transform::C2c && shape.nx() < 2 {
            return Err(Error::InvalidArgument(format!(
                "a real FFT needs rows of at least 2 values, not {}",
                shape.nx()
            )));
        }
        let use_cufft = match engine {
            Engine::Rust => false,
            Engine::Cufft => true,
            Engine::Auto => !gpu.is_simulator() && Cufft::available(),
        };
        let backend = if use_cufft {
            let kind = match transform {
                Transform::C2c => CufftKind::C2c,
                Transform::R2c => CufftKind::R2c,
                Transform::C2r => CufftKind::C2r,
            };
            Backend::Cufft(Cufft::new(gpu, shape.dims(), shape.batch(), kind, T::DOUBLE)?)
        } else {
            Backend::Rust(RustPlan::new(gpu, &shape, transform)?)
        };
        Ok(Self {
            shape,
            transform,
            backend,
        })
    }

    /// `batch` complex transforms of `n`.
    pub fn c2c_1d(gpu: &Gpu, n: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[n], batch)?, Transform::C2c, engine)
    }

    /// `batch` complex transforms of `ny x nx` arrays.
    pub fn c2c_2d(gpu: &Gpu, ny: usize, nx: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[ny, nx], batch)?, Transform::C2c, engine)
    }

    /// `batch` complex transforms of `nz x ny x nx` arrays.
    pub fn c2c_3d(gpu: &Gpu, nz: usize, ny: usize, nx: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[nz, ny, nx], batch)?, Transform::C2c, engine)
    }

    /// `batch` real-to-complex transforms of `n` (`n / 2 + 1` values out per row).
    pub fn r2c_1d(gpu: &Gpu, n: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[n], batch)?, Transform::R2c, engine)
    }

    /// `batch` complex-to-real transforms of `n` (`n / 2 + 1` values in per row).
    pub fn c2r_1d(gpu: &Gpu, n: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[n], batch)?, Transform::C2r, engine)
    }

    /// `batch` real-to-complex transforms of `ny x nx` arrays (`ny x (nx / 2 + 1)` out).
    pub fn r2c_2d(gpu: &Gpu, ny: usize, nx: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[ny, nx], batch)?, Transform::R2c, engine)
    }

    /// `batch` complex-to-real transforms of `ny x nx` arrays (`ny x (nx / 2 + 1)` in).
    pub fn c2r_2d(gpu: &Gpu, ny: usize, nx: usize, batch: usize, engine: Engine) -> Result<Self> {
        Self::new(gpu, Shape::new(&[ny, nx], batch)?, Transform::C2r, engine)
    }

    /// The shape it transforms.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The transform it computes.
    pub fn transform(&self) -> Transform {
        self.transform
    }

    /// The engine that runs it: [`Engine::Rust`] or [`Engine::Cufft`] (never `Auto`).
    pub fn engine(&self) -> Engine {
        match self.backend {
            Backend::Rust(_) => Engine::Rust,
            Backend::Cufft(_) => Engine::Cufft,
        }
    }

    /// The Rust engine's kernel launches per execution (each one pass through global memory);
    /// `None` for cuFFT, which does not say.
    pub fn launches(&self) -> Option<usize> {
        match &self.backend {
            Backend::Rust(plan) => Some(plan.launches()),
            Backend::Cufft(_) => None,
        }
    }

    fn expect(&self, transform: Transform, lens: &[(&str, usize, usize)]) -> Result<()> {
        if self.transform != transform {
            return Err(Error::InvalidArgument(format!(
                "this FFT plan computes {:?}, not {transform:?}",
                self.transform
            )));
        }
        for &(what, got, want) in lens {
            if got != want {
                return Err(Error::InvalidArgument(format!(
                    "the {what} of this FFT plan ({:?} x {}) has {want} elements, not {got}",
                    self.shape.dims(),
                    self.shape.batch()
                )));
            }
        }
        Ok(())
    }

    /// Complex to complex, `input` to `output` (distinct buffers), on the device's stream.
    pub fn c2c(
        &mut self,
        gpu: &Gpu,
        input: &DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<Complex<T>>,
        direction: Direction,
    ) -> Result<()> {
        self.c2c_stream(gpu, None, input, output, direction)
    }

    /// [`Plan::c2c`] on `stream`.
    ///
    /// As with cuFFT's `cufftSetStream`, executions of one plan on several streams share its
    /// scratch memory (the Rust engine uses it for rows over 4096 and for multi-dimensional
    /// C2R; cuFFT for its work area): to run transforms that need it concurrently, give each
    /// stream its own plan.
    pub fn c2c_on(
        &mut self,
        gpu: &Gpu,
        stream: &Stream,
        input: &DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<Complex<T>>,
        direction: Direction,
    ) -> Result<()> {
        self.c2c_stream(gpu, Some(stream), input, output, direction)
    }

    fn c2c_stream(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        input: &DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<Complex<T>>,
        direction: Direction,
    ) -> Result<()> {
        let len = self.shape.complex_len();
        self.expect(
            Transform::C2c,
            &[("input", input.len(), len), ("output", output.len(), len)],
        )?;
        let inverse = direction == Direction::Inverse;
        match &mut self.backend {
            Backend::Rust(plan) => plan.execute(gpu, stream, rust::Io::complex(input, output), inverse, false),
            Backend::Cufft(plan) => plan.c2c(gpu, stream, Some(input), output, inverse),
        }
    }

    /// Complex to complex in place, on the device's stream.
    pub fn c2c_in_place(&mut self, gpu: &Gpu, data: &mut DeviceBuffer<Complex<T>>, direction: Direction) -> Result<()> {
        self.c2c_in_place_stream(gpu, None, data, direction)
    }

    /// [`Plan::c2c_in_place`] on `stream`.
    pub fn c2c_in_place_on(
        &mut self,
        gpu: &Gpu,
        stream: &Stream,
        data: &mut DeviceBuffer<Complex<T>>,
        direction: Direction,
    ) -> Result<()> {
        self.c2c_in_place_stream(gpu, Some(stream), data, direction)
    }

    fn c2c_in_place_stream(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        data: &mut DeviceBuffer<Complex<T>>,
        direction: Direction,
    ) -> Result<()> {
        self.expect(Transform::C2c, &[("data", data.len(), self.shape.complex_len())])?;
        let inverse = direction == Direction::Inverse;
        match &mut self.backend {
            Backend::Rust(plan) => plan.execute(gpu, stream, rust::Io::in_place(data), inverse, false),
            Backend::Cufft(plan) => plan.c2c(gpu, stream, None, data, inverse),
        }
    }

    /// Real to complex, on the device's stream: `output` receives `nx / 2 + 1` values per row.
    pub fn r2c(&mut self, gpu: &Gpu, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<Complex<T>>) -> Result<()> {
        self.r2c_stream(gpu, None, input, output)
    }

    /// [`Plan::r2c`] on `stream`.
    pub fn r2c_on(
        &mut self,
        gpu: &Gpu,
        stream: &Stream,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<Complex<T>>,
    ) -> Result<()> {
        self.r2c_stream(gpu, Some(stream), input, output)
    }

    fn r2c_stream(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<Complex<T>>,
    ) -> Result<()> {
        self.expect(
            Transform::R2c,
            &[
                ("real input", input.len(), self.shape.real_len()),
                ("complex output", output.len(), self.shape.half_spectrum_len()),
            ],
        )?;
        match &mut self.backend {
            Backend::Rust(plan) => plan.execute(gpu, stream, rust::Io::real_in(input, output), false, false),
            Backend::Cufft(plan) => plan.r2c(gpu, stream, input, output),
        }
    }

    /// Complex to real, on the device's stream. As with cuFFT, `input` may be overwritten (the
    /// Rust engine leaves it as it was, cuFFT's multi-dimensional C2R does not).
    pub fn c2r(&mut self, gpu: &Gpu, input: &mut DeviceBuffer<Complex<T>>, output: &mut DeviceBuffer<T>) -> Result<()> {
        self.c2r_stream(gpu, None, input, output)
    }

    /// [`Plan::c2r`] on `stream`.
    pub fn c2r_on(
        &mut self,
        gpu: &Gpu,
        stream: &Stream,
        input: &mut DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.c2r_stream(gpu, Some(stream), input, output)
    }

    fn c2r_stream(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        input: &mut DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.expect(
            Transform::C2r,
            &[
                ("complex input", input.len(), self.shape.half_spectrum_len()),
                ("real output", output.len(), self.shape.real_len()),
            ],
        )?;
        match &mut self.backend {
            // The plan's passes are inverse already.
            Backend::Rust(plan) => plan.execute(gpu, stream, rust::Io::real_out(input, output), false, false),
            Backend::Cufft(plan) => plan.c2r(gpu, stream, input, output),
        }
    }
    /// Real to complex in place on padded rows (see [`Shape::padded_real_len`]): row `g`'s `nx`
    /// reals start at `2 g (nx / 2 + 1)`, and its `nx / 2 + 1` complex results overwrite them.
    pub fn r2c_in_place(&mut self, gpu: &Gpu, data: &mut DeviceBuffer<T>) -> Result<()> {
        self.real_in_place(gpu, None, data, Transform::R2c)
    }

    /// [`Plan::r2c_in_place`] on `stream`.
    pub fn r2c_in_place_on(&mut self, gpu: &Gpu, stream: &Stream, data: &mut DeviceBuffer<T>) -> Result<()> {
        self.real_in_place(gpu, Some(stream), data, Transform::R2c)
    }

    /// Complex to real in place on padded rows: the `nx / 2 + 1` complex values of row `g`
    /// (from `2 g (nx / 2 + 1)` in reals) become its `nx` reals.
    pub fn c2r_in_place(&mut self, gpu: &Gpu, data: &mut DeviceBuffer<T>) -> Result<()> {
        self.real_in_place(gpu, None, data, Transform::C2r)
    }

    /// [`Plan::c2r_in_place`] on `stream`.
    pub fn c2r_in_place_on(&mut self, gpu: &Gpu, stream: &Stream, data: &mut DeviceBuffer<T>) -> Result<()> {
        self.real_in_place(gpu, Some(stream), data, Transform::C2r)
    }

    fn real_in_place(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        data: &mut DeviceBuffer<T>,
        transform: Transform,
    ) -> Result<()> {
        self.expect(
            transform,
            &[("padded real data", data.len(), self.shape.padded_real_len())],
        )?;
        match &mut self.backend {
            Backend::Rust(plan) => {
                plan.prepare_in_place(gpu)?;
                // The C2R passes are inverse already.
                plan.execute(gpu, stream, rust::Io::real_in_place(data), false, true)
            }
            Backend::Cufft(plan) => plan.real_in_place(gpu, stream, data, transform == Transform::R2c),
        }
    }
}
