//! Several half-sweeps per launch (temporal blocking): [`sor_tiled`] runs up to [`TILE_HALO`]
//! half-sweeps of a tile in shared memory, stored there as the split layout stores a grid (red
//! and black apart), so that every shared access of a warp is unit-stride.
use super::{Region, relax};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Half-sweeps [`sor_tiled`] runs per launch at most: the depth of its tile's halo.
pub const TILE_HALO: usize = 4;
/// Columns of the shared tile, inner tile and halo (natural, not compacted): a row is loaded by
/// four coalesced warp accesses and holds 64 points of each colour, two warps' worth.
pub const TILE_SW: usize = 128;
/// Rows of the inner tile of [`sor_tiled`].
pub const TILE_H: usize = 32;
/// Columns of the inner tile of [`sor_tiled`], the points each block writes to `dst`.
pub const TILE_W: usize = TILE_SW - 2 * TILE_HALO;
/// Rows of the shared tile: the inner tile and its halo above and below.
pub const TILE_SH: usize = TILE_H + 2 * TILE_HALO;
/// Compacted columns of a colour's plane of the tile: the points of one colour in a tile row.
pub const TILE_PW: usize = TILE_SW / 2;
/// Threads a block of [`sor_tiled`]: one warp a row when loading and storing, and when
/// updating two warps side by side per band of rows, four bands.
pub const TILED_BLOCK: (u32, u32) = (32, 8);

const WARPS: usize = TILED_BLOCK.1 as usize;
/// Warps that cover the compacted columns of a plane.
const COLUMN_WARPS: usize = TILE_PW / 32;
/// Bands of rows a half-sweep splits into, one per group of `COLUMN_WARPS` warps.
const BANDS: usize = WARPS / COLUMN_WARPS;
/// Tile rows each warp loads, and inner rows each warp stores.
const LOAD_ROWS: usize = TILE_SH / WARPS;
const STORE_ROWS: usize = TILE_H / WARPS;
/// Warp-wide chunks of a tile row.
const ROW_CHUNKS: usize = TILE_SW / 32;
const _: () = assert!(
    TILED_BLOCK.0 == 32
        && TILE_SW.is_multiple_of(64)
        && TILE_SH.is_multiple_of(WARPS)
        && TILE_H.is_multiple_of(WARPS)
        && WARPS.is_multiple_of(COLUMN_WARPS),
    "sor_tiled's thread mapping needs these"
);

/// Elements from the start of the tile's first plane (colour 0, red) to its second's (black):
/// the red plane's `TILE_SH x TILE_PW`, padded so that the two start 64 bytes apart modulo
/// 128. A warp storing one natural tile row puts 16 points in each plane at the same
/// compacted columns; with that offset they fall in 32 different banks (one wavefront, where
/// planes 128-byte aligned alike would take two).
pub const fn tile_plane_len(element_bytes: usize) -> usize {
    ((TILE_SH * TILE_PW * element_bytes).next_multiple_of(128) + 64) / element_bytes
}

/// Dynamic shared memory of [`sor_tiled`]: the tile's two planes.
pub const fn tiled_bytes(element_bytes: usize) -> usize {
    (tile_plane_len(element_bytes) + TILE_SH * TILE_PW) * element_bytes
}

/// Arguments of [`sor_tiled`]: `half_sweeps` half-sweeps from `src` into `dst` (both natural,
/// `rows x pitch`), the first of colour `first_color`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct TiledArgs<'a, T> {
    pub src: Slice<'a, T>,
    /// Every point is written: updated, or copied from `src`.
    pub dst: SliceMut<'a, T>,
    pub pitch: u32,
    pub rows: u32,
    pub cols: u32,
    pub region: Region,
    pub parity: u32,
    pub first_color: u32,
    /// At most [`TILE_HALO`].
    pub half_sweeps: u32,
    pub omega: T,
}

