//! Jacobi relaxation of the 2-D Laplace equation with the compact 9-point stencil (book §6.2;
//! Appendix D.5, module `laplaceRoutines`: `jacobiGlobal`, `jacobiShared`, `jacobiTexture` and
//! the CUF kernel of the max residual).
//!
//! Layout: the book's `a(nx, ny)` is column-major, `i` contiguous; here point `(i, j)` (0-based)
//! is `a[j * nx + i]`, so `i` is still the contiguous index and the launch shapes are the book's:
//! `x` along `i`, blocks of `BLOCK_X x BLOCK_Y` = 32 x 16 threads.
//!
//! Every kernel, and the CPU reference, computes an interior point with [`jacobi_point`], the
//! book's Fortran statement evaluated left to right with each product rounded on its own:
//!
//! ```text
//! aNew(i,j) = 0.2 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
//!           + 0.05 * (a(i-1,j-1) + a(i+1,j-1) + a(i-1,j+1) + a(i+1,j+1))
//! ```
//!
//! so every kernel gives the CPU's field and residuals bit for bit, whatever its launch shape.
//! The residual of a sweep is `max |aNew - a|` over all points; the residual kernels fold the
//! bit patterns of `|aNew - a|` (non-negative floats order as their bits do) with an integer
//! `max`, which is exact and independent of the order.
//!
//! Texture references (`real, texture, pointer :: aTex(:,:)`) no longer exist in CUDA 12 and
//! later; [`jacobi_texture`] reads through the same cache with `ld.global.nc` (CUDA C's `__ldg`),
//! which is what a read-only texture fetch of linear memory became, in either precision.
use ferrocuda_device::collective::Max;
use ferrocuda_device::collective::block::{BLOCK_REDUCE_SCRATCH, block_reduce};
use ferrocuda_device::math::{add_rn, mul_rn};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::{Tile1d, Tile2d};

/// The book's block width (`BLOCK_X`).
pub const BLOCK_X: usize = 32;
/// The book's block height (`BLOCK_Y`).
pub const BLOCK_Y: usize = 16;

/// `f32` or `f64`, with the bit patterns the residual reductions fold.
pub trait LaplaceReal: Real {
    /// The bits of `|self|`, widened to `u64`: for non-negative floats the bits order as the
    /// values do, so an integer `max` of them is the float `max`, exactly.
    fn abs_bits(self) -> u64;
    /// The value whose [`LaplaceReal::abs_bits`] are `bits`.
    fn from_abs_bits(bits: u64) -> Self;
}

