//! course-matmul-tiled: SGEMM `C = A B` (IT4I course, hands-on 6, and the tiling lecture):
//! naive, shared-memory tiled (`TILE_WIDTH` 16, and the lecture's 32), register-tiled (128 x 128
//! block tiles, 8 x 8 per thread, 16-byte loads, double-buffered shared tiles; its `k` loop rolled
//! or spelled out), and cuBLAS's SGEMM in the same run.
//!
//! Prints the course's "Matrix multiplication naive seems OK" lines, each variant's time, GFLOP/s
//! and fraction of cuBLAS, and the tiled kernels' speedups. The default is, as hands-on 6, a
//! product of non-square matrices: the course gives no sizes, so ours are 4100 x 3000 x 2500 on
//! a GPU (no dimension a multiple of 32 or 128, so every kernel's zero-fill runs) and
//! 200 x 136 x 72 on the simulator; `--size N` sets m = n = k = N (the square 4096^3 of the
//! benchmarks), `--m`, `--n`, `--k` each dimension.
//!
//! `--precision bf16|tf32` runs the tensor-core GEMM instead (`matmul_tensor`).
//!
//! cuBLAS runs in its default math mode, `CUBLAS_DEFAULT_MATH`: FP32 SGEMM on the SIMT cores,
//! no tensor cores (those need `CUBLAS_TF32_TENSOR_OP_MATH`, and round the inputs to TF32).
pub use super::matmul_inputs::{Dims, gflop_per_s, random_matrix};
use super::matmul_inputs::{cublas_if_any, print_table};
use super::matmul_tensor::TensorPrecision;
use crate::cli::positive;
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::course::matmul_tiled as reference;
use book_kernels::course::matmul_tiled::{
    BM, BN, MatmulArgs, MatmulNaive, MatmulRegisterTiled, MatmulRegisterTiledUnrolled, MatmulTiled, MatmulTiled32,
    REGISTER_TILED_SHARED_BYTES, REGISTER_TILED_THREADS, TILE_WIDTH, TILE_WIDTH_32, TILED_32_SHARED_BYTES,
    TILED_SHARED_BYTES,
};
use ferrocuda::footprint::{self, Footprint, try_vec};
use ferrocuda::gpu::{Cublas, DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{Stats, time_reps};
use ferrocuda::verify::Check;

/// course-matmul-tiled.
pub struct CourseMatmulTiled;

/// The product's dimensions and precision.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseMatmulTiledOptions {
    /// rows of A and C [default: --size]
    #[arg(long, value_name = "M", value_parser = positive)]
    pub m: Option<usize>,
    /// columns of B and C [default: --size]
    #[arg(long, value_name = "N", value_parser = positive)]
    pub n: Option<usize>,
    /// columns of A, rows of B [default: --size]
    #[arg(long, value_name = "K", value_parser = positive)]
    pub k: Option<usize>,
    /// f32 (the SGEMM kernels against cuBLAS's SGEMM), or bf16 or tf32 (the tensor-core mma.sync GEMM against cuBLAS's GEMM in the same precision)
    #[arg(long, value_name = "P", value_enum, default_value_t = MatmulPrecision::F32, hide_possible_values = true)]
    pub precision: MatmulPrecision,
}

/// `--precision`: the SGEMM path (f32) or a tensor-core one.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatmulPrecision {
    #[value(alias = "single")]
    F32,
    Bf16,
    Tf32,
}

/// The benchmarks' square size, m = n = k (`--size 4096`).
pub const SIZE: usize = 4096;
/// The GPU default `(m, n, k)`: hands-on 6 multiplies non-square matrices but gives no sizes;
/// ours are large enough for the timings to mean something, and no dimension is a multiple of
/// 32 or 128, so every kernel's boundary zero-fill runs.
pub const COURSE_DIMS: (usize, usize, usize) = (4100, 3000, 2500);
/// The simulator default: non-square, no dimension a multiple of 16 or 128.
pub const SIMULATOR_DIMS: (usize, usize, usize) = (200, 136, 72);

/// The variants, slowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Naive,
    /// `TILE_WIDTH` 16, the course's.
    Tiled,
    /// `TILE_WIDTH` 32, the lecture's other case.
    Tiled32,
    RegisterTiled,
    RegisterTiledUnrolled,
    Cublas,
}

