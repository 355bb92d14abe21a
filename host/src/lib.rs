//! # ferrocuda
//!
//! Pure-Rust GPU kernels (the `gpu-kernels` crate, compiled to PTX at build time and embedded
//! here) run on NVIDIA GPUs through the CUDA driver, loaded at run time: nothing to install but
//! the driver.
//!
//! - [`gpu`]: the runtime: [`Gpu`] (a device, its stream and kernels), typed launches with
//!   explicit [`LaunchShape`]s, device and pinned buffers, event timing, one [`Error`] type;
//! - [`kernels`]: the kernels' argument structs and launch handles (from `gpu-kernels`);
//! - [`examples`]: every example of the teaching material as a plain function; [`reference`]
//!   holds their CPU references (rayon) and [`verify`] the comparison;
//! - [`bench`]: the benchmarks of `cargo xtask bench`.
//!
//! Launching a kernel from your own program:
//!
//! ```no_run
//! use ferrocuda::kernels::stream::{BinaryArgs, StreamTriad};
//! use ferrocuda::{Gpu, KernelView, LaunchShape};
//!
//! let gpu = Gpu::new(0)?;
//! let n = 1 << 20;
//! let a_d = gpu.upload(&vec![1.0f32; n])?;
//! let b_d = gpu.upload(&vec![2.0f32; n])?;
//! let mut c_d = gpu.zeros::<f32>(n)?;
//! // c = a + b * 3: the argument struct must match the kernel, or this does not compile.
//! let args = BinaryArgs { a: a_d.view(), b: b_d.view(), c: c_d.view_mut(), scalar: 3.0 };
//! gpu.launch(StreamTriad, LaunchShape::cover_1d(n, 256)?, args)?;
//! assert!(gpu.download(&c_d)?.iter().all(|&c| c == 7.0));
//! # Ok::<(), ferrocuda::Error>(())
//! ```
pub mod agreement;
pub mod bench;
pub mod examples;
pub mod gpu;
pub mod measure;
pub mod plot;
pub mod ptx;
pub mod random;
pub mod reduce;
pub mod reference;
pub mod sor;
pub mod verify;

pub use gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
/// The kernel crate itself, for its device library and tile types.
pub use gpu_kernels;
/// The kernels' argument structs and launch handles, by example id.
pub use gpu_kernels::kernels;
pub use gpu_kernels::launch::Kernel;
pub use gpu_kernels::memory::{Slice, SliceMut};
