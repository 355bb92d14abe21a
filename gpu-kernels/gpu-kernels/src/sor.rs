//! Red-black SOR for the 2-D Laplace equation, 5-point stencil (thesis "Modeling Communication
//! on Multi-GPU Systems", Spampinato 2009: eq. 4.18, §5.4.2, Figs 5.9–5.20, Appendix B.2.6).
//!
//! One colour half-sweep updates, in place, every point of one colour inside a [`Region`]:
//! `u += omega * ((W + E + N + S) / 4 - u)`, where W, E, N, S are the four neighbours, all of
//! the other colour. A point `(r, j)` of a partition's local array is red when
//! `(parity + r + j)` is even, `parity` being the parity of the absolute coordinates of local
//! `(0, 0)`: so the colouring is the global one on every partition (red includes `(1, 1)`).
//!
//! Every kernel computes the update with the same roundings as the CPU reference
//! (`host/ferrocuda/src/reference/thesis/sor.rs`): `((W + E) + N) + S`, times `0.25` (exact), then one
//! fused multiply-add `fma(omega, avg - u, u)`. Within a colour the updates are independent, so
//! any launch shape gives the reference's result bit for bit.
//!
//! Two storage layouts:
//! - natural: one row-major array, `pitch` elements a row. The thesis's kernels [`rsor_gm`],
//!   [`bsor_gm`] (global loads) and [`rsor_lintex`], [`bsor_lintex`] (its texture kernels; here
//!   the read-only path `ld.global.nc`, which is what texture fetches of linear memory became).
//! - split: red and black points stored apart, each row of a colour compacted to `pitch`
//!   elements (point `(r, j)` at `r * pitch + j / 2` of its colour's plane). [`sor_split`] reads
//!   one plane and writes the other, so every access is a unit-stride, coalesced one, no lane
//!   idles on the wrong colour, and the plane it reads is read-only for the launch.
//!
//! [`sor_tiled`] (module `tiled`) runs several half-sweeps per launch on natural-layout grids,
//! in shared-memory tiles that it stores split by colour.
use ferrocuda_device::collective::block::{BLOCK_REDUCE_SCRATCH, block_reduce};
use ferrocuda_device::collective::{Max, Reducible};
use ferrocuda_device::math::{fma, mul_rn};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

mod tiled;
pub use tiled::*;

/// Red: points whose coordinates sum to an even number (the thesis's eq. 4.18; `(1, 1)` is red).
pub const RED: u32 = 0;
/// Black: the others.
pub const BLACK: u32 = 1;

/// The thesis's block width (`local_w`): 112 threads, which gave full occupancy on its GPUs.
pub const LOCAL_W: usize = 112;
/// The rows of the thesis's shared window: two rows updated, one above and one below.
pub const WINDOW_ROWS: usize = 4;
/// Columns a window advances by: its 112 columns overlap the next window's by the unit halo.
pub const WINDOW_STEP_X: usize = LOCAL_W - 2;
/// Rows a window advances by.
pub const WINDOW_STEP_Y: usize = 2;

/// Dynamic shared memory of the window kernels: `4 * local_w` elements.
pub const fn window_bytes(element_bytes: usize) -> usize {
    WINDOW_ROWS * LOCAL_W * element_bytes
}

/// The points a half-sweep updates: rows `row_begin..row_end`, columns `col_begin..col_end` of
/// the local array (the first and last row and column of the array are never inside it: they
/// hold the Dirichlet boundary or the outermost ghost layer).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub row_begin: u32,
    pub row_end: u32,
    pub col_begin: u32,
    pub col_end: u32,
}

// SAFETY: a `#[repr(C)]` struct of numbers: plain data a kernel may take.
unsafe impl ferrocuda_device::launch::DeviceCopy for Region {}

impl Region {
    /// Rows in the region.
    pub const fn rows(&self) -> usize {
        self.row_end.saturating_sub(self.row_begin) as usize
    }

    /// Columns in the region.
    pub const fn cols(&self) -> usize {
        self.col_end.saturating_sub(self.col_begin) as usize
    }

    /// True when the region holds no point.
    pub const fn is_empty(&self) -> bool {
        self.rows() == 0 || self.cols() == 0
    }

    /// True when every neighbour of every point lies inside a `rows x cols` array. Evaluated
    /// without short circuits (`|`, `&`): the kernels' one launch test then compiles to one
    /// predicate and one branch, not a chain of dependent ones ahead of the first load.
    pub const fn fits(&self, rows: usize, cols: usize) -> bool {
        (self.rows() == 0)
            | (self.cols() == 0)
            | ((self.row_begin >= 1)
                & (self.col_begin >= 1)
                & ((self.row_end as usize) < rows)
                & ((self.col_end as usize) < cols))
    }
}