impl Variant {
    pub const ALL: [Variant; 6] = [
        Variant::Naive,
        Variant::Tiled,
        Variant::Tiled32,
        Variant::RegisterTiled,
        Variant::RegisterTiledUnrolled,
        Variant::Cublas,
    ];
    /// This library's kernels (the simulator runs only these).
    pub const KERNELS: [Variant; 5] = [
        Variant::Naive,
        Variant::Tiled,
        Variant::Tiled32,
        Variant::RegisterTiled,
        Variant::RegisterTiledUnrolled,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Tiled => "tiled",
            Variant::Tiled32 => "tiled, TILE_WIDTH 32",
            Variant::RegisterTiled => "register-tiled",
            Variant::RegisterTiledUnrolled => "register-tiled, k unrolled",
            Variant::Cublas => "cuBLAS",
        }
    }

    /// The PTX symbol, or cuBLAS's routine.
    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Naive => "matmul_naive",
            Variant::Tiled => "matmul_tiled",
            Variant::Tiled32 => "matmul_tiled_32",
            Variant::RegisterTiled => "matmul_register_tiled",
            Variant::RegisterTiledUnrolled => "matmul_register_tiled_unrolled",
            Variant::Cublas => "cublasSgemm",
        }
    }

    /// The launch shape of one of this library's kernels for `dims`.
    pub fn shape(self, (m, n, _): Dims) -> Result<LaunchShape> {
        match self {
            Variant::Naive => LaunchShape::cover_2d(n, m, (16, 16)),
            Variant::Tiled => Ok(LaunchShape::cover_2d(n, m, (TILE_WIDTH as u32, TILE_WIDTH as u32))?
                .with_shared_bytes(TILED_SHARED_BYTES as u32)),
            Variant::Tiled32 => Ok(
                LaunchShape::cover_2d(n, m, (TILE_WIDTH_32 as u32, TILE_WIDTH_32 as u32))?
                    .with_shared_bytes(TILED_32_SHARED_BYTES as u32),
            ),
            Variant::RegisterTiled | Variant::RegisterTiledUnrolled => {
                let blocks = |x: usize, tile: usize| {
                    u32::try_from(x.div_ceil(tile).max(1))
                        .map_err(|_| Error::InvalidArgument(format!("{x} rows or columns need too many blocks")))
                };
                Ok(
                    LaunchShape::new((blocks(n, BN)?, blocks(m, BM)?, 1), (REGISTER_TILED_THREADS, 1, 1))
                        .with_shared_bytes(REGISTER_TILED_SHARED_BYTES as u32),
                )
            }
            Variant::Cublas => Err(Error::InvalidArgument("cuBLAS chooses its own launch shape".into())),
        }
    }
}

/// Device copies of the operands and the product.
pub struct Operands {
    pub dims: Dims,
    pub a_d: DeviceBuffer<f32>,
    pub b_d: DeviceBuffer<f32>,
    pub c_d: DeviceBuffer<f32>,
}

impl Operands {
    /// Uploads `a` (`m x k`) and `b` (`k x n`), row-major, and allocates `C`.
    pub fn new(gpu: &Gpu, dims: Dims, a: &[f32], b: &[f32]) -> Result<Self> {
        let (m, n, k) = dims;
        let (a_len, b_len, c_len) = (m.checked_mul(k), k.checked_mul(n), m.checked_mul(n));
        if a_len != Some(a.len()) || b_len != Some(b.len()) || c_len.is_none() {
            return Err(Error::InvalidArgument(format!(
                "a {m} x {k} times {k} x {n} product needs m * k and k * n elements, not {} and {}",
                a.len(),
                b.len()
            )));
        }
        let dim32 = |x: usize| u32::try_from(x).is_ok();
        if !(dim32(m) && dim32(n) && dim32(k)) {
            return Err(Error::InvalidArgument(format!(
                "dimensions {m} x {n} x {k} exceed 2^32"
            )));
        }
        Ok(Self {
            dims,
            a_d: gpu.upload(a)?,
            b_d: gpu.upload(b)?,
            c_d: gpu.zeros(m * n)?,
        })
    }