impl LaplaceReal for f32 {
    #[inline(always)]
    fn abs_bits(self) -> u64 {
        u64::from(self.to_bits() & 0x7fff_ffff)
    }
    #[inline(always)]
    fn from_abs_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl LaplaceReal for f64 {
    #[inline(always)]
    fn abs_bits(self) -> u64 {
        self.to_bits() & 0x7fff_ffff_ffff_ffff
    }
    #[inline(always)]
    fn from_abs_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

/// The book's update of one interior point from its 3 x 3 neighbourhood `s[dy][dx]` (the point
/// is `s[1][1]`, `dx` along `i`, `dy` along `j`): the one place that fixes the order of the
/// arithmetic, for every kernel and the CPU.
///
/// `0.2 * (((W + E) + S) + N) + 0.05 * (((SW + SE) + NW) + NE)`, where `S` is `a(i, j-1)` and `N`
/// is `a(i, j+1)`, the constants rounded to the working precision (`0.2_fp_kind`). The products
/// go through `mul_rn`, so the NVPTX backend cannot contract them into an `fma` with the sum
/// (the CPU rounds both), and the sums are left to right as Fortran evaluates them.
#[inline(always)]
pub fn jacobi_point<T: Real>(s: &[[T; 3]; 3]) -> T {
    let edges = ((s[1][0] + s[1][2]) + s[0][1]) + s[2][1];
    let corners = ((s[0][0] + s[0][2]) + s[2][0]) + s[2][2];
    add_rn(mul_rn(T::from_f64(0.2), edges), mul_rn(T::from_f64(0.05), corners))
}

/// The neighbourhood `s[dy][dx] = at(dx, dy)` that [`jacobi_point`] takes, `at(1, 1)` being the
/// point itself.
#[inline(always)]
pub fn neighbourhood<T: Copy>(at: impl Fn(usize, usize) -> T) -> [[T; 3]; 3] {
    [
        [at(0, 0), at(1, 0), at(2, 0)],
        [at(0, 1), at(1, 1), at(2, 1)],
        [at(0, 2), at(1, 2), at(2, 2)],
    ]
}

/// Arguments of the sweeps [`jacobi_global`], [`jacobi_shared`], [`jacobi_texture`] and
/// [`jacobi_strip`] (the book's `(a, aNew)`): `a_new` gets the update of every interior point of
/// `a`; its boundary points are left as they are.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, a_new))]
pub struct JacobiArgs<'a, T> {
    /// The field, `nx * ny` points, only read.
    pub a: Slice<'a, T>,
    /// The next field, `nx * ny` points.
    pub a_new: SliceMut<'a, T>,
    /// Points along `i`, the contiguous index.
    pub nx: u32,
    /// Points along `j`.
    pub ny: u32,
}

/// `(nx, ny)` after the one test of a launch: both views hold `nx * ny` points (traps
/// otherwise, on every thread), which keeps every index of a point or neighbour in bounds.
#[inline(always)]
fn extents<T>(a: &Slice<'_, T>, a_new: &SliceMut<'_, T>, nx: u32, ny: u32) -> (usize, usize) {
    let (nx, ny) = (nx as usize, ny as usize);
    if a.len() != nx * ny || a_new.len() != nx * ny {
        ferrocuda_device::global::bounds_failure()
    }
    (nx, ny)
}

/// True for a point whose update the book computes: `1 < i < nx` and `1 < j < ny` in its
/// 1-based indices. `i` or `j` may be `usize::MAX`, a tiled kernel's wrapped index of a cell left
/// of or below the mesh, so the bounds are on the right-hand side.
#[inline(always)]
fn interior(i: usize, j: usize, nx: usize, ny: usize) -> bool {
    i >= 1 && i < nx.saturating_sub(1) && j >= 1 && j < ny.saturating_sub(1)
}

/// One thread per point, each of the eight neighbours read by `load(index)`.
#[inline(always)]
fn pointwise<T: Real>(args: &JacobiArgs<'_, T>, load: impl Fn(usize) -> T) {
    let (nx, ny) = extents(&args.a, &args.a_new, args.nx, args.ny);
    let (i, j) = (global_idx_x(), global_idx_y());
    if interior(i, j, nx, ny) {
        let value = jacobi_point(&neighbourhood(|dx, dy| load((j + dy - 1) * nx + i + dx - 1)));
        // SAFETY: `j * nx + i < nx * ny == a_new.len()` (interior point, `extents`).
        unsafe { args.a_new.set_unchecked(j * nx + i, value) };
    }
}

/// The book's `jacobiGlobal`: one thread per point, neighbours read from global memory.
#[kernel(f32, f64)]
pub fn jacobi_global<T: Real>(args: JacobiArgs<'_, T>) {
    // SAFETY: an interior point's neighbours lie inside the `nx * ny` points of `a` (`extents`).
    pointwise(&args, |k| unsafe { args.a.get_unchecked(k) });
}

/// The book's `jacobiTexture`: as [`jacobi_global`], neighbours read through the read-only path
/// (`ld.global.nc`), the texture cache of the book's K20 (one unit with L1 since Maxwell). `a`
/// is read-only for the launch, as the texture was.
#[kernel(f32, f64)]
pub fn jacobi_texture<T: Real>(args: JacobiArgs<'_, T>) {
    // SAFETY: as in `jacobi_global`.
    pointwise(&args, |k| unsafe { args.a.get_nc_unchecked(k) });
}

/// The book's shared tile `t(0:BLOCK_X+1, 0:BLOCK_Y+1)`: the block's points and a one-point
/// halo, rows along `j`.
pub type SharedTile<T> = Tile2d<T, { BLOCK_Y + 2 }, { BLOCK_X + 2 }, 0>;

/// Dynamic shared memory of [`jacobi_shared`]: one [`SharedTile`].
pub const fn shared_bytes<T: Copy>() -> usize {
    SharedTile::<T>::BYTES
}

/// The book's `jacobiShared`: the block stages its points and their halo in a shared tile with
/// four guarded loads, then each thread updates its point from the tile.
///
/// Tile cell `(cy, cx)` holds `a(i0 + cx - 1, j0 + cy - 1)`, `(i0, j0)` being the block's first
/// point. Every thread loads the cell of its own `(tx, ty)`, the point one below and one left of
/// its own (the book's `t(is-1,js-1) = a(i-1,j-1)`); the last two rows of threads also load two
/// rows further up, the last two columns two columns further right, and the last two of both
/// the corner: exactly the `(BLOCK_X + 2) x (BLOCK_Y + 2)` cells. The book's guards test
/// `i > 1`, `j > 1`, `i < nx`, `j < ny` (1-based); the tests of the far side here also cover
/// meshes that are not multiples of the block, which the book's 4096 is.
///
/// Launch: blocks of exactly `BLOCK_X x BLOCK_Y` threads (traps otherwise), [`shared_bytes`]
/// of dynamic shared memory.
#[kernel(f32, f64)]
pub fn jacobi_shared<T: Real>(args: JacobiArgs<'_, T>) {
    let (nx, ny) = extents(&args.a, &args.a_new, args.nx, args.ny);
    if block_dim().x != BLOCK_X || block_dim().y != BLOCK_Y || block_dim().z != 1 {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: the launch provides `shared_bytes::<T>()` bytes of dynamic shared memory (the host
    // launcher's shape); this is the launch's only tile.
    let t = unsafe { SharedTile::<T>::dynamic() };
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (i, j) = (global_idx_x(), global_idx_y());
    // Column `i - 1` or row `j - 1` exists for 1 <= i <= nx, 1 <= j <= ny; `i + 1`, `j + 1` below
    // nx, ny.
    let (west, south) = (i >= 1 && i <= nx, j >= 1 && j <= ny);
    let (east, north) = (i + 1 < nx, j + 1 < ny);
    let (last_cols, last_rows) = (tx >= BLOCK_X - 2, ty >= BLOCK_Y - 2);
    let a = |i: usize, j: usize| args.a.get(j * nx + i);
    if west && south {
        t.set(ty, tx, a(i - 1, j - 1));
    }
    if west && north && last_rows {
        t.set(ty + 2, tx, a(i - 1, j + 1));
    }
    if east && south && last_cols {
        t.set(ty, tx + 2, a(i + 1, j - 1));
    }
    if east && north && last_cols && last_rows {
        t.set(ty + 2, tx + 2, a(i + 1, j + 1));
    }
    // Every thread of the block reaches the barrier (no return before it).
    sync_threads();
    if interior(i, j, nx, ny) {
        let value = jacobi_point(&neighbourhood(|dx, dy| t.get(ty + dy, tx + dx)));
        // SAFETY: `j * nx + i < nx * ny == a_new.len()` (interior point, `extents`).
        unsafe { args.a_new.set_unchecked(j * nx + i, value) };
    }
}

/// Threads of a [`jacobi_strip`] block: one warp across, 8 warps down.
pub const STRIP_BLOCK: (usize, usize) = (32, 8);
/// Points each thread of [`jacobi_strip`] updates, one above the other in one column.
pub const STRIP_ROWS: usize = 8;
const _: () = assert!(STRIP_ROWS == 8, "jacobi_strip unrolls its row loops for 8 rows");

/// A sweep for bandwidth (not in the book): each thread updates a strip of [`STRIP_ROWS`]
/// points down one column, reading the `STRIP_ROWS + 2` rows of its three columns once through
/// the read-only path (30 loads for 8 points, against 72 for one point per thread), all loads
/// issued before the first update, so that each thread has 30 loads in flight (the book's ILP
/// lesson, §3.5.2). A warp reads 32 consecutive points of a row per load. Strips that touch the
/// first or last row take a per-point path with its bound tests; the others test nothing.
#[kernel(f32, f64)]
pub fn jacobi_strip<T: Real>(args: JacobiArgs<'_, T>) {
    let (nx, ny) = extents(&args.a, &args.a_new, args.nx, args.ny);
    let i = global_idx_x();
    let j0 = global_idx_y() * STRIP_ROWS;
    if i == 0 || i + 1 >= nx {
        return;
    }
    if j0 >= 1 && j0 + STRIP_ROWS < ny {
        // Rows `j0 - 1 ..= j0 + STRIP_ROWS` and columns `i - 1 ..= i + 1` lie inside the
        // `nx x ny` points of both views (the two tests above and `extents`).
        let load = |j: usize| {
            let k = j * nx + i;
            // SAFETY: `k - 1 .. k + 1` are points of those rows and columns (above).
            unsafe {
                [
                    args.a.get_nc_unchecked(k - 1),
                    args.a.get_nc_unchecked(k),
                    args.a.get_nc_unchecked(k + 1),
                ]
            }
        };
        let mut rows = [[T::default(); 3]; STRIP_ROWS + 2];
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] => {
            rows[r] = load(j0 - 1 + r);
        });
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
            let value = jacobi_point(&[rows[r], rows[r + 1], rows[r + 2]]);
            // SAFETY: as above.
            unsafe { args.a_new.set_unchecked((j0 + r) * nx + i, value) };
        });
    } else {
        for j in j0..(j0 + STRIP_ROWS).min(ny) {
            if interior(i, j, nx, ny) {
                let value = jacobi_point(&neighbourhood(|dx, dy| args.a.get_nc((j + dy - 1) * nx + i + dx - 1)));
                args.a_new.set(j * nx + i, value);
            }
        }
    }
}

