//! Matrix transpose through shared memory (book §3.4 and Appendix D.2; PGI article "CUDA Fortran
//! Device Kernels", `transpose1..3`; Decyk's tutorial, `gtranspose2`).
//!
//! Every kernel here is one instantiation of three generic bodies: [`tile_copy`] (the copies),
//! [`naive`] (no shared memory) and [`tile_transpose`] (through a `TILE x TILE` shared tile),
//! whose const parameters are the tile side, the rows a block covers per pass (`BLOCK_ROWS`),
//! the tile's padding and the order blocks take tiles in. The book's kernels use 32 x 32 tiles
//! and 32 x 8 blocks (each thread moves four elements), the PGI article's 16 x 16 tiles and
//! blocks, the tutorial's 32 x 32 tiles and blocks.
//!
//! Layout: `idata` is `ny` rows of `nx` (x contiguous, the book's Fortran `idata(nx, ny)`),
//! `odata` is `nx` rows of `ny`: `odata[x * ny + y] = idata[y * nx + x]`.
//!
//! Ragged edges: the book's host refuses extents that are not multiples of `TILE_DIM`; here
//! the grid covers `ceil(nx / TILE) x ceil(ny / TILE)` tiles and every kernel takes any extent.
//! A block whose tile lies wholly inside the matrix takes a path free of bounds tests (CUB's
//! `FullTile`); only the blocks of the last tile row and column test each element.
//!
//! "Static" shared memory: Rust has no `__shared__` statics on nvptx, so each tile is a
//! [`Tile2d`] of compile-time size placed in the launch's dynamic shared memory; the launch
//! passes [`transpose_shared_bytes`] bytes.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::{Tile1d, Tile2d};

/// The book's tile side (`TILE_DIM`).
pub const TILE_DIM: usize = 32;
/// The book's block height (`BLOCK_ROWS`): a block is `TILE_DIM x BLOCK_ROWS` threads, each
/// moving `TILE_DIM / BLOCK_ROWS` elements.
pub const BLOCK_ROWS: usize = 8;
/// The PGI article's tile side and block (16 x 16 threads, one element each).
pub const PGI_TILE: usize = 16;
/// The tutorial's `mx`: square `mx x mx` blocks, one element per thread.
pub const TUTORIAL_MX: usize = 32;

/// Arguments of every kernel here (the book's `(odata, idata)` order).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct TransposeArgs<'a> {
    /// Output, `nx * ny` elements: `nx` rows of `ny` (the copies: `ny` rows of `nx`).
    pub odata: SliceMut<'a, f32>,
    /// Input, `nx * ny` elements: `ny` rows of `nx`.
    pub idata: Slice<'a, f32>,
    /// Row length of the input (the contiguous dimension).
    pub nx: u32,
    /// Row count of the input.
    pub ny: u32,
}

/// Dynamic shared memory a `TILE x TILE` f32 tile padded by `PAD` per row needs.
pub const fn tile_bytes(tile: usize, pad: usize) -> usize {
    tile * (tile + pad) * size_of::<f32>()
}

/// The extents as `usize`, after checking that both views hold `nx * ny` elements: the one test
/// that makes every in-bounds coordinate a valid index (traps otherwise, on every thread).
#[inline(always)]
fn extents(args: &TransposeArgs<'_>) -> (usize, usize) {
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    let n = nx * ny;
    if args.idata.len() != n || args.odata.len() != n {
        ferrocuda_device::global::bounds_failure()
    }
    (nx, ny)
}

/// The thread's (x, y) in its block, after checking that the block is `TILE x ROWS x 1` (traps
/// otherwise): the one test that keeps the tile's indices in bounds.
#[inline(always)]
fn thread_in_tile<const TILE: usize, const ROWS: usize>() -> (usize, usize) {
    let d = block_dim();
    if d.x != TILE || d.y != ROWS || d.z != 1 {
        ferrocuda_device::global::bounds_failure()
    }
    let t = thread_idx();
    (t.x, t.y)
}

/// Blocks take tiles in grid order.
pub const CARTESIAN: u8 = 0;
/// Blocks take tiles in the book's diagonal order (§3.4.1), which spreads the blocks running at
/// once over the memory partitions; every thread computes its block's tile.
pub const DIAGONAL: u8 = 1;
/// The diagonal order as the PGI article's `transpose3` computes it: thread (0, 0) alone, into
/// two shared words after the tile, which the others read after a barrier.
pub const DIAGONAL_SHARED: u8 = 2;

/// Dynamic shared memory of a `TILE x TILE` tile padded by `PAD` and, for the
/// [`DIAGONAL_SHARED`] order, the two block indices after it.
pub const fn transpose_shared_bytes(tile: usize, pad: usize, order: u8) -> usize {
    tile_bytes(tile, pad)
        + if order == DIAGONAL_SHARED {
            2 * size_of::<u32>()
        } else {
            0
        }
}