/// The one update of every kernel: `u + omega * ((w + e + n + s) / 4 - u)`, rounded as the CPU
/// reference rounds it.
#[inline(always)]
pub fn relax<T: Real>(u: T, w: T, e: T, n: T, s: T, omega: T) -> T {
    let average = mul_rn(((w + e) + n) + s, T::from_f64(0.25));
    fma(omega, average - u, u)
}

/// Arguments of the natural-layout kernels (`rsor_*`, `bsor_*`, `sor_residual`).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct WindowArgs<'a, T> {
    /// The local array, `rows x pitch`, updated in place.
    pub grid: SliceMut<'a, T>,
    /// Elements a row (at least `cols`).
    pub pitch: u32,
    /// Rows of the local array.
    pub rows: u32,
    /// Columns of the local array.
    pub cols: u32,
    /// The points to update.
    pub region: Region,
    /// Parity of the absolute coordinates of local `(0, 0)`.
    pub parity: u32,
    /// The relaxation factor.
    pub omega: T,
}

/// Whether local `(r, j)` has `color`.
#[inline(always)]
fn has_color(parity: u32, r: usize, j: usize, color: u32) -> bool {
    ((parity as usize + r + j) & 1) as u32 == color
}

/// The thesis's kernel body (Figs 5.9–5.16): the block copies a 4 x 112 window into shared
/// memory (rows `row0..row0+4`, columns `col0..col0+112`), each of the first 110 threads
/// updates the one point of `COLOR` that its column holds in the window's two middle rows,
/// and after a barrier writes it back.
///
/// The thesis picks the row without a branch (`__mul24` arithmetic on the row parity); the
/// parity test here compiles to the same select.
#[inline(always)]
fn window_sweep<T: Real, const COLOR: u32>(args: &WindowArgs<'_, T>, load: impl Fn(usize) -> T) {
    let (pitch, rows, cols) = (args.pitch as usize, args.rows as usize, args.cols as usize);
    let region = args.region;
    if block_dim().x != LOCAL_W || !region.fits(rows, cols) || rows * pitch > args.grid.len() || cols > pitch {
        ferrocuda_device::global::bounds_failure()
    }
    let i = thread_idx_x();
    let col0 = region.col_begin as usize - 1 + block_idx().x * WINDOW_STEP_X;
    let row0 = region.row_begin as usize - 1 + block_idx().y * WINDOW_STEP_Y;
    // SAFETY: the launch provides `window_bytes` of dynamic shared memory (the host launcher's
    // shape); this is the launch's only tile.
    let window = unsafe { Tile1d::<T>::dynamic(WINDOW_ROWS * LOCAL_W) };
    let at = |y: usize, x: usize| y * LOCAL_W + x;
    let col = col0 + i;
    for y in 0..WINDOW_ROWS {
        if col < cols && row0 + y < rows {
            window.set(at(y, i), load((row0 + y) * pitch + col));
        }
    }
    // Every thread of the block reaches both barriers (no early return).
    sync_threads();
    let c = col + 1;
    let y = if has_color(args.parity, row0 + 1, c, COLOR) {
        1
    } else {
        2
    };
    let r = row0 + y;
    let mine = i < WINDOW_STEP_X && c < region.col_end as usize && r < region.row_end as usize;
    if mine {
        let updated = relax(
            window.get(at(y, i + 1)),
            window.get(at(y, i)),
            window.get(at(y, i + 2)),
            window.get(at(y - 1, i + 1)),
            window.get(at(y + 1, i + 1)),
            args.omega,
        );
        window.set(at(y, i + 1), updated);
    }
    // As above.
    sync_threads();
    if mine {
        args.grid.set(r * pitch + c, window.get(at(y, i + 1)));
    }
}

/// Red half-sweep, window loads from global memory (the thesis's `rsor_gm`).
#[kernel(f32, f64)]
pub fn rsor_gm<T: Real>(args: WindowArgs<'_, T>) {
    window_sweep::<T, RED>(&args, |k| args.grid.get(k));
}

/// Black half-sweep, window loads from global memory (`bsor_gm`).
#[kernel(f32, f64)]
pub fn bsor_gm<T: Real>(args: WindowArgs<'_, T>) {
    window_sweep::<T, BLACK>(&args, |k| args.grid.get(k));
}

/// Red half-sweep, window loads through the read-only path (`rsor_lintex`). The values it uses
/// are of the other colour, which no thread writes during the launch, and its own points, each
/// read by the one thread that writes it before it writes it.
#[kernel(f32, f64)]
pub fn rsor_lintex<T: Real>(args: WindowArgs<'_, T>) {
    window_sweep::<T, RED>(&args, |k| args.grid.get_nc(k));
}