/// Arguments of [`max_residual`]: folds `max |a_new - a|` over all points into
/// `residuals[slot]` (as [`LaplaceReal::abs_bits`]), which the host zeroes before the first fold.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, a_new))]
pub struct MaxResidualArgs<'a, T> {
    pub a: Slice<'a, T>,
    pub a_new: Slice<'a, T>,
    /// One slot per sweep.
    pub residuals: SliceMut<'a, u64>,
    pub slot: u32,
}

/// Threads of a [`max_residual`] block.
pub const RESIDUAL_THREADS: usize = 256;

/// Dynamic shared memory of [`max_residual`]: the block reduction's scratch.
pub const fn residual_shared_bytes() -> usize {
    Tile1d::<u64>::bytes(BLOCK_REDUCE_SCRATCH)
}

/// The book's CUF kernel `maxResidual = max(maxResidual, abs(a_d(i,j) - aNew_d(i,j)))`: a
/// grid-stride loop over all points (any grid), a block reduction of the bit patterns, and one
/// `atomicMax` per block. The boundary points contribute 0, as in the book.
#[kernel(f32, f64)]
pub fn max_residual<T: LaplaceReal>(args: MaxResidualArgs<'_, T>) {
    let n = args.a.len().min(args.a_new.len());
    let mut largest = 0u64;
    for k in grid_stride_range(n) {
        let bits = (args.a_new.get_nc(k) - args.a.get_nc(k)).abs_bits();
        largest = largest.max(bits);
    }
    // SAFETY: the launch provides `residual_shared_bytes()` of dynamic shared memory, this
    // launch's only tile.
    let scratch = unsafe { Tile1d::<u64>::dynamic(BLOCK_REDUCE_SCRATCH) };
    let block_largest = block_reduce::<u64, Max>(largest, &scratch);
    if thread_rank_in_block() == 0 {
        args.residuals.atomic_max(args.slot as usize, block_largest);
    }
}