    /// Runs one of this library's kernels.
    pub fn launch(&mut self, gpu: &Gpu, variant: Variant) -> Result<()> {
        let (m, n, k) = self.dims;
        let shape = variant.shape(self.dims)?;
        let args = MatmulArgs {
            a: self.a_d.view(),
            b: self.b_d.view(),
            c: self.c_d.view_mut(),
            m: m as u32,
            n: n as u32,
            k: k as u32,
        };
        match variant {
            Variant::Naive => crate::kernels(gpu)?.launch(MatmulNaive, shape, args),
            Variant::Tiled => crate::kernels(gpu)?.launch(MatmulTiled, shape, args),
            Variant::Tiled32 => crate::kernels(gpu)?.launch(MatmulTiled32, shape, args),
            Variant::RegisterTiled => crate::kernels(gpu)?.launch(MatmulRegisterTiled, shape, args),
            Variant::RegisterTiledUnrolled => crate::kernels(gpu)?.launch(MatmulRegisterTiledUnrolled, shape, args),
            Variant::Cublas => Err(Error::InvalidArgument("cuBLAS runs through `Operands::cublas`".into())),
        }
    }

    /// Runs cuBLAS's SGEMM on the same operands.
    pub fn cublas(&mut self, cublas: &mut Cublas) -> Result<()> {
        cublas.sgemm_row_major(self.dims, &self.a_d, &self.b_d, &mut self.c_d)
    }
}

/// One variant's timing.
#[derive(Clone, Debug)]
pub struct Measured {
    pub variant: Variant,
    pub stats: Stats,
    /// `None` for cuBLAS.
    pub shape: Option<LaunchShape>,
}

/// Times every variant `reps` times on `ops` (cuBLAS when `cublas` is given), checking each
/// product against `expected` (the CPU's product or Freivalds' check: see
/// `reference::course::matmul_tiled`).
pub fn measure(
    gpu: &Gpu,
    ops: &mut Operands,
    mut cublas: Option<&mut Cublas>,
    reps: usize,
    expected: Option<&reference::Expected>,
) -> Result<(Vec<Measured>, Vec<Check>)> {
    let (mut rows, mut checks) = (Vec::new(), Vec::new());
    for variant in Variant::ALL {
        let n_out = ops.c_d.len();
        gpu.upload_into(&try_vec(n_out, f32::NAN)?, &mut ops.c_d)?;
        let stats = match (variant, cublas.as_deref_mut()) {
            (Variant::Cublas, None) => continue,
            (Variant::Cublas, Some(cublas)) => time_reps(gpu, reps, || ops.cublas(cublas))?,
            (kernel, _) => time_reps(gpu, reps, || ops.launch(gpu, kernel))?,
        };
        if let Some(expected) = expected {
            let got = gpu.download(&ops.c_d)?;
            checks.push(expected.check(variant.kernel(), &got, ops.dims.2)?);
        }
        let shape = (variant != Variant::Cublas)
            .then(|| variant.shape(ops.dims))
            .transpose()?;
        rows.push(Measured { variant, stats, shape });
    }
    Ok((rows, checks))
}

/// `(m, n, k)` from `--size`, `--m`, `--n`, `--k`, or the non-square default.
fn dims(gpu: &Gpu, run: &Run<CourseMatmulTiledOptions>) -> Dims {
    let (m, n, k) = match run.size_given {
        true => (run.size, run.size, run.size),
        false => gpu.pick(COURSE_DIMS, SIMULATOR_DIMS),
    };
    let args = &run.args;
    (args.m.unwrap_or(m), args.n.unwrap_or(n), args.k.unwrap_or(k))
}

impl Example for CourseMatmulTiled {
    const ID: &'static str = "course-matmul-tiled";
    const DESCRIPTION: &'static str = "SGEMM of non-square matrices: naive, shared-memory tiled (TILE_WIDTH 16 and 32), register-tiled, and cuBLAS: GFLOP/s and fraction of cuBLAS (IT4I course, hands-on 6)";
    const SIZE: Option<Size> = Some(Size::new("m = n = k, the matrices' side (without it, non-square: m x n x k = 4100 x 3000 x 2500 on a GPU, 200 x 136 x 72 on the simulator; --m, --n, --k override each)", COURSE_DIMS.0, SIMULATOR_DIMS.0).at_most(u32::MAX as usize));
    const REPS: bool = true;
    type Args = CourseMatmulTiledOptions;