/// Black half-sweep, window loads through the read-only path (`bsor_lintex`).
#[kernel(f32, f64)]
pub fn bsor_lintex<T: Real>(args: WindowArgs<'_, T>) {
    window_sweep::<T, BLACK>(&args, |k| args.grid.get_nc(k));
}

/// Arguments of [`sor_split`] and [`sor_residual_split`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SplitArgs<'a, T> {
    /// The plane of `color`, updated in place.
    pub own: SliceMut<'a, T>,
    /// The plane of the other colour, only read.
    pub other: Slice<'a, T>,
    /// Elements a compacted row of either plane (at least `(cols + 1) / 2`).
    pub pitch: u32,
    /// Rows of the local array.
    pub rows: u32,
    /// Columns of the local array (natural, not compacted).
    pub cols: u32,
    /// The points to update, in natural local coordinates.
    pub region: Region,
    /// Parity of the absolute coordinates of local `(0, 0)`.
    pub parity: u32,
    /// [`RED`] or [`BLACK`].
    pub color: u32,
    /// The relaxation factor.
    pub omega: T,
}

/// Threads a block of [`sor_split`] and the residual kernels: 32 compacted columns by 8 rows.
pub const SPLIT_BLOCK: (u32, u32) = (32, 8);

/// Points of one row each thread of [`sor_split`] updates, 32 columns apart so that each of its
/// loads is a coalesced warp access: four independent sets of loads in flight per thread, which
/// an f32 sweep needs to approach memcpy bandwidth (one point per thread reached 0.73 of it on
/// an H100; the book's ILP lesson, §3.5.2).
pub const SPLIT_POINTS: usize = 4;
const _: () = assert!(SPLIT_POINTS == 4, "sor_split unrolls its point loops for 4");

/// For row `r` of a split plane of `color`: `q`, the column parity of its points (`j = 2k + q`),
/// and the compacted columns `k_begin..k_end` of the region's points.
#[inline(always)]
pub fn split_row_span(region: &Region, parity: u32, color: u32, r: usize) -> (usize, usize, usize) {
    let q = (color as usize + parity as usize + r) & 1;
    let k_begin = (region.col_begin as usize + 1 - q) / 2;
    let k_end = (region.col_end as usize + 1 - q) / 2;
    (q, k_begin, k_end)
}

/// Threads along x a launch of [`sor_split`] needs: one per [`SPLIT_POINTS`] points of one
/// colour in a row of the region, the most such a row holds, in whole warps.
pub const fn split_span(region: &Region) -> usize {
    region.cols().div_ceil(2).div_ceil(SPLIT_POINTS * 32) * 32
}

/// One colour half-sweep on the split layout. Warp `w` of a block row takes compacted columns
/// `128 w .. 128 w + 128` of region row `y`, lane `l` the points `l, l + 32, l + 64, l + 96` of
/// them: each point's own value and its north and south neighbours sit at the same compacted
/// column of three rows, west and east at adjacent ones, so every load is unit-stride across
/// the warp. All loads come first, then the updates and stores (the `other` plane is read-only,
/// so its loads may be reordered freely).
#[kernel(f32, f64)]
pub fn sor_split<T: Real>(args: SplitArgs<'_, T>) {
    let (pitch, rows, cols) = (args.pitch as usize, args.rows as usize, args.cols as usize);
    let region = args.region;
    // The one bound test of the launch: with the region inside the array (neighbours
    // included), every index below is less than `rows * pitch` (a compacted row holds the
    // points of `cols` columns), so the accesses skip their own tests, as the CUDA C twin's.
    if !region.fits(rows, cols) | (cols.div_ceil(2) > pitch) | (rows * pitch > args.own.len().min(args.other.len())) {
        ferrocuda_device::global::bounds_failure()
    }
    let y = global_idx_y();
    let r = region.row_begin as usize + y;
    if r >= region.row_end as usize {
        return;
    }
    let (q, k_begin, k_end) = split_row_span(&region, args.parity, args.color, r);
    let lane = thread_idx_x() % 32;
    let first = k_begin + (global_idx_x() - lane) * SPLIT_POINTS + lane;
    let row = r * pitch;
    // SAFETY: `i < rows * pitch <= other.len()` for every index below (the test above).
    let other = |i: usize| unsafe { args.other.get_nc_unchecked(i) };
    let stencil_at = |k: usize| {
        [
            // SAFETY: as for `other`.
            unsafe { args.own.get_unchecked(row + k) },
            other(row + k + q - 1),
            other(row + k + q),
            other(row - pitch + k),
            other(row + pitch + k),
        ]
    };
    let update = |k: usize, [u, w, e, n, s]: [T; 5]| {
        // SAFETY: as for `other`.
        unsafe { args.own.set_unchecked(row + k, relax(u, w, e, n, s, args.omega)) };
    };
    // Unrolled by hand (`unroll!`), so the four stencils stay in registers.
    let mut stencil = [[T::default(); 5]; SPLIT_POINTS];
    if first + 32 * (SPLIT_POINTS - 1) < k_end {
        // Every thread but those at a row's end: straight-line code, all loads first. Behind
        // `if k < k_end` (below) LLVM sinks each point's loads and sum into the point's branch,
        // so each point's loads wait for the previous point's sum: four memory round trips per
        // thread where the CUDA C twin, whose loads ptxas predicates, has one (SASS of both;
        // 0.918 of the twin on the H100).
        unroll!(p in [0, 1, 2, 3] => { stencil[p] = stencil_at(first + 32 * p); });
        unroll!(p in [0, 1, 2, 3] => { update(first + 32 * p, stencil[p]); });
        return;
    }
    unroll!(p in [0, 1, 2, 3] => {
        let k = first + 32 * p;
        if k < k_end {
            stencil[p] = stencil_at(k);
        }
    });
    unroll!(p in [0, 1, 2, 3] => {
        let k = first + 32 * p;
        if k < k_end {
            update(k, stencil[p]);
        }
    });
}