/// Sweeps [`jacobi_tiled`] runs per launch at most: the depth of its tile's halo.
pub const TILED_SWEEPS: usize = 4;
/// Threads of a [`jacobi_tiled`] block.
pub const TILED_BLOCK: (usize, usize) = (32, 8);
/// Columns of the shared tiles of [`jacobi_tiled`], halo included: 4 per thread.
pub const TILED_SW: usize = 4 * TILED_BLOCK.0;
/// Rows of the shared tiles of [`jacobi_tiled`], halo included: 4 per thread.
pub const TILED_SH: usize = 4 * TILED_BLOCK.1;
/// Columns of the points a [`jacobi_tiled`] block writes (its inner tile).
pub const TILED_W: usize = TILED_SW - 2 * TILED_SWEEPS;
/// Rows of the points a [`jacobi_tiled`] block writes.
pub const TILED_H: usize = TILED_SH - 2 * TILED_SWEEPS;

/// One of the two shared tiles of [`jacobi_tiled`].
pub type TiledTile<T> = Tile2d<T, TILED_SH, TILED_SW, 0>;

/// Dynamic shared memory of [`jacobi_tiled`]: two tiles, then the block reduction's scratch.
pub const fn tiled_shared_bytes<T: Copy>() -> usize {
    2 * TiledTile::<T>::BYTES + Tile1d::<u64>::bytes(BLOCK_REDUCE_SCRATCH)
}

