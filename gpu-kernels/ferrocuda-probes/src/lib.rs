//! One thin kernel per device-library primitive, so each is tested on its own against values the
//! CPU computes (CUDA.jl's and CUB's way): indexing, grid-stride loops, shared tiles, warp
//! shuffles and votes, warp reductions, the scans of every layer ([`collective`]), atomics on global and shared memory, explicit rounding,
//! clocks, printing. Their tests, which launch them through the
//! public host API, are in `host/ferrocuda/tests/device.rs`.
//!
//! A test-only kernel crate, not part of the library: its PTX is embedded by `ferrocuda-testing`
//! (`ferrocuda_testing::PROBES`), so the library's own module carries only what its calls launch.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]
pub mod atomics;
pub mod collective;
pub mod hopper;

use ferrocuda_device::collective::warp::{warp_max, warp_sum};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::{Tile1d, Tile2d};
use ferrocuda_device::warp::{
    FULL_MASK, active_mask, lane_id, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, vote_all_sync,
    vote_any_sync, vote_ballot_sync,
};

/// Arguments of the probes that only write.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct OutArgs<'a, T> {
    pub out: SliceMut<'a, T>,
}

/// Values each thread of [`probe_index`] writes.
pub const INDEX_FIELDS: usize = 7;

/// Thread `(x, y, z)` of the grid writes, at its row-major position in the grid of threads,
/// its global x, y, z, its rank in the block, and its block's x, y, z.
#[kernel]
pub fn probe_index(args: OutArgs<'_, u32>) {
    let g = global_idx();
    let (grid, block) = (grid_dim(), block_dim());
    let (width, height) = (grid.x * block.x, grid.y * block.y);
    let at = INDEX_FIELDS * ((g.z * height + g.y) * width + g.x);
    let b = block_idx();
    for (k, v) in [g.x, g.y, g.z, thread_rank_in_block(), b.x, b.y, b.z]
        .into_iter()
        .enumerate()
    {
        args.out.set(at + k, v as u32);
    }
}

/// Adds 1 to every element through a grid-stride loop: any grid covers any length exactly once.
#[kernel]
pub fn probe_grid_stride(args: OutArgs<'_, u32>) {
    for i in grid_stride_range(args.out.len()) {
        args.out.update(i, |x| x + 1);
    }
}

/// Reverses each block-sized segment through a shared tile of `blockDim.x` elements (book
/// §3.4.2's `dynamicReverse`). The length must be a multiple of the block size.
#[kernel]
pub fn probe_shared_reverse(args: OutArgs<'_, i32>) {
    let (t, n) = (thread_idx_x(), block_dim().x);
    let base = block_idx().x * n;
    // SAFETY: the launch provides `Tile1d::<i32>::bytes(blockDim.x)` bytes (host driver).
    let tile = unsafe { Tile1d::<i32>::dynamic(n) };
    tile.set(t, args.out.get(base + t));
    // Every thread of the block reaches this barrier.
    sync_threads();
    args.out.set(base + t, tile.get(n - 1 - t));
}

/// The transpose tile: 32 x 32, each row padded by one element against bank conflicts.
pub type TransposeTile = Tile2d<f32, TILE_DIM, TILE_DIM, 1>;
/// The tile's side.
pub const TILE_DIM: usize = 32;
/// Rows of the tile each thread handles: a block is `TILE_DIM x BLOCK_ROWS` threads.
pub const BLOCK_ROWS: usize = 8;

/// Arguments of [`probe_tile_transpose`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct TransposeArgs<'a> {
    /// `ny x nx`, row-major.
    pub input: Slice<'a, f32>,
    /// `nx x ny`, row-major.
    pub output: SliceMut<'a, f32>,
    pub nx: u32,
    pub ny: u32,
}

