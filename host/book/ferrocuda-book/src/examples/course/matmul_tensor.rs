//! `course-matmul-tiled --precision bf16|tf32`: the product on the tensor cores, this library's
//! two `mma.sync` GEMMs (double-buffered through registers, and the `cp.async` + `ldmatrix`
//! pipeline) and, on a Hopper GPU, the library GEMM (`ferrocuda::blas::gemm`: `wgmma` fed by
//! the bulk tensor copy engine, issue 35) against cuBLAS's GEMM in the same precision
//! (`cublasGemmEx`, its tensor-core math), same run, same operands (issue 17).
//!
//! The f32 inputs of the SGEMM path are rounded to BF16 (to nearest even) or TF32 (`cvt.rna`)
//! first; the CPU reference multiplies the rounded values, whose products are exact in f32, so
//! the check is the SGEMM path's `2 gamma_k |A||B|` bound on the accumulation alone. `B` is
//! uploaded transposed (`n x k`, both operands contiguous along `k`, the tensor cores' "row.col")
//! for both, and sizes that are not whole 128 x 256 x 32 tiles are padded with zeros, which
//! change nothing in the product (cuBLAS multiplies the same padded operands).
use super::matmul_inputs::{Dims, cublas_if_any, print_table, random_matrix};
use crate::example::Outcome;
use crate::reference::course::matmul_tiled as reference;
use book_kernels::course::matmul_tensor::{
    Bf16MatmulArgs, MatmulBf16Mma, MatmulTf32Mma, TENSOR_SHARED_BYTES, TENSOR_THREADS, TENSOR_TILE_M, TENSOR_TILE_N,
    Tf32MatmulArgs,
};
use book_kernels::course::matmul_tensor_pipelined::{
    MatmulBf16MmaPipelined, MatmulTf32MmaPipelined, PIPELINED_SHARED_BYTES,
};
use ferrocuda::SliceMut;
use ferrocuda::blas::{self, Engine, F32Math, GemmElement, Matrix, MatrixMut, Options};
use ferrocuda::device::half::Bf16;
use ferrocuda::device::mma::{bf16_pair, from_bf16, to_bf16, to_tf32};
use ferrocuda::footprint::{try_vec, try_with_capacity};
use ferrocuda::gpu::{Cublas, DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result, TensorInputs};
use ferrocuda::measure::time_reps;

/// A tensor-core precision: how inputs are rounded and stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorPrecision {
    Bf16,
    Tf32,
}

impl TensorPrecision {
    /// `x` as the tensor cores see it.
    pub fn round(self, x: f32) -> f32 {
        match self {
            Self::Bf16 => from_bf16(to_bf16(x)),
            Self::Tf32 => f32::from_bits(to_tf32(x)),
        }
    }

    /// Every value of `values` rounded as the tensor cores see it.
    pub fn rounded(self, values: Vec<f32>) -> Vec<f32> {
        values.into_iter().map(|x| self.round(x)).collect()
    }

    /// `k` padded to a whole step of the kernel: 32 BF16 or 16 TF32 (16 words).
    fn padded_k(self, k: usize) -> usize {
        match self {
            Self::Bf16 => k.next_multiple_of(32),
            Self::Tf32 => k.next_multiple_of(16),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Bf16 => "BF16 inputs, mma.sync m16n8k16",
            Self::Tf32 => "TF32 inputs, mma.sync m16n8k8",
        }
    }
}

/// Which of this library's tensor-core GEMMs runs; both take the same operands and launch grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKernel {
    /// `matmul_{bf16,tf32}_mma`: tiles double-buffered through registers.
    DoubleBuffered,
    /// `matmul_{bf16,tf32}_mma_pipelined`: a `cp.async` ring of shared tiles, `ldmatrix` fragments.
    Pipelined,
}

impl TensorKernel {
    /// Both kernels, the older first.
    pub const ALL: [Self; 2] = [Self::DoubleBuffered, Self::Pipelined];

