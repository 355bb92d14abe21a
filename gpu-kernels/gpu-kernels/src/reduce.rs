//! Device-wide reductions (CUB's `DeviceReduce`): a grid-stride pass in which each thread folds
//! its elements, 16 bytes at a time, and each block folds its threads ([`block_reduce`]) into one
//! partial per block; the same kernel on one block then folds the partials (two passes), or each
//! block adds its partial atomically (one pass). The host API is `ferrocuda::reduce`.
use ferrocuda_device::atomic::AtomicAdd;
use ferrocuda_device::collective::block::{BLOCK_REDUCE_SCRATCH, block_reduce};
use ferrocuda_device::collective::thread::{kahan_add, thread_reduce};
use ferrocuda_device::collective::{Max, Min, ReduceOp, Reducible, Sum};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of the reductions: `partials[blockIdx.x]` receives the block's result (the
/// one-pass kernels add into `partials[0]`).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ReduceArgs<'a, T, R> {
    pub input: Slice<'a, T>,
    pub partials: SliceMut<'a, R>,
}

/// Shared memory each reduction launch needs, bytes.
pub const fn shared_bytes<T: Copy>() -> usize {
    Tile1d::<T>::bytes(BLOCK_REDUCE_SCRATCH)
}

/// Chunks of four elements each thread loads before it folds them: four independent 16-byte
/// loads in flight per thread (64 bytes), what a read-only stream needs to approach the memory
/// bandwidth (Little's law: one load per thread leaves the H100 at 0.77 of memcpy).
pub const CHUNKS_IN_FLIGHT: usize = 4;

/// This thread's fold of its grid-stride share of `input`, four elements per load where aligned.
#[inline(always)]
fn fold_input<T: Reducible + Element4, O: ReduceOp<T>>(input: Slice<'_, T>) -> T {
    let n = input.len();
    let mut acc = O::identity();
    if input.is_aligned16() {
        let (chunks, stride) = (n / 4, grid_size_x());
        let mut chunk = global_idx_x();
        // Full rounds: the loads do not depend on each other, so all are issued before the
        // first fold.
        while chunk + (CHUNKS_IN_FLIGHT - 1) * stride < chunks {
            let loaded: [[T; 4]; CHUNKS_IN_FLIGHT] = core::array::from_fn(|k| input.get4(chunk + k * stride));
            for values in loaded {
                acc = O::combine(acc, thread_reduce::<T, O, 4>(values));
            }
            chunk += CHUNKS_IN_FLIGHT * stride;
        }
        while chunk < chunks {
            acc = O::combine(acc, thread_reduce::<T, O, 4>(input.get4(chunk)));
            chunk += stride;
        }
        // The last `n % 4` elements, grid-strided: a grid of fewer than three threads (the
        // second pass of a one-thread block) still reads them all.
        for tail in (4 * chunks + global_idx_x()..n).step_by(stride) {
            acc = O::combine(acc, input.get(tail));
        }
    } else {
        for i in grid_stride_range(n) {
            acc = O::combine(acc, input.get(i));
        }
    }
    acc
}

/// The block's total of `value` over its threads, in thread 0.
#[inline(always)]
fn block_total<T: Reducible, O: ReduceOp<T>>(value: T) -> T {
    // SAFETY: every reduction launch provides `shared_bytes::<T>()` (host driver).
    let scratch = unsafe { Tile1d::<T>::dynamic(BLOCK_REDUCE_SCRATCH) };
    block_reduce::<T, O>(value, &scratch)
}

#[inline(always)]
fn reduce_into_partials<T: Reducible + Element4, O: ReduceOp<T>>(args: ReduceArgs<'_, T, T>) {
    let total = block_total::<T, O>(fold_input::<T, O>(args.input));
    if thread_idx_x() == 0 {
        args.partials.set(block_idx().x, total);
    }
}

/// Sum: one partial per block.
#[kernel(i32, u32, u64, f32, f64)]
pub fn reduce_sum<T: Reducible + Element4>(args: ReduceArgs<'_, T, T>) {
    reduce_into_partials::<T, Sum>(args)
}

/// Least value: one partial per block.
#[kernel(i32, u32, u64, f32, f64)]
pub fn reduce_min<T: Reducible + Element4>(args: ReduceArgs<'_, T, T>) {
    reduce_into_partials::<T, Min>(args)
}

/// Greatest value: one partial per block.
#[kernel(i32, u32, u64, f32, f64)]
pub fn reduce_max<T: Reducible + Element4>(args: ReduceArgs<'_, T, T>) {
    reduce_into_partials::<T, Max>(args)
}

/// Sum in one pass: each block adds its total to `partials[0]` with `atomicAdd` (which the host
/// zeroes first). Float results depend on the order the blocks finish in.
#[kernel(i32, u32, u64, f32, f64)]
pub fn reduce_sum_atomic<T: Reducible + Element4 + AtomicAdd>(args: ReduceArgs<'_, T, T>) {
    let total = block_total::<T, Sum>(fold_input::<T, Sum>(args.input));
    if thread_idx_x() == 0 {
        args.partials.atomic_add(0, total);
    }
}

/// Number of non-zero elements: one `u64` partial per block (fold the partials with
/// `reduce_sum_u64`).
#[kernel(i32, u32, f32, f64)]
pub fn count_nonzero<T: Reducible + Element4>(args: ReduceArgs<'_, T, u64>) {
    let zero = T::ZERO;
    let mut count = 0u64;
    for i in grid_stride_range(args.input.len()) {
        count += u64::from(args.input.get(i) != zero);
    }
    let total = block_total::<u64, Sum>(count);
    if thread_idx_x() == 0 {
        args.partials.set(block_idx().x, total);
    }
}

/// Compensated sum: each thread adds its elements with Kahan's algorithm, then the block and the
/// second pass add the per-thread sums as a tree (the pairwise order), so the error no longer
/// grows with the elements per thread.
#[kernel(f32, f64)]
pub fn reduce_sum_kahan<T: Reducible + Element4 + core::ops::Sub<Output = T>>(args: ReduceArgs<'_, T, T>) {
    let mut running = (T::ZERO, T::ZERO);
    for i in grid_stride_range(args.input.len()) {
        running = kahan_add(running, args.input.get(i));
    }
    let total = block_total::<T, Sum>(running.0 - running.1);
    if thread_idx_x() == 0 {
        args.partials.set(block_idx().x, total);
    }
}
