//! The tensor cores from Rust (issue 17): the `mma.sync` fragments of the device library against
//! the CPU one tile at a time, the GEMM built on them (`course-matmul-tiled --precision
//! bf16|tf32`) against the CPU product of the rounded inputs, and cuBLAS's GEMM in the same
//! precision. On the simulator, `mma.sync` is the exactly rounded `a b + c`; on a GPU, the
//! accumulation's order and rounding are the hardware's, so tile results are compared within a
//! few ulps of the sum of |products|, and integer-valued tiles exactly.
mod common;

use book_kernels::course::matmul_tensor::{MmaTileArgs, MmaTileBf16, MmaTileTf32};
use book_kernels::course::matmul_tensor_pipelined::{FragmentProbe, FragmentProbeArgs, PROBE_SHARED_BYTES};
use common::{GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::device::mma::{bf16_pair, to_bf16, to_tf32};
use ferrocuda::gpu::{Cublas, LaunchShape};
use ferrocuda::{Gpu, KernelView};
use ferrocuda_book::defaults::Pick;
use ferrocuda_book::examples::course::matmul_inputs::random_matrix;
use ferrocuda_book::examples::course::matmul_tensor::{TensorKernel, TensorOperands, TensorPrecision};
use ferrocuda_book::reference::course::matmul_tiled as reference;

/// Each element of a CPU tile: the exact result and the sum of |terms| that bounds its rounding.
type ExactTile = Vec<(f64, f64)>;

/// `D = A B + C` for one 16 x 8 tile with `k` = 16 (BF16) or 8 (TF32) on `gpu`, from f32 `a`
/// (16 x k), `b` (k x 8) and `c` (16 x 8), row-major; returns `D` and the CPU's exact
/// result with the sum of |terms| of each element, from the inputs rounded as the GPU rounds them.
fn mma_tile(
    gpu: &Gpu,
    precision: TensorPrecision,
    a: &[f32],
    b: &[f32],
    c: &[f32],
) -> Result<(Vec<f32>, ExactTile), String> {
    let k = a.len() / 16;
    // Words of a row-major `rows x k` matrix given by `at(r, kk)`.
    let words = |rows: usize, at: &dyn Fn(usize, usize) -> f32| -> Vec<u32> {
        (0..rows)
            .flat_map(|r| match precision {
                TensorPrecision::Bf16 => (0..k / 2)
                    .map(|p| bf16_pair(to_bf16(at(r, 2 * p)), to_bf16(at(r, 2 * p + 1))))
                    .collect::<Vec<_>>(),
                // Raw f32 bits: the kernel rounds them (cvt.rna) as it loads its fragments.
                TensorPrecision::Tf32 => (0..k).map(|kk| at(r, kk).to_bits()).collect(),
            })
            .collect()
    };
    let a_words = words(16, &|r, kk| a[r * k + kk]);
    let bt_words = words(8, &|col, kk| b[kk * 8 + col]);
    let (a_d, bt_d, c_d) = (
        gpu.upload(&a_words).map_err(fail)?,
        gpu.upload(&bt_words).map_err(fail)?,
        gpu.upload(c).map_err(fail)?,
    );
    let mut d_d = gpu.zeros::<f32>(16 * 8).map_err(fail)?;
    let args = MmaTileArgs {
        a: a_d.view(),
        bt: bt_d.view(),
        c: c_d.view(),
        d: d_d.view_mut(),
    };
    let one_warp = LaunchShape::new((1, 1, 1), (32, 1, 1));
    let kernels = ferrocuda_book::kernels(gpu).map_err(fail)?;
    match precision {
        TensorPrecision::Bf16 => kernels.launch(MmaTileBf16, one_warp, args),
        TensorPrecision::Tf32 => kernels.launch(MmaTileTf32, one_warp, args),
    }
    .map_err(fail)?;
    let exact = (0..16 * 8)
        .map(|i| {
            let (r, col) = (i / 8, i % 8);
            (0..k).fold((c[i] as f64, c[i].abs() as f64), |(sum, size), kk| {
                let term = precision.round(a[r * k + kk]) as f64 * precision.round(b[kk * 8 + col]) as f64;
                (sum + term, size + term.abs())
            })
        })
        .collect();
    Ok((gpu.download(&d_d).map_err(fail)?, exact))
}

/// Every element within `ulps` units of 2^-23 of its sum of |terms| (exactly equal for 0).
fn within(what: &str, got: &[f32], exact: &[(f64, f64)], ulps: f64) -> TestResult {
    for (i, (&g, &(value, size))) in got.iter().zip(exact).enumerate() {
        let tolerance = ulps * f32::EPSILON as f64 * size;
        ensure((g as f64 - value).abs() <= tolerance, || {
            format!(
                "{what}: element ({}, {}) is {g}, the exact result {value} (tolerance {tolerance:e})",
                i / 8,
                i % 8
            )
        })?;
    }
    Ok(())
}

/// Random tiles: a few ulps of the magnitude (on the simulator, correctly rounded: half an ulp).
fn mma_tiles_match_cpu(gpu: &Gpu) -> TestResult {
    for (precision, k) in [(TensorPrecision::Bf16, 16), (TensorPrecision::Tf32, 8)] {
        for seed in 0..3u64 {
            let (mut a, b, c) = (
                random_matrix(16 * k, 10 + seed).map_err(fail)?,
                random_matrix(k * 8, 20 + seed).map_err(fail)?,
                random_matrix(16 * 8, 30 + seed).map_err(fail)?,
            );
            // TF32 ties (half a TF32 ulp exactly), which cvt.rna rounds away from zero.
            if precision == TensorPrecision::Tf32 {
                a[0] = f32::from_bits(0x3f80_1000);
                a[1] = f32::from_bits(0xbf80_3000);
            }
            let (got, exact) = mma_tile(gpu, precision, &a, &b, &c)?;
            let ulps = gpu.pick(4.0, 0.5);
            within(&format!("{precision:?} seed {seed}"), &got, &exact, ulps)?;
        }
    }
    Ok(())
}

/// Integer-valued tiles: every product and partial sum is exact, so the GPU must agree exactly,
/// and any misplaced fragment element shows.
fn mma_tiles_exact_on_integers(gpu: &Gpu) -> TestResult {
    for (precision, k) in [(TensorPrecision::Bf16, 16), (TensorPrecision::Tf32, 8)] {
        let int =
            |len: usize, s: usize| -> Vec<f32> { (0..len).map(|i| ((i * 7 + s * 13) % 9) as f32 - 4.0).collect() };
        let (a, b, c) = (int(16 * k, 1), int(k * 8, 2), int(16 * 8, 3));
        let (got, exact) = mma_tile(gpu, precision, &a, &b, &c)?;
        within(&format!("{precision:?} integers"), &got, &exact, 0.0)?;
    }
    Ok(())
}

/// The `ldmatrix` fragment loaders (after a `cp.async` copy) against the `mma` fragment layout
/// word by word: lane `4g + t` holds words (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of
/// `A`; of `B^T`'s rows `c0 .. c0 + 8`, words (c0 + g, t), (c0 + g, t + 4); TF32 ones rounded.
fn ldmatrix_fragments_match_layout(gpu: &Gpu) -> TestResult {
    // f32 bits of random values (so the TF32 rounding sees numbers), and two exact TF32 ties.
    let mut tile: Vec<u32> = random_matrix(16 * 8, 40)
        .map_err(fail)?
        .iter()
        .map(|x| x.to_bits())
        .collect();
    tile[3] = 0x3f80_1000;
    tile[8 * 9 + 5] = 0xbf80_3000;
    let tile_d = gpu.upload(&tile).map_err(fail)?;
    let mut out_d = gpu.zeros::<u32>(32 * 16).map_err(fail)?;
    let args = FragmentProbeArgs {
        tile: tile_d.view(),
        out: out_d.view_mut(),
    };
    let shape = LaunchShape::new((1, 1, 1), (32, 1, 1)).with_shared_bytes(PROBE_SHARED_BYTES as u32);
    ferrocuda_book::kernels(gpu)
        .map_err(fail)?
        .launch(FragmentProbe, shape, args)
        .map_err(fail)?;
    let out = gpu.download(&out_d).map_err(fail)?;
    let at = |row: usize, word: usize| tile[row * 8 + word];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let words = [
            at(g, t),
            at(g + 8, t),
            at(g, t + 4),
            at(g + 8, t + 4),
            at(g, t),
            at(g, t + 4),
            at(g + 8, t),
            at(g + 8, t + 4),
        ];
        let tf32 = words.map(|w| to_tf32(f32::from_bits(w)));
        let expected: Vec<u32> = words.into_iter().chain(tf32).collect();
        ensure(out[16 * lane..16 * lane + 16] == expected[..], || {
            format!(
                "lane {lane}: fragments {:08x?}, expected {expected:08x?}",
                &out[16 * lane..16 * lane + 16]
            )
        })?;
    }
    Ok(())
}