    /// The kernel's name in `precision`.
    pub fn name(self, precision: TensorPrecision) -> &'static str {
        match (self, precision) {
            (Self::DoubleBuffered, TensorPrecision::Bf16) => "matmul_bf16_mma",
            (Self::DoubleBuffered, TensorPrecision::Tf32) => "matmul_tf32_mma",
            (Self::Pipelined, TensorPrecision::Bf16) => "matmul_bf16_mma_pipelined",
            (Self::Pipelined, TensorPrecision::Tf32) => "matmul_tf32_mma_pipelined",
        }
    }

    fn shared_bytes(self) -> usize {
        match self {
            Self::DoubleBuffered => TENSOR_SHARED_BYTES,
            Self::Pipelined => PIPELINED_SHARED_BYTES,
        }
    }
}

/// The padded operands `A` and `B^T` on the device: BF16 pairs (and the same values as `Bf16`
/// elements, for the library GEMM), or f32 already rounded to TF32.
pub enum OperandWords {
    Bf16(
        DeviceBuffer<u32>,
        DeviceBuffer<u32>,
        DeviceBuffer<Bf16>,
        DeviceBuffer<Bf16>,
    ),
    Tf32(DeviceBuffer<f32>, DeviceBuffer<f32>),
}

/// The padded operands and product on the device.
pub struct TensorOperands {
    pub operands: OperandWords,
    /// `(m, n, k)` padded to whole tiles.
    pub padded: Dims,
    pub c_d: DeviceBuffer<f32>,
}

impl TensorOperands {
    /// Rounds, pads, transposes `b` and uploads: `a` is `m x k`, `b` is `k x n`, row-major f32.
    pub fn new(gpu: &Gpu, precision: TensorPrecision, (m, n, k): Dims, a: &[f32], b: &[f32]) -> Result<Self> {
        let padded @ (mp, np, kp) = (
            m.next_multiple_of(TENSOR_TILE_M),
            n.next_multiple_of(TENSOR_TILE_N),
            precision.padded_k(k),
        );
        if [mp, np, kp].into_iter().any(|d| u32::try_from(d).is_err()) {
            return Err(Error::InvalidArgument(format!(
                "{m} x {n} x {k} padded to whole tiles exceeds 2^32"
            )));
        }
        // An `rows x k` operand (element (r, c) at `at(r, c)`) padded to `rows x kp` with zeros.
        let padded_rows = |rows: usize, at: &dyn Fn(usize, usize) -> f32| -> Result<Vec<f32>> {
            let mut out = try_with_capacity(rows * kp)?;
            for r in 0..rows {
                out.extend((0..kp).map(|c| if c < k { precision.round(at(r, c)) } else { 0.0 }));
            }
            Ok(out)
        };
        let a_rows = padded_rows(mp, &|r, c| if r < m { a[r * k + c] } else { 0.0 })?;
        let bt_rows = padded_rows(np, &|j, c| if j < n { b[c * n + j] } else { 0.0 })?;
        let operands = match precision {
            TensorPrecision::Bf16 => {
                let pairs = |rows: &[f32]| -> Vec<u32> {
                    rows.chunks_exact(2)
                        .map(|p| bf16_pair(to_bf16(p[0]), to_bf16(p[1])))
                        .collect()
                };
                let elements = |rows: &[f32]| rows.iter().map(|&x| Bf16::from_f32(x)).collect::<Vec<_>>();
                OperandWords::Bf16(
                    gpu.upload(&pairs(&a_rows))?,
                    gpu.upload(&pairs(&bt_rows))?,
                    gpu.upload(&elements(&a_rows))?,
                    gpu.upload(&elements(&bt_rows))?,
                )
            }
            TensorPrecision::Tf32 => OperandWords::Tf32(gpu.upload(&a_rows)?, gpu.upload(&bt_rows)?),
        };
        Ok(Self {
            operands,
            padded,
            c_d: gpu.zeros(mp * np)?,
        })
    }

