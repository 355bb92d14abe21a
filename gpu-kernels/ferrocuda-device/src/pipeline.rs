//! Asynchronous copies from global to shared memory (CUDA C's `__pipeline_memcpy_async`,
//! `__pipeline_commit`, `__pipeline_wait_prior`; PTX `cp.async`, ISA §9.7.9.25, sm_80+).
//!
//! A thread starts 16-byte copies ([`memcpy_async4`]) that land in shared memory while it goes
//! on computing, closes them into a group ([`pipeline_commit`]), and later waits until all but
//! the newest `N` groups have landed ([`pipeline_wait_prior`]). A multi-stage pipeline keeps
//! `N` tiles in flight this way: the data never passes through registers, so the loads of later
//! tiles cost no registers while the current one is multiplied.
//!
//! Visibility: a copy's bytes are visible to the thread that started it after the wait that
//! covers its group, and to other threads of the block after a barrier that follows that wait
//! (`__syncthreads`), as for an ordinary store.
//!
//! On the simulator the copy happens at once, through its checked global read and shared write
//! (bounds, alignment, and races with other threads in the same barrier interval are found), and
//! the groups are not modelled: a missing wait shows only on the GPU.
use crate::arch;
use crate::global::{Element4, Slice, bounds_failure};
use crate::shared::Tile2d;

/// Starts copying elements `4*src_chunk .. 4*src_chunk + 4` of `src` (16 bytes) to elements
/// (`row`, `4*chunk .. 4*chunk + 4`) of `tile` (`cp.async.cg.shared.global`, 16 bytes, past L1).
/// Traps when either side is out of bounds or `src` is not 16-byte aligned.
///
/// The copy joins this thread's open group; read the destination only after
/// [`pipeline_wait_prior`] has covered that group (and, from another thread, a barrier after it).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn memcpy_async4<T: Element4, const ROWS: usize, const COLS: usize, const PAD: usize>(
    tile: &Tile2d<T, ROWS, COLS, PAD>,
    row: usize,
    chunk: usize,
    src: &Slice<T>,
    src_chunk: usize,
) {
    let dst = tile.chunk_ptr(row, chunk);
    if 4 * src_chunk + 4 > src.len() || !src.is_aligned16() {
        bounds_failure()
    }
    // SAFETY: both sides in bounds and 16-byte aligned (checked above and by `chunk_ptr`; a tile's
    // chunks are 16-byte aligned); `src` is readable by the view's contract. Ordering of other
    // accesses to `dst` is the caller's, as for any shared store (module doc).
    unsafe { arch::cp_async_cg_16(dst.cast(), src.as_ptr().add(4 * src_chunk).cast()) }
}

/// [`memcpy_async4`] without the bound tests on the GPU, for a full tile whose bounds the kernel
/// established once (CUB's `FullTile`); the simulator still makes them, and checks the
/// alignment.
///
/// # Safety
/// `row < ROWS`, `4 * chunk + 4 <= COLS`, `4 * src_chunk + 4 <= src.len()`, and `src` starts
/// 16-byte aligned.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn memcpy_async4_unchecked<T: Element4, const ROWS: usize, const COLS: usize, const PAD: usize>(
    tile: &Tile2d<T, ROWS, COLS, PAD>,
    row: usize,
    chunk: usize,
    src: &Slice<T>,
    src_chunk: usize,
) {
    arch::check_unchecked_index(row, ROWS);
    arch::check_unchecked_index(4 * chunk + 3, COLS);
    arch::check_unchecked_index(4 * src_chunk + 3, src.len());
    // SAFETY: in bounds and aligned (the caller's contract; a tile's chunks are 16-byte aligned);
    // `src` is readable by the view's contract; ordering as in `memcpy_async4`.
    unsafe {
        let dst = tile.chunk_ptr_unchecked(row, chunk);
        arch::cp_async_cg_16(dst.cast(), src.as_ptr().add(4 * src_chunk).cast())
    }
}

/// Closes this thread's open group of copies (`cp.async.commit_group`). Commit once per stage
/// even when the stage started no copy (the tail of a pipeline): the empty group keeps the
/// count of [`pipeline_wait_prior`] uniform.
#[inline(always)]
pub fn pipeline_commit() {
    arch::cp_async_commit_group()
}

/// Waits until at most the newest `N` committed groups of this thread are still in flight
/// (`cp.async.wait_group N`): the group needed next lands when the `N` groups committed after it
/// may still be in flight (`N = 0`: every group).
#[inline(always)]
pub fn pipeline_wait_prior<const N: u32>() {
    arch::cp_async_wait_group::<N>()
}
