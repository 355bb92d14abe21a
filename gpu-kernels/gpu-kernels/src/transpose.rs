//! The transpose of a section of one matrix into a section of another, both with leading
//! dimensions: the book's `cudaTranspose(odata, ldo, idata, ldi)` (book §4.1.3 and Appendix
//! D.4.1, module `transpose_m`), which is §3.4's `transposeNoBankConflicts` taking its arrays
//! as `odata(ldo, *)` and `idata(ldi, *)`. The multi-GPU transposes (peer to peer and MPI) call
//! it on one tile of a device's slab at a time.
//!
//! Layout (row-major, the book's Fortran columns being rows here): the input section is `ny`
//! rows of `nx` elements, row `y` starting at `idata_offset + y * ldi`; the output section is
//! `nx` rows of `ny`, row `x` starting at `odata_offset + x * ldo`, and
//! `odata[odata_offset + x * ldo + y] = idata[idata_offset + y * ldi + x]`.
//!
//! Launch: `32 x 8` threads per `32 x 32` tile ([`TILE_DIM`] x [`BLOCK_ROWS`]), a grid of
//! `ceil(nx / 32) x ceil(ny / 32)` blocks, [`TILE_BYTES`] bytes of dynamic shared memory (the
//! tile, padded to 33 columns so the column reads are free of bank conflicts). The book's extents
//! are multiples of 32; here a block whose tile lies wholly inside the section takes a path free
//! of bounds tests, and only the blocks of a ragged last tile row or column test each element.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// The book's `cudaTileDim`: the side of the square tile a block moves.
pub const TILE_DIM: usize = 32;
/// The book's `blockRows`: a block is `TILE_DIM x BLOCK_ROWS` threads, each moving
/// `TILE_DIM / BLOCK_ROWS` elements.
pub const BLOCK_ROWS: usize = 8;
/// Padding of each tile row, elements: 33 columns put a tile column in 32 different banks.
pub const TILE_PAD: usize = 1;
/// Dynamic shared memory of one launch: the padded `32 x 33` f32 tile.
pub const TILE_BYTES: usize = TILE_DIM * (TILE_DIM + TILE_PAD) * size_of::<f32>();

const _: () = assert!(
    TILE_DIM.is_multiple_of(BLOCK_ROWS),
    "cudaTileDim must be a multiple of blockRows"
);

/// Arguments of [`cuda_transpose`] (the book's `(odata, ldo, idata, ldi)`, with the sections'
/// first elements and extents, which the book passes as array sections and `dimGrid`).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct CudaTransposeArgs<'a> {
    /// The output buffer (the whole allocation).
    pub odata: SliceMut<'a, f32>,
    /// The input buffer (the whole allocation).
    pub idata: Slice<'a, f32>,
    /// Element of `odata` where the output section starts.
    pub odata_offset: u64,
    /// Element of `idata` where the input section starts.
    pub idata_offset: u64,
    /// Leading dimension of the output, elements (`ldo >= ny`).
    pub ldo: u32,
    /// Leading dimension of the input, elements (`ldi >= nx`).
    pub ldi: u32,
    /// Columns of the input section (its contiguous extent); rows of the output section.
    pub nx: u32,
    /// Rows of the input section; columns of the output section.
    pub ny: u32,
}

/// One past the last element a section of `rows` rows of `width` elements, `pitch` apart from
/// `offset`, touches; `None` when the section is empty, overflows or has `width > pitch`.
#[inline(always)]
fn section_end(offset: u64, pitch: usize, rows: usize, width: usize) -> Option<usize> {
    if width > pitch || rows == 0 || width == 0 {
        return None;
    }
    (rows - 1)
        .checked_mul(pitch)?
        .checked_add(usize::try_from(offset).ok()?)?
        .checked_add(width)
}