/// The diagonal order: for a square grid `((bx + by) mod gx, bx)`; otherwise through the
/// block's linear index, as the book's rectangular formula. Both are permutations of the grid, so
/// each tile is moved exactly once. 32-bit arithmetic: a 64-bit division is a long software
/// routine on the GPU.
#[inline(always)]
fn diagonal_tile() -> (u32, u32) {
    let (b, g) = (block_idx(), grid_dim());
    let (bx, by, gx, gy) = (b.x as u32, b.y as u32, g.x as u32, g.y as u32);
    if gx == gy {
        ((bx + by) % gx, bx)
    } else {
        let linear = bx + gx * by;
        let y = linear % gy;
        ((linear / gy + y) % gx, y)
    }
}

/// The tile (column, row) of tiles this block moves, in the block order `ORDER`;
/// [`DIAGONAL_SHARED`] passes them through two shared words `indices_offset` bytes into dynamic
/// shared memory.
///
/// # Safety
/// For [`DIAGONAL_SHARED`], every thread of the block calls it (it holds a barrier), and the
/// launch provides `indices_offset + 8` bytes of dynamic shared memory, `indices_offset` a
/// multiple of 4 past every other tile.
#[inline(always)]
unsafe fn block_tile<const ORDER: u8>(indices_offset: usize) -> (usize, usize) {
    match ORDER {
        CARTESIAN => (block_idx().x, block_idx().y),
        DIAGONAL => {
            let (x, y) = diagonal_tile();
            (x as usize, y as usize)
        }
        _ => {
            // SAFETY: the caller's contract.
            let indices = unsafe { Tile1d::<u32>::dynamic_at(indices_offset, 2) };
            if thread_idx().x == 0 && thread_idx().y == 0 {
                let (x, y) = diagonal_tile();
                indices.set(0, x);
                indices.set(1, y);
            }
            // Every thread of the block reaches this barrier (the caller's contract).
            sync_threads();
            (indices.get(0) as usize, indices.get(1) as usize)
        }
    }
}

/// Runs `body(j)` for the rows `j = 0, ROWS, 2 ROWS, ..` of a tile: all of them for a full
/// tile, without tests; only those where `in_bounds(j)` otherwise.
#[inline(always)]
fn each_row<const TILE: usize, const ROWS: usize>(
    full: bool,
    in_bounds: impl Fn(usize) -> bool,
    mut body: impl FnMut(usize),
) {
    const { assert!(TILE.is_multiple_of(ROWS), "TILE_DIM must be a multiple of BLOCK_ROWS") };
    if full {
        for k in 0..TILE / ROWS {
            body(k * ROWS);
        }
    } else {
        for k in 0..TILE / ROWS {
            if in_bounds(k * ROWS) {
                body(k * ROWS);
            }
        }
    }
}

/// `odata = idata` tile by tile, directly (`SHARED = false`, the book's `copy`) or through a
/// shared tile (`SHARED = true`, `copySharedMem`): the bandwidth a transpose should reach.
#[inline(always)]
pub fn tile_copy<const TILE: usize, const ROWS: usize, const SHARED: bool>(args: TransposeArgs<'_>) {
    let (nx, ny) = extents(&args);
    let (tx, ty) = thread_in_tile::<TILE, ROWS>();
    let (x, y) = (block_idx().x * TILE + tx, block_idx().y * TILE + ty);
    let full = (block_idx().x + 1) * TILE <= nx && (block_idx().y + 1) * TILE <= ny;
    let at = y * nx + x;
    let in_bounds = |j: usize| x < nx && y + j < ny;
    if !SHARED {
        each_row::<TILE, ROWS>(full, in_bounds, |j| {
            // SAFETY: (x, y + j) lies in the matrix (full tile, or tested), and both views hold
            // `nx * ny` elements (`extents`).
            unsafe {
                args.odata
                    .set_unchecked(at + j * nx, args.idata.get_unchecked(at + j * nx))
            }
        });
        return;
    }
    // SAFETY: the launch provides `tile_bytes(TILE, 0)` bytes (host driver), one tile.
    let tile = unsafe { Tile2d::<f32, TILE, TILE, 0>::dynamic() };
    each_row::<TILE, ROWS>(full, in_bounds, |j| {
        // SAFETY: as above for the views; `ty + j < TILE` and `tx < TILE` (`thread_in_tile`).
        unsafe { tile.set_unchecked(ty + j, tx, args.idata.get_unchecked(at + j * nx)) }
    });
    // Not strictly needed (each thread reads back what it wrote), but the book keeps it so the
    // copy pays what the transposes pay.
    // SAFETY: every thread of the block reaches this barrier (no thread has returned).
    sync_threads();
    each_row::<TILE, ROWS>(full, in_bounds, |j| {
        // SAFETY: as for the load.
        unsafe { args.odata.set_unchecked(at + j * nx, tile.get_unchecked(ty + j, tx)) }
    });
}

