//! The kernel of Rust-CUDA's `examples/cuda/vecadd`, ported: `c[i] = a[i] + b[i]`.
//!
//! Rust-CUDA's `#[kernel] pub unsafe fn vecadd(a: &[f32], b: &[f32], c: *mut f32)` takes its
//! slices as pointer and length pairs and writes through a raw pointer, so the function is
//! `unsafe` and the launch (`launch!`) must pass the right values in the right order. Here the
//! kernel takes one `#[repr(C)]` argument struct of views that know their length: the write is
//! bounds-checked, the kernel is safe, and the host launch is type-checked against the struct.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

// Rust-CUDA: `use cuda_std::prelude::*;`
use ferrocuda_device::prelude::*;

/// Arguments of [`vecadd`]: three views of equal length, which the host checks before every
/// launch (Rust-CUDA passes `c` as a bare pointer, with no length to check).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, b, c))]
pub struct VecaddArgs<'a> {
    /// The left operand.
    pub a: Slice<'a, f32>,
    /// The right operand.
    pub b: Slice<'a, f32>,
    /// The sum, written.
    pub c: SliceMut<'a, f32>,
}

/// `c[idx] = a[idx] + b[idx]`, one thread per element; `#[kernel]` also makes its launch handle,
/// `Vecadd`.
#[kernel]
pub fn vecadd(args: VecaddArgs<'_>) {
    // Rust-CUDA: `let idx = thread::index_1d() as usize;`
    let idx = global_idx_x();
    if idx < args.a.len() {
        // Rust-CUDA: `let elem = unsafe { &mut *c.add(idx) }; *elem = a[idx] + b[idx];`
        args.c.set(idx, args.a.get(idx) + args.b.get(idx));
    }
}
