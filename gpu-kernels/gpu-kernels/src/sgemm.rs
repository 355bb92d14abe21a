//! Exact FP32 GEMM on the SIMT cores (`ferrocuda::blas` with `F32Math::Fp32`): the device
//! library's register-tiled block (`collective::sgemm`) as a kernel. `blas` reduces every layout
//! to its row-major operands.
use ferrocuda_device::collective::sgemm::sgemm_block;
pub use ferrocuda_device::collective::sgemm::{BM, BN, SGEMM_SHARED_BYTES, SGEMM_THREADS, SgemmArgs};
use ferrocuda_device::prelude::*;

/// `C = alpha A B + beta C`, exact FP32.
///
/// Launch: blocks of [`SGEMM_THREADS`] threads (1-D), a grid of `ceil(n / BN) x ceil(m / BM)`,
/// [`SGEMM_SHARED_BYTES`].
#[kernel]
pub fn sgemm(args: SgemmArgs<'_>) {
    sgemm_block::<false>(args)
}
