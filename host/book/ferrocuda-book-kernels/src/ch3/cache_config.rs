//! The kernel of ch3-cache-config (book §3.3.1): a copy staged through a 32 KiB shared-memory
//! tile per block, so that how many blocks a multiprocessor holds, and with them the bytes in
//! flight, depends on how much of its on-chip memory is shared memory (the carveout).
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Elements each block stages: 8192 f32, 32 KiB of shared memory.
pub const CHUNK: usize = 8192;

/// Arguments of [`staged_copy`]: `output = input`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(input, output))]
pub struct StagedCopyArgs<'a> {
    pub input: Slice<'a, f32>,
    /// As long as `input`.
    pub output: SliceMut<'a, f32>,
}

/// Block `b` copies elements `b CHUNK ..` of `input` into its shared tile (each thread every
/// `blockDim`-th one, coalesced), waits at a barrier, then writes the tile to `output`. The
/// launch provides `Tile1d::<f32>::bytes(CHUNK)` bytes of dynamic shared memory.
#[kernel]
pub fn staged_copy(args: StagedCopyArgs<'_>) {
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(CHUNK)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(CHUNK) };
    let start = block_idx().x as usize * CHUNK;
    let (tid, threads) = (thread_idx_x(), block_dim().x as usize);
    let n = args.input.len().min(args.output.len());
    for k in (tid..CHUNK).step_by(threads) {
        if start + k < n {
            tile.set(k, args.input.get(start + k));
        }
    }
    // Every thread of the block reaches this barrier (no early return above).
    sync_threads();
    for k in (tid..CHUNK).step_by(threads) {
        if start + k < n {
            args.output.set(start + k, tile.get(k));
        }
    }
}
