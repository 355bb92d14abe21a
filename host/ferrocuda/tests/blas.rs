//! GPU-vs-CPU tests of `ferrocuda::blas::gemm` and the bulk tensor copy under it: every layout
//! of A, B and C (with leading dimensions that force the packing copy), sizes at and across the
//! kernel's tile edges, alpha and beta, the three operand types (f32 on the tensor cores and
//! exact on the SIMT kernel), K = 0; operands are small
//! integers, so every product and sum is exact in f32 in any order and the Rust engine (on the
//! GPU and the simulator) must give the CPU's product bit for bit; cuBLAS agrees with both on
//! the GPU. Bad shapes are refused in a sentence.
use ferrocuda_testing as common;

use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::blas::{self, Engine, F32Math, GemmElement, HostMatrix, Layout, Matrix, MatrixMut, Options};
use ferrocuda::device::half::{Bf16, F16};
use ferrocuda::{Gpu, KernelView};

/// Small integers in -3..=3 as `T`, from `seed`.
fn small<T: GemmElement>(n: usize, seed: u64) -> Vec<T> {
    common::seeded_values(n, seed, 7)
        .into_iter()
        .map(|x| T::from_f32(x as f32 - 3.0))
        .collect()
}

/// One product `C = alpha A B + beta C` of `m x n x k`, each matrix in its layout with its
/// leading dimension padded by `pad`, on `engine` (f32 on the tensor cores as TF32), against the
/// CPU.
fn check<T: GemmElement>(
    gpu: &Gpu,
    engine: Engine,
    shape: (usize, usize, usize),
    layouts: [Layout; 3],
    pad: usize,
    factors: (f32, f32),
) -> TestResult {
    check_math::<T>(
        gpu,
        Options {
            engine,
            f32_math: F32Math::Tf32,
        },
        shape,
        layouts,
        pad,
        factors,
    )
}

/// [`check`] with the f32 math of `options`.
fn check_math<T: GemmElement>(
    gpu: &Gpu,
    options: Options,
    (m, n, k): (usize, usize, usize),
    layouts: [Layout; 3],
    pad: usize,
    (alpha, beta): (f32, f32),
) -> TestResult {
    let describe = format!(
        "{} {m}x{n}x{k} {layouts:?} pad {pad} alpha {alpha} beta {beta} {options:?}",
        std::any::type_name::<T>()
    );
    let dims = |(rows, cols): (usize, usize), layout: Layout| match layout {
        Layout::RowMajor => (cols + pad, rows),
        Layout::ColMajor => (rows + pad, cols),
    };
    let ((lda, outer_a), (ldb, outer_b), (ldc, outer_c)) = (
        dims((m, k), layouts[0]),
        dims((k, n), layouts[1]),
        dims((m, n), layouts[2]),
    );
    let a: Vec<T> = small(lda * outer_a.max(1), (m * 31 + k) as u64);
    let b: Vec<T> = small(ldb * outer_b.max(1), (n * 17 + k) as u64);
    let c0: Vec<f32> = small::<f32>(ldc * outer_c.max(1), 5);
    let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
    let mut c_d = gpu.upload(&c0).map_err(fail)?;
    let matrix = |view, (rows, cols), layout, ld| match layout {
        Layout::RowMajor => Matrix::row_major(view, rows, cols).with_ld(ld),
        Layout::ColMajor => Matrix::col_major(view, rows, cols).with_ld(ld),
    };
    let c_matrix = match layouts[2] {
        Layout::RowMajor => MatrixMut::row_major(c_d.view_mut(), m, n),
        Layout::ColMajor => MatrixMut::col_major(c_d.view_mut(), m, n),
    }
    .with_ld(ldc);
    blas::gemm(
        gpu,
        options,
        alpha,
        matrix(a_d.view(), (m, k), layouts[0], lda),
        matrix(b_d.view(), (k, n), layouts[1], ldb),
        beta,
        c_matrix,
    )
    .map_err(|e| format!("{describe}: {e}"))?;
    let got = gpu.download(&c_d).map_err(fail)?;
    let mut want = c0.clone();
    let host = |data, (rows, cols), layout, ld| HostMatrix {
        data,
        rows,
        cols,
        ld,
        layout,
    };
    blas::gemm_cpu(
        alpha,
        host(&a[..], (m, k), layouts[0], lda),
        host(&b[..], (k, n), layouts[1], ldb),
        beta,
        &mut want,
        (ldc, layouts[2]),
        options.f32_math == F32Math::Tf32,
    );
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        return Err(format!("{describe}: C element {i} is {}, expected {}", got[i], want[i]));
    }
    Ok(())
}

