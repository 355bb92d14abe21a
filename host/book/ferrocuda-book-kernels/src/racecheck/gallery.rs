//! racecheck-gallery: the races GPU programmers fear most, each in a kernel missing one barrier
//! (`*_racy`), beside its correct twin. The simulator's race detector flags every racy kernel
//! and passes every twin; on a GPU, `compute-sanitizer --tool racecheck` is the reference (it
//! sees shared memory only, so not `global_cell_racy`).
//!
//! The racy kernels are undefined behaviour on a GPU: their results are whatever the schedule
//! gives (no kernel here can hang or fault, whatever it reads). Each pair shares one body with a
//! const `SYNCED` switch, so the twins differ by exactly the missing synchronisation.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::{Tile1d, Tile2d};
use ferrocuda_device::warp::{FULL_MASK, sync_warp};

/// Threads per block of the 1-D kernels: eight warps, so that neighbours 32 apart are in
/// different warps and the tree has a step at stride 64.
pub const BLOCK: usize = 256;
/// The transpose's tile side and block height (the book's `TILE_DIM` and `BLOCK_ROWS`).
pub const TILE_DIM: usize = 32;
pub const BLOCK_ROWS: usize = 8;
/// The tree reduction's step whose barrier `tree_sum_racy` leaves out: the last step whose
/// partners are in different warps.
pub const RACY_STRIDE: usize = 64;

/// Arguments of every kernel here.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct GalleryArgs<'a> {
    pub input: Slice<'a, f32>,
    /// One element per input element (`tile_shift`, the transposes), one per block (the sums),
    /// or one cell (`global_cell`).
    pub out: SliceMut<'a, f32>,
    /// The transposes' matrix side, a multiple of [`TILE_DIM`].
    pub n: u32,
}

/// The 32-by-32 tile of the transposes, padded against bank conflicts as the book's.
type TransposeTile = Tile2d<f32, TILE_DIM, TILE_DIM, 1>;
/// Shared memory of the transposes.
pub const TRANSPOSE_SHARED_BYTES: usize = TransposeTile::BYTES;

/// A tile written in one phase and rewritten in the next: each thread stores its element, loads
/// its neighbour's 32 places on (another warp's), then stores twice that and loads the
/// neighbour's again. `out[i] = 2 * input[i + 64 mod blockDim]` within the block.
///
/// Without the barrier between the second store and the second load, a thread reads the
/// neighbour's element before or after the neighbour rewrote it.
#[inline(always)]
fn tile_shift_body<const SYNCED: bool>(args: GalleryArgs<'_>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    let i = block_idx().x * n + t;
    let next = (t + 32) % n;
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(blockDim.x)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(n) };
    tile.set(t, args.input.get(i));
    // Every thread of the block reaches each barrier of this kernel.
    sync_threads();
    let first = tile.get(next);
    // As above.
    sync_threads();
    tile.set(t, 2.0 * first);
    if SYNCED {
        // As above.
        sync_threads();
    }
    args.out.set(i, tile.get(next));
}

/// Each block sums its [`BLOCK`] inputs by a shared-memory tree, a barrier after each step;
/// `SYNCED == false` leaves out the one after the step at [`RACY_STRIDE`].
#[inline(always)]
fn tree_sum_body<const SYNCED: bool>(args: GalleryArgs<'_>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(blockDim.x)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(n) };
    tile.set(t, args.input.get(block_idx().x * n + t));
    // Every thread of the block reaches each barrier of this kernel.
    sync_threads();
    let mut stride = n / 2;
    while stride > 0 {
        if t < stride {
            tile.set(t, tile.get(t) + tile.get(t + stride));
        }
        if SYNCED || stride != RACY_STRIDE {
            // As above; `stride` is the same in every thread.
            sync_threads();
        }
        stride /= 2;
    }
    if t == 0 {
        args.out.set(block_idx().x, tile.get(0));
    }
}

/// The tree down to 64 partials with barriers, then warp 0 finishes through shared memory, the
/// pre-Volta "warp-synchronous" way. Under independent thread scheduling (sm_70+) its lanes are
/// not in lockstep: each load of a neighbour's partial needs a `__syncwarp` after the
/// neighbour's store, and each store one after the neighbour's load.
#[inline(always)]
fn warp_tail_sum_body<const SYNCED: bool>(args: GalleryArgs<'_>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(blockDim.x)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(n) };
    tile.set(t, args.input.get(block_idx().x * n + t));
    // Every thread of the block reaches each barrier of this kernel.
    sync_threads();
    let mut stride = n / 2;
    while stride >= 64 {
        if t < stride {
            tile.set(t, tile.get(t) + tile.get(t + stride));
        }
        // As above.
        sync_threads();
        stride /= 2;
    }
    if t < 32 {
        let mut v = tile.get(t) + tile.get(t + 32);
        tile.set(t, v);
        for offset in [16, 8, 4, 2, 1] {
            if SYNCED {
                // All 32 lanes of warp 0 take this branch and this loop.
                sync_warp(FULL_MASK);
            }
            v += tile.get(t + offset);
            if SYNCED {
                // As above.
                sync_warp(FULL_MASK);
            }
            tile.set(t, v);
        }
        if t == 0 {
            args.out.set(block_idx().x, v);
        }
    }
}

