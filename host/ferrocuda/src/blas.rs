//! Matrix products: `C = alpha op(A) op(B) + beta C` (GEMM) with f32 accumulation and f32 `C`,
//! for BF16, FP16 and f32 operands (f32 on the tensor cores as TF32, or exact FP32), each matrix
//! row- or column-major with its own leading dimension, any `m`, `n`, `k`. Computed by this
//! library's kernels ([`Engine::Rust`]: Hopper's `wgmma` fed by the bulk tensor copy engine,
//! `gpu_kernels::gemm`, on an sm_90 GPU or the simulator) or by cuBLAS ([`Engine::Cublas`],
//! `cublasGemmEx`, with the feature `cublas`).
//!
//! `op(A)` is a [`Matrix`] and its transpose is [`Matrix::t`]: a view with rows and columns
//! swapped, nothing moved. The Rust engine reduces every layout to the one its kernel reads
//! (both operands K-major, `C` row-major: a column-major `C` is the row-major `C^T = B^T A^T`),
//! and copies an operand that is not K-major, or whose rows are not 16-byte aligned, into a
//! scratch matrix first (`gemm_pack`).
//!
//! ```
//! use ferrocuda::blas::{self, Matrix, MatrixMut, Options};
//! use ferrocuda::device::half::Bf16;
//! use ferrocuda::KernelView;
//! let gpu = ferrocuda::Gpu::simulator();
//! let (m, n, k) = (3, 2, 4);
//! let a: Vec<Bf16> = (0..m * k).map(|i| Bf16::from_f32(i as f32)).collect();
//! let b: Vec<Bf16> = (0..k * n).map(|i| Bf16::from_f32(1.0 - i as f32)).collect();
//! let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&b)?);
//! let mut c_d = gpu.zeros::<f32>(m * n)?;
//! blas::gemm(
//!     &gpu,
//!     Options::default(),
//!     1.0,
//!     Matrix::row_major(a_d.view(), m, k),
//!     Matrix::row_major(b_d.view(), k, n),
//!     0.0,
//!     MatrixMut::row_major(c_d.view_mut(), m, n),
//! )?;
//! // Row 0 of A is 0 1 2 3; column 0 of B is 1 -1 -3 -5: 0 - 1 - 6 - 15.
//! assert_eq!(gpu.download(&c_d)?[0], -22.0);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, TensorElement, TensorMap};
use ferrocuda_device::global::{Slice, SliceMut};
use ferrocuda_device::half::{Bf16, F16};
use gpu_kernels::gemm::{
    GEMM_BLOCK_M, GEMM_BLOCK_N, GEMM_THREADS, GemmArgs, GemmBf16, GemmBf16Shared, GemmF16, GemmF16Shared, GemmPack,
    GemmPackArgs, GemmScale, GemmScaleArgs, GemmTf32, GemmTf32Shared,
};
use std::str::FromStr;

mod cpu;
pub use cpu::{HostMatrix, gemm_cpu};

/// Who computes the product.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// cuBLAS when on a GPU and the library was built with it (feature `cublas`) and
    /// `libcublas` loads; this library's kernels otherwise.
    #[default]
    Auto,
    /// This library's kernels, on a GPU (sm_90) or the simulator.
    Rust,
    /// cuBLAS (`cublasGemmEx`); an error on the simulator.
    Cublas,
}

impl FromStr for Engine {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" | "" => Ok(Self::Auto),
            "rust" => Ok(Self::Rust),
            "cublas" => Ok(Self::Cublas),
            other => Err(Error::InvalidArgument(format!(
                "the GEMM engine is auto, rust or cublas, not `{other}`"
            ))),
        }
    }
}

