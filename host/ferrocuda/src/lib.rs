//! # ferrocuda
//!
//! Run GPU kernels written in Rust on NVIDIA GPUs, or on the CPU simulator that runs the very
//! same kernels without one. Nothing to install but the NVIDIA driver (loaded at run time): no
//! CUDA toolkit, no LLVM.
//!
//! The crates, bottom up:
//! - `ferrocuda-device` (re-exported as [`device`]): what kernels are written against, the
//!   counterpart of Rust-CUDA's `cuda_std`; `#[kernel]` turns a function into a PTX entry point
//!   and a typed launch handle;
//! - `ferrocuda-builder`: compiles a kernel crate to PTX from a build script (`cuda_builder`);
//! - `ferrocuda-sim`: the CPU simulator, with checks a GPU cannot give (races on shared memory,
//!   barriers not every thread reaches, out-of-bounds accesses), named by kernel, block and thread;
//! - `ferrocuda` (this crate): the runtime ([`Gpu`], buffers, [`LoadedKernels`] and typed launches,
//!   streams, events) and the library calls: [`reduce`], [`random`], [`sor`], [`fft`], [`transpose`],
//!   [`cuf`] (loops launched with the shape chosen for you), with the CPU
//!   references they are checked against, [`measure`] and [`verify`].
//!
//! A kernel of your own, launched on a GPU or on the simulator with the same call (here the
//! simulator, and the kernel inline: in a project the kernel lives in its own `no_std` crate,
//! built to PTX by `ferrocuda_builder` and embedded with [`include_kernels!`]):
//!
//! ```
//! use ferrocuda::device::prelude::*;
//! use ferrocuda::{Gpu, KernelSet, KernelView, LaunchShape};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! #[kernel_args(same_len(x, y))]
//! pub struct SaxpyArgs<'a> { pub x: Slice<'a, f32>, pub y: SliceMut<'a, f32>, pub a: f32 }
//!
//! #[kernel]
//! pub fn saxpy(args: SaxpyArgs<'_>) {
//!     let i = global_idx_x();
//!     if i < args.y.len() {
//!         args.y.set(i, args.a * args.x.get(i) + args.y.get(i));
//!     }
//! }
//!
//! // In a project: `static KERNELS: KernelSet = ferrocuda::include_kernels!("my_kernels");`.
//! // Here the kernel is in this very crate, and the simulator needs no PTX:
//! static KERNELS: KernelSet = KernelSet::new(env!("CARGO_CRATE_NAME"), &[]);
//!
//! let gpu = Gpu::simulator(); // or Gpu::from_env(0)?: a GPU when there is one
//! let n = 1000;
//! let x_d = gpu.upload(&vec![1.0f32; n])?;
//! let mut y_d = gpu.upload(&vec![2.0f32; n])?;
//! let args = SaxpyArgs { x: x_d.view(), y: y_d.view_mut(), a: 3.0 };
//! gpu.load(&KERNELS)?.launch(Saxpy, LaunchShape::cover_1d(n, 256)?, args)?;
//! assert!(gpu.download(&y_d)?.iter().all(|&y| y == 5.0));
//! # Ok::<(), ferrocuda::Error>(())
//! ```
//!
//! A launch whose argument struct is not the kernel's does not compile; one whose views differ
//! in length where the struct declares them equal, or whose shape the device cannot run, is an
//! error naming the kernel. The library calls need no kernel of yours:
//!
//! ```
//! let gpu = ferrocuda::Gpu::simulator();
//! let x: Vec<f32> = (1..=1000).map(|i| i as f32).collect();
//! let x_d = gpu.upload(&x)?;
//! assert_eq!(ferrocuda::reduce::sum(&gpu, &x_d)?, 500500.0);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
pub mod blas;
pub mod cuf;
pub mod fft;
pub mod footprint;
pub mod gpu;
pub mod guarantees;
pub mod histogram;
mod look_back;
pub mod measure;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod ptx;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod sor;
pub mod sort;
pub mod transpose;
pub mod verify;

/// The device library kernels are written against (`ferrocuda-device`).
pub use ferrocuda_device as device;
pub use ferrocuda_device::global::{Slice, SliceMut};
pub use ferrocuda_device::launch::{Kernel, KernelArgs};
/// The CPU simulator (`ferrocuda-sim`): its optional checks ([`sim::Checks`],
/// [`sim::with_checks`], `FERROCUDA_SIM_CHECKS`) and the faults it reports ([`sim::Fault`]).
pub use ferrocuda_sim as sim;
pub use gpu::{
    BackendChoice, DeviceBuffer, Error, Gpu, KernelSet, KernelView, LaunchShape, LoadedKernels, Result, TensorMap,
};
/// The library's own kernels (`gpu-kernels`), for launching them directly through
/// `gpu.load(&ferrocuda::ptx::LIBRARY)`.
pub use gpu_kernels as kernels;
