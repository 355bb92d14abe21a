//! Reversing an array through shared memory, with a tile of compile-time size and three of
//! launch-time size (book §3.3.3, module `reverse_m`: `staticReverse`, `dynamicReverse1..3`).
//!
//! One block of `n` threads reverses `d` (`n` elements): thread `t` writes `d[t]` to the tile,
//! then, after the barrier, reads element `n - 1 - t` back into `d[t]`, so both global accesses
//! are coalesced (indexed by `t`) while the reversal happens in shared memory.
//!
//! Rust has no `__shared__` statics on nvptx: the "static" tile here is a tile of compile-time
//! size ([`STATIC_N`]) placed in the launch's dynamic shared memory, and every launch passes its
//! tile's bytes ([`Tile1d::bytes`]), where CUDA would reserve a static array's at load time.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// The book's array length and the static tile's size (`real, shared :: s(64)`).
pub const STATIC_N: usize = 64;

/// Arguments of [`static_reverse`] and [`dynamic_reverse1`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ReverseArgs<'a> {
    /// Reversed in place.
    pub d: SliceMut<'a, f32>,
}

/// Arguments of [`dynamic_reverse2`]: the tile's size as an argument (the book's automatic
/// array `s(nSize)`).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Reverse2Args<'a> {
    pub d: SliceMut<'a, f32>,
    pub n_size: u32,
}

/// Arguments of [`dynamic_reverse3`]: the tile's size read from device memory the host set (the
/// book's module variable `n_d`; a one-element buffer here, as kernels have no device globals).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Reverse3Args<'a> {
    pub d: SliceMut<'a, f32>,
    pub n_d: Slice<'a, u32>,
}

/// Thread `t` of one block: `s[t] = d[t]`, barrier, `d[t] = s[n - 1 - t]`, with `n = d.len()`.
/// A thread beyond the tile or the array traps (on the simulator: a fault naming it).
#[inline(always)]
fn reverse_through(tile: &Tile1d<f32>, d: SliceMut<'_, f32>) {
    let t = thread_idx_x();
    let n = d.len();
    tile.set(t, d.get(t));
    // Every thread of the block reaches this barrier.
    sync_threads();
    d.set(t, tile.get(n - 1 - t));
}

/// `staticReverse`: a tile of [`STATIC_N`] elements fixed at compile time.
#[kernel]
pub fn static_reverse(args: ReverseArgs<'_>) {
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(STATIC_N)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(STATIC_N) };
    reverse_through(&tile, args.d)
}

/// `dynamicReverse1`: the assumed-size tile `s(*)`, one element per thread of the block.
#[kernel]
pub fn dynamic_reverse1(args: ReverseArgs<'_>) {
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(blockDim.x)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(block_dim().x) };
    reverse_through(&tile, args.d)
}

/// `dynamicReverse2`: the tile's size passed as an argument.
#[kernel]
pub fn dynamic_reverse2(args: Reverse2Args<'_>) {
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(n_size)` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(args.n_size as usize) };
    reverse_through(&tile, args.d)
}

/// `dynamicReverse3`: the tile's size read from device memory.
#[kernel]
pub fn dynamic_reverse3(args: Reverse3Args<'_>) {
    // SAFETY: the launch provides `Tile1d::<f32>::bytes(n_d[0])` bytes (host driver).
    let tile = unsafe { Tile1d::<f32>::dynamic(args.n_d.get(0) as usize) };
    reverse_through(&tile, args.d)
}