/// Several half-sweeps per launch (temporal blocking): each block loads its `TILE_H x TILE_W`
/// tile with a halo [`TILE_HALO`] deep into shared memory, runs up to that many half-sweeps
/// there, each on a region one layer smaller (a point updated in half-sweep `h` needs
/// neighbours that half-sweep `h - 1` updated, so the valid area shrinks by one layer per
/// half-sweep), and writes the inner tile to `dst`. Global traffic for 4 half-sweeps: one read
/// of 1.33 tiles and one write, against 6 grid passes for 4 launches of
/// [`super::sor_split`]. Out of place: a block's halo is another block's inner tile, which
/// must stay as it was during the launch.
///
/// In shared memory the tile is split by colour, each row of a colour compacted to
/// [`TILE_PW`] elements: loading de-interleaves the coalesced global rows, storing
/// re-interleaves them. A half-sweep then reads one plane and updates the other, and each
/// thread walks one compacted column down a band of rows: the other colour's values of the
/// column serve as south, then centre (west or east), then north neighbour, so a point costs
/// three shared loads (own value, the far side neighbour, the next south) and one store, every
/// one unit-stride across the warp. Each row's loads for the next row are issued before its
/// store.
///
/// Launch: blocks of exactly [`TILED_BLOCK`] threads (traps otherwise), `ceil(cols / TILE_W) x
/// ceil(rows / TILE_H)` of them, [`tiled_bytes`] of dynamic shared memory.
#[kernel(f32, f64)]
pub fn sor_tiled<T: Real>(args: TiledArgs<'_, T>) {
    let (pitch, rows, cols) = (args.pitch as usize, args.rows as usize, args.cols as usize);
    let region = args.region;
    let block = block_dim();
    // The bound tests of the launch: past them every global index below is less than
    // `rows * pitch`, or 0 for a point outside the array, so the accesses skip their own.
    if !region.fits(rows, cols)
        || cols > pitch
        || rows * pitch > args.src.len().min(args.dst.len())
        || args.src.is_empty()
        || args.half_sweeps as usize > TILE_HALO
        || (block.x, block.y, block.z) != (32, WARPS, 1)
    {
        ferrocuda_device::global::bounds_failure()
    }
    let plane = tile_plane_len(size_of::<T>());
    let place = Place {
        // SAFETY: the launch provides `tiled_bytes` of dynamic shared memory (the host
        // launcher's shape); this is the launch's only tile.
        tile: unsafe { Tile1d::<T>::dynamic(plane + TILE_SH * TILE_PW) },
        plane,
        r0: block_idx().y * TILE_H,
        c0: block_idx().x * TILE_W,
        p0: (args.parity as usize + block_idx().y * TILE_H + block_idx().x * TILE_W) & 1,
        lane: thread_idx().x,
        warp: thread_idx().y,
    };
    let (r0, c0) = (place.r0, place.c0);
    // Blocks whose whole tile lies in the array (all but those at its edges) skip the tests.
    if r0 >= TILE_HALO && r0 + TILE_SH - TILE_HALO <= rows && c0 >= TILE_HALO && c0 + TILE_SW - TILE_HALO <= cols {
        place.load::<false>(&args);
    } else {
        place.load::<true>(&args);
    }
    // The tile elements inside the region, as bounds on y and x (no test per point).
    // The tile elements inside the region, as bounds on y and x (no test per point), clamped
    // to the tile: from here on every tile coordinate and index fits in 32 bits (64-bit
    // arithmetic doubled the instructions of each half-sweep's setup).
    let span = |begin: u32, end: u32, origin: usize, extent: usize| {
        (
            (begin as usize + TILE_HALO).saturating_sub(origin).min(extent) as u32,
            (end as usize + TILE_HALO).saturating_sub(origin).min(extent) as u32,
        )
    };
    let (region_y, region_x) = (
        span(region.row_begin, region.row_end, r0, TILE_SH),
        span(region.col_begin, region.col_end, c0, TILE_SW),
    );
    let (lane, warp) = (place.lane as u32, place.warp as u32);
    let (plane, p0) = (plane as u32, place.p0 as u32);
    for h in 0..args.half_sweeps {
        // Every thread of the block reaches every barrier (uniform loop bounds).
        sync_threads();
        let color = (args.first_color + h) & 1;
        let margin = h + 1;
        let (y_begin, y_end) = (margin.max(region_y.0), (TILE_SH as u32 - margin).min(region_y.1));
        let xs = (margin.max(region_x.0), (TILE_SW as u32 - margin).min(region_x.1));
        // Warps 2b and 2b + 1 take band b of the rows, lane l of them compacted column
        // `xs.0 / 2 + l` or `+ 32 + l`.
        let k = xs.0 / 2 + lane + 32 * (warp % COLUMN_WARPS as u32);
        let band = y_end.saturating_sub(y_begin).div_ceil(BANDS as u32);
        let ya = y_begin + band * (warp / COLUMN_WARPS as u32);
        let yb = (ya + band).min(y_end);
        if ya < yb && xs.0 < xs.1 && 2 * k < xs.1 {
            let column = Column {
                tile: &place.tile,
                own: color * plane + k,
                other: (1 - color) * plane + k,
                k,
                xs,
                omega: args.omega,
            };
            // The x parity of the colour's points in row ya.
            if (color + p0 + ya) & 1 == 1 {
                column.walk::<true>(ya, yb);
            } else {
                column.walk::<false>(ya, yb);
            }
        }
    }
    // As above.
    sync_threads();
    if r0 + TILE_H <= rows && c0 + TILE_W <= cols {
        place.store::<false>(&args);
    } else {
        place.store::<true>(&args);
    }
}