/// Every layout of A, B and C, BF16, across the tile edges (M 128, N 256, K 64), with padded
/// leading dimensions (rows not 16-byte aligned: the packing copy) and without.
fn gemm_bf16_every_layout(gpu: &Gpu) -> TestResult {
    use Layout::{ColMajor as C, RowMajor as R};
    for layouts in [[R, C, R], [R, R, R], [C, C, R], [C, R, C], [R, C, C], [C, C, C]] {
        for pad in [0, 3] {
            check::<Bf16>(gpu, Engine::Rust, (130, 260, 72), layouts, pad, (1.0, 0.0))?;
        }
    }
    Ok(())
}

/// Shapes at the edges: one element, a K of one, sizes just past a tile, K beyond the ring's
/// four stages; alpha and beta.
fn gemm_edges_alpha_beta(gpu: &Gpu) -> TestResult {
    use Layout::{ColMajor as C, RowMajor as R};
    for (shape, factors) in [
        ((1, 1, 1), (1.0, 0.0)),
        ((3, 5, 1), (2.0, -1.0)),
        ((129, 257, 65), (-0.5, 2.0)),
        ((64, 64, 64 * 5 + 8), (1.0, 1.0)),
    ] {
        check::<Bf16>(gpu, Engine::Rust, shape, [R, C, R], 0, factors)?;
    }
    // K = 0: C = beta C.
    check::<Bf16>(gpu, Engine::Rust, (7, 9, 0), [R, C, R], 0, (1.0, 3.0))?;
    check::<Bf16>(gpu, Engine::Rust, (7, 9, 0), [R, C, C], 0, (1.0, 0.0))
}

/// FP16 and TF32 (f32 operands), two layouts each.
fn gemm_f16_and_tf32(gpu: &Gpu) -> TestResult {
    use Layout::{ColMajor as C, RowMajor as R};
    for layouts in [[R, C, R], [C, R, C]] {
        check::<F16>(gpu, Engine::Rust, (100, 300, 80), layouts, 0, (1.0, 0.0))?;
        check::<f32>(gpu, Engine::Rust, (100, 300, 40), layouts, 1, (1.0, 0.5))?;
    }
    Ok(())
}

/// Exact FP32 on the SIMT kernel: every layout of C, padded leading dimensions (the kernel's
/// element-wise path) and whole aligned tiles (its 16-byte path), edges, alpha and beta.
fn gemm_fp32_exact(gpu: &Gpu) -> TestResult {
    use Layout::{ColMajor as C, RowMajor as R};
    let exact = Options {
        engine: Engine::Rust,
        f32_math: F32Math::Fp32,
    };
    for layouts in [[R, R, R], [C, C, C], [R, C, R], [C, R, C]] {
        check_math::<f32>(gpu, exact, (130, 260, 72), layouts, 3, (1.0, 0.0))?;
    }
    check_math::<f32>(gpu, exact, (256, 128, 16), [R, R, R], 0, (2.0, -1.0))?;
    check_math::<f32>(gpu, exact, (1, 1, 1), [R, R, R], 0, (1.0, 0.0))?;
    check_math::<f32>(gpu, exact, (129, 257, 65), [R, C, R], 0, (-0.5, 2.0))
}