    /// The run's peak at `--size s` (`--m`, `--n`, `--k` overriding), or at the non-square default
    /// without `--size`: A, B and C on the device; on the host A, B and the downloaded C, with the
    /// CPU's C and `|A||B|` when the product is small enough to recompute, else Freivalds' vectors
    /// (see `reference::course::matmul_tiled`).
    fn memory(run: &Run<CourseMatmulTiledOptions>, gpu: &Gpu) -> Option<Footprint> {
        let (m, n, k) = dims(gpu, run);
        let (a, b, c) = (
            footprint::elements(&[m, k])?,
            footprint::elements(&[k, n])?,
            footprint::elements(&[m, n])?,
        );
        let operands = Footprint::NONE
            .mirrored::<f32>(1, a)?
            .mirrored::<f32>(1, b)?
            .mirrored::<f32>(1, c)?;
        let full = footprint::elements(&[m, n, k]).is_some_and(|macs| macs <= reference::FULL_PRODUCT_MAX_MACS);
        match full {
            true => operands.host::<f32>(2, c),
            false => operands.host::<u8>(1, reference::Freivalds::bytes((m, n, k))?),
        }
    }

    fn run(gpu: &Gpu, run: &Run<CourseMatmulTiledOptions>) -> Result<Outcome> {
        let dims @ (m, n, k) = dims(gpu, run);
        if [m, n, k].into_iter().any(|d| u32::try_from(d).is_err()) {
            return Err(Error::InvalidArgument(format!(
                "dimensions {m} x {n} x {k}: each must be below 2^32, as the kernels index in u32"
            )));
        }
        let tensor = match run.args.precision {
            MatmulPrecision::F32 => None,
            MatmulPrecision::Bf16 => Some(TensorPrecision::Bf16),
            MatmulPrecision::Tf32 => Some(TensorPrecision::Tf32),
        };
        let too_large = || {
            Error::InvalidArgument(format!(
                "a {m} x {k} by {k} x {n} product has more elements than memory can address"
            ))
        };
        let (a_len, b_len) = (
            footprint::elements(&[m, k]).ok_or_else(too_large)?,
            footprint::elements(&[k, n]).ok_or_else(too_large)?,
        );
        footprint::elements(&[m, n]).ok_or_else(too_large)?;
        if let Some(precision) = tensor {
            return super::matmul_tensor::run(gpu, dims, precision, run.reps);
        }
        let (a, b) = (random_matrix(a_len, 1)?, random_matrix(b_len, 2)?);
        let expected = reference::Expected::of(&a, &b, dims)?;
        let mut ops = Operands::new(gpu, dims, &a, &b)?;
        let mut cublas = cublas_if_any(gpu, "cuBLAS SGEMM");
        let (rows, checks) = measure(gpu, &mut ops, cublas.as_mut(), run.reps, Some(&expected))?;
        if let reference::Expected::Freivalds(_) = expected {
            println!(
                " verified by {} (the full CPU product, {m} x {n} x {k} multiply-adds, would take minutes)",
                reference::Freivalds::describe()
            );
        }
        for (row, check) in rows.iter().zip(&checks) {
            let verdict = if check.passed() { "seems OK" } else { "is WRONG" };
            println!("Matrix multiplication {} {verdict}", row.variant.name());
        }
        println!(
            " C({m} x {n}) = A({m} x {k}) B({k} x {n}), f32, median of {} runs ({}):",
            run.reps,
            gpu.timing_label()
        );
        let table: Vec<_> = rows
            .iter()
            .map(|r| (r.variant.name(), r.shape, r.stats.median_ms))
            .collect();
        print_table(dims, 27, false, &table);
        let time_of = |v: Variant| rows.iter().find(|r| r.variant == v).map(|r| r.stats.median_ms);
        if let (Some(naive), Some(tiled), Some(tiled_32), Some(register)) = (
            time_of(Variant::Naive),
            time_of(Variant::Tiled),
            time_of(Variant::Tiled32),
            time_of(Variant::RegisterTiled),
        ) {
            println!("Time multiplication naive:   {naive:>12.3} ms");
            println!("Time multiplication tiled:   {tiled:>12.3} ms");
            println!(
                "Speedup is {:>8.2} (tiled), {:.2} (tiled, TILE_WIDTH 32), {:.2} (register-tiled)",
                naive / tiled,
                naive / tiled_32,
                naive / register
            );
        }
        Ok(Outcome { checks })
    }
}
