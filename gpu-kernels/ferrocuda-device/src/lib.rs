//! The device library of ferrocuda: what GPU kernels written in Rust are built on (the project's
//! `cuda_std`).
//!
//! A kernel crate is `#![no_std]`, depends on this crate, and marks each kernel with
//! [`#[kernel]`](macro@kernel). `ferrocuda-builder` compiles it to PTX for `nvptx64-nvidia-cuda`
//! (nothing but `core`); on the host the same crate is an ordinary dependency, so the host sees
//! each kernel's `#[repr(C)]` argument struct and launch handle (a launch whose arguments do not
//! match its kernel fails to compile), and the CPU simulator (`ferrocuda-sim`) runs the very same
//! kernel bodies, standing in for the one target-specific module, [`arch`].
//!
//! ```
//! use ferrocuda_device::prelude::*;
//!
//! /// The arguments of `saxpy`: one `#[repr(C)]` struct, shared by the kernel and the host.
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! #[kernel_args(same_len(x, y))]
//! pub struct SaxpyArgs<'a> {
//!     pub x: Slice<'a, f32>,
//!     pub y: SliceMut<'a, f32>,
//!     pub a: f32,
//! }
//!
//! /// `y = a x + y`, one thread per element.
//! #[kernel]
//! pub fn saxpy(args: SaxpyArgs<'_>) {
//!     let i = global_idx_x();
//!     if i < args.y.len() {
//!         args.y.set(i, args.a * args.x.get(i) + args.y.get(i));
//!     }
//! }
//! ```
//!
//! Topics, as the CUDA C++ Programming Guide groups them:
//!
//! | module | guide section | CUDA C |
//! | --- | --- | --- |
//! | [`index`] | built-in variables | `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, grid-stride loops |
//! | [`sync`] | synchronization, memory fences, time | `__syncthreads`, `__threadfence*`, `clock64` |
//! | [`global`] | global memory | kernel arguments `T*` as bounds-checked views, `__ldg`, `__ldcg`, vector loads |
//! | [`constant`] | constant memory | `__constant__` variables (one bank, written by the host) |
//! | [`variable`] | device memory space | `__device__` variables ([`device_variable!`]), shared across modules |
//! | [`shared`] | shared memory | `extern __shared__` tiles, padded 2-D tiles, one declared layout ([`shared_layout!`]) |
//! | [`warp`] | warp shuffle and vote | `__shfl_*_sync`, `__any_sync`, `__ballot_sync`, `__syncwarp`, `__activemask` |
//! | [`atomic`] | atomic functions | `atomicAdd`, `atomicSub`, `atomicMin`, `atomicMax`, `atomicAnd`, `atomicOr`, `atomicXor`, `atomicExch`, `atomicCAS`, with `_block` and `_system` scopes |
//! | [`math`] | mathematical functions, intrinsics | `__fmaf_rn`, `__fmul_rn`, `__sinf`, `sinf` |
//! | [`print`](mod@print) | formatted output | `printf` ([`println!`], [`print!`]) |
//! | [`mma`] | warp matrix functions (`wmma`), `mma.sync` | fragments, `mma_sync`, BF16 and TF32 with f32 accumulation, `ldmatrix` |
//! | [`pipeline`] | asynchronous data copies | `__pipeline_memcpy_async`, `__pipeline_commit`, `__pipeline_wait_prior` (`cp.async`) |
//! | [`collective`] | (CUB) | `WarpReduce`, `WarpScan`, `BlockReduce`, `BlockScan`, `DeviceScan`'s agent |
//! | [`random`] | (cuRAND) | Philox4x32-10, identical on the GPU and the CPU |
//! | [`complex`] | (cuComplex) | `cuFloatComplex`, `cuDoubleComplex` as one generic `Complex<T>` |
//!
//! Beside them: [`launch`] (the `Kernel` trait tying a kernel to its arguments, and its launch
//! bounds, `#[kernel(max_threads = ..)]`, CUDA C's `__launch_bounds__`), [`real`] (`f32`
//! and `f64` as one generic `Real`), [`elementary`] (`ln`, `exp`, `sqrt`, `sincospi` rounded
//! identically on the GPU and the CPU). Only [`arch`] touches `core::arch::nvptx` or inline PTX.
//!
//! A kernel crate needs, at its root:
//!
//! ```text
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]
//! ```
#![no_std]
// `core_intrinsics` is internal, but `gpu_launch_sized_workgroup_mem` (the base of dynamic
// shared memory) lives under `core::intrinsics::gpu`.
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]

// Only the tests use std: a kernel crate's host build must see `core` alone, as its nvptx build
// does, or std's inherent float methods (`f32::exp`) would win over this library's.
#[cfg(all(test, not(target_arch = "nvptx64")))]
extern crate std;
// The simulator, which defines the symbols `arch` calls, linked into this crate's tests.
#[cfg(all(test, not(target_arch = "nvptx64")))]
extern crate ferrocuda_sim as _;

// `#[kernel]` and `#[derive(KernelArgs)]` name `::ferrocuda_device`, which this lets them do here.
extern crate self as ferrocuda_device;

pub mod arch;
pub mod atomic;
pub mod collective;
pub mod complex;
pub mod constant;
pub mod elementary;
pub mod global;
pub mod half;
pub mod hopper;
pub mod index;
pub mod launch;
pub mod math;
pub mod mma;
pub mod pipeline;
pub mod print;
pub mod random;
pub mod real;
pub mod shared;
pub mod sync;
pub mod variable;
pub mod warp;

pub use ferrocuda_macros::{KernelArgs, kernel};

/// Repeats `$body` once per listed value, `$i` bound to it: `unroll!(i in [0, 1, 2, 3] => { .. })`.
///
/// The `#pragma unroll` Rust lacks. LLVM fully unrolls only loops below a size threshold; a
/// thread-private array indexed in a loop it leaves rolled lives in local memory (see
/// ch3-localmem). Spelled out, every index is a constant and the array stays in registers.
#[macro_export]
macro_rules! unroll {
    ($i:ident in [$($n:literal),* $(,)?] => $body:block) => {
        $( { let $i: usize = $n; $body } )*
    };
}

/// What a kernel file imports.
pub mod prelude {
    pub use crate::complex::{Complex, ComplexScalar};
    // The float methods (`x.exp()`, `x.ln()`, `x.sqrt()`, `x.sin()`, `x.sincos()`): the same
    // functions on the GPU and the simulator, since a kernel crate sees no std's inherent ones.
    pub use crate::elementary::{Elementary, Exp};
    pub use crate::global::{Element, Element4, L2Element, ReadOnlyElement, Slice, SliceMut};
    pub use crate::launch::KernelArgs;
    pub use crate::real::Real;
    pub use crate::unroll;
    pub use ferrocuda_macros::{KernelArgs, kernel};

    pub use crate::{index::*, math, sync::*};
}

/// A panic on the GPU (a failed bounds check, an overflow in a debug build) stops the kernel with
/// `trap`, which the host sees as `CUDA_ERROR_ILLEGAL_INSTRUCTION`; no formatting code is linked.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    arch::trap()
}
