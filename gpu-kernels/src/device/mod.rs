//! The device library: CUDA C's built-ins, grouped like the CUDA C++ Programming Guide.
//!
//! Kernels call only this API. Only [`arch`] touches `core::arch::nvptx` or inline PTX; on the
//! host the same functions come from the CPU simulator (`arch/sim.rs`), so every kernel also runs,
//! and is checked, without a GPU.
//!
//! | module | guide section | CUDA C |
//! | --- | --- | --- |
//! | [`index`] | built-in variables | `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, grid-stride loops |
//! | [`sync`] | synchronization, memory fences, time | `__syncthreads`, `__threadfence*`, `clock64` |
//! | [`constant`] | constant memory | `__constant__` variables (one bank, written by the host) |
//! | [`shared`] | shared memory | `extern __shared__` tiles, padded 2-D tiles |
//! | [`warp`] | warp shuffle and vote | `__shfl_*_sync`, `__any_sync`, `__ballot_sync`, `__activemask` |
//! | [`atomic`] | atomic functions | `atomicAdd`, `atomicMin`, `atomicExch`, `atomicCAS` |
//! | [`math`] | mathematical functions, intrinsics | `__fmaf_rn`, `__fmul_rn`, `__sinf`, `sinf` |
pub mod arch;
pub mod atomic;
pub mod constant;
pub mod index;
pub mod math;
pub mod shared;
pub mod sync;
pub mod warp;