/// Both GEMMs on whole tiles and on sizes they pad, both precisions, against the CPU product of
/// the rounded inputs (the SGEMM path's accumulation bound).
fn tensor_gemm_matches_cpu(gpu: &Gpu) -> TestResult {
    for (kernel, precision) in TensorKernel::ALL
        .into_iter()
        .flat_map(|kernel| [(kernel, TensorPrecision::Bf16), (kernel, TensorPrecision::Tf32)])
    {
        // k = 17 or 33: one to three steps of `k`, fewer than the pipeline's stages; 160: 5 or 10, more.
        for dims @ (m, n, k) in [
            (128, 128, 32),
            (256, 384, 96),
            (70, 45, 33),
            (130, 1, 17),
            (128, 256, 160),
        ] {
            let (a, b) = (
                precision.rounded(random_matrix(m * k, 5).map_err(fail)?),
                precision.rounded(random_matrix(k * n, 6).map_err(fail)?),
            );
            let expected = reference::Expected::of(&a, &b, dims).map_err(fail)?;
            let mut ops = TensorOperands::new(gpu, precision, dims, &a, &b).map_err(fail)?;
            ops.launch(gpu, kernel).map_err(fail)?;
            let check = expected
                .check("c", &ops.product(gpu, dims).map_err(fail)?, k)
                .map_err(fail)?;
            ensure(check.passed(), || {
                format!("{} {m} x {n} x {k}: {check}", kernel.name(precision))
            })?;
        }
    }
    Ok(())
}