    /// `kernel`'s launch shape: one block of [`TENSOR_THREADS`] per 128 x 256 tile of `C`.
    pub fn shape(&self, kernel: TensorKernel) -> LaunchShape {
        let (mp, np, _) = self.padded;
        LaunchShape::new(
            ((np / TENSOR_TILE_N) as u32, (mp / TENSOR_TILE_M) as u32, 1),
            (TENSOR_THREADS, 1, 1),
        )
        .with_shared_bytes(kernel.shared_bytes() as u32)
    }

    /// Runs this library's `kernel`.
    pub fn launch(&mut self, gpu: &Gpu, kernel: TensorKernel) -> Result<()> {
        let (m, n, k) = self.padded;
        let (m, n, k) = (m as u32, n as u32, k as u32);
        let shape = self.shape(kernel);
        let kernels = crate::kernels(gpu)?;
        let c = self.c_d.view_mut();
        match &self.operands {
            OperandWords::Bf16(a, bt, ..) => {
                let args = Bf16MatmulArgs {
                    a: a.view(),
                    bt: bt.view(),
                    c,
                    m,
                    n,
                    k,
                };
                match kernel {
                    TensorKernel::DoubleBuffered => kernels.launch(MatmulBf16Mma, shape, args),
                    TensorKernel::Pipelined => kernels.launch(MatmulBf16MmaPipelined, shape, args),
                }
            }
            OperandWords::Tf32(a, bt) => {
                let args = Tf32MatmulArgs {
                    a: a.view(),
                    bt: bt.view(),
                    c,
                    m,
                    n,
                    k,
                };
                match kernel {
                    TensorKernel::DoubleBuffered => kernels.launch(MatmulTf32Mma, shape, args),
                    TensorKernel::Pipelined => kernels.launch(MatmulTf32MmaPipelined, shape, args),
                }
            }
        }
    }

    /// Runs the library GEMM (`blas::gemm`, its own kernels) on the same padded operands: `A`
    /// row-major, `B` as the transpose of the row-major `B^T`, both K-major.
    pub fn library_gemm(&mut self, gpu: &Gpu) -> Result<()> {
        let c = self.c_d.view_mut();
        match &self.operands {
            OperandWords::Bf16(.., a, bt) => library_product(gpu, self.padded, a, bt, c),
            OperandWords::Tf32(a, bt) => library_product(gpu, self.padded, a, bt, c),
        }
    }

    /// The library GEMM's launch shape, as `blas::gemm` launches it.
    fn library_shape(&self, gpu: &Gpu) -> LaunchShape {
        let (mp, np, _) = self.padded;
        match &self.operands {
            OperandWords::Bf16(..) => blas::tensor_core_shape::<Bf16>(gpu, mp, np),
            OperandWords::Tf32(..) => blas::tensor_core_shape::<f32>(gpu, mp, np),
        }
    }

    /// Runs cuBLAS's GEMM in the same precision on the same padded operands.
    pub fn cublas(&mut self, cublas: &mut Cublas) -> Result<()> {
        match &self.operands {
            OperandWords::Bf16(a, bt, ..) => {
                cublas.gemm_tensor_nt(TensorInputs::Bf16, self.padded, a, bt, &mut self.c_d)
            }
            OperandWords::Tf32(a, bt) => cublas.gemm_tensor_nt(TensorInputs::Tf32, self.padded, a, bt, &mut self.c_d),
        }
    }

    /// The `m x n` product, cropped from the padded one.
    pub fn product(&self, gpu: &Gpu, (m, n, _): Dims) -> Result<Vec<f32>> {
        let padded = gpu.download(&self.c_d)?;
        let np = self.padded.1;
        let mut c = try_with_capacity(m * n)?;
        for row in padded.chunks_exact(np).take(m) {
            c.extend_from_slice(&row[..n]);
        }
        Ok(c)
    }
}