/// The sections' first elements `(idata_offset, odata_offset)`, or `None` when they are empty
/// (every thread returns). Traps (every thread) when the block is not `32 x rows x 1` or a
/// section does not lie inside its buffer: the tests that make every in-section index a valid one.
#[inline(always)]
fn section_origins(args: &CudaTransposeArgs<'_>, rows: usize) -> Option<(usize, usize)> {
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    if nx == 0 || ny == 0 {
        return None;
    }
    let input_fits =
        section_end(args.idata_offset, args.ldi as usize, ny, nx).is_some_and(|end| end <= args.idata.len());
    let output_fits =
        section_end(args.odata_offset, args.ldo as usize, nx, ny).is_some_and(|end| end <= args.odata.len());
    let d = block_dim();
    if !input_fits || !output_fits || d.x != 32 || d.y != rows || d.z != 1 {
        ferrocuda_device::global::bounds_failure()
    }
    // Both offsets fit `usize` (`section_end`).
    Some((args.idata_offset as usize, args.odata_offset as usize))
}

/// `odata(section) = transpose(idata(section))` through a padded shared tile: a warp reads part
/// of a row of the input section into a row of the tile, then, after the barrier, a column of
/// the tile into part of a row of the output section, so both global accesses are coalesced.
///
/// Traps (every thread) when the block is not `32 x 8 x 1` or a section does not lie inside its
/// buffer: the tests that make every in-section index below a valid one.
#[kernel]
pub fn cuda_transpose(args: CudaTransposeArgs<'_>) {
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    let (ldi, ldo) = (args.ldi as usize, args.ldo as usize);
    let Some((i0, o0)) = section_origins(&args, BLOCK_ROWS) else {
        return;
    };
    let (t, b) = (thread_idx(), block_idx());
    // SAFETY: the launch provides `TILE_BYTES` bytes of dynamic shared memory (host launch).
    let tile = unsafe { Tile2d::<f32, TILE_DIM, TILE_DIM, TILE_PAD>::dynamic() };
    let (x0, y0) = (b.x * TILE_DIM, b.y * TILE_DIM);
    // The transposed tile is full exactly when this one is.
    let full = x0 + TILE_DIM <= nx && y0 + TILE_DIM <= ny;
    let (x, y) = (x0 + t.x, y0 + t.y);
    let from = i0 + y * ldi + x;
    for k in 0..TILE_DIM / BLOCK_ROWS {
        let j = k * BLOCK_ROWS;
        if full || (x < nx && y + j < ny) {
            // SAFETY: (x, y + j) lies in the section (full tile, or tested), which lies in
            // `idata` (checked above); `t.y + j < 32` and `t.x < 32` (block shape checked).
            unsafe { tile.set_unchecked(t.y + j, t.x, args.idata.get_unchecked(from + j * ldi)) }
        }
    }
    // Every thread of the block reaches this barrier (none has returned: the early
    // return above is taken by all threads of the launch or none).
    sync_threads();
    // Output row `x0 + t.y + j` (of the section's `ny` columns), column `y0 + t.x`: tile element
    // (t.x, t.y + j), which the load wrote exactly when this position is in the section.
    let (col, row) = (y0 + t.x, x0 + t.y);
    let to = o0 + row * ldo + col;
    for k in 0..TILE_DIM / BLOCK_ROWS {
        let j = k * BLOCK_ROWS;
        if full || (col < ny && row + j < nx) {
            // SAFETY: as for the load, with the extents swapped and `odata`.
            unsafe { args.odata.set_unchecked(to + j * ldo, tile.get_unchecked(t.x, t.y + j)) }
        }
    }
}

/// The side of [`transpose_wide`]'s tile.
pub const WIDE_TILE: usize = 64;
/// Rows of [`transpose_wide`]'s block: `32 x 8` threads, each moving 16 elements.
pub const WIDE_BLOCK_ROWS: usize = 8;
/// Dynamic shared memory of [`transpose_wide`]: the `64 x 65` f32 tile.
pub const WIDE_TILE_BYTES: usize = WIDE_TILE * (WIDE_TILE + TILE_PAD) * size_of::<f32>();