/// The program with each tensor precision, and an unknown precision refused in one sentence.
fn tensor_gemm_program(gpu: &Gpu) -> TestResult {
    for precision in ["bf16", "tf32"] {
        passes_with(
            gpu,
            "course-matmul-tiled",
            &["--m", "140", "--n", "70", "--k", "40", "--precision", precision],
        )?;
    }
    match crate::common::run_args(gpu, "course-matmul-tiled", &["--precision", "fp8"]) {
        Err(e) => ensure(e.to_string().contains("possible values: f32, bf16, tf32"), || {
            format!("refused as: {e}")
        }),
        Ok(_) => Err("--precision fp8 was accepted".into()),
    }
}

/// cuBLAS's GEMM in each precision, through the same operands, against the CPU.
fn cublas_gemm_matches_cpu(gpu: &Gpu) -> TestResult {
    let mut cublas = Cublas::new(gpu.cuda("cuBLAS").map_err(fail)?).map_err(fail)?;
    for precision in [TensorPrecision::Bf16, TensorPrecision::Tf32] {
        let dims @ (m, n, k) = (256, 128, 64);
        let (a, b) = (
            precision.rounded(random_matrix(m * k, 7).map_err(fail)?),
            precision.rounded(random_matrix(k * n, 8).map_err(fail)?),
        );
        let expected = reference::Expected::of(&a, &b, dims).map_err(fail)?;
        let mut ops = TensorOperands::new(gpu, precision, dims, &a, &b).map_err(fail)?;
        ops.cublas(&mut cublas).map_err(fail)?;
        let check = expected
            .check("c", &ops.product(gpu, dims).map_err(fail)?, k)
            .map_err(fail)?;
        ensure(check.passed(), || format!("cuBLAS {precision:?}: {check}"))?;
    }
    Ok(())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("mma_tiles_match_cpu", mma_tiles_match_cpu),
        ("mma_tiles_exact_on_integers", mma_tiles_exact_on_integers),
        ("ldmatrix_fragments_match_layout", ldmatrix_fragments_match_layout),
        ("tensor_gemm_matches_cpu", tensor_gemm_matches_cpu),
        ("tensor_gemm_program", tensor_gemm_program),
    ];
    let cuda_tests: Vec<GpuTest> = vec![("cublas_gemm_matches_cpu", cublas_gemm_matches_cpu)];
    common::main_with_cuda_only(vec![], gpu_tests, cuda_tests)
}