/// How f32 operands are multiplied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum F32Math {
    /// Exact FP32 products on the SIMT cores (the Rust engine's register-tiled SGEMM,
    /// `gpu_kernels::sgemm`; cuBLAS's `CUBLAS_COMPUTE_32F`).
    #[default]
    Fp32,
    /// On the tensor cores as TF32 (10 significand bits; the Rust engine ignores the low 13
    /// bits, cuBLAS rounds): `CUBLAS_COMPUTE_32F_FAST_TF32`.
    Tf32,
}

/// The engine, and the math of f32 operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub engine: Engine,
    pub f32_math: F32Math,
}

/// How a matrix's elements lie in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Rows contiguous, `ld` elements apart (C's and Rust's order).
    RowMajor,
    /// Columns contiguous, `ld` elements apart (Fortran's and BLAS's order).
    ColMajor,
}

/// A `rows x cols` matrix in device memory: a view `V` (read-only [`Matrix`], writable
/// [`MatrixMut`]), its layout and leading dimension.
#[derive(Clone, Copy, Debug)]
pub struct MatrixView<V> {
    data: V,
    rows: usize,
    cols: usize,
    ld: usize,
    layout: Layout,
}

/// A read-only matrix of `T`, an operand.
pub type Matrix<'a, T> = MatrixView<Slice<'a, T>>;
/// A writable matrix of f32, the product.
pub type MatrixMut<'a> = MatrixView<SliceMut<'a, f32>>;

impl<V> MatrixView<V> {
    /// Row-major, rows `cols` apart.
    pub fn row_major(data: V, rows: usize, cols: usize) -> Self {
        Self {
            data,
            rows,
            cols,
            ld: cols,
            layout: Layout::RowMajor,
        }
    }
    /// Column-major, columns `rows` apart.
    pub fn col_major(data: V, rows: usize, cols: usize) -> Self {
        Self {
            data,
            rows,
            cols,
            ld: rows,
            layout: Layout::ColMajor,
        }
    }
    /// The same matrix with rows (row-major) or columns (column-major) `ld` elements apart.
    pub fn with_ld(self, ld: usize) -> Self {
        Self { ld, ..self }
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

impl<T> Matrix<'_, T> {
    /// The transpose: the same memory read the other way.
    pub fn t(self) -> Self {
        let layout = match self.layout {
            Layout::RowMajor => Layout::ColMajor,
            Layout::ColMajor => Layout::RowMajor,
        };
        Self {
            rows: self.cols,
            cols: self.rows,
            layout,
            ..self
        }
    }
    /// Elements from one row, and from one column, to the next.
    fn strides(&self) -> (usize, usize) {
        match self.layout {
            Layout::RowMajor => (self.ld, 1),
            Layout::ColMajor => (1, self.ld),
        }
    }
}

/// That a matrix of `rows x cols` in `layout` with leading dimension `ld` lies in `len`
/// elements, with dimensions the kernels and cuBLAS take (below 2^31).
fn check_matrix(name: &str, rows: usize, cols: usize, ld: usize, layout: Layout, len: usize) -> Result<()> {
    let (outer, inner) = match layout {
        Layout::RowMajor => (rows, cols),
        Layout::ColMajor => (cols, rows),
    };
    let limit = i32::MAX as usize;
    if rows > limit || cols > limit || ld > limit {
        return Err(Error::InvalidArgument(format!(
            "GEMM takes dimensions below 2^31, not {name} of {rows} x {cols} with ld {ld}"
        )));
    }
    if inner > 0 && ld < inner {
        return Err(Error::InvalidArgument(format!(
            "{name} ({rows} x {cols}, {layout:?}) needs a leading dimension of at least {inner}, not {ld}"
        )));
    }
    if outer > 0 && inner > 0 && (outer - 1) * ld + inner > len {
        return Err(Error::InvalidArgument(format!(
            "{name} ({rows} x {cols}, {layout:?}, ld {ld}) needs {} elements, and its view holds {len}",
            (outer - 1) * ld + inner
        )));
    }
    Ok(())
}

/// `C = alpha A B + beta C` (`A` is `m x k`, `B` `k x n`, `C` `m x n`; pass `a.t()` for `A^T`),
/// queued on the GPU's stream; returns the engine that ran it. With `beta` 0, `C` is not read.
/// An error in a sentence for shapes that do not agree, a matrix that does not lie in its view,
/// an engine this GPU or build lacks.
pub fn gemm<T: GemmElement>(
    gpu: &Gpu,
    options: Options,
    alpha: f32,
    a: Matrix<'_, T>,
    b: Matrix<'_, T>,
    beta: f32,
    c: MatrixMut<'_>,
) -> Result<Engine> {
    let (m, k) = a.shape();
    let n = b.cols;
    if b.rows != k || c.rows != m || c.cols != n {
        return Err(Error::InvalidArgument(format!(
            "GEMM multiplies A ({m} x {k}) by B ({} x {}) into C ({} x {}): the inner dimensions or C's shape do not agree",
            b.rows, b.cols, c.rows, c.cols
        )));
    }
    check_matrix("A", a.rows, a.cols, a.ld, a.layout, a.data.len())?;
    check_matrix("B", b.rows, b.cols, b.ld, b.layout, b.data.len())?;
    check_matrix("C", c.rows, c.cols, c.ld, c.layout, c.data.len())?;
    let tf32 = T::IS_F32 && options.f32_math == F32Math::Tf32;
    let engine = match options.engine {
        Engine::Auto if !gpu.is_simulator() && cublas_available() => Engine::Cublas,
        Engine::Auto => Engine::Rust,
        chosen => chosen,
    };
    if m == 0 || n == 0 {
        return Ok(engine);
    }
    match engine {
        Engine::Cublas => cublas_gemm(gpu, tf32, alpha, a, b, beta, c)?,
        _ => rust_gemm(gpu, (alpha, beta), a, b, c, T::IS_F32 && !tf32)?,
    }
    Ok(engine)
}

/// An operand as a kernel reads it: row-major (contiguous rows), rows `ld` apart.
struct Rows<'a, T> {
    data: Slice<'a, T>,
    ld: usize,
}