/// `output = input^T` through a padded 2-D shared tile, with bounds tests for any extent (book
/// §3.4.3 `transposeNoBankConflicts`). Launch `32 x 8` threads per `32 x 32` tile.
#[kernel]
pub fn probe_tile_transpose(args: TransposeArgs<'_>) {
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    let (t, b) = (thread_idx(), block_idx());
    // SAFETY: the launch provides `TransposeTile::BYTES` bytes (host driver).
    let tile = unsafe { TransposeTile::dynamic() };
    let x = b.x * TILE_DIM + t.x;
    for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
        let y = b.y * TILE_DIM + t.y + j;
        if x < nx && y < ny {
            tile.set(t.y + j, t.x, args.input.get(y * nx + x));
        }
    }
    // Every thread of the block reaches this barrier.
    sync_threads();
    let x = b.y * TILE_DIM + t.x;
    for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
        let y = b.x * TILE_DIM + t.y + j;
        if x < ny && y < nx {
            args.output.set(y * ny + x, tile.get(t.x, t.y + j));
        }
    }
}

/// Arguments of [`probe_warp`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct WarpArgs<'a> {
    /// One value per thread.
    pub input: Slice<'a, i32>,
    /// [`WARP_FIELDS`] values per thread.
    pub out: SliceMut<'a, i32>,
}

/// Values each thread of [`probe_warp`] writes.
pub const WARP_FIELDS: usize = 10;

/// Every warp primitive on full warps (launch a multiple of 32 threads, one per input): per
/// thread, shfl down 1, up 1, xor 1, idx 0, warp sum, warp max, ballot(odd), any(> 90),
/// all(>= 0), and, for lanes below 10, the active mask inside `if lane < 10` (-1 for the others).
#[kernel]
pub fn probe_warp(args: WarpArgs<'_>) {
    let i = global_idx_x();
    let x = args.input.get(i);
    // Each shuffle and vote runs on whole warps (the launch is a multiple of 32 threads) with
    // every lane present, as FULL_MASK says.
    let values = [
        shfl_down_sync(FULL_MASK, x, 1),
        shfl_up_sync(FULL_MASK, x, 1),
        shfl_xor_sync(FULL_MASK, x, 1),
        shfl_sync(FULL_MASK, x, 0),
        warp_sum(x),
        warp_max(x),
        vote_ballot_sync(FULL_MASK, x % 2 != 0) as i32,
        vote_any_sync(FULL_MASK, x > 90) as i32,
        vote_all_sync(FULL_MASK, x >= 0) as i32,
    ];
    for (k, v) in values.into_iter().enumerate() {
        args.out.set(WARP_FIELDS * i + k, v);
    }
    // Only lanes 0..10 ask, inside the branch (an asm call with side effects is not hoisted out
    // of it); the others write -1.
    if lane_id() < 10 {
        args.out.set(WARP_FIELDS * i + 9, active_mask() as i32);
    } else {
        args.out.set(WARP_FIELDS * i + 9, -1);
    }
}

/// Arguments of [`probe_warp_sum_f64`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct WarpSumF64Args<'a> {
    pub input: Slice<'a, f64>,
    /// One total per warp.
    pub out: SliceMut<'a, f64>,
}

/// The 64-bit path of the shuffles: each warp's `f64` sum, written by lane 0.
#[kernel]
pub fn probe_warp_sum_f64(args: WarpSumF64Args<'_>) {
    let i = global_idx_x();
    let total = warp_sum(args.input.get(i));
    if lane_id() == 0 {
        args.out.set(i / 32, total);
    }
}

/// Arguments of [`probe_atomics`]: counters, each starting where the host's test sets it.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AtomicArgs<'a> {
    /// `[sum, min, max]`.
    pub i32s: SliceMut<'a, i32>,
    /// `[sum, min, max, exch, cas-increments, per-block shared sums (6 per thread)]`.
    pub u32s: SliceMut<'a, u32>,
    /// `[sum, min, max, exch, cas-increments]`.
    pub u64s: SliceMut<'a, u64>,
    /// `[sum]`.
    pub f32s: SliceMut<'a, f32>,
    /// `[sum]`.
    pub f64s: SliceMut<'a, f64>,
}

