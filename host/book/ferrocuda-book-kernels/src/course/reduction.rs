//! Block sums over `2*blockDim` inputs in shared `partialSum` (IT4I course, lecture "Reduction"):
//! the naive, divergent tree (`t % stride == 0`, interleaved pairs) and the improved, convergent
//! one (`t < stride`, halves), each writing one partial per block from thread 0; the host
//! iterates them to one value.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of both kernels: block `b` sums `input[2*b*blockDim .. 2*(b+1)*blockDim]` (zeros
/// past the end) into `output[b]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ReductionArgs<'a> {
    pub input: Slice<'a, f32>,
    /// One partial per block.
    pub output: SliceMut<'a, f32>,
}

/// Shared memory of both kernels, bytes: `partialSum[2*BLOCK_SIZE]`.
pub const fn shared_bytes(block_size: usize) -> usize {
    Tile1d::<f32>::bytes(2 * block_size)
}

/// `partialSum[t] = input[start + t]`, `partialSum[blockDim + t] = input[start + blockDim + t]`,
/// zero past the end (the course's `2*blockDim` inputs per block).
#[inline(always)]
fn load(input: Slice<'_, f32>, partial_sum: &Tile1d<f32>) {
    let (t, b) = (thread_idx_x(), block_dim().x);
    let start = 2 * block_idx().x * b;
    for at in [t, b + t] {
        let i = start + at;
        partial_sum.set(at, if i < input.len() { input.get(i) } else { 0.0 });
    }
}

/// Naive: `for (stride = 1; stride <= blockDim.x; stride *= 2) { __syncthreads(); if (t % stride
/// == 0) partialSum[2*t] += partialSum[2*t+stride]; }`. The active threads spread out as the stride
/// grows, so every warp stays partly active (divergent) through all `log2(2*blockDim)` steps.
///
/// Launch: `blockDim` a power of two, [`shared_bytes`]`(blockDim)` of shared memory.
#[kernel]
pub fn reduction_naive(args: ReductionArgs<'_>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let partial_sum = unsafe { Tile1d::<f32>::dynamic(2 * block_dim().x) };
    load(args.input, &partial_sum);
    let t = thread_idx_x();
    let mut stride = 1;
    while stride <= block_dim().x {
        // Every thread of the block runs the same strides.
        sync_threads();
        if t.is_multiple_of(stride) {
            partial_sum.set(2 * t, partial_sum.get(2 * t) + partial_sum.get(2 * t + stride));
        }
        stride *= 2;
    }
    if t == 0 {
        args.output.set(block_idx().x, partial_sum.get(0));
    }
}

/// Improved: `for (stride = blockDim.x; stride > 0; stride /= 2) { __syncthreads(); if (t <
/// stride) partialSum[t] += partialSum[t+stride]; }`. The active threads stay contiguous, so whole
/// warps retire: divergence only in the last five steps, where `stride < 32`.
///
/// Launch: as [`reduction_naive`].
#[kernel]
pub fn reduction_improved(args: ReductionArgs<'_>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let partial_sum = unsafe { Tile1d::<f32>::dynamic(2 * block_dim().x) };
    load(args.input, &partial_sum);
    let t = thread_idx_x();
    let mut stride = block_dim().x;
    while stride > 0 {
        // Every thread of the block runs the same strides.
        sync_threads();
        if t < stride {
            partial_sum.set(t, partial_sum.get(t) + partial_sum.get(t + stride));
        }
        stride /= 2;
    }
    if t == 0 {
        args.output.set(block_idx().x, partial_sum.get(0));
    }
}