/// `odata = idata^T` without shared memory (the book's `transposeNaive`, the PGI article's
/// `transpose1`): reads coalesced, writes strided by `ny` elements.
#[inline(always)]
pub fn naive<const TILE: usize, const ROWS: usize>(args: TransposeArgs<'_>) {
    let (nx, ny) = extents(&args);
    let (tx, ty) = thread_in_tile::<TILE, ROWS>();
    let (x, y) = (block_idx().x * TILE + tx, block_idx().y * TILE + ty);
    let full = (block_idx().x + 1) * TILE <= nx && (block_idx().y + 1) * TILE <= ny;
    each_row::<TILE, ROWS>(
        full,
        |j| x < nx && y + j < ny,
        |j| {
            // SAFETY: (x, y + j) lies in the matrix (full tile, or tested); both views hold
            // `nx * ny` elements (`extents`).
            unsafe {
                args.odata
                    .set_unchecked(x * ny + y + j, args.idata.get_unchecked((y + j) * nx + x))
            }
        },
    );
}

/// `odata = idata^T` through a `TILE x TILE` shared tile padded by `PAD` elements per row
/// (`PAD = 1` removes the bank conflicts of the column reads), the block taking its tile in the
/// block order `ORDER` ([`CARTESIAN`], [`DIAGONAL`], [`DIAGONAL_SHARED`]): a warp reads part of a row of `idata` into a row of the tile,
/// then, after the barrier, a column of the tile into part of a row of `odata`, so both global
/// accesses are coalesced (book Figure 3.19).
#[inline(always)]
pub fn tile_transpose<const TILE: usize, const ROWS: usize, const PAD: usize, const ORDER: u8>(
    args: TransposeArgs<'_>,
) {
    tile_transpose_timed::<TILE, ROWS, PAD, ORDER, ()>(args, || (), |()| ())
}

/// [`tile_transpose`] with `section_start` called by every thread after the block has its tile
/// and before the load, and `section_end(start)` after the store, with `section_start`'s value:
/// the hooks that time only the load/sync/store statements, as the PGI article does.
#[inline(always)]
fn tile_transpose_timed<const TILE: usize, const ROWS: usize, const PAD: usize, const ORDER: u8, S: Copy>(
    args: TransposeArgs<'_>,
    section_start: impl FnOnce() -> S,
    section_end: impl FnOnce(S),
) {
    let (nx, ny) = extents(&args);
    let (tx, ty) = thread_in_tile::<TILE, ROWS>();
    // SAFETY: the launch provides `transpose_shared_bytes(TILE, PAD, ORDER)` bytes (host
    // driver): the tile, then, for `DIAGONAL_SHARED`, the two indices after it (4-byte aligned,
    // as the tile's size is a multiple of 4). Every thread of the block gets here.
    let (tile, (bx, by)) = unsafe {
        (
            Tile2d::<f32, TILE, TILE, PAD>::dynamic(),
            block_tile::<ORDER>(tile_bytes(TILE, PAD)),
        )
    };
    let start = section_start();
    let (x0, y0) = (bx * TILE, by * TILE);
    // The transposed tile is full exactly when this one is.
    let full = x0 + TILE <= nx && y0 + TILE <= ny;
    let (x, y) = (x0 + tx, y0 + ty);
    let from = y * nx + x;
    each_row::<TILE, ROWS>(
        full,
        |j| x < nx && y + j < ny,
        |j| {
            // SAFETY: (x, y + j) lies in the matrix (full tile, or tested) and `idata` holds
            // `nx * ny` elements (`extents`); `ty + j < TILE`, `tx < TILE` (`thread_in_tile`).
            unsafe { tile.set_unchecked(ty + j, tx, args.idata.get_unchecked(from + j * nx)) }
        },
    );
    // Every thread of the block reaches this barrier (no thread has returned).
    sync_threads();
    // Output row `x0 + ty + j` (of length `ny`), column `y0 + tx`: tile element (tx, ty + j),
    // which the load wrote exactly when this position is in bounds.
    let (col, row) = (y0 + tx, x0 + ty);
    let to = row * ny + col;
    each_row::<TILE, ROWS>(
        full,
        |j| col < ny && row + j < nx,
        |j| {
            // SAFETY: as for the load, with the extents swapped.
            unsafe { args.odata.set_unchecked(to + j * ny, tile.get_unchecked(tx, ty + j)) }
        },
    );
    section_end(start);
}

