//! Appendix C.2's `zero` kernel (`zero.cu`): the Rust twin of `host/book/ferrocuda-book/nvcc/appc/zero.cu`,
//! same symbol and argument layout, so that one typed handle launches the CUDA C kernel nvcc
//! compiled and this one.
use ferrocuda_device::prelude::*;

/// Arguments of [`zero`]: the array it clears.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ZeroArgs<'a> {
    pub a: SliceMut<'a, f32>,
}

/// `a[blockIdx.x * blockDim.x + threadIdx.x] = 0`, within the array.
#[kernel]
pub fn zero(args: ZeroArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        args.a.set(i, 0.0);
    }
}