/// Every atomic, by every thread: adds, min/max of the global index (signed: of its negation),
/// exchanges, a compare-and-swap increment loop, and a per-block sum in shared memory (1, 2 and 3
/// per thread by the generic, the shared-space and the unchecked shared-space add) added to
/// global memory by thread 0. Launch 1-D, with `Tile1d::<u32>::bytes(1)` of shared memory.
#[kernel]
pub fn probe_atomics(args: AtomicArgs<'_>) {
    let g = global_idx_x();
    args.i32s.atomic_add(0, 1);
    args.i32s.atomic_min(1, -(g as i32));
    args.i32s.atomic_max(2, -(g as i32));
    args.u32s.atomic_add(0, 2);
    args.u32s.atomic_min(1, g as u32);
    args.u32s.atomic_max(2, g as u32);
    args.u32s.atomic_exch(3, g as u32);
    cas_increment(&args.u32s, 4, 1);
    args.u64s.atomic_add(0, 3);
    args.u64s.atomic_min(1, g as u64);
    args.u64s.atomic_max(2, g as u64 + (1 << 40));
    args.u64s.atomic_exch(3, g as u64);
    cas_increment(&args.u64s, 4, 1);
    args.f32s.atomic_add(0, 0.5);
    args.f64s.atomic_add(0, 0.25);

    // SAFETY: the launch provides `Tile1d::<u32>::bytes(1)` bytes (host driver).
    let shared = unsafe { Tile1d::<u32>::dynamic(1) };
    if thread_idx_x() == 0 {
        shared.set(0, 0);
    }
    // Every thread of the block reaches both barriers.
    sync_threads();
    shared.atomic_add(0, 1);
    shared.atomic_add_shared(0, 2);
    // SAFETY: element 0 of a tile of 1.
    unsafe { shared.atomic_add_shared_unchecked(0, 3) };
    // As above.
    sync_threads();
    if thread_idx_x() == 0 {
        args.u32s.atomic_add(5, shared.get(0));
    }
}

/// Adds `one` to `view[i]` with a compare-and-swap loop, the way any atomic read-modify-write
/// is built from `atomicCAS`.
#[inline(always)]
fn cas_increment<T: ferrocuda_device::atomic::AtomicExchange + Element + PartialEq + core::ops::Add<Output = T>>(
    view: &SliceMut<'_, T>,
    i: usize,
    one: T,
) {
    let mut seen = view.get(i);
    loop {
        let old = view.atomic_cas(i, seen, seen + one);
        if old == seen {
            break;
        }
        seen = old;
    }
}

/// Arguments of [`probe_rounding`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RoundingArgs<'a, T> {
    pub a: Slice<'a, T>,
    pub b: Slice<'a, T>,
    pub c: Slice<'a, T>,
    /// `fma(a, b, c)`.
    pub fused: SliceMut<'a, T>,
    /// `a * b` rounded, `+ c` rounded.
    pub unfused: SliceMut<'a, T>,
}

/// Explicitly fused and explicitly unfused multiply-add (book §5.2.1's choice).
#[kernel(f32, f64)]
pub fn probe_rounding<T: Real + math::Rounded>(args: RoundingArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.fused.len() {
        let (a, b, c) = (args.a.get(i), args.b.get(i), args.c.get(i));
        args.fused.set(i, math::fma(a, b, c));
        args.unfused.set(i, math::mul_add_unfused(a, b, c));
    }
}

/// Values each thread of [`probe_float_methods`] writes.
pub const FLOAT_METHOD_FIELDS: usize = 8;

/// Arguments of [`probe_float_methods`]: one input per thread, [`FLOAT_METHOD_FIELDS`] outputs.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FloatMethodArgs<'a, T> {
    pub input: Slice<'a, T>,
    pub out: SliceMut<'a, T>,
}

/// The device library's float functions called with method syntax, as a user writes them
/// (`x.exp()`), with only the prelude imported: `[x.exp(), (x^2 + 1).ln(), (x^2).sqrt(),
/// x.sin(), x.sincos(), x.sincospi()]`. A kernel crate's host build has no std in its crate
/// graph, so each call resolves to the device library's trait method on the simulator as on the
/// GPU (std's inherent `f32::exp` once won on the host: 1,885 of 20,000 `exp`s differed by an
/// ulp). `agree` compares the two bit for bit.
#[kernel(f32, f64)]
pub fn probe_float_methods<T: Real + Exp + Elementary>(args: FloatMethodArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.input.len() {
        let x = args.input.get(i);
        let square = x * x;
        let (sin, cos) = x.sincos();
        let (sin_pi, cos_pi) = x.sincospi();
        // One store per field (an array of the values, iterated, lived in local memory).
        let out = |k: usize, v: T| args.out.set(FLOAT_METHOD_FIELDS * i + k, v);
        out(0, x.exp());
        out(1, (square + T::from_f64(1.0)).ln());
        out(2, square.sqrt());
        out(3, x.sin());
        out(4, sin);
        out(5, cos);
        out(6, sin_pi);
        out(7, cos_pi);
    }
}