/// `C = A B` through `blas::gemm` on this library's kernels (f32 as TF32), `A` (`m x k`) and
/// `B^T` (`n x k`) row-major.
fn library_product<T: GemmElement>(
    gpu: &Gpu,
    (m, n, k): Dims,
    a: &DeviceBuffer<T>,
    bt: &DeviceBuffer<T>,
    c: SliceMut<'_, f32>,
) -> Result<()> {
    let options = Options {
        engine: Engine::Rust,
        f32_math: F32Math::Tf32,
    };
    let (a, b) = (
        Matrix::row_major(a.view(), m, k),
        Matrix::row_major(bt.view(), n, k).t(),
    );
    blas::gemm(gpu, options, 1.0, a, b, 0.0, MatrixMut::row_major(c, m, n)).map(|_| ())
}

/// The tensor-core run: the kernel and cuBLAS, each checked, timed over `reps`.
pub fn run(gpu: &Gpu, dims: Dims, precision: TensorPrecision, reps: usize) -> Result<Outcome> {
    let (m, n, k) = dims;
    let a = precision.rounded(random_matrix(m * k, 1)?);
    let b = precision.rounded(random_matrix(k * n, 2)?);
    let expected = reference::Expected::of(&a, &b, dims)?;
    let mut ops = TensorOperands::new(gpu, precision, dims, &a, &b)?;
    let mut cublas = cublas_if_any(gpu, "cuBLAS GEMM");
    let mut checks = vec![];
    let mut rows = vec![];
    let variants = TensorKernel::ALL.map(Some).into_iter().chain([None]);
    for variant in variants {
        let name = variant.map_or("cublasGemmEx", |kernel| kernel.name(precision));
        gpu.upload_into(&try_vec(ops.c_d.len(), f32::NAN)?, &mut ops.c_d)?;
        let stats = match (variant, cublas.as_mut()) {
            (Some(kernel), _) => time_reps(gpu, reps, || ops.launch(gpu, kernel))?,
            (None, Some(cublas)) => time_reps(gpu, reps, || ops.cublas(cublas))?,
            (None, None) => continue,
        };
        let check = expected.check(name, &ops.product(gpu, dims)?, k)?;
        println!(
            "Matrix multiplication {name} {}",
            if check.passed() { "seems OK" } else { "is WRONG" }
        );
        checks.push(check);
        rows.push((name, variant.map(|kernel| ops.shape(kernel)), stats.median_ms));
    }
    // The library GEMM: its `wgmma` kernel runs on compute capability 9.0 (its sm_90a module)
    // and on the simulator.
    let hopper = gpu.is_simulator() || gpu.properties().compute_capability_number() == 90;
    if hopper {
        let name = "blas::gemm (wgmma + TMA)";
        gpu.upload_into(&try_vec(ops.c_d.len(), f32::NAN)?, &mut ops.c_d)?;
        let stats = time_reps(gpu, reps, || ops.library_gemm(gpu))?;
        let check = expected.check(name, &ops.product(gpu, dims)?, k)?;
        println!(
            "Matrix multiplication {name} {}",
            if check.passed() { "seems OK" } else { "is WRONG" }
        );
        checks.push(check);
        // Before cuBLAS's row, which the table keeps last.
        let at = rows.iter().position(|row| row.1.is_none()).unwrap_or(rows.len());
        rows.insert(at, (name, Some(ops.library_shape(gpu)), stats.median_ms));
    } else {
        println!(
            "(blas::gemm's wgmma kernel runs on compute capability 9.0: not measured on {})",
            gpu.properties().name
        );
    }
    let (mp, np, kp) = ops.padded;
    println!(
        " C({m} x {n}) = A({m} x {k}) B({k} x {n}), {}, f32 accumulation, median of {reps} runs ({}){}:",
        precision.label(),
        gpu.timing_label(),
        if (mp, np, kp) == dims {
            String::new()
        } else {
            format!(", padded to {mp} x {np} x {kp}")
        }
    );
    print_table(dims, 26, true, &rows);
    Ok(Outcome { checks })
}
