//! The course's capstone, "HeatFlow: GPU Accelerated Version" (IT4I course, slot 5, hands-on
//! H7): **our own design**, since the course gives only the title. The 2-D heat equation
//! `u_t = alpha (u_xx + u_yy)` by explicit FTCS with the 5-point Laplacian, out of place from
//! `src` into `dst`, on a `rows x cols` row-major grid of spacing `h`:
//!
//! `u' = u + r (W + E + N + S - 4 u)`, `r = alpha dt / h^2 <= 1/4` (the stability limit).
//!
//! Edges: [`DIRICHLET`] holds the first and last row and column at their values (fixed
//! temperatures; the kernels copy them from `src` to `dst`); [`INSULATED`] updates every point,
//! a neighbour outside the grid being a ghost that mirrors the point itself (zero flux through
//! the cell faces of a cell-centred grid), so the total heat is conserved.
//!
//! Two kernels, equal bit for bit to each other and to the CPU reference: [`heat_step`] reads
//! global memory (one point per thread, the neighbours through the read-only path), and
//! [`heat_step_tiled`] loads a tile with a halo into shared memory and runs up to [`HALO`] time
//! steps there per launch (temporal blocking, as `sor_tiled`).
use ferrocuda_device::math::fma;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// Edges held at fixed temperatures.
pub const DIRICHLET: u32 = 0;
/// Insulated edges: zero flux, through a ghost cell mirroring the edge cell.
pub const INSULATED: u32 = 1;

/// One FTCS update of `u` from its west, east, north and south neighbours, rounded the same way
/// on the GPU and the CPU: `lap = fma(-4, u, (w + e) + (n + s))` (`4 u` is exact, so this equals
/// the unfused form), then `fma(r, lap, u)`, one rounding. The fused multiply-adds are explicit:
/// the NVPTX backend would contract `u + r * lap` on its own, the CPU would not.
#[inline(always)]
pub fn ftcs<T: Real>(u: T, w: T, e: T, n: T, s: T, r: T) -> T {
    let laplacian = fma(T::from_f64(-4.0), u, (w + e) + (n + s));
    fma(r, laplacian, u)
}

/// Arguments of [`heat_step`]: one time step from `src` into `dst`, both `rows x cols`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(src, dst))]
pub struct HeatArgs<'a, T> {
    pub src: Slice<'a, T>,
    /// Every point is written: updated, or (a Dirichlet edge) copied from `src`.
    pub dst: SliceMut<'a, T>,
    pub rows: u32,
    pub cols: u32,
    /// [`DIRICHLET`] or [`INSULATED`].
    pub edges: u32,
    /// `alpha dt / h^2`.
    pub r: T,
}

/// Threads a block of [`heat_step`]: a warp along a row, 8 rows.
pub const STEP_BLOCK: (u32, u32) = (32, 8);

/// True when point `(i, j)` is one of the fixed points of Dirichlet edges.
#[inline(always)]
fn on_edge(i: usize, j: usize, rows: usize, cols: usize) -> bool {
    i == 0 || j == 0 || i + 1 == rows || j + 1 == cols
}

/// One time step, one point per thread: thread `(x, y)` of the 2-D grid takes point
/// `(row y, column x)`. The four neighbours come through `ld.global.nc` (`src` is read-only for
/// the launch), so the rows above and below, read by other warps too, are served from L1.
///
/// Launch: any 2-D grid covering `cols x rows`, e.g. [`STEP_BLOCK`] blocks.
#[kernel(f32, f64)]
pub fn heat_step<T: Real>(args: HeatArgs<'_, T>) {
    let (rows, cols) = (args.rows as usize, args.cols as usize);
    // The one bound test of the launch: every index below is less than `rows * cols`.
    if rows.saturating_mul(cols) > args.src.len() {
        ferrocuda_device::global::bounds_failure()
    }
    let (j, i) = (global_idx_x(), global_idx_y());
    if i >= rows || j >= cols {
        return;
    }
    let k = i * cols + j;
    // SAFETY: `k` and each neighbour index are below `rows * cols <= src.len() = dst.len()`
    // (tested above; the neighbours are taken only inside the grid).
    let at = |index: usize| unsafe { args.src.get_nc_unchecked(index) };
    let u = at(k);
    let value = if args.edges == DIRICHLET && on_edge(i, j, rows, cols) {
        u
    } else {
        // Insulated edges: a neighbour outside the grid mirrors the point (Dirichlet points
        // never reach these tests with a neighbour outside).
        let w = if j > 0 { at(k - 1) } else { u };
        let e = if j + 1 < cols { at(k + 1) } else { u };
        let n = if i > 0 { at(k - cols) } else { u };
        let s = if i + 1 < rows { at(k + cols) } else { u };
        ftcs(u, w, e, n, s, args.r)
    };
    // SAFETY: as above.
    unsafe { args.dst.set_unchecked(k, value) };
}