/// cuBLAS gives the same products (on the GPU; the simulator refuses it in a sentence).
fn gemm_cublas_agrees(gpu: &Gpu) -> TestResult {
    use Layout::{ColMajor as C, RowMajor as R};
    if !blas::CUBLAS_BUILT || gpu.is_simulator() {
        let mut c_d = gpu.zeros::<f32>(4).map_err(fail)?;
        let a_d = gpu.upload(&[Bf16::from_f32(1.0); 4]).map_err(fail)?;
        let refused = blas::gemm(
            gpu,
            Options {
                engine: Engine::Cublas,
                ..Options::default()
            },
            1.0,
            Matrix::row_major(a_d.view(), 2, 2),
            Matrix::row_major(a_d.view(), 2, 2),
            0.0,
            MatrixMut::row_major(c_d.view_mut(), 2, 2),
        );
        return ensure(
            refused.as_ref().is_err_and(|e| e.to_string().contains("cuBLAS")),
            || format!("cuBLAS here was not refused in a sentence: {refused:?}"),
        );
    }
    for layouts in [[R, C, R], [C, R, C], [R, R, C]] {
        check::<Bf16>(gpu, Engine::Cublas, (300, 200, 100), layouts, 2, (1.0, 0.0))?;
        check::<F16>(gpu, Engine::Cublas, (300, 200, 100), layouts, 0, (2.0, 1.0))?;
        let exact = Options {
            engine: Engine::Cublas,
            f32_math: F32Math::Fp32,
        };
        check_math::<f32>(gpu, exact, (300, 200, 100), layouts, 1, (1.0, 0.5))?;
    }
    Ok(())
}

/// Shapes that do not agree, a matrix outside its view, a short leading dimension: each an
/// error in a sentence, C untouched.
fn gemm_refuses_bad_input(gpu: &Gpu) -> TestResult {
    let a_d = gpu.upload(&[Bf16::from_f32(1.0); 12]).map_err(fail)?;
    let mut c_d = gpu.upload(&[7.0f32; 12]).map_err(fail)?;
    let rust = Options {
        engine: Engine::Rust,
        f32_math: F32Math::Fp32,
    };
    let cases: Vec<(&str, ferrocuda::Result<Engine>)> = vec![
        (
            "inner dimensions",
            blas::gemm(
                gpu,
                rust,
                1.0,
                Matrix::row_major(a_d.view(), 3, 4),
                Matrix::row_major(a_d.view(), 3, 4),
                0.0,
                MatrixMut::row_major(c_d.view_mut(), 3, 4),
            ),
        ),
        (
            "elements",
            blas::gemm(
                gpu,
                rust,
                1.0,
                Matrix::row_major(a_d.view(), 4, 4),
                Matrix::row_major(a_d.view(), 4, 3),
                0.0,
                MatrixMut::row_major(c_d.view_mut(), 4, 3),
            ),
        ),
        (
            "leading dimension",
            blas::gemm(
                gpu,
                rust,
                1.0,
                Matrix::row_major(a_d.view(), 3, 4).with_ld(2),
                Matrix::row_major(a_d.view(), 4, 3),
                0.0,
                MatrixMut::row_major(c_d.view_mut(), 3, 3),
            ),
        ),
    ];
    for (word, result) in cases {
        ensure(result.as_ref().is_err_and(|e| e.to_string().contains(word)), || {
            format!("expected an error naming `{word}`, got {result:?}")
        })?;
    }
    let c = gpu.download(&c_d).map_err(fail)?;
    ensure(c.iter().all(|&x| x == 7.0), || {
        format!("a refused GEMM changed C: {c:?}")
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("gemm_bf16_every_layout", gemm_bf16_every_layout),
        ("gemm_edges_alpha_beta", gemm_edges_alpha_beta),
        ("gemm_f16_and_tf32", gemm_f16_and_tf32),
        ("gemm_fp32_exact", gemm_fp32_exact),
        ("gemm_cublas_agrees", gemm_cublas_agrees),
        ("gemm_refuses_bad_input", gemm_refuses_bad_input),
    ];
    common::main(vec![], gpu_tests)
}