/// The book's `copy`: `odata = idata`, no shared memory; 32 x 8 threads per 32 x 32 tile.
/// (Named `simple_copy`, its label in the book's table, since one PTX module holds every kernel
/// and §3.5's `copy` is another kernel.)
#[kernel]
pub fn simple_copy(args: TransposeArgs<'_>) {
    tile_copy::<TILE_DIM, BLOCK_ROWS, false>(args)
}

/// The book's `copySharedMem`: `odata = idata` through a 32 x 32 shared tile.
#[kernel]
pub fn copy_shared_mem(args: TransposeArgs<'_>) {
    tile_copy::<TILE_DIM, BLOCK_ROWS, true>(args)
}

/// The book's `transposeNaive`.
#[kernel]
pub fn transpose_naive(args: TransposeArgs<'_>) {
    naive::<TILE_DIM, BLOCK_ROWS>(args)
}

/// The book's `transposeCoalesced`: an unpadded 32 x 32 tile, whose column reads are 32-way
/// bank conflicts.
#[kernel]
pub fn transpose_coalesced(args: TransposeArgs<'_>) {
    tile_transpose::<TILE_DIM, BLOCK_ROWS, 0, CARTESIAN>(args)
}

/// The book's `transposeNoBankConflicts`: the tile padded to 32 x 33.
#[kernel]
pub fn transpose_no_bank_conflicts(args: TransposeArgs<'_>) {
    tile_transpose::<TILE_DIM, BLOCK_ROWS, 1, CARTESIAN>(args)
}

/// The book's `transposeDiagonal`: the padded tile, blocks in diagonal order.
#[kernel]
pub fn transpose_diagonal(args: TransposeArgs<'_>) {
    tile_transpose::<TILE_DIM, BLOCK_ROWS, 1, DIAGONAL>(args)
}

/// The PGI article's `transpose1`: naive, 16 x 16 threads, one element each.
#[kernel]
pub fn transpose1(args: TransposeArgs<'_>) {
    naive::<PGI_TILE, PGI_TILE>(args)
}

/// The PGI article's `transpose2`: an unpadded 16 x 16 tile.
#[kernel]
pub fn transpose2(args: TransposeArgs<'_>) {
    tile_transpose::<PGI_TILE, PGI_TILE, 0, CARTESIAN>(args)
}

/// The PGI article's `transpose3`: a 17 x 16 tile and diagonal block order, whose indices thread
/// (0, 0) computes into shared memory for the block, as the article's thread (1,1) does.
#[kernel]
pub fn transpose3(args: TransposeArgs<'_>) {
    tile_transpose::<PGI_TILE, PGI_TILE, 1, DIAGONAL_SHARED>(args)
}

/// Arguments of [`transpose3_section_timed`]: [`TransposeArgs`]' four, then the stamps.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SectionTimedArgs<'a> {
    /// Output, as [`TransposeArgs::odata`].
    pub odata: SliceMut<'a, f32>,
    /// Input, as [`TransposeArgs::idata`].
    pub idata: Slice<'a, f32>,
    /// Row length of the input.
    pub nx: u32,
    /// Row count of the input.
    pub ny: u32,
    /// Two `%globaltimer` stamps (ns) per block at `2 b` and `2 b + 1`, `b` the block's linear
    /// index in the grid: when its load/sync/store section began and ended.
    pub stamps: SliceMut<'a, u64>,
}

/// `transpose3` with its load/sync/store section timed by `%globaltimer`, as the PGI article
/// times "only the load/sync/store statements": thread (0, 0) stamps the start once the block
/// has its tile, and the end after a barrier that follows every thread's store. The host takes
/// the first start to the last end as the section's time. The extra barrier is the price.
#[kernel]
pub fn transpose3_section_timed(args: SectionTimedArgs<'_>) {
    let transpose = TransposeArgs {
        odata: args.odata,
        idata: args.idata,
        nx: args.nx,
        ny: args.ny,
    };
    tile_transpose_timed::<PGI_TILE, PGI_TILE, 1, DIAGONAL_SHARED, u64>(transpose, global_timer_ns, |start| {
        // Every thread of the block reaches this barrier (no thread has returned).
        sync_threads();
        let (t, b, g) = (thread_idx(), block_idx(), grid_dim());
        if t.x == 0 && t.y == 0 {
            let block = b.x + g.x * b.y;
            // Bounds-checked: a launch with fewer stamps than `2 * blocks` traps.
            args.stamps.set(2 * block, start);
            args.stamps.set(2 * block + 1, global_timer_ns());
        }
    })
}

/// The tutorial's `gtranspose2`: `mx x mx` threads, a tile of `(mx + 1) * mx` elements.
#[kernel]
pub fn gtranspose2(args: TransposeArgs<'_>) {
    tile_transpose::<TUTORIAL_MX, TUTORIAL_MX, 1, CARTESIAN>(args)
}
