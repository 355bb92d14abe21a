//! The library GEMM (`ferrocuda::blas::gemm`) against cuBLAS (`cublasGemmEx`) in the same run:
//! BF16, FP16 and TF32 operands with f32 accumulation, and exact FP32 (the SIMT kernel against
//! cuBLAS's `CUBLAS_COMPUTE_32F`), at 4096^3 and 8192^3, `A` row-major and
//! `B` column-major (both K-major: neither engine copies an operand), `C` row-major, through the
//! same call with `Engine::Rust` and `Engine::Cublas`. Each sample times a batch of products
//! back to back (events around the batch), so the host's per-call work overlaps the GPU's. The
//! two results are compared: the largest difference relative to the largest |C|.
use super::Settings;
use crate::examples::course::matmul_inputs::random_matrix;
use ferrocuda::KernelView;
use ferrocuda::blas::{self, Engine, F32Math, GemmElement, Matrix, MatrixMut, Options};
use ferrocuda::device::half::{Bf16, F16};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::time_reps;

/// The sizes of the table.
pub const SIZES: [usize; 2] = [4096, 8192];
/// Products per timed sample.
const BATCH: usize = 4;

/// The SGEMM bench's uniform inputs in [-1, 1) (`random_matrix`), rounded to `T`.
fn values<T: GemmElement>(n: usize, seed: u64) -> Result<Vec<T>> {
    Ok(random_matrix(n, seed)?.into_iter().map(T::from_f32).collect())
}

/// Median ms of one product on `engine`, and its result.
fn time_engine<T: GemmElement>(
    gpu: &Gpu,
    settings: &Settings,
    options: Options,
    n: usize,
    (a_d, b_d): (&ferrocuda::DeviceBuffer<T>, &ferrocuda::DeviceBuffer<T>),
) -> Result<(f64, Vec<f32>)> {
    let mut c_d = gpu.zeros::<f32>(n * n)?;
    let product = |c_d: &mut ferrocuda::DeviceBuffer<f32>| {
        blas::gemm(
            gpu,
            options,
            1.0,
            Matrix::row_major(a_d.view(), n, n),
            Matrix::col_major(b_d.view(), n, n),
            0.0,
            MatrixMut::row_major(c_d.view_mut(), n, n),
        )
        .map(|_| ())
    };
    let stats = time_reps(gpu, settings.reps, || (0..BATCH).try_for_each(|_| product(&mut c_d)))?;
    Ok((stats.median_ms / BATCH as f64, gpu.download(&c_d)?))
}

/// One row: the Rust engine and cuBLAS on `n^3` of `T`, f32 in `f32_math`.
fn row<T: GemmElement>(gpu: &Gpu, settings: &Settings, name: &str, n: usize, f32_math: F32Math) -> Result<()> {
    let a_d = gpu.upload(&values::<T>(n * n, 1)?)?;
    let b_d = gpu.upload(&values::<T>(n * n, 2)?)?;
    let tflops = |ms: f64| 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e12;
    let engine = |engine| Options { engine, f32_math };
    let (rust_ms, rust_c) = time_engine(gpu, settings, engine(Engine::Rust), n, (&a_d, &b_d))?;
    match time_engine(gpu, settings, engine(Engine::Cublas), n, (&a_d, &b_d)) {
        Ok((cublas_ms, cublas_c)) => {
            let largest = cublas_c.iter().fold(0f32, |m, x| m.max(x.abs()));
            let diff = rust_c
                .iter()
                .zip(&cublas_c)
                .fold(0f32, |m, (r, c)| m.max((r - c).abs()));
            println!(
                "{:<24} {:>6} {:>10.3} {:>10.1} {:>10.3} {:>10.1} {:>10.3} {:>14.2e}",
                name,
                n,
                rust_ms,
                tflops(rust_ms),
                cublas_ms,
                tflops(cublas_ms),
                cublas_ms / rust_ms,
                diff / largest
            );
        }
        Err(e) => println!(
            "{:<24} {:>6} {:>10.3} {:>10.1}   (cuBLAS not measured: {e})",
            name,
            n,
            rust_ms,
            tflops(rust_ms)
        ),
    }
    Ok(())
}

/// The table.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    println!();
    println!(
        "{:<24} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>14}",
        "GEMM (f32 accumulate)", "m=n=k", "Rust ms", "TFLOP/s", "cuBLAS ms", "TFLOP/s", "/cuBLAS", "max diff/|C|"
    );
    for n in SIZES {
        row::<Bf16>(gpu, settings, "BF16 wgmma+TMA", n, F32Math::Tf32)?;
        row::<F16>(gpu, settings, "FP16 wgmma+TMA", n, F32Math::Tf32)?;
        row::<f32>(gpu, settings, "TF32 wgmma+TMA", n, F32Math::Tf32)?;
        row::<f32>(gpu, settings, "FP32 SIMT (exact)", n, F32Math::Fp32)?;
    }
    println!(
        "(median of {} samples of {BATCH} products each; the same blas::gemm call on both engines; cuBLAS's TF32 rounds its inputs, the Rust kernel truncates them)",
        settings.reps
    );
    Ok(())
}