/// Arguments of [`jacobi_tiled`]: `sweeps` sweeps from `a` into `a_new` (out of place), the
/// residual of sweep `h` folded into `residuals[first_slot + h]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, a_new))]
pub struct JacobiTiledArgs<'a, T> {
    /// The field, only read.
    pub a: Slice<'a, T>,
    /// The field after `sweeps` sweeps; every point is written.
    pub a_new: SliceMut<'a, T>,
    pub nx: u32,
    pub ny: u32,
    /// One slot per sweep, zeroed by the host before the first fold.
    pub residuals: SliceMut<'a, u64>,
    pub first_slot: u32,
    /// 1 to [`TILED_SWEEPS`].
    pub sweeps: u32,
}

/// Several sweeps per launch (temporal blocking, not in the book; the thesis's `sor_tiled` for
/// Jacobi): each block loads a `TILED_SW x TILED_SH` tile, its `TILED_W x TILED_H` inner tile and
/// a halo [`TILED_SWEEPS`] deep, into shared memory and sweeps it `sweeps` times between two
/// shared tiles, each sweep on a region one layer smaller (a point of sweep `h` needs the
/// neighbours of sweep `h - 1`), then writes its inner tile. A sweep's residual is folded over
/// the inner tiles (each point in exactly one), so the residual of every sweep is the untiled
/// one, bit for bit. DRAM traffic for `sweeps` sweeps: one read and one write of the grid, the
/// halo's extra reads mostly from L2.
///
/// Launch: blocks of exactly `TILED_BLOCK` threads (traps otherwise), a grid of
/// `ceil(nx / TILED_W) x ceil(ny / TILED_H)` blocks, [`tiled_shared_bytes`] of dynamic shared
/// memory.
#[kernel(f32, f64)]
pub fn jacobi_tiled<T: LaplaceReal>(args: JacobiTiledArgs<'_, T>) {
    let (nx, ny) = extents(&args.a, &args.a_new, args.nx, args.ny);
    let sweeps = args.sweeps as usize;
    let d = block_dim();
    if d.x != TILED_BLOCK.0
        || d.y != TILED_BLOCK.1
        || d.z != 1
        || sweeps == 0
        || sweeps > TILED_SWEEPS
        || args.first_slot as usize + sweeps > args.residuals.len()
    {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: the launch provides `tiled_shared_bytes::<T>()` bytes of dynamic shared memory (the
    // host launcher's shape): the two tiles, then the scratch at a multiple of 16 bytes.
    let (first, second) = unsafe {
        (
            TiledTile::<T>::dynamic(),
            TiledTile::<T>::dynamic_at(TiledTile::<T>::BYTES),
        )
    };
    // SAFETY: as above; the scratch follows the two tiles.
    let scratch = unsafe { Tile1d::<u64>::dynamic_at(2 * TiledTile::<T>::BYTES, BLOCK_REDUCE_SCRATCH) };
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    // Tile cell (y, x) is point (i0 + x - TILED_SWEEPS, j0 + y - TILED_SWEEPS); thread (tx, ty) loads the 16 cells
    // (ty + 8 ry, tx + 32 rx), so each row of a warp's cells is 32 consecutive points.
    let (i0, j0) = (block_idx().x * TILED_W, block_idx().y * TILED_H);
    unroll!(ry in [0, 1, 2, 3] => {
        unroll!(rx in [0, 1, 2, 3] => {
            let (x, y) = (tx + TILED_BLOCK.0 * rx, ty + TILED_BLOCK.1 * ry);
            let (i, j) = tiled_point((i0, j0), x, y);
            // Cells outside the mesh hold 0; they are never the neighbours of an update.
            let value = if i < nx && j < ny { args.a.get_nc(j * nx + i) } else { T::default() };
            first.set(y, x, value);
        });
    });
    for h in 0..sweeps {
        // Every thread of the block reaches every barrier (uniform loop bounds).
        sync_threads();
        let largest = if h.is_multiple_of(2) {
            tiled_sweep(&first, &second, h + 1, (i0, j0), (nx, ny))
        } else {
            tiled_sweep(&second, &first, h + 1, (i0, j0), (nx, ny))
        };
        let block_largest = block_reduce::<u64, Max>(largest, &scratch);
        if thread_rank_in_block() == 0 {
            args.residuals.atomic_max(args.first_slot as usize + h, block_largest);
        }
    }
    // As above.
    sync_threads();
    let last = if sweeps.is_multiple_of(2) { &first } else { &second };
    unroll!(ry in [0, 1, 2, 3] => {
        unroll!(rx in [0, 1, 2, 3] => {
            let (x, y) = (tx + TILED_BLOCK.0 * rx, ty + TILED_BLOCK.1 * ry);
            let (i, j) = tiled_point((i0, j0), x, y);
            if tiled_inner(x, y) && i < nx && j < ny {
                // SAFETY: `j * nx + i < nx * ny == a_new.len()` (`extents`).
                unsafe { args.a_new.set_unchecked(j * nx + i, last.get(y, x)) };
            }
        });
    });
}

/// The mesh point `(i, j)` of cell `(x, y)` of the tile whose inner tile starts at point
/// `origin` (wrapped past `usize::MAX` left of or below the mesh, so one `< nx` test rejects it).
#[inline(always)]
fn tiled_point(origin: (usize, usize), x: usize, y: usize) -> (usize, usize) {
    (
        (origin.0 + x).wrapping_sub(TILED_SWEEPS),
        (origin.1 + y).wrapping_sub(TILED_SWEEPS),
    )
}

/// True for a cell of the inner tile, the points a block writes.
#[inline(always)]
fn tiled_inner(x: usize, y: usize) -> bool {
    (TILED_SWEEPS..TILED_SWEEPS + TILED_W).contains(&x) && (TILED_SWEEPS..TILED_SWEEPS + TILED_H).contains(&y)
}

/// Rows of the band each thread of [`jacobi_tiled`] updates in a sweep (in each of its 4
/// columns): one row of neighbours above and below it, so 6 rows of 3 loads for 4 points.
pub const TILED_BAND: usize = TILED_SH / TILED_BLOCK.1;
const _: () = assert!(TILED_BAND == 4, "tiled_sweep unrolls its band loops for 4 rows");

/// One sweep of [`jacobi_tiled`] from `src` into `dst` over the cells at least `margin` from
/// the tile's edge; returns the largest residual bits of the calling thread's inner cells.
///
/// Thread `(tx, ty)` takes columns `tx + 32 rx` (so a warp reads 32 consecutive cells of a row,
/// one per bank) and rows `4 ty .. 4 ty + 4` of each: it reads the band's 6 rows of the
/// column and its two neighbours once, 4.5 shared loads a point instead of 9. It reads only
/// cells the previous sweep wrote (the simulator checks). Takes the tiles by name (the caller
/// branches on the sweep's parity), so that they stay shared-memory addresses rather than an
/// array in local memory.
#[inline(always)]
fn tiled_sweep<T: LaplaceReal>(
    src: &TiledTile<T>,
    dst: &TiledTile<T>,
    margin: usize,
    origin: (usize, usize),
    (nx, ny): (usize, usize),
) -> u64 {
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let band = TILED_BAND * ty;
    // The rows (and columns) the previous sweep wrote, or the load for the first sweep.
    let (written_from, written_to) = (margin - 1, TILED_SH - (margin - 1));
    let mut largest = 0u64;
    unroll!(rx in [0, 1, 2, 3] => {
        let x = tx + TILED_BLOCK.0 * rx;
        if x >= margin && x < TILED_SW - margin {
            // rows[k] holds row `band + k - 1`, columns x - 1, x, x + 1.
            let mut rows = [[T::default(); 3]; TILED_BAND + 2];
            unroll!(k in [0, 1, 2, 3, 4, 5] => {
                let y = (band + k).wrapping_sub(1);
                if y >= written_from && y < written_to {
                    rows[k] = [src.get(y, x - 1), src.get(y, x), src.get(y, x + 1)];
                }
            });
            unroll!(k in [0, 1, 2, 3] => {
                let y = band + k;
                if y >= margin && y < TILED_SH - margin {
                    let (i, j) = tiled_point(origin, x, y);
                    let old = rows[k + 1][1];
                    let new = if interior(i, j, nx, ny) {
                        jacobi_point(&[rows[k], rows[k + 1], rows[k + 2]])
                    } else {
                        old
                    };
                    dst.set(y, x, new);
                    if tiled_inner(x, y) && i < nx && j < ny {
                        largest = largest.max((new - old).abs_bits());
                    }
                }
            });
        }
    });
    largest
}
