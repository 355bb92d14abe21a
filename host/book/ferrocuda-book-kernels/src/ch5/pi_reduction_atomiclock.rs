//! ch5-pi-reduction-atomiclock: the count in one kernel, each block adding its total to
//! `partial[0]` inside a critical section guarded by a global lock (book §5.3.1, after Giles'
//! lecture notes): a teaching example of `atomicCAS` and `__threadfence`. The library's one-pass
//! reductions (`kernels::reduce`) use a plain `atomicAdd` instead, which does the same work in
//! one instruction and serializes nothing but the add.
use super::pi_reduction_twopass::{block_tree_sum, count_interior};
use ferrocuda_device::math::Rounded;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of [`sum`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct LockedSumArgs<'a, T> {
    /// `2N` uniforms: the x coordinates, then the y coordinates.
    pub input: Slice<'a, T>,
    /// `partial[0]` receives the total (the host zeroes it first).
    pub partial: SliceMut<'a, i32>,
    /// One word, 0 when free, 1 when a block holds it (the host zeroes it first).
    pub lock: SliceMut<'a, u32>,
}

/// The book's `sum`: as `partial_sum`, then thread 0 of each block takes the lock with
/// `atomicCAS`, adds the block's count to `partial[0]`, and releases the lock after a
/// `__threadfence`, so the next holder reads the updated value.
///
/// Blocks take the lock in whatever order they reach it; none waits for a block that has not
/// started, so no launch shape can deadlock (the book's warning is about code that assumes an
/// order). Launch: as `partial_sum` (the book's 64 blocks of 256 threads).
#[kernel(f32, f64)]
pub fn sum<T: Real + Rounded>(args: LockedSumArgs<'_, T>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let psum = unsafe { Tile1d::<i32>::dynamic(block_dim().x) };
    block_tree_sum(&psum, count_interior(args.input));
    if thread_idx_x() == 0 {
        while args.lock.atomic_cas(0, 0, 1) != 0 {}
        // The fence after taking the lock pairs with the holder's fence before its release:
        // the previous total is visible before this block reads it.
        thread_fence();
        args.partial.set_volatile(0, args.partial.get_volatile(0) + psum.get(0));
        thread_fence();
        args.lock.atomic_exch(0, 0);
    }
}
