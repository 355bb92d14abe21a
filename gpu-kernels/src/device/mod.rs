//! The device library: CUDA C's built-ins, grouped like the CUDA C++ Programming Guide.
//!
//! Kernels call only this API. Only `arch` touches `core::arch::nvptx` or inline PTX, so a CPU
//! simulator backend can replace that one module. On the host only [`shared`]'s tile types exist,
//! so launchers can size a kernel's shared memory from the very types the kernel uses.
//!
//! | module | guide section | CUDA C |
//! | --- | --- | --- |
//! | `index` | built-in variables | `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, grid-stride loops |
//! | `sync` | synchronization, memory fences, time | `__syncthreads`, `__threadfence*`, `clock64` |
//! | [`shared`] | shared memory | `extern __shared__` tiles, padded 2-D tiles |
//! | `warp` | warp shuffle and vote | `__shfl_*_sync`, `__any_sync`, `__ballot_sync`, `__activemask` |
//! | `atomic` | atomic functions | `atomicAdd`, `atomicMin`, `atomicExch`, `atomicCAS` |
//! | `math` | mathematical functions, intrinsics | `__fmaf_rn`, `__fmul_rn`, `__sinf`, `sinf` |
#[cfg(target_arch = "nvptx64")]
pub mod arch;
#[cfg(target_arch = "nvptx64")]
pub mod atomic;
#[cfg(target_arch = "nvptx64")]
pub mod index;
#[cfg(target_arch = "nvptx64")]
pub mod math;
pub mod shared;
#[cfg(target_arch = "nvptx64")]
pub mod sync;
#[cfg(target_arch = "nvptx64")]
pub mod warp;
