//! The kernel of the `dot` example: each block folds its grid-stride share of `x · y` into one
//! partial sum, first within each warp by shuffles ([`warp_sum`]), then across the block's warps
//! through shared memory; the host adds the partials.
//!
//! A kernel crate is `no_std` (the GPU has only `core`): the host crate's build script compiles
//! it to PTX with `ferrocuda_builder`, and the host crate also depends on it as an ordinary crate,
//! for [`DotArgs`] and the launch handle [`DotPartials`] (and so the CPU simulator runs this very
//! body).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

use ferrocuda_device::collective::warp::warp_sum;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;
use ferrocuda_device::warp::{WARP_SIZE, lane_id};

/// Arguments of [`dot_partials`]: the host checks before every launch that `x` and `y` hold
/// equally many elements.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(x, y))]
pub struct DotArgs<'a> {
    /// The first vector.
    pub x: Slice<'a, f32>,
    /// The second vector.
    pub y: Slice<'a, f32>,
    /// One element per block of the grid: `partials[blockIdx.x]` receives the block's sum.
    pub partials: SliceMut<'a, f32>,
}

/// Dynamic shared memory a launch of [`dot_partials`] with blocks of `threads` threads needs:
/// one `f32` per warp.
pub const fn shared_bytes(threads: usize) -> usize {
    Tile1d::<f32>::bytes(threads / WARP_SIZE)
}

/// `partials[blockIdx.x] = Σ x[i] y[i]` over the indices `i` the block's threads visit in a
/// grid-stride loop.
///
/// Launch with blocks of a multiple of 32 threads (whole warps: [`warp_sum`] needs all 32 lanes),
/// at most 1024, [`shared_bytes`]`(threads)` bytes of dynamic shared memory, and `partials` of
/// one element per block.
#[kernel]
pub fn dot_partials(args: DotArgs<'_>) {
    // 1. Each thread: its grid-stride share, in registers.
    let mut sum = 0.0f32;
    for i in grid_stride_range(args.x.len()) {
        sum += args.x.get(i) * args.y.get(i);
    }
    // 2. Each warp: five xor shuffles leave the warp's total in all its lanes.
    let warp_total = warp_sum(sum);
    // 3. Lane 0 of each warp writes that total to the tile: one slot per warp.
    let warps = block_dim().x / WARP_SIZE;
    let (warp, lane) = (thread_idx_x() / WARP_SIZE, lane_id());
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` = `Tile1d::<f32>::bytes(warps)` bytes
    // (the host's `dot`), and this is the launch's only tile.
    let tile = unsafe { Tile1d::<f32>::dynamic(warps) };
    if lane == 0 {
        tile.set(warp, warp_total);
    }
    // Every thread of the block reaches this barrier: no thread returned before it.
    sync_threads();
    // 4. Warp 0 folds the (at most 32) warp totals: lane `l` takes slot `l`, or 0 past the last.
    if warp == 0 {
        let total = warp_sum(if lane < warps { tile.get(lane) } else { 0.0 });
        if lane == 0 {
            args.partials.set(block_idx().x, total);
        }
    }
}