/// Arguments of the residual kernels: per block, the largest `|(W + E + N + S) / 4 - u|` over
/// the region's points (both colours), written to `partials[block]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ResidualArgs<'a, T> {
    /// Natural layout: the array; split layout: the red plane.
    pub a: Slice<'a, T>,
    /// Split layout: the black plane; natural layout: unused, empty.
    pub b: Slice<'a, T>,
    pub pitch: u32,
    pub rows: u32,
    pub cols: u32,
    pub region: Region,
    pub parity: u32,
    /// One element per block of the launch.
    pub partials: SliceMut<'a, T>,
}

/// The residual `|(W + E + N + S) / 4 - u|` of local `(r, j)`, `at(r, j)` loading any point
/// (the CPU reference computes it with this very function).
#[inline(always)]
pub fn residual_at<T: Real>(at: impl Fn(usize, usize) -> T, r: usize, j: usize) -> T {
    let average = mul_rn(
        ((at(r, j - 1) + at(r, j + 1)) + at(r - 1, j)) + at(r + 1, j),
        T::from_f64(0.25),
    );
    let d = average - at(r, j);
    if d < T::default() { T::default() - d } else { d }
}

/// Thread `(x, y)` takes region point `(row_begin + y, col_begin + x)` (grid-stride in both
/// axes), then the block folds the largest residual into `partials[block]`.
#[inline(always)]
fn residual_blocks<T: Real + Reducible>(args: &ResidualArgs<'_, T>, at: impl Fn(usize, usize) -> T) {
    let region = args.region;
    if !region.fits(args.rows as usize, args.cols as usize) {
        ferrocuda_device::global::bounds_failure()
    }
    let mut largest = T::LEAST;
    let (sx, sy) = (block_dim().x * grid_dim().x, block_dim().y * grid_dim().y);
    let mut y = global_idx_y();
    while y < region.rows() {
        let mut x = global_idx_x();
        while x < region.cols() {
            let d = residual_at(&at, region.row_begin as usize + y, region.col_begin as usize + x);
            if d > largest {
                largest = d;
            }
            x += sx;
        }
        y += sy;
    }
    // SAFETY: the launch provides `BLOCK_REDUCE_SCRATCH` elements of dynamic shared memory.
    let scratch = unsafe { Tile1d::<T>::dynamic(BLOCK_REDUCE_SCRATCH) };
    let total = block_reduce::<T, Max>(largest, &scratch);
    if thread_rank_in_block() == 0 {
        args.partials.set(block_idx().y * grid_dim().x + block_idx().x, total);
    }
}

/// Largest residual per block, natural layout (`a` is the array).
#[kernel(f32, f64)]
pub fn sor_residual<T: Real + Reducible>(args: ResidualArgs<'_, T>) {
    let pitch = args.pitch as usize;
    residual_blocks(&args, |r, j| args.a.get(r * pitch + j));
}

/// Largest residual per block, split layout (`a` red plane, `b` black plane).
#[kernel(f32, f64)]
pub fn sor_residual_split<T: Real + Reducible>(args: ResidualArgs<'_, T>) {
    let pitch = args.pitch as usize;
    residual_blocks(&args, |r, j| {
        let k = r * pitch + j / 2;
        if has_color(args.parity, r, j, RED) {
            args.a.get(k)
        } else {
            args.b.get(k)
        }
    });
}