/// One block walks every 32-by-32 tile of an `n x n` matrix through one shared tile, as a
/// persistent kernel does: `out[x * n + y] = input[y * n + x]`. Each pass stores a tile, waits,
/// and loads it transposed; `SYNCED == false` leaves out the barrier before the next pass
/// overwrites the tile that slower threads are still loading.
#[inline(always)]
fn transpose_tiles_body<const SYNCED: bool>(args: GalleryArgs<'_>) {
    let n = args.n as usize;
    let tiles = n / TILE_DIM;
    if block_dim().x != TILE_DIM || block_dim().y != BLOCK_ROWS || args.input.len() != n * n || args.out.len() != n * n
    {
        ferrocuda_device::global::bounds_failure()
    }
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    // SAFETY: the launch provides `TRANSPOSE_SHARED_BYTES` (host driver).
    let tile = unsafe { TransposeTile::dynamic() };
    // Nested loops rather than `k % tiles`: no division by a `tiles` that could be 0 (whose
    // panic would link formatting code into the PTX).
    for by in (0..tiles).map(|t| t * TILE_DIM) {
        for bx in (0..tiles).map(|t| t * TILE_DIM) {
            for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
                tile.set(ty + j, tx, args.input.get((by + ty + j) * n + bx + tx));
            }
            // Every thread of the block reaches each barrier of this kernel.
            sync_threads();
            for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
                args.out.set((bx + ty + j) * n + by + tx, tile.get(tx, ty + j));
            }
            if SYNCED {
                // As above.
                sync_threads();
            }
        }
    }
}

/// Thread 0 of every block stores its block's number in the one cell `out[0]`: blocks of one
/// launch are not ordered, so the cell holds whichever store came last.
#[kernel]
pub fn global_cell_racy(args: GalleryArgs<'_>) {
    if thread_idx_x() == 0 {
        args.out.set(0, (block_idx().x + 1) as f32);
    }
}

/// The twin of [`global_cell_racy`]: each block adds its number atomically, which is defined
/// whatever the order (atomics are exempt from the detectors).
#[kernel]
pub fn global_cell_atomic(args: GalleryArgs<'_>) {
    if thread_idx_x() == 0 {
        args.out.atomic_add(0, (block_idx().x + 1) as f32);
    }
}

/// `tile_shift_body` without the barrier between the second store and load.
#[kernel]
pub fn tile_shift_racy(args: GalleryArgs<'_>) {
    tile_shift_body::<false>(args)
}
/// `tile_shift_body` with every barrier.
#[kernel]
pub fn tile_shift(args: GalleryArgs<'_>) {
    tile_shift_body::<true>(args)
}
/// `tree_sum_body` without the barrier after the step at [`RACY_STRIDE`].
#[kernel]
pub fn tree_sum_racy(args: GalleryArgs<'_>) {
    tree_sum_body::<false>(args)
}
/// `tree_sum_body` with every barrier.
#[kernel]
pub fn tree_sum(args: GalleryArgs<'_>) {
    tree_sum_body::<true>(args)
}
/// `warp_tail_sum_body` without `__syncwarp`: correct only on pre-Volta lockstep warps.
#[kernel]
pub fn warp_tail_sum_racy(args: GalleryArgs<'_>) {
    warp_tail_sum_body::<false>(args)
}
/// `warp_tail_sum_body` with a `__syncwarp` around each load.
#[kernel]
pub fn warp_tail_sum(args: GalleryArgs<'_>) {
    warp_tail_sum_body::<true>(args)
}
/// `transpose_tiles_body` without the barrier that ends each pass.
#[kernel]
pub fn transpose_tiles_racy(args: GalleryArgs<'_>) {
    transpose_tiles_body::<false>(args)
}
/// `transpose_tiles_body` with it.
#[kernel]
pub fn transpose_tiles(args: GalleryArgs<'_>) {
    transpose_tiles_body::<true>(args)
}