/// Columns of the part of a tile that [`heat_step_tiled`] writes.
pub const TILE_W: usize = 56;
/// Rows of the part of a tile that [`heat_step_tiled`] writes.
pub const TILE_H: usize = 32;
/// Steps [`heat_step_tiled`] runs per launch at most: the depth of its halo.
pub const HALO: usize = 4;
/// Columns of the shared tile, halo included: two warps wide.
pub const TILE_SW: usize = TILE_W + 2 * HALO;
/// Rows of the shared tile, halo included.
pub const TILE_SH: usize = TILE_H + 2 * HALO;
/// Threads a block of [`heat_step_tiled`].
pub const TILED_BLOCK: (u32, u32) = (32, 8);

/// The two shared tiles of [`heat_step_tiled`], halo included, one above the other: tile `b`
/// is rows `b * TILE_SH ..` (an offset, not an array of tiles, which would live in local memory).
pub type HaloTiles<T> = Tile2d<T, { 2 * TILE_SH }, TILE_SW, 0>;

/// Dynamic shared memory of [`heat_step_tiled`]: two haloed tiles (the step reads one and
/// writes the other), 20 KiB in f32 and 40 KiB in f64, below the default 48 KiB limit.
pub const fn tiled_shared_bytes(element_bytes: usize) -> usize {
    2 * TILE_SH * TILE_SW * element_bytes
}

/// Arguments of [`heat_step_tiled`]: `steps` time steps from `src` into `dst`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(src, dst))]
pub struct TiledHeatArgs<'a, T> {
    pub src: Slice<'a, T>,
    /// Every point is written.
    pub dst: SliceMut<'a, T>,
    pub rows: u32,
    pub cols: u32,
    pub edges: u32,
    /// Time steps of this launch: 1 to [`HALO`].
    pub steps: u32,
    pub r: T,
}

