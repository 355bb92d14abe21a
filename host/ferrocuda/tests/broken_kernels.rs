//! Deliberately wrong kernels, which the CPU simulator must catch (host/ferrocuda/tests/simulator.rs). On a GPU
//! they are undefined behaviour (a race, a hang): never launch them there.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;
use ferrocuda_testing::probe::OutArgs;

/// `probe_shared_reverse` without its barrier: a thread reads the tile element another thread
/// has not written yet. The simulator reports the read of never-written shared memory.
#[kernel]
pub fn broken_reverse_without_barrier(args: OutArgs<'_, i32>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    let base = block_idx().x * n;
    // SAFETY: the launch provides `Tile1d::<i32>::bytes(blockDim.x)` bytes.
    let tile = unsafe { Tile1d::<i32>::dynamic(n) };
    tile.set(t, args.out.get(base + t));
    args.out.set(base + t, tile.get(n - 1 - t));
}

/// A barrier only the first half of the block reaches: the other half returns early. The
/// simulator reports the barrier not reached by every thread.
#[kernel]
pub fn broken_divergent_barrier(args: OutArgs<'_, i32>) {
    let t = thread_idx_x();
    if t >= block_dim().x / 2 {
        return;
    }
    // The barrier's contract, broken on purpose (see the kernel's doc); only the simulator runs this.
    sync_threads();
    args.out.set(t, 1);
}

/// Even threads wait at one barrier, odd ones at another: a barrier inside a divergent branch,
/// which the simulator names with both lines.
#[kernel]
pub fn broken_barriers_in_both_branches(args: OutArgs<'_, i32>) {
    let t = thread_idx_x();
    // Two barriers, each reached by half the block: broken on purpose.
    if t.is_multiple_of(2) {
        sync_threads();
        args.out.set(t, 1);
    } else {
        sync_threads();
        args.out.set(t, 2);
    }
}

/// Each thread writes one element past its own: the last one writes past the end of `out`.
#[kernel]
pub fn broken_index_past_the_end(args: OutArgs<'_, i32>) {
    let t = thread_idx_x();
    args.out.set(t + 1, 1);
}

/// Each thread reads the tile element after its own: the last one reads past the tile.
#[kernel]
pub fn broken_tile_index_past_the_end(args: OutArgs<'_, i32>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    // SAFETY: the launch provides `Tile1d::<i32>::bytes(blockDim.x)` bytes.
    let tile = unsafe { Tile1d::<i32>::dynamic(n) };
    tile.set(t, 1);
    sync_threads();
    args.out.set(t, tile.get(t + 1));
}
