//! Sum reductions (Decyk's tutorial, D3b-D3e): `gsum1` (one thread per block adds the block's
//! values serially, then `atomicAdd`), the binary-tree local sum `lsum2`, and `gsum2` (one partial
//! sum per block). The host composes them into `gpu_sum3`.
//!
//! The tutorial's Fortran is 1-based (`threadIdx%x`, `j = js + mx*(jb-1)`); this is 0-based.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of [`gsum1`]: `sa[0] += sum(a)` (the host zeroes `sa[0]` first).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Gsum1Args<'a> {
    /// The `nx` values.
    pub a: Slice<'a, f32>,
    /// One element, accumulated atomically.
    pub sa: SliceMut<'a, f32>,
}

/// Arguments of [`gsum2`]: `d[jb]` = the sum of block `jb`'s `mx` values.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Gsum2Args<'a> {
    /// The `nx` values.
    pub a: Slice<'a, f32>,
    /// One partial sum per block: `ceil(nx / mx)` elements.
    pub d: SliceMut<'a, f32>,
}

/// Shared memory of both kernels: one `f32` per thread (`ns = mx*sizeof(a(1))`).
pub const fn shared_bytes(mx: usize) -> usize {
    Tile1d::<f32>::bytes(mx)
}

/// Copies this block's `mx` values of `a` into the shared tile `s` (those below `nx`) and waits
/// for the whole block; returns how many it copied, `min(mx, nx - joff)`.
#[inline(always)]
fn load_block(a: Slice<'_, f32>, s: &Tile1d<f32>) -> usize {
    let (js, mx) = (thread_idx_x(), block_dim().x);
    let joff = mx * block_idx().x;
    if joff + js < a.len() {
        s.set(js, a.get(joff + js));
    }
    // Every thread of the block reaches this barrier (no thread has returned).
    sync_threads();
    mx.min(a.len().saturating_sub(joff))
}

/// D3b: the block copies its values to shared memory, then thread 0 adds them serially and adds
/// the block's total to `sa[0]` with `atomicAdd` ("not very efficient": one thread works).
///
/// Launch: `ceil(nx/mx)` blocks of `mx` threads, [`shared_bytes`]`(mx)` of shared memory.
#[kernel]
pub fn gsum1(args: Gsum1Args<'_>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let s = unsafe { Tile1d::<f32>::dynamic(block_dim().x) };
    let valid = load_block(args.a, &s);
    if thread_idx_x() == 0 && valid > 0 {
        let mut t = 0.0f32;
        for k in 0..valid {
            t += s.get(k);
        }
        args.sa.atomic_add(0, t);
    }
}

/// D3c: the binary-tree local sum of `sdata[0..n]` into `sdata[0]`: `k = blockDim/2`, then while
/// `k > 0` thread `l < k` adds element `l + k` (when below `n`), barrier, `k = k/2`.
///
/// Call from: every thread of the block (it holds `log2(blockDim)` barriers), after `sdata[0..n]`
/// is written and a barrier. `blockDim.x` is a power of two and `n <= blockDim.x`, else elements
/// are lost. Result: the sum in `sdata[0]`. Cost: `log2(blockDim)` barriers; half the threads idle
/// from the first step on.
#[inline(always)]
pub fn lsum2(sdata: &Tile1d<f32>, n: usize) {
    let l = thread_idx_x();
    let mut k = block_dim().x / 2;
    let mut s = if l < n { sdata.get(l) } else { 0.0 };
    while k > 0 {
        if l < k && l + k < n {
            s += sdata.get(l + k);
            sdata.set(l, s);
        }
        // Every thread of the block runs the same `k` sequence (the contract above).
        sync_threads();
        k /= 2;
    }
}

/// D3d: one partial sum per block: load into shared memory, [`lsum2`], thread 0 writes `d[jb]`.
///
/// Launch: `ceil(nx/mx)` blocks of `mx` threads, `mx` a power of two, [`shared_bytes`]`(mx)`.
#[kernel]
pub fn gsum2(args: Gsum2Args<'_>) {
    // SAFETY: the launch provides `shared_bytes(blockDim.x)` (host driver).
    let s = unsafe { Tile1d::<f32>::dynamic(block_dim().x) };
    let mxm = load_block(args.a, &s);
    lsum2(&s, mxm);
    if thread_idx_x() == 0 && mxm > 0 {
        args.d.set(block_idx().x, s.get(0));
    }
}