/// `steps` time steps per launch in shared memory. Block `(bx, by)` owns the
/// [`TILE_H`] x [`TILE_W`] points from `(TILE_H by, TILE_W bx)`; it loads them with a halo
/// `steps` deep (the course's tiled stencil, halo loads included), then runs step `s` on the
/// tile shrunk by `steps - s` layers on each side (a point's new value needs its neighbours'
/// values of the step before, so the valid area loses one layer per step), reading one shared
/// buffer and writing the other, and writes its own points to `dst`. Global traffic for 4 steps:
/// one read of 1.43 tiles and one write, against 4 reads and 4 writes for [`heat_step`]. Out
/// of place: a block's halo is other blocks' points, which must stay as they were.
///
/// Launch: [`TILED_BLOCK`] threads (any 2-D block works), `ceil(cols / TILE_W) x ceil(rows /
/// TILE_H)` blocks, [`tiled_shared_bytes`] of dynamic shared memory.
#[kernel(f32, f64)]
pub fn heat_step_tiled<T: Real>(args: TiledHeatArgs<'_, T>) {
    let (rows, cols, steps) = (args.rows as usize, args.cols as usize, args.steps as usize);
    // The one bound test of the launch: below, every global index is less than `rows * cols`
    // and every tile index inside the tile (step `s >= 1` touches rows and columns `s - 1 +
    // HALO - steps ..` at least, and `steps <= HALO`), so the accesses skip their own tests,
    // as the CUDA C twin's.
    if rows.saturating_mul(cols) > args.src.len() || steps == 0 || steps > HALO {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: the launch provides `tiled_shared_bytes` = `HaloTiles::BYTES` (the host
    // launcher's shape); this is the launch's only tile.
    let tiles = unsafe { HaloTiles::<T>::dynamic() };
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (step_x, step_y) = (block_dim().x, block_dim().y);
    // Tile element (y, x) is grid point (r0 + y - HALO, c0 + x - HALO); wrapping turns the
    // points before the grid into huge indices, outside like those after it.
    let (r0, c0) = (block_idx().y * TILE_H, block_idx().x * TILE_W);
    let grid_row = |y: usize| (r0 + y).wrapping_sub(HALO);
    let grid_col = |x: usize| (c0 + x).wrapping_sub(HALO);
    // The rows (and columns) of step `s`'s area: `HALO - steps + s .. HALO + TILE + steps - s`;
    // step 0 is the load.
    let span = |tile_len: usize, s: usize| (HALO - steps + s, HALO + tile_len + steps - s);

    let (y_begin, y_end) = span(TILE_H, 0);
    let (x_begin, x_end) = span(TILE_W, 0);
    let mut y = y_begin + ty;
    while y < y_end {
        let gr = grid_row(y);
        let mut x = x_begin + tx;
        while x < x_end {
            let gc = grid_col(x);
            if gr < rows && gc < cols {
                // SAFETY: `(y, x)` lies in the tile and `gr * cols + gc < rows * cols` (above).
                unsafe { tiles.set_unchecked(y, x, args.src.get_nc_unchecked(gr * cols + gc)) };
            }
            x += step_x;
        }
        y += step_y;
    }
    for s in 1..=steps {
        // Every thread of the block reaches every barrier (uniform loop bounds).
        sync_threads();
        let (from, to) = (((s - 1) & 1) * TILE_SH, (s & 1) * TILE_SH);
        let (y_begin, y_end) = span(TILE_H, s);
        let (x_begin, x_end) = span(TILE_W, s);
        let mut y = y_begin + ty;
        while y < y_end {
            let gr = grid_row(y);
            let mut x = x_begin + tx;
            while x < x_end {
                let gc = grid_col(x);
                // Points outside the grid are never written and never read: a point inside
                // reads outside only at an edge, which is fixed or mirrors itself.
                if gr < rows && gc < cols {
                    // SAFETY: `1 <= y, x` and `y + 1 < TILE_SH`, `x + 1 < TILE_SW` for `s >= 1`
                    // (the bound test above), so the point and its neighbours lie in the tile.
                    let at = |yy: usize, xx: usize| unsafe { tiles.get_unchecked(from + yy, xx) };
                    let u = at(y, x);
                    let value = if args.edges == DIRICHLET && on_edge(gr, gc, rows, cols) {
                        u
                    } else {
                        let west = if gc > 0 { at(y, x - 1) } else { u };
                        let east = if gc + 1 < cols { at(y, x + 1) } else { u };
                        let north = if gr > 0 { at(y - 1, x) } else { u };
                        let south = if gr + 1 < rows { at(y + 1, x) } else { u };
                        ftcs(u, west, east, north, south, args.r)
                    };
                    // SAFETY: as above.
                    unsafe { tiles.set_unchecked(to + y, x, value) };
                }
                x += step_x;
            }
            y += step_y;
        }
    }
    // As above.
    sync_threads();
    let last = (steps & 1) * TILE_SH;
    let mut y = HALO + ty;
    while y < HALO + TILE_H {
        let gr = grid_row(y);
        let mut x = HALO + tx;
        while x < HALO + TILE_W && gr < rows {
            let gc = grid_col(x);
            if gc < cols {
                // SAFETY: as for the load.
                unsafe { args.dst.set_unchecked(gr * cols + gc, tiles.get_unchecked(last + y, x)) };
            }
            x += step_x;
        }
        y += step_y;
    }
}
