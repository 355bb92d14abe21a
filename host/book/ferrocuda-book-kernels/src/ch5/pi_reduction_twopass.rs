//! ch5-pi-reduction-twopass: the count of `pi_cuf` with the reduction written out, as the book's
//! §5.3 does: `partial_sum` (each block: a grid-stride count per thread, then a shared-memory
//! tree, one partial per block) and `final_sum` (one block folds the partials with the same tree).
//!
//! The book's Fortran is 1-based (`psum(index)`, `partial(BlockIdx%x)`); this is 0-based.
use super::pi_cuf::norm2_separate;
use ferrocuda_device::math::Rounded;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of [`partial_sum`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PartialSumArgs<'a, T> {
    /// `2N` uniforms: the x coordinates, then the y coordinates (the book's `input(N)`, `N` the
    /// length of the whole array).
    pub input: Slice<'a, T>,
    /// One count per block (the book's `partial(256)`).
    pub partial: SliceMut<'a, i32>,
}

/// Arguments of [`final_sum`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FinalSumArgs<'a> {
    /// The partial counts, at most one per thread of the block.
    pub partial: Slice<'a, i32>,
    /// One element: the total.
    pub total: SliceMut<'a, i32>,
}

/// Shared memory of both kernels, bytes: one integer per thread (the book's `512*4`).
pub const fn shared_bytes(threads: usize) -> usize {
    Tile1d::<i32>::bytes(threads)
}

/// This thread's count of the points `i` of its grid-stride share with `x(i)² + y(i)² <= 1`.
#[inline(always)]
pub fn count_interior<T: Real + Rounded>(input: Slice<'_, T>) -> i32 {
    let half = input.len() / 2;
    let one = T::from_f64(1.0);
    let mut interior = 0;
    for i in grid_stride_range(half) {
        interior += i32::from(norm2_separate(input.get(i), input.get(i + half)) <= one);
    }
    interior
}

/// Stores `value` in `psum[tid]`, then sums `psum` over the block by the tree of the book's
/// Fig. 5.5: `inext = blockDim/2`, threads `tid < inext` add `psum[tid + inext]`, barrier,
/// halve; the active threads stay contiguous, so whole warps retire early.
///
/// Call from: every thread of a block whose size is a power of two, `psum` one element per
/// thread. Result: the sum in `psum[0]` (for every thread, after the last barrier). Cost:
/// `log2(blockDim) + 1` barriers.
#[inline(always)]
pub fn block_tree_sum(psum: &Tile1d<i32>, value: i32) {
    let tid = thread_idx_x();
    psum.set(tid, value);
    // Every thread of the block reaches each barrier (the contract above).
    sync_threads();
    let mut inext = block_dim().x / 2;
    while inext >= 1 {
        if tid < inext {
            psum.set(tid, psum.get(tid) + psum.get(tid + inext));
        }
        // As above: `inext` is the same in every thread.
        sync_threads();
        inext /= 2;
    }
}

/// The book's `partial_sum`: `partial[blockIdx.x]` = the block's count.
///
/// Launch: any grid (the book's 256 blocks), `blockDim.x` a power of two (512),
/// [`shared_bytes`]`(blockDim.x)`.
#[kernel(f32, f64)]
pub fn partial_sum<T: Real + Rounded>(args: PartialSumArgs<'_, T>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let psum = unsafe { Tile1d::<i32>::dynamic(block_dim().x) };
    block_tree_sum(&psum, count_interior(args.input));
    if thread_idx_x() == 0 {
        args.partial.set(block_idx().x, psum.get(0));
    }
}

/// The book's `final_sum`: `total[0]` = the sum of the partials. Threads past the last partial
/// add zero (the book's advice for a count that is not a power of two).
///
/// Launch: one block of a power of two threads, at least `partial.len()`,
/// [`shared_bytes`]`(blockDim.x)`.
#[kernel]
pub fn final_sum(args: FinalSumArgs<'_>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let psum = unsafe { Tile1d::<i32>::dynamic(block_dim().x) };
    let tid = thread_idx_x();
    block_tree_sum(
        &psum,
        if tid < args.partial.len() {
            args.partial.get(tid)
        } else {
            0
        },
    );
    if tid == 0 {
        args.total.set(0, psum.get(0));
    }
}
