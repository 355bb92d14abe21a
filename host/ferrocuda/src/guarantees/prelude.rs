// The kernels the examples of `guarantees.rs` launch, included by each (a doctest is a crate of
// its own). The simulator runs them without PTX.
use ferrocuda::device::prelude::*;
use ferrocuda::{Gpu, KernelSet, KernelView, LaunchShape};

#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct ScaleArgs<'a> {
    pub x: SliceMut<'a, f32>,
    pub a: f32,
}

#[kernel]
pub fn scale(args: ScaleArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        args.x.update(i, |v| v * args.a);
    }
}

#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
#[kernel_args(same_len(from, to))]
pub struct CopyArgs<'a> {
    pub from: SliceMut<'a, f32>,
    pub to: SliceMut<'a, f32>,
}

#[kernel]
pub fn copy_half(args: CopyArgs<'_>) {
    let i = global_idx_x();
    if i < args.to.len() {
        args.to.set(i, args.from.get(i));
    }
}

#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct SaxpyArgs<'a> {
    pub x: Slice<'a, f32>,
    pub y: SliceMut<'a, f32>,
    pub a: f32,
}

#[kernel]
pub fn saxpy(args: SaxpyArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        args.y.set(i, args.a * args.x.get(i) + args.y.get(i));
    }
}

static KERNELS: KernelSet = KernelSet::new(env!("CARGO_CRATE_NAME"), &[]);
