//! The library GEMM (`ferrocuda::blas::gemm`, the Rust engine: the wgmma + TMA kernel and the
//! packing copy) on both backends: small-integer operands, exact in every order (bit for bit),
//! for each operand type and two layouts; and values in [-1, 1), within the bound of f32
//! accumulation in another order (k * 2^-23 * sum |products| < 2e-4 here). The exact FP32
//! kernel (`sgemm`) bit for bit on both: its `fma.rn` are the simulator's.
use super::Comparison;
use ferrocuda::blas::{self, Engine, F32Math, GemmElement, Matrix, MatrixMut, Options};
use ferrocuda::device::half::{Bf16, F16};
use ferrocuda::gpu::{KernelView, Result};
use ferrocuda::verify::Tolerance;

/// `m x n x k` of the rows: across the kernel's 128 x 256 tile and 64-element K step.
const SHAPE: (usize, usize, usize) = (200, 300, 100);

/// One row: `C = A B` with `A` row-major and `B` column-major (`transposed_layouts`: `A`
/// column-major, `B` row-major, `C` column-major: both operands packed).
fn product<T: GemmElement>(
    c: &mut Comparison,
    name: &str,
    values: &[f32],
    transposed_layouts: bool,
    tolerance: Tolerance,
) -> Result<()> {
    product_math::<T>(c, name, values, transposed_layouts, tolerance, F32Math::Tf32)
}

/// [`product`] with the f32 math `f32_math`.
fn product_math<T: GemmElement>(
    c: &mut Comparison,
    name: &str,
    values: &[f32],
    transposed_layouts: bool,
    tolerance: Tolerance,
    f32_math: F32Math,
) -> Result<()> {
    let (m, n, k) = SHAPE;
    let a: Vec<T> = values[..m * k].iter().map(|&x| T::from_f32(x)).collect();
    let b: Vec<T> = values[m * k..m * k + k * n].iter().map(|&x| T::from_f32(x)).collect();
    c.compare(name, tolerance, |gpu| {
        let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&b)?);
        let mut c_d = gpu.zeros::<f32>(m * n)?;
        let (a_m, b_m, c_m) = if transposed_layouts {
            (
                Matrix::col_major(a_d.view(), m, k),
                Matrix::row_major(b_d.view(), k, n),
                MatrixMut::col_major(c_d.view_mut(), m, n),
            )
        } else {
            (
                Matrix::row_major(a_d.view(), m, k),
                Matrix::col_major(b_d.view(), k, n),
                MatrixMut::row_major(c_d.view_mut(), m, n),
            )
        };
        let options = Options {
            engine: Engine::Rust,
            f32_math,
        };
        blas::gemm(gpu, options, 1.0, a_m, b_m, 0.0, c_m)?;
        gpu.download(&c_d)
    })
}

/// The rows.
pub(super) fn rows(c: &mut Comparison) -> Result<()> {
    let (m, n, k) = SHAPE;
    let len = m * k + k * n;
    let integers: Vec<f32> = (0..len).map(|i| (i * 7919 % 7) as f32 - 3.0).collect();
    let uniform: Vec<f32> = (0..len)
        .map(|i| (i * 2_654_435_761 % 65_536) as f32 / 32_768.0 - 1.0)
        .collect();
    for transposed in [false, true] {
        let layout = if transposed { "cn" } else { "rn" };
        product::<Bf16>(
            c,
            &format!("gemm_bf16_{layout}_integers"),
            &integers,
            transposed,
            Tolerance::EXACT,
        )?;
        product::<F16>(
            c,
            &format!("gemm_f16_{layout}_integers"),
            &integers,
            transposed,
            Tolerance::EXACT,
        )?;
        product::<f32>(
            c,
            &format!("gemm_tf32_{layout}_integers"),
            &integers,
            transposed,
            Tolerance::EXACT,
        )?;
    }
    // The SIMT kernel's fmas round as the simulator's: bit for bit on any values.
    product_math::<f32>(c, "sgemm_rn_uniform", &uniform, false, Tolerance::EXACT, F32Math::Fp32)?;
    product_math::<f32>(c, "sgemm_cn_integers", &integers, true, Tolerance::EXACT, F32Math::Fp32)?;
    let bound = Tolerance { abs: 2e-4, rel: 1e-5 };
    product::<Bf16>(c, "gemm_bf16_rn_uniform", &uniform, false, bound)?;
    product::<f32>(c, "gemm_tf32_rn_uniform", &uniform, false, bound)
}
