//! Segmented copies in 1-D and 2-D (Decyk's tutorial: `gcopy1`, `gcopy2a`, `gcopy2b`, `gcopy3`).
//!
//! 2-D arrays are `nx * ny`, row-major with `nx` contiguous (the tutorial's Fortran `b(nx,ny)`).
use ferrocuda_device::prelude::*;

/// Arguments of every copy: `a = b`, both `nx * ny` long (`ny = 1` for the 1-D copy).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct CopyArgs<'a> {
    /// Output.
    pub a: SliceMut<'a, f32>,
    /// Input.
    pub b: Slice<'a, f32>,
    /// Row length (the contiguous dimension).
    pub nx: u32,
    /// Row count.
    pub ny: u32,
}

/// 1-D: block `jb` copies elements `mx*jb .. mx*(jb+1)`, one per thread.
#[kernel]
pub fn gcopy1(args: CopyArgs<'_>) {
    let j = global_idx_x();
    if j < args.nx as usize {
        args.a.set(j, args.b.get(j));
    }
}

/// 2-D, one row of blocks per row of the array: grid `(ceil(nx/mx), ny)`.
#[kernel]
pub fn gcopy2a(args: CopyArgs<'_>) {
    let j = global_idx_x();
    let k = block_idx().y;
    if j < args.nx as usize && k < args.ny as usize {
        let at = k * args.nx as usize + j;
        args.a.set(at, args.b.get(at));
    }
}

/// 2-D, "fewer blocks, more work per block": one block per row, whose threads stride along it.
#[kernel]
pub fn gcopy2b(args: CopyArgs<'_>) {
    let k = block_idx().x;
    if k < args.ny as usize {
        let row = k * args.nx as usize;
        let mut j = thread_idx_x();
        while j < args.nx as usize {
            args.a.set(row + j, args.b.get(row + j));
            j += block_dim().x;
        }
    }
}

/// 2-D, doubly segmented: `mx x my` blocks on a `ceil(nx/mx) x ceil(ny/my)` grid.
#[kernel]
pub fn gcopy3(args: CopyArgs<'_>) {
    let j = global_idx_x();
    let k = global_idx_y();
    if j < args.nx as usize && k < args.ny as usize {
        let at = k * args.nx as usize + j;
        args.a.set(at, args.b.get(at));
    }
}

/// Arguments of [`empty_kernel`]: none (a zero-sized struct is not a valid PTX parameter, so
/// it carries one unused word).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs, Default)]
pub struct EmptyArgs {
    pub unused: u32,
}

/// Does nothing: its time is the launch overhead the tutorial prints as "empty kernel time".
#[kernel]
pub fn empty_kernel(_args: EmptyArgs) {}