/// `matrix` (`rows x cols`) row-major, as a kernel reads it: itself when its rows are
/// contiguous (and, with `aligned_rows`, start at 16-byte-aligned addresses, as the copy engine
/// needs), otherwise a copy into `scratch` (rows padded to 16 bytes).
fn contiguous_rows<'s, T: GemmElement>(
    gpu: &Gpu,
    kernels: &LoadedKernels<'_>,
    matrix: Matrix<'s, T>,
    scratch: &'s mut Option<DeviceBuffer<T>>,
    aligned_rows: bool,
) -> Result<Rows<'s, T>> {
    let (rows, cols) = matrix.shape();
    let (row_stride, col_stride) = matrix.strides();
    let per_16 = 16 / size_of::<T>();
    let aligned = row_stride.is_multiple_of(per_16) && (matrix.data.as_ptr() as usize).is_multiple_of(16);
    if col_stride == 1 && (aligned || !aligned_rows) {
        return Ok(Rows {
            data: matrix.data,
            ld: row_stride,
        });
    }
    let ld = cols.next_multiple_of(per_16);
    let buffer = scratch.insert(gpu.zeros::<T>(rows * ld)?);
    let args = GemmPackArgs {
        src: matrix.data,
        dst: buffer.view_mut(),
        rows: rows as u32,
        cols: cols as u32,
        row_stride: row_stride as u32,
        col_stride: col_stride as u32,
        dst_ld: ld as u32,
    };
    T::pack(kernels, LaunchShape::cover_1d((rows * cols).min(1 << 22), 256)?, args)?;
    Ok(Rows {
        data: buffer.view(),
        ld,
    })
}

