//! Simulator against GPU for the FFT kernels (`gpu_kernels::fft`, through `ferrocuda::fft`'s
//! Rust engine): each kernel in each precision, on inputs that reach every code path (one block
//! per row, several rows per block, the four-step path, columns, the real passes).
use super::{Comparison, flatten};
use ferrocuda::fft::{Complex, Direction, Engine, FftFloat, Plan, Shape, Transform};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Tolerance;

/// `f32`: the GPU contracts the complex products' multiply-adds into FMAs, the simulator rounds
/// twice, so outputs differ by a few roundings per pass. Inputs are in [-1, 1], outputs at most
/// a few hundred (`sqrt(n)` typical): about `log2(n) eps |X|`, below 2e-4, against an error of
/// order `|X|` for a wrong index or twiddle.
const F32: Tolerance = Tolerance { abs: 1e-3, rel: 1e-5 };
/// `f64`: the same reasoning with `eps = 2^-52`.
const F64: Tolerance = Tolerance { abs: 1e-11, rel: 1e-13 };

/// Every FFT kernel, in `f32` and `f64`.
pub(super) fn rows(c: &mut Comparison) -> Result<()> {
    kernels::<f32>(c, F32)?;
    kernels::<f64>(c, F64)
}

/// Inputs in [-1, 1) that differ per element.
fn ramp<T: FftFloat>(count: usize) -> Vec<T> {
    (0..count)
        .map(|i| T::from_f64(((i * 7919 % 2003) as f64 / 1001.5) - 1.0))
        .collect()
}

/// The forward C2C of `batch` arrays of `dims`, as interleaved parts.
fn c2c<T: FftFloat>(gpu: &Gpu, dims: &[usize], batch: usize) -> Result<Vec<T>> {
    let shape = Shape::new(dims, batch)?;
    let parts = ramp::<T>(2 * shape.complex_len());
    let input: Vec<Complex<T>> = parts.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
    let input_d = gpu.upload(&input)?;
    let mut output_d = gpu.zeros::<Complex<T>>(input.len())?;
    Plan::<T>::new(gpu, shape, Transform::C2c, Engine::Rust)?.c2c(gpu, &input_d, &mut output_d, Direction::Forward)?;
    Ok(flatten(gpu.download(&output_d)?))
}

fn kernels<T: FftFloat + Into<f64>>(c: &mut Comparison, tolerance: Tolerance) -> Result<()> {
    let name = |what: &str| format!("{what}_{}", T::NAME);
    // Several rows per block (n = 64), one row per block (4096), and the four-step path (2^14).
    c.compare(&name("fft_rows (64 x 33)"), tolerance, |gpu| c2c::<T>(gpu, &[64], 33))?;
    c.compare(&name("fft_rows (4096 x 2)"), tolerance, |gpu| c2c::<T>(gpu, &[4096], 2))?;
    c.compare(&name("fft_rows four-step (16384)"), tolerance, |gpu| {
        c2c::<T>(gpu, &[1 << 14], 1)
    })?;
    c.compare(&name("fft_rows columns (128 x 32)"), tolerance, |gpu| {
        c2c::<T>(gpu, &[128, 32], 1)
    })?;
    c.compare(&name("r2c_post (256 x 3)"), tolerance, |gpu| {
        let shape = Shape::new(&[256], 3)?;
        let input_d = gpu.upload(&ramp::<T>(shape.real_len()))?;
        let mut output_d = gpu.zeros::<Complex<T>>(shape.half_spectrum_len())?;
        Plan::<T>::new(gpu, shape, Transform::R2c, Engine::Rust)?.r2c(gpu, &input_d, &mut output_d)?;
        Ok(flatten(gpu.download(&output_d)?))
    })?;
    c.compare(&name("c2r_pre (256 x 3)"), tolerance, |gpu| {
        let shape = Shape::new(&[256], 3)?;
        let parts = ramp::<T>(2 * shape.half_spectrum_len());
        let spectrum: Vec<Complex<T>> = parts.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
        let mut input_d = gpu.upload(&spectrum)?;
        let mut output_d = gpu.zeros::<T>(shape.real_len())?;
        Plan::<T>::new(gpu, shape, Transform::C2r, Engine::Rust)?.c2r(gpu, &mut input_d, &mut output_d)?;
        gpu.download(&output_d)
    })
}
