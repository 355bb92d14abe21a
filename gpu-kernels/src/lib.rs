//! GPU kernels in Rust, and the device library they are written against.
//!
//! Compiled twice, from one source:
//! - for `nvptx64-nvidia-cuda` by `gpu-kernels-builder` (from the host crate's build script) into
//!   one PTX module per architecture, holding every `#[kernel]` (`no_std`, nothing but `core`);
//! - for the host, as an ordinary dependency of the host library, which then sees each kernel's
//!   `*Args` struct and launch handle (so a launcher whose arguments do not match its kernel
//!   fails to compile), and runs the very same kernel bodies on the CPU simulator ([`sim`]), which
//!   takes the place of the one target-specific module, `device::arch`.
//!
//! Layout (CUDA programming guide topics, CUB layers):
//! - [`memory`]: the global-memory views kernels take as arguments (`Slice`, `SliceMut`);
//! - [`launch`]: the `Kernel` trait tying a kernel to its arguments;
//! - [`real`]: `f32`/`f64` as one generic `Real`, so one kernel source serves both precisions;
//! - [`device`]: indexing, barriers, shared memory, warp, atomics, math (on the host: tile sizes);
//! - [`collective`]: warp-wide reductions built on `device`;
//! - [`elementary`]: `ln`, `exp`, `sqrt`, `sincospi` rounded identically on the GPU and the CPU;
//! - [`random`]: counter-based random numbers (Philox4x32-10), identical on the GPU and the CPU;
//! - [`kernels`]: the examples' kernels, one file per example id;
//! - `sim` (host only): the CPU simulator that executes a launch under CUDA's execution model.
#![no_std]
// `core_intrinsics` is internal, but `gpu_launch_sized_workgroup_mem` (the base of dynamic
// shared memory) lives under `core::intrinsics::gpu`.
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_gpu_kernel,
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod kernels;
pub mod launch;
pub mod memory;
pub mod random;
pub mod real;

pub mod collective;
pub mod device;
pub mod elementary;
#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;

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
    pub use crate::memory::{Element, Element4, ReadOnlyElement, Slice, SliceMut};
    pub use crate::real::Real;
    pub use crate::unroll;
    pub use gpu_kernels_macros::kernel;

    pub use crate::device::{index::*, math, sync::*};
}

/// A panic on the GPU (a failed bounds check, an overflow in a debug build) stops the kernel with
/// `trap`, which the host sees as `CUDA_ERROR_ILLEGAL_INSTRUCTION`; no formatting code is linked.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    device::arch::trap()
}