/// The Rust engine: reduce to a row-major `C` (a column-major `C` is the row-major
/// `C^T = B^T A^T`), then one launch: the tensor-core kernel on K-major `A` and `B^T` (rows
/// 16-byte aligned, as the copy engine reads them), or with `exact` the SIMT kernel on
/// row-major `A` and `B`; an operand not laid out so is copied first.
fn rust_gemm<T: GemmElement>(
    gpu: &Gpu,
    (alpha, beta): (f32, f32),
    a: Matrix<'_, T>,
    b: Matrix<'_, T>,
    c: MatrixMut<'_>,
    exact: bool,
) -> Result<()> {
    let kernels = gpu.library()?;
    let (m, k) = a.shape();
    let n = b.cols;
    // The product's factors for a row-major C: `left` (m2 x k) and `right` (k x n2).
    let (m2, n2, left, right) = match c.layout {
        Layout::RowMajor => (m, n, a, b),
        Layout::ColMajor => (n, m, b.t(), a.t()),
    };
    if k == 0 {
        let args = GemmScaleArgs {
            c: c.data,
            rows: m2 as u32,
            cols: n2 as u32,
            ldc: c.ld as u32,
            beta,
        };
        return kernels.launch(GemmScale, LaunchShape::cover_1d((m2 * n2).min(1 << 22), 256)?, args);
    }
    let dims = GemmDims {
        m: m2,
        n: n2,
        k,
        ldc: c.ld,
        alpha,
        beta,
    };
    let (mut left_scratch, mut right_scratch) = (None, None);
    let left = contiguous_rows(gpu, &kernels, left, &mut left_scratch, !exact)?;
    if exact {
        let right = contiguous_rows(gpu, &kernels, right, &mut right_scratch, false)?;
        return T::multiply_exact(&kernels, (left.data, left.ld), (right.data, right.ld), c.data, dims);
    }
    let right = contiguous_rows(gpu, &kernels, right.t(), &mut right_scratch, true)?;
    T::multiply(
        gpu,
        &kernels,
        (left.data, left.ld),
        (right.data, right.ld),
        c.data,
        dims,
    )
}

/// The launch shape of the Rust engine's tensor-core kernel for an `m x n` product of `T`: one
/// block per SM at most (the kernel is persistent; the simulator's SMs are its host threads, so
/// there too a block takes several tiles), 384 threads, the ring's shared memory.
pub fn tensor_core_shape<T: GemmElement>(gpu: &Gpu, m: usize, n: usize) -> LaunchShape {
    let tiles = m.div_ceil(GEMM_BLOCK_M) * n.div_ceil(GEMM_BLOCK_N);
    let blocks = tiles.min(gpu.properties().multiprocessor_count.max(1) as usize) as u32;
    LaunchShape::new((blocks, 1, 1), (GEMM_THREADS, 1, 1)).with_shared_bytes(T::tensor_core_shared_bytes() as u32)
}

/// The sizes and factors of one launch.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct GemmDims {
    m: usize,
    n: usize,
    k: usize,
    ldc: usize,
    alpha: f32,
    beta: f32,
}

