//! What the types guarantee: a program without `unsafe` cannot corrupt memory, on a GPU or on
//! the simulator. Each guarantee is pinned here by a program the compiler refuses (a
//! `compile_fail` test, with its error code where rustc gives one) next to the same program
//! written correctly, which compiles and runs on the simulator. CI runs all of them.
//!
//! The examples share one kernel, which scales a vector in place, and `saxpy`:
//!
//! ```
//! use ferrocuda::device::prelude::*;
//!
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct ScaleArgs<'a> { pub x: SliceMut<'a, f32>, pub a: f32 }
//!
//! #[kernel]
//! pub fn scale(args: ScaleArgs<'_>) {
//!     let i = global_idx_x();
//!     if i < args.x.len() { args.x.update(i, |v| v * args.a); }
//! }
//! ```
//!
//! # A view borrows its buffer
//! `view(&self)` and `view_mut(&mut self)` return views that borrow the buffer, as `&[T]` and
//! `&mut [T]` borrow a `Vec`, and an argument struct that holds views holds that borrow. So a
//! buffer cannot be dropped while a view of it may still be launched with (E0505):
//!
//! ```compile_fail,E0505
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator(); let kernels = gpu.load(&KERNELS)?;
//! let mut x_d = gpu.zeros::<f32>(1 << 20)?;
//! let args = ScaleArgs { x: x_d.view_mut(), a: 2.0 };
//! drop(x_d); // error: `x_d` is borrowed by `args`
//! kernels.launch(Scale, LaunchShape::cover_1d(1 << 20, 256)?, args)?;
//! # Ok(()) }
//! ```
//!
//! Nor can a view escape the function that owns its buffer (E0515):
//!
//! ```compile_fail,E0515
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! fn leak(gpu: &Gpu) -> SliceMut<'static, f32> {
//!     let mut x_d = gpu.zeros::<f32>(16).unwrap();
//!     x_d.view_mut() // error: returns a value referencing data owned by the function
//! }
//! # fn main() {}
//! ```
//!
//! Dropping the buffer right after the launch is fine, on any stream: the launch borrowed it
//! until it was queued, and the free is queued after all the work queued before it (on CUDA, in
//! stream order on the legacy default stream, which waits for every stream of its device, and
//! after an event of every other device's work; on the simulator the launch has finished):
//!
//! ```
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator(); let kernels = gpu.load(&KERNELS)?;
//! let stream = gpu.new_stream()?;
//! let mut x_d = gpu.upload(&[1.0f32; 1000])?;
//! kernels.launch_on(&stream, Scale, LaunchShape::cover_1d(1000, 256)?, ScaleArgs { x: x_d.view_mut(), a: 2.0 })?;
//! drop(x_d); // the free waits for the launch
//! # Ok(()) }
//! ```
//!
//! A view moved into a launch on another stream borrows the buffer in the same way, so the
//! buffer cannot be dropped before the launch is queued (E0505):
//!
//! ```compile_fail,E0505
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator(); let kernels = gpu.load(&KERNELS)?;
//! let stream = gpu.new_stream()?;
//! let mut x_d = gpu.zeros::<f32>(1000)?;
//! let args = ScaleArgs { x: x_d.view_mut(), a: 2.0 };
//! drop(x_d); // error: `x_d` is borrowed by `args`
//! kernels.launch_on(&stream, Scale, LaunchShape::cover_1d(1000, 256)?, args)?;
//! # Ok(()) }
//! ```
//!
//! # A writable view excludes every other view of its buffer
//! Two writable views of one buffer (E0499), or a writable and a read-only one (E0502), cannot
//! exist at once:
//!
//! ```compile_fail,E0499
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator();
//! let mut y_d = gpu.zeros::<f32>(1000)?;
//! let args = CopyArgs { from: y_d.view_mut(), to: y_d.view_mut() }; // error: second mutable borrow
//! # let _ = args; Ok(()) }
//! ```
//!
//! ```compile_fail,E0502
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator();
//! let mut y_d = gpu.zeros::<f32>(1000)?;
//! let args = SaxpyArgs { x: y_d.view(), y: y_d.view_mut(), a: 2.0 }; // error: `y_d` borrowed twice
//! # let _ = args; Ok(()) }
//! ```
//!
//! A writable view is `Copy` (every thread of a launch gets a copy of its arguments), so one
//! view can be copied into two fields, or cut into overlapping [`SliceMut::subview`](crate::device::global::SliceMut::subview)s. The
//! launch refuses that at run time, naming the fields; subviews that do not overlap are fine,
//! and a read-only twin of a writable view ([`SliceMut::as_slice`](crate::device::global::SliceMut::as_slice)) is allowed, for in-place
//! kernels, whose threads order their own reads and writes as in CUDA C:
//!
//! ```
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator(); let kernels = gpu.load(&KERNELS)?;
//! let mut y_d = gpu.zeros::<f32>(1000)?;
//! let y = y_d.view_mut();
//! let shape = LaunchShape::cover_1d(500, 256)?;
//! let refused = kernels.launch(CopyHalf, shape, CopyArgs { from: y, to: y });
//! assert!(refused.unwrap_err().to_string().contains("`from` and `to` are writable views of overlapping memory"));
//! let (low, high) = (y.subview(0..500).unwrap(), y.subview(500..1000).unwrap());
//! kernels.launch(CopyHalf, shape, CopyArgs { from: low, to: high })?;
//! # Ok(()) }
//! ```
//!
//! # A launch takes its kernel's arguments
//! A launch handle implements `Kernel<A>` only for its kernel's argument struct (E0308 here;
//! E0277, "`saxpy` is not the launch handle of a kernel taking `SaxpyArgs`", for a function
//! that is not a kernel's handle):
//!
//! ```compile_fail,E0308
//! # include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guarantees/prelude.rs"));
//! # fn main() -> ferrocuda::Result<()> { let gpu = Gpu::simulator(); let kernels = gpu.load(&KERNELS)?;
//! let (x_d, mut y_d) = (gpu.zeros::<f32>(8)?, gpu.zeros::<f32>(8)?);
//! let args = SaxpyArgs { x: x_d.view(), y: y_d.view_mut(), a: 2.0 };
//! kernels.launch(Scale, LaunchShape::cover_1d(8, 8)?, args)?; // error: `Scale` takes `ScaleArgs`
//! # Ok(()) }
//! ```
//!
//! # A kernel takes plain data
//! An argument struct holds numbers, arrays of them, views and argument structs
//! ([`DeviceCopy`](crate::device::launch::DeviceCopy)): not references or cells, which a kernel
//! on a device, or the simulator's host threads all at once, would reach behind the borrow
//! checker. Such a struct is no `KernelArgs`, so no kernel takes it (E0277):
//!
//! ```compile_fail,E0277
//! use ferrocuda::device::prelude::*;
//! use core::cell::Cell;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct CountArgs<'a> { pub count: &'a Cell<u32>, pub n: u32 }
//! #[kernel]
//! pub fn count(args: CountArgs<'_>) { args.count.set(args.count.get() + args.n) }
//! # fn main() {}
//! ```
//!
//! # What the macros refuse
//! An argument struct that holds views names their lifetime (E0106):
//!
//! ```compile_fail,E0106
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct ScaleArgs { pub x: SliceMut<f32>, pub a: f32 }
//! # fn main() {}
//! ```
//!
//! and so does the kernel that takes it (E0726: `ScaleArgs<'_>`):
//!
//! ```compile_fail,E0726
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct ScaleArgs<'a> { pub x: SliceMut<'a, f32>, pub a: f32 }
//! #[kernel]
//! pub fn scale(args: ScaleArgs) {}
//! # fn main() {}
//! ```
//!
//! The struct is `#[repr(C)]`, the layout the PTX entry point reads:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct ScaleArgs<'a> { pub x: SliceMut<'a, f32>, pub a: f32 }
//! # fn main() {}
//! ```
//!
//! The arguments are one struct, not an enum:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub enum Mode { Fast, Exact }
//! # fn main() {}
//! ```
//!
//! `same_len` names fields of the struct:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! #[kernel_args(same_len(x, z))]
//! pub struct SaxpyArgs<'a> { pub x: Slice<'a, f32>, pub y: SliceMut<'a, f32>, pub a: f32 }
//! # fn main() {}
//! ```
//!
//! and `kernel_args` takes nothing else:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! #[kernel_args(same_length(x, y))]
//! pub struct SaxpyArgs<'a> { pub x: Slice<'a, f32>, pub y: SliceMut<'a, f32>, pub a: f32 }
//! # fn main() {}
//! ```
//!
//! A launch needs a `Copy` argument struct (E0277):
//!
//! ```compile_fail,E0277
//! # use ferrocuda::device::prelude::*;
//! # use ferrocuda::{Gpu, KernelSet, KernelView, LaunchShape};
//! #[repr(C)]
//! #[derive(KernelArgs)]
//! pub struct ScaleArgs<'a> { pub x: SliceMut<'a, f32>, pub a: f32 }
//! #[kernel]
//! pub fn scale(args: ScaleArgs<'_>) {}
//! # fn main() {}
//! ```
//!
//! A kernel takes one argument struct:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[kernel]
//! pub fn scale(x: SliceMut<'_, f32>, a: f32) {}
//! # fn main() {}
//! ```
//!
//! and a generic kernel lists its instantiations, which only a generic kernel does:
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct FillArgs<'a, T> { pub x: SliceMut<'a, T>, pub value: T }
//! #[kernel]
//! pub fn fill<T: Element>(args: FillArgs<'_, T>) {}
//! # fn main() {}
//! ```
//!
//! ```compile_fail
//! use ferrocuda::device::prelude::*;
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct ScaleArgs<'a> { pub x: SliceMut<'a, f32>, pub a: f32 }
//! #[kernel(f32)]
//! pub fn scale(args: ScaleArgs<'_>) {}
//! # fn main() {}
//! ```
//!
//! # What stays the kernel author's
//! As in CUDA C: two threads of one launch writing one element, or one writing what another
//! reads, without a barrier or an atomic between them, is a race. On a GPU it gives a wrong
//! answer; on the simulator too (its memory accesses are atomics, so a race is not undefined
//! behaviour of the host process), and the simulator names shared-memory races in every run
//! and global-memory races between blocks with `FERROCUDA_SIM_CHECKS=global-race`. The escapes
//! are `unsafe`: [`Slice::from_raw_parts`](crate::device::global::Slice::from_raw_parts) and
//! [`SliceMut::from_raw_parts`](crate::device::global::SliceMut::from_raw_parts) (a view of memory
//! this library did not allocate) and the `_unchecked` accessors (no bound test on the GPU).