/// [`cuda_transpose`] with 64 x 64 tiles and, where both sections' rows start 8-byte aligned,
/// 8-byte accesses: each thread of a `32 x 8` block moves two adjacent elements of 8 rows, so
/// a warp reads or writes 256 contiguous bytes of one row. This is the library's fast path for
/// a whole matrix: 0.975 of memcpy at 16384^2 on an H100 in a CUDA C sweep of tile shapes,
/// orders and access widths (the book's 32 x 32 tile: 0.945; 64 x 64 with 4-byte accesses or a
/// grouped block order: 0.97; 16-byte accesses with 16 x 16 blocks: 0.80).
///
/// Launch: `32 x 8` threads per `64 x 64` tile, a grid of `ceil(nx / 64) x ceil(ny / 64)`
/// blocks, [`WIDE_TILE_BYTES`] of dynamic shared memory. Traps as [`cuda_transpose`] does.
#[kernel]
pub fn transpose_wide(args: CudaTransposeArgs<'_>) {
    const T: usize = WIDE_TILE;
    const HALF: usize = WIDE_TILE / 2;
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    let (ldi, ldo) = (args.ldi as usize, args.ldo as usize);
    let Some((i0, o0)) = section_origins(&args, WIDE_BLOCK_ROWS) else {
        return;
    };
    let (t, b) = (thread_idx(), block_idx());
    // SAFETY: the launch provides `WIDE_TILE_BYTES` bytes of dynamic shared memory (host launch).
    let tile = unsafe { Tile2d::<f32, T, T, TILE_PAD>::dynamic() };
    let (x0, y0) = (b.x * T, b.y * T);
    let full = x0 + T <= nx && y0 + T <= ny;
    // Pairs stay whole when every section row starts at an even element of an 8-byte aligned
    // buffer; `x0`, `y0` and `2 t.x` are even.
    let pairs = match (args.idata.pairs(), args.odata.pairs()) {
        (Some(input), Some(output)) if full && (i0 | ldi | o0 | ldo).is_multiple_of(2) => Some((input, output)),
        _ => None,
    };
    if let Some((input, output)) = pairs {
        for k in 0..T / WIDE_BLOCK_ROWS {
            let row = t.y + k * WIDE_BLOCK_ROWS;
            // SAFETY: elements `2 t.x`, `2 t.x + 1` of tile row `row` lie in the section (a full
            // tile), which lies in `idata` (`section_origins`); the pair index is that element's
            // over 2 (even, above); `row < 64`, `2 t.x + 1 < 64` (block shape checked).
            unsafe {
                let pair = input.get_unchecked((i0 + (y0 + row) * ldi + x0) / 2 + t.x);
                tile.set_unchecked(row, 2 * t.x, f32::from_bits(pair as u32));
                tile.set_unchecked(row, 2 * t.x + 1, f32::from_bits((pair >> 32) as u32));
            }
        }
        // Every thread of the block reaches this barrier (`pairs` is block-uniform).
        sync_threads();
        for k in 0..T / WIDE_BLOCK_ROWS {
            let col = t.y + k * WIDE_BLOCK_ROWS;
            // SAFETY: as for the load, with the extents swapped and `odata`.
            unsafe {
                let (lo, hi) = (tile.get_unchecked(2 * t.x, col), tile.get_unchecked(2 * t.x + 1, col));
                let pair = u64::from(lo.to_bits()) | u64::from(hi.to_bits()) << 32;
                output.set_unchecked((o0 + (x0 + col) * ldo + y0) / 2 + t.x, pair);
            }
        }
        return;
    }
    // (Ranges, not arrays of the two columns: an array would live in local memory.)
    for k in 0..T / WIDE_BLOCK_ROWS {
        let y = t.y + k * WIDE_BLOCK_ROWS;
        for x in (t.x..T).step_by(HALF) {
            if full || (x0 + x < nx && y0 + y < ny) {
                // SAFETY: (x0 + x, y0 + y) lies in the section (full tile, or tested), which lies
                // in `idata`; `y < 64`, `x < 64` (block shape checked).
                unsafe { tile.set_unchecked(y, x, args.idata.get_unchecked(i0 + (y0 + y) * ldi + x0 + x)) }
            }
        }
    }
    // Every thread of the block reaches this barrier (`pairs` is block-uniform).
    sync_threads();
    // Output row `x0 + c`, column `y0 + r`: tile element (r, c), written by the load exactly when
    // this position is in the section.
    for k in 0..T / WIDE_BLOCK_ROWS {
        let c = t.y + k * WIDE_BLOCK_ROWS;
        for r in (t.x..T).step_by(HALF) {
            if full || (y0 + r < ny && x0 + c < nx) {
                // SAFETY: as for the load, with the extents swapped and `odata`.
                unsafe {
                    args.odata
                        .set_unchecked(o0 + (x0 + c) * ldo + y0 + r, tile.get_unchecked(r, c))
                }
            }
        }
    }
}
