//! cuBLAS's SGEMM (through cudarc, loaded at run time), the yardstick of the matrix-multiply
//! kernels (course-matmul-tiled).
//!
//! The handle keeps cuBLAS's default math mode, `CUBLAS_DEFAULT_MATH`: SGEMM then computes in
//! FP32 on the SIMT cores, the same arithmetic as the Rust kernels. Tensor cores would need
//! `CUBLAS_TF32_TENSOR_OP_MATH` (TF32 inputs, a different result), which this wrapper never sets.
use super::cuda::CudaDevice;
use super::error::{Error, Result};
use super::memory::DeviceBuffer;
use cudarc::cublas::{result, sys};
use cudarc::driver::{DevicePtr, DevicePtrMut};

fn cublas_error(call: &str) -> impl FnOnce(result::CublasError) -> Error + '_ {
    move |e| Error::Library {
        call: call.to_string(),
        error: format!("{:?}", e.0),
    }
}

/// `(m, n, k)` as cuBLAS's `int`s (0 passed as 1, a valid leading dimension), or a sentence.
fn cublas_dims(m: usize, n: usize, k: usize) -> Result<(i32, i32, i32)> {
    let dim = |x: usize| {
        i32::try_from(x.max(1))
            .map_err(|_| Error::InvalidArgument(format!("cuBLAS takes dimensions below 2^31, not {x}")))
    };
    Ok((dim(m)?, dim(n)?, dim(k)?))
}

/// The error for a buffer of the simulator handed to cuBLAS.
fn not_on_cuda() -> Error {
    Error::NeedsCuda("cuBLAS on simulator buffers".into())
}

/// A cuBLAS handle on one device, working on the device's stream.
pub struct Cublas<'a> {
    device: &'a CudaDevice,
    handle: sys::cublasHandle_t,
}

impl<'a> Cublas<'a> {
    /// `cublasCreate` on `device`'s stream, in `CUBLAS_DEFAULT_MATH` (FP32 SIMT SGEMM). One
    /// clear error when `libcublas` cannot be found.
    pub fn new(device: &'a CudaDevice) -> Result<Self> {
        // SAFETY: only probes for the library; cudarc would panic on first use without it.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::Io(
                "cuBLAS (libcublas.so) was not found: add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH".into(),
            ));
        }
        device
            .context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context for cuBLAS"))?;
        let handle = result::create_handle().map_err(cublas_error("cublasCreate"))?;
        let cublas = Self { device, handle };
        // SAFETY: `handle` was just created; the stream outlives it (it lives in `device`).
        unsafe { result::set_stream(handle, device.stream.cu_stream() as _) }
            .map_err(cublas_error("cublasSetStream"))?;
        // SAFETY: as above; a valid enum value.
        unsafe { sys::cublasSetMathMode(handle, sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }
            .result()
            .map_err(cublas_error("cublasSetMathMode"))?;
        Ok(cublas)
    }

    /// `C = A B` for row-major `A` (`m x k`), `B` (`k x n`), `C` (`m x n`), queued on the stream.
    ///
    /// cuBLAS is column-major. A row-major matrix read as column-major is its transpose, so
    /// this asks cuBLAS for `C^T = B^T A^T` (`cublasSgemm(N, N, n, m, k, 1, B, n, A, k, 0, C, n)`):
    /// the column-major `C^T` it writes is exactly the row-major `C`, and nothing is transposed.
    pub fn sgemm_row_major(
        &mut self,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        if a.len() < m * k || b.len() < k * n || c.len() < m * n {
            return Err(Error::InvalidArgument(format!(
                "SGEMM {m}x{n}x{k} needs buffers of {}, {} and {} elements, not {}, {} and {}",
                m * k,
                k * n,
                m * n,
                a.len(),
                b.len(),
                c.len()
            )));
        }
        let (mi, ni, ki) = cublas_dims(m, n, k)?;
        let stream = &self.device.stream;
        let (a_ptr, _a_record) = a.as_cuda().ok_or_else(not_on_cuda)?.device_ptr(stream);
        let (b_ptr, _b_record) = b.as_cuda().ok_or_else(not_on_cuda)?.device_ptr(stream);
        let (c_ptr, _c_record) = c.as_cuda_mut().ok_or_else(not_on_cuda)?.device_ptr_mut(stream);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = sys::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the pointers address live allocations of this device holding at least the
        // elements checked above, used on the handle's stream; alpha and beta are host values
        // (the handle's default pointer mode).
        unsafe {
            result::sgemm(
                self.handle,
                op,
                op,
                ni,
                mi,
                ki,
                &alpha,
                b_ptr as *const f32,
                ni,
                a_ptr as *const f32,
                ki,
                &beta,
                c_ptr as *mut f32,
                ni,
            )
        }
        .map_err(cublas_error("cublasSgemm"))
    }
}