/// Each thread times a dependent loop with `clock64` and the global timer, and runs the three
/// fences: writes `[cycles, nanoseconds, accumulator]` (the accumulator keeps the loop alive).
#[kernel]
pub fn probe_clock(args: OutArgs<'_, u64>) {
    let i = global_idx_x();
    let (c0, t0) = (clock64(), global_timer_ns());
    let mut acc = i as u64;
    for k in 0..1000u64 {
        acc = acc.wrapping_mul(6364136223846793005).wrapping_add(k);
    }
    thread_fence_block();
    thread_fence();
    thread_fence_system();
    let (c1, t1) = (clock64(), global_timer_ns());
    args.out.set(3 * i, c1.wrapping_sub(c0));
    args.out.set(3 * i + 1, t1.wrapping_sub(t0));
    args.out.set(3 * i + 2, acc);
}

/// Arguments of [`probe_print`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PrintArgs<'a> {
    /// One value per thread to print.
    pub x: Slice<'a, i32>,
    /// Dashes in thread 0's extra line: more than `print::MAX_LINE_TEXT_BYTES` shows the cut.
    pub dashes: u32,
}

/// Names printed by [`probe_print`], one per thread in turn.
pub const PRINT_NAMES: [&str; 3] = ["zero", "one", "two"];

/// Each thread `i < x.len()` prints one line with `x[i]` in several formats (even threads with
/// `println!`, odd ones with `print!` and an explicit `\n`); thread 0 also prints a line of
/// `dashes` dashes and a `|`.
///
/// Integers, booleans and strings only: a float would link `core`'s float formatter, which
/// costs the library's module some 12 s of JIT compilation at every first load (see
/// `ferrocuda_device::print`).
#[kernel]
pub fn probe_print(args: PrintArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        let x = args.x.get(i);
        let (bits, positive, name) = (x as u32, x > 0, PRINT_NAMES[i % PRINT_NAMES.len()]);
        if i.is_multiple_of(2) {
            ferrocuda_device::println!("probe {i:>3}: {x} {x:+07} {bits:#010x} {positive} {name:>5}| é");
        } else {
            ferrocuda_device::print!("probe {i:>3}: {x} {x:+07} {bits:#010x} {positive} {name:>5}| é\n");
        }
    }
    if i == 0 {
        ferrocuda_device::println!("{:-<width$}|", "", width = args.dashes as usize);
    }
}

/// Arguments of [`probe_two_outputs`]: two writable views, which a launch refuses when they
/// overlap.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(first, second))]
pub struct TwoOutputsArgs<'a> {
    /// Receives 5 in each element.
    pub first: SliceMut<'a, f32>,
    /// Receives 5 in each element.
    pub second: SliceMut<'a, f32>,
}

/// Writes 5 into each element of both views: the kernel of the host's test that overlapping
/// writable views are refused and disjoint ones launch (`host/ferrocuda/tests/soundness.rs`).
#[kernel]
pub fn probe_two_outputs(args: TwoOutputsArgs<'_>) {
    let i = global_idx_x();
    if i < args.first.len() {
        args.first.set(i, 5.0);
        args.second.set(i, 5.0);
    }
}

/// Arguments of [`probe_triad`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, b, c))]
pub struct TriadArgs<'a> {
    pub a: Slice<'a, f32>,
    pub b: Slice<'a, f32>,
    /// Receives `a + scalar * b`.
    pub c: SliceMut<'a, f32>,
    pub scalar: f32,
}

/// `c = a + scalar * b`, one element per thread: a kernel that reads two buffers and writes a
/// third, for the host's tests that a buffer dropped right after a launch stays allocated until
/// the launch has run (`host/ferrocuda/tests/soundness.rs`).
#[kernel]
pub fn probe_triad(args: TriadArgs<'_>) {
    let i = global_idx_x();
    if i < args.c.len() {
        args.c.set(i, args.a.get(i) + args.scalar * args.b.get(i));
    }
}