/// An operand type of [`gemm`]: [`Bf16`], [`F16`], `f32`.
pub trait GemmElement: TensorElement + sealed::Sealed {
    /// True for f32 (whose math [`F32Math`] chooses).
    #[doc(hidden)]
    const IS_F32: bool;
    /// The value, exactly.
    fn to_f64(self) -> f64;
    /// `x` rounded to this type (to nearest, ties to even).
    fn from_f32(x: f32) -> Self;
    /// Bytes of shared memory the tensor-core kernel's ring takes.
    #[doc(hidden)]
    fn tensor_core_shared_bytes() -> usize;
    /// Launches the tensor-core kernel on K-major operands.
    #[doc(hidden)]
    fn multiply(
        gpu: &Gpu,
        kernels: &LoadedKernels<'_>,
        left: (Slice<'_, Self>, usize),
        right: (Slice<'_, Self>, usize),
        c: SliceMut<'_, f32>,
        dims: GemmDims,
    ) -> Result<()>;
    /// Launches the exact FP32 kernel on row-major `A` (`m x k`) and `B` (`k x n`): f32 only.
    #[doc(hidden)]
    fn multiply_exact(
        kernels: &LoadedKernels<'_>,
        a: (Slice<'_, Self>, usize),
        b: (Slice<'_, Self>, usize),
        c: SliceMut<'_, f32>,
        dims: GemmDims,
    ) -> Result<()>;
    /// Launches the copy into a K-major operand.
    #[doc(hidden)]
    fn pack(kernels: &LoadedKernels<'_>, shape: LaunchShape, args: GemmPackArgs<'_, Self>) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Bf16 {}
    impl Sealed for super::F16 {}
    impl Sealed for f32 {}
}

macro_rules! gemm_element {
    ($($t:ty => $kernel:ident, $shared:ident, $k_tile:literal, $is_f32:literal, $to_f64:expr, $from_f32:expr, $exact:expr;)*) => {$(
        impl GemmElement for $t {
            const IS_F32: bool = $is_f32;
            fn to_f64(self) -> f64 {
                ($to_f64)(self)
            }
            fn from_f32(x: f32) -> Self {
                ($from_f32)(x)
            }
            fn tensor_core_shared_bytes() -> usize {
                $shared::bytes()
            }
            fn multiply(
                gpu: &Gpu,
                kernels: &LoadedKernels<'_>,
                (left, left_ld): (Slice<'_, Self>, usize),
                (right, right_ld): (Slice<'_, Self>, usize),
                c: SliceMut<'_, f32>,
                dims: GemmDims,
            ) -> Result<()> {
                let a = TensorMap::<Self, GEMM_BLOCK_M, $k_tile>::new(gpu, left, dims.m, dims.k, left_ld)?;
                let b = TensorMap::<Self, GEMM_BLOCK_N, $k_tile>::new(gpu, right, dims.n, dims.k, right_ld)?;
                let args = GemmArgs {
                    a: a.view(),
                    b: b.view(),
                    c,
                    m: dims.m as u32,
                    n: dims.n as u32,
                    k: dims.k as u32,
                    ldc: dims.ldc as u32,
                    alpha: dims.alpha,
                    beta: dims.beta,
                };
                kernels.launch($kernel, tensor_core_shape::<Self>(gpu, dims.m, dims.n), args)
            }
            fn multiply_exact(
                kernels: &LoadedKernels<'_>,
                a: (Slice<'_, Self>, usize),
                b: (Slice<'_, Self>, usize),
                c: SliceMut<'_, f32>,
                dims: GemmDims,
            ) -> Result<()> {
                ($exact)(kernels, a, b, c, dims)
            }
            fn pack(kernels: &LoadedKernels<'_>, shape: LaunchShape, args: GemmPackArgs<'_, Self>) -> Result<()> {
                kernels.launch(GemmPack, shape, args)
            }
        }
    )*};
}

/// The 16-bit types have no exact FP32 product (`gemm` calls `multiply_exact` for f32 only).
fn no_exact<T>(
    _: &LoadedKernels<'_>,
    _: (Slice<'_, T>, usize),
    _: (Slice<'_, T>, usize),
    _: SliceMut<'_, f32>,
    _: GemmDims,
) -> Result<()> {
    Err(Error::InvalidArgument("exact FP32 products take f32 operands".into()))
}

/// [`sgemm`](gpu_kernels::sgemm::sgemm) on row-major operands.
fn exact_f32(
    kernels: &LoadedKernels<'_>,
    (a, lda): (Slice<'_, f32>, usize),
    (b, ldb): (Slice<'_, f32>, usize),
    c: SliceMut<'_, f32>,
    dims: GemmDims,
) -> Result<()> {
    use gpu_kernels::sgemm::{BM, BN, SGEMM_SHARED_BYTES, SGEMM_THREADS, Sgemm, SgemmArgs};
    let grid = |x: usize, per: usize| {
        u32::try_from(x.div_ceil(per))
            .map_err(|_| Error::InvalidArgument(format!("a dimension of {x} needs more blocks than a grid holds")))
    };
    let shape = LaunchShape::new((grid(dims.n, BN)?, grid(dims.m, BM)?, 1), (SGEMM_THREADS, 1, 1))
        .with_shared_bytes(SGEMM_SHARED_BYTES as u32);
    let args = SgemmArgs {
        a,
        b,
        c,
        m: dims.m as u32,
        n: dims.n as u32,
        k: dims.k as u32,
        lda: lda as u32,
        ldb: ldb as u32,
        ldc: dims.ldc as u32,
        alpha: dims.alpha,
        beta: dims.beta,
    };
    kernels.launch(Sgemm, shape, args)
}
gemm_element! {
    Bf16 => GemmBf16, GemmBf16Shared, 64, false, |x: Bf16| x.to_f32() as f64, Bf16::from_f32, no_exact::<Bf16>;
    F16 => GemmF16, GemmF16Shared, 64, false, |x: F16| x.to_f32() as f64, F16::from_f32, no_exact::<F16>;
    f32 => GemmTf32, GemmTf32Shared, 32, true, |x: f32| x as f64, |x: f32| x, exact_f32;
}

/// True when this build holds the cuBLAS engine (the feature `cublas`).
pub const CUBLAS_BUILT: bool = cfg!(feature = "cublas");

/// True when cuBLAS can run here: built with the feature `cublas`, and `libcublas` found.
fn cublas_available() -> bool {
    #[cfg(feature = "cublas")]
    // SAFETY: only probes for the library.
    return unsafe { cudarc::cublas::sys::is_culib_present() };
    #[cfg(not(feature = "cublas"))]
    false
}

/// The cuBLAS engine: `cublasGemmEx` on the device's stream, column-major: a row-major `C` is
/// the column-major `C^T = B^T A^T`.
fn cublas_gemm<T: GemmElement>(
    gpu: &Gpu,
    tf32: bool,
    alpha: f32,
    a: Matrix<'_, T>,
    b: Matrix<'_, T>,
    beta: f32,
    c: MatrixMut<'_>,
) -> Result<()> {
    #[cfg(feature = "cublas")]
    {
        use crate::gpu::{Cublas, GemmOperand};
        let (first, second) = match c.layout {
            Layout::ColMajor => (a, b),
            Layout::RowMajor => (b.t(), a.t()),
        };
        let operand = |x: Matrix<'_, T>| GemmOperand {
            address: x.data.as_ptr() as u64,
            transposed: x.layout == Layout::RowMajor,
            ld: x.ld,
        };
        let (rows, cols) = match c.layout {
            Layout::ColMajor => (c.rows, c.cols),
            Layout::RowMajor => (c.cols, c.rows),
        };
        Cublas::with_cached(gpu.cuda("cuBLAS")?, |cublas| {
            // SAFETY: the views are of this device's buffers (the simulator was refused by
            // `gpu.cuda`), each matrix checked to lie in its view by `gemm`; the buffers outlive
            // the call through the views' borrows, and a buffer's free is ordered after queued
            // work.
            unsafe {
                cublas.gemm_ex::<T>(
                    tf32,
                    (rows, cols, first.cols),
                    alpha,
                    operand(first),
                    operand(second),
                    beta,
                    (c.data.as_mut_ptr() as u64, c.ld),
                )
            }
        })
    }
    #[cfg(not(feature = "cublas"))]
    {
        let _ = (gpu, tf32, alpha, a, b, beta, c);
        Err(Error::NeedsCuda(
            "cuBLAS: this build of ferrocuda lacks the feature `cublas`".into(),
        ))
    }
}