/// The inputs of a tensor-core GEMM ([`Cublas::gemm_tensor_nt`]) and the math cuBLAS uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorInputs {
    /// BF16 operands (two per 32-bit word, the lower index in the low half), f32 accumulation:
    /// `CUDA_R_16BF`, `CUBLAS_COMPUTE_32F`.
    Bf16,
    /// f32 operands rounded to TF32 by the tensor cores, f32 accumulation: `CUDA_R_32F`,
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`.
    Tf32,
}

impl<'a> Cublas<'a> {
    /// `C = A B` on the tensor cores (`cublasGemmEx`) for row-major `A` (`m x k`), `B` given
    /// transposed (`bt`, `n x k`, row-major) and row-major f32 `C` (`m x n`), queued on the
    /// stream. `a` and `bt` hold words: BF16 pairs (`m k / 2` and `n k / 2`, `k` even) or f32
    /// (`m k` and `n k`), as `inputs` says.
    ///
    /// Column-major, the buffer of `bt` is `B` (`k x n`) and that of `A` is `A^T`, so this asks
    /// for `C^T = B^T A^T`: `cublasGemmEx(T, N, n, m, k, bt, k, a, k, C, n)`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_tensor_nt<W>(
        &mut self,
        inputs: TensorInputs,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<W>,
        bt: &DeviceBuffer<W>,
        c: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        let per_word = match inputs {
            TensorInputs::Bf16 => 2,
            TensorInputs::Tf32 => 1,
        };
        if size_of::<W>() != 4 || !k.is_multiple_of(per_word) {
            return Err(Error::InvalidArgument(format!(
                "a tensor GEMM takes 4-byte words and, for BF16, an even k, not {}-byte words and k = {k}",
                size_of::<W>()
            )));
        }
        if a.len() < m * k / per_word || bt.len() < n * k / per_word || c.len() < m * n {
            return Err(Error::InvalidArgument(format!(
                "GEMM {m}x{n}x{k} needs {} and {} words of operands and {} of C, not {}, {} and {}",
                m * k / per_word,
                n * k / per_word,
                m * n,
                a.len(),
                bt.len(),
                c.len()
            )));
        }
        let (mi, ni, ki) = cublas_dims(m, n, k)?;
        let stream = &self.device.stream;
        let (a_ptr, _a_record) = a.as_cuda().ok_or_else(not_on_cuda)?.device_ptr(stream);
        let (b_ptr, _b_record) = bt.as_cuda().ok_or_else(not_on_cuda)?.device_ptr(stream);
        let (c_ptr, _c_record) = c.as_cuda_mut().ok_or_else(not_on_cuda)?.device_ptr_mut(stream);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (input_type, compute) = match inputs {
            TensorInputs::Bf16 => (
                sys::cudaDataType::CUDA_R_16BF,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            ),
            TensorInputs::Tf32 => (
                sys::cudaDataType::CUDA_R_32F,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
            ),
        };
        // SAFETY: the pointers address live allocations of this device holding at least the
        // words checked above, used on the handle's stream; alpha and beta are host f32 values
        // (the handle's default pointer mode), as compute type 32F expects.
        unsafe {
            result::gemm_ex(
                self.handle,
                sys::cublasOperation_t::CUBLAS_OP_T,
                sys::cublasOperation_t::CUBLAS_OP_N,
                ni,
                mi,
                ki,
                (&alpha as *const f32).cast(),
                b_ptr as *const _,
                input_type,
                ki,
                a_ptr as *const _,
                input_type,
                ki,
                (&beta as *const f32).cast(),
                c_ptr as *mut _,
                sys::cudaDataType::CUDA_R_32F,
                ni,
                compute,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(cublas_error("cublasGemmEx"))
    }
}

/// One operand of [`Cublas::gemm_ex`]: the device address of a column-major matrix, its leading
/// dimension, and whether the product takes its transpose.
#[derive(Clone, Copy, Debug)]
pub struct GemmOperand {
    pub address: u64,
    pub ld: usize,
    pub transposed: bool,
}

impl<'a> Cublas<'a> {
    /// `C = alpha op(A) op(B) + beta C`, column-major (`C` is `m x n` at `c.0`, columns `c.1`
    /// apart), for operands of `T` (BF16, FP16, f32) and f32 `C`, computed in f32
    /// (`CUBLAS_COMPUTE_32F`, or `_FAST_TF32` for f32 operands when `tf32`), queued on the
    /// stream.
    ///
    /// # Safety
    /// The addresses are of this device's memory, holding the matrices the dimensions and
    /// leading dimensions describe (`ferrocuda::blas` checks them against their views), alive
    /// until the queued work has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gemm_ex<T: super::TensorElement>(
        &mut self,
        tf32: bool,
        (m, n, k): (usize, usize, usize),
        alpha: f32,
        a: GemmOperand,
        b: GemmOperand,
        beta: f32,
        c: (u64, usize),
    ) -> Result<()> {
        use cudarc::driver::sys::CUtensorMapDataType as Map;
        let (mi, ni, ki) = cublas_dims(m, n, k)?;
        let ld = |x: usize| cublas_dims(x, 1, 1).map(|d| d.0);
        let input = match T::DATA_TYPE {
            Map::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 => sys::cudaDataType::CUDA_R_16BF,
            Map::CU_TENSOR_MAP_DATA_TYPE_FLOAT16 => sys::cudaDataType::CUDA_R_16F,
            _ => sys::cudaDataType::CUDA_R_32F,
        };
        let compute = if tf32 && input == sys::cudaDataType::CUDA_R_32F {
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
        } else {
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
        };
        let op = |x: &GemmOperand| {
            if x.transposed {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        // SAFETY: the caller's contract; alpha and beta are host f32 values (the handle's default
        // pointer mode), as compute type 32F expects.
        unsafe {
            result::gemm_ex(
                self.handle,
                op(&a),
                op(&b),
                mi,
                ni,
                ki,
                (&alpha as *const f32).cast(),
                a.address as *const _,
                input,
                ld(a.ld)?,
                b.address as *const _,
                input,
                ld(b.ld)?,
                (&beta as *const f32).cast(),
                c.0 as *mut _,
                sys::cudaDataType::CUDA_R_32F,
                ld(c.1)?,
                compute,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(cublas_error("cublasGemmEx"))
    }
}

/// A handle kept by its device for `ferrocuda::blas` ([`Cublas::with_cached`]), destroyed with it.
pub(crate) struct CachedHandle(sys::cublasHandle_t);
// SAFETY: the handle is used only under its device's mutex, one thread at a time.
unsafe impl Send for CachedHandle {}

impl Drop for CachedHandle {
    fn drop(&mut self) {
        // SAFETY: created by `Cublas::new`, destroyed once here.
        let _ = unsafe { result::destroy_handle(self.0) };
    }
}

impl<'a> Cublas<'a> {
    /// Calls `f` with the handle `device` keeps (created on first use, in the default math
    /// mode, on the device's stream), under the device's lock: a library call pays for
    /// `cublasCreate` once per device, not once per product.
    pub(crate) fn with_cached<R>(device: &'a CudaDevice, f: impl FnOnce(&mut Cublas<'a>) -> Result<R>) -> Result<R> {
        let mut slot = device.cublas.lock().unwrap_or_else(|p| p.into_inner());
        let handle = match &*slot {
            Some(cached) => cached.0,
            None => {
                let cublas = std::mem::ManuallyDrop::new(Cublas::new(device)?);
                slot.insert(CachedHandle(cublas.handle)).0
            }
        };
        // Not dropped: the handle stays the device's.
        let mut cublas = std::mem::ManuallyDrop::new(Cublas { device, handle });
        f(&mut cublas)
    }
}

impl Drop for Cublas<'_> {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once here; work queued with it is ordered on the
        // stream before any later free.
        let _ = unsafe { result::destroy_handle(self.handle) };
    }
}