/// A block's tile: tile element (y, x) is grid point (r0 + y - HALO, c0 + x - HALO), of colour
/// (p0 + y + x) & 1; it lies in row y, compacted column x / 2 of its colour's plane, which
/// starts at `plane` times the colour.
struct Place<T> {
    tile: Tile1d<T>,
    plane: usize,
    r0: usize,
    c0: usize,
    p0: usize,
    lane: usize,
    warp: usize,
}

impl<T: Real> Place<T> {
    /// The tile index of tile element (y, x).
    #[inline(always)]
    fn at(&self, y: usize, x: usize) -> usize {
        ((self.p0 + y + x) & 1) * self.plane + y * TILE_PW + x / 2
    }

    /// Loads the tile from `src`, zeros outside the array (tested only if `EDGE`). Warp w
    /// loads rows w, w + 8, ...; 80 bytes a thread in flight: in f32 all 20 loads first, then
    /// the 20 shared stores; in f64 two such rounds of 10 (20 f64 loads at once took 69
    /// registers, which let 3 blocks share an SM instead of 5).
    #[inline(always)]
    fn load<const EDGE: bool>(&self, args: &TiledArgs<'_, T>) {
        if size_of::<T>() <= 4 {
            self.load_chunks::<EDGE, ROW_CHUNKS>(args, 0);
        } else {
            self.load_chunks::<EDGE, { ROW_CHUNKS / 2 }>(args, 0);
            self.load_chunks::<EDGE, { ROW_CHUNKS / 2 }>(args, ROW_CHUNKS / 2);
        }
    }

    /// One round of [`Place::load`]: the warp-wide chunks `first..first + CHUNKS` of the
    /// warp's rows.
    #[inline(always)]
    fn load_chunks<const EDGE: bool, const CHUNKS: usize>(&self, args: &TiledArgs<'_, T>, first: usize) {
        let (pitch, rows, cols) = (args.pitch as usize, args.rows as usize, args.cols as usize);
        let mut values = [[T::default(); CHUNKS]; LOAD_ROWS];
        for (j, row) in values.iter_mut().enumerate() {
            let r = (self.r0 + self.warp + WARPS * j).wrapping_sub(TILE_HALO);
            for (i, value) in row.iter_mut().enumerate() {
                let c = (self.c0 + self.lane + 32 * (first + i)).wrapping_sub(TILE_HALO);
                let inside = !EDGE || (r < rows && c < cols);
                // SAFETY: `r < rows` and `c < cols <= pitch` (the kernel's tests, or those of
                // `EDGE`), so the index is less than `rows * pitch <= src.len()`; otherwise 0,
                // and `src` is not empty.
                let loaded = unsafe { args.src.get_nc_unchecked(if inside { r * pitch + c } else { 0 }) };
                *value = if inside { loaded } else { T::default() };
            }
        }
        for (j, row) in values.iter().enumerate() {
            for (i, &value) in row.iter().enumerate() {
                let at = self.at(self.warp + WARPS * j, self.lane + 32 * (first + i));
                // SAFETY: `at(y, x) < plane + TILE_SH * TILE_PW` for `y < TILE_SH`,
                // `x < TILE_SW`.
                unsafe { self.tile.set_unchecked(at, value) };
            }
        }
    }

    /// Writes the inner tile to `dst`, where it lies in the array (tested only if `EDGE`).
    #[inline(always)]
    fn store<const EDGE: bool>(&self, args: &TiledArgs<'_, T>) {
        let (pitch, rows, cols) = (args.pitch as usize, args.rows as usize, args.cols as usize);
        for j in 0..STORE_ROWS {
            let y = self.warp + WARPS * j;
            let r = self.r0 + y;
            for i in 0..ROW_CHUNKS {
                let x = self.lane + 32 * i;
                let c = self.c0 + x;
                if x < TILE_W && (!EDGE || (r < rows && c < cols)) {
                    // SAFETY: `r < rows`, `c < cols <= pitch` (tested, or the whole inner tile
                    // lies in the array); the tile element as in `load`.
                    unsafe {
                        let value = self.tile.get_unchecked(self.at(y + TILE_HALO, x + TILE_HALO));
                        args.dst.set_unchecked(r * pitch + c, value)
                    };
                }
            }
        }
    }
}

/// One thread's compacted column `k` in one half-sweep: `own` and `other` are the tile indices
/// of `(0, k)` in the updated colour's plane and in the other colour's.
struct Column<'a, T> {
    tile: &'a Tile1d<T>,
    own: u32,
    other: u32,
    k: u32,
    /// The tile columns x of the region's points.
    xs: (u32, u32),
    omega: T,
}

/// The operands of one point: its own value, the other colour's neighbour at its compacted
/// column (west for a point at odd x, east at even), the far side one, north and south.
struct Operands<T> {
    u: T,
    centre: T,
    side: T,
    north: T,
    south: T,
}

impl<T: Real> Column<'_, T> {
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        // SAFETY: every index `walk` forms is `own` or `other` (each less than `plane +
        // TILE_PW`) plus a row in `0..TILE_SH` times `TILE_PW`, and for the far side (rows
        // `1..TILE_SH - 1` only) one column step more or less: inside the tile (a step past a
        // plane row's end reads the next or previous row's, in the same plane, only for a
        // point outside the region).
        unsafe { self.tile.get_unchecked(i) }
    }

    /// Updates rows `ya..yb` (`1 <= ya < yb <= TILE_SH - 1`) of the column, in order. Rows ya,
    /// ya + 2, ... hold the colour's points at x = 2k + ODD, the others at x = 2k + !ODD, so
    /// each point's far side neighbour sits at compacted column k + 1 (x odd) or k - 1 (x
    /// even) of the other plane, and its result is stored only where x lies in the region.
    #[inline(always)]
    fn walk<const ODD: bool>(&self, ya: u32, yb: u32) {
        const PW: usize = TILE_PW;
        let stored = |odd: bool| (self.xs.0..self.xs.1).contains(&(2 * self.k + odd as u32));
        let (stored_a, stored_b) = (stored(ODD), stored(!ODD));
        // Indices in usize (a u32 index, zero-extended at each access, cost an address
        // computation per access: the wrap-around forbids folding the offsets).
        let (mut own, mut other) = (
            (self.own + ya * PW as u32) as usize,
            (self.other + ya * PW as u32) as usize,
        );
        let mut point = Operands {
            u: self.get(own),
            centre: self.get(other),
            side: self.get(Self::side(other, ODD)),
            north: self.get(other - PW),
            south: self.get(other + PW),
        };
        // Pairs of rows, each pair loading the next pair's operands, then the last one or
        // two rows.
        let rows = yb - ya;
        for _ in 0..(rows - 1) / 2 {
            self.row(&mut point, own, other, ODD, stored_a, true);
            self.row(&mut point, own + PW, other + PW, !ODD, stored_b, true);
            own += 2 * PW;
            other += 2 * PW;
        }
        if rows.is_multiple_of(2) {
            self.row(&mut point, own, other, ODD, stored_a, true);
            self.row(&mut point, own + PW, other + PW, !ODD, stored_b, false);
        } else {
            self.row(&mut point, own, other, ODD, stored_a, false);
        }
    }

    /// The index of the far side neighbour of a point at x of parity `odd` whose compacted
    /// column's other-colour index is `other`.
    #[inline(always)]
    fn side(other: usize, odd: bool) -> usize {
        if odd { other + 1 } else { other - 1 }
    }

    /// Updates the row whose own and other-colour indices are `own` and `other`, whose point
    /// lies at x of parity `odd` (a constant after inlining): computes it from `point`, then
    /// (if `next`) loads the next row's operands into `point`, then stores the result (if
    /// `store`, else the point's own value). The loads come before the store, so they need
    /// not wait for it.
    #[inline(always)]
    fn row(&self, point: &mut Operands<T>, own: usize, other: usize, odd: bool, store: bool, next: bool) {
        const PW: usize = TILE_PW;
        let (w, e) = if odd {
            (point.centre, point.side)
        } else {
            (point.side, point.centre)
        };
        let u = point.u;
        let updated = relax(u, w, e, point.north, point.south, self.omega);
        if next {
            let below = other + PW;
            *point = Operands {
                u: self.get(own + PW),
                centre: point.south,
                side: self.get(Self::side(below, !odd)),
                north: point.centre,
                south: self.get(below + PW),
            };
        }
        // A point outside the region gets its own value back: no thread reads the updated
        // colour's plane in this half-sweep but the one that writes it, and a store without a
        // branch keeps LLVM from sinking the update and its loads into one.
        let value = if store { updated } else { u };
        // SAFETY: as in `get`.
        unsafe { self.tile.set_unchecked(own, value) };
    }
}
