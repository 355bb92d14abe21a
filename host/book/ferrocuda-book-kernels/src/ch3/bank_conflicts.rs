//! The cost of shared-memory bank conflicts (book §3.3.3.2): every warp reads 32 words at a
//! stride of `stride` words, many times over. Successive 4-byte words lie in successive banks of
//! 32, so lane `i` reads bank `(i * stride) mod 32`: stride 1 (or any odd stride) touches 32
//! banks in one pass, stride 2 needs 2 passes, ..., stride 32 puts all 32 lanes on one bank, a
//! 32-way conflict; stride 33, a 32-wide tile's column read with one word of padding per row
//! (the transpose's `tile(TILE_DIM+1, TILE_DIM)`), is conflict-free again.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// The largest stride, in 4-byte words (32 plus one word of padding).
pub const MAX_STRIDE: u32 = 33;
/// Reads per pass: in pass `p`, lane `i` reads words `i * stride + 32 ((p mod 8) + k)` for
/// `k < READS`. Shifting by whole rows of 32 words keeps each lane on its bank, and the shift
/// that changes with the pass keeps the compiler from hoisting the reads out of the loop.
pub const READS: usize = 8;
/// The tile, rows of 32 words: every word read fits (row at most 31 * 33 / 32 + 7 + 7 = 45).
pub type BankTile = Tile2d<u32, 48, 32, 0>;

/// Arguments of [`bank_conflicts`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct BankArgs<'a> {
    /// One sum per thread.
    pub out: SliceMut<'a, u32>,
    /// Words between the addresses of consecutive lanes, 1 to [`MAX_STRIDE`].
    pub stride: u32,
    /// Passes of [`READS`] reads each.
    pub passes: u32,
}

/// The value the tile holds at word `w` (set by the kernel, recomputed by the CPU reference).
pub const fn word_value(w: u32) -> u32 {
    w.wrapping_mul(2_654_435_761).rotate_left(7)
}

/// Fills the tile, then each thread sums (wrapping) `passes * READS` words read at its lane's
/// strided address into `out[global x]`. Launch 1-D blocks of a multiple of 32 threads with
/// `BankTile::BYTES` of shared memory; a stride outside 1..=33 traps.
#[kernel]
pub fn bank_conflicts(args: BankArgs<'_>) {
    let stride = args.stride as usize;
    if stride == 0 || stride > MAX_STRIDE as usize {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: the launch provides `BankTile::BYTES` bytes (host driver).
    let tile = unsafe { BankTile::dynamic() };
    let words = BankTile::BYTES / size_of::<u32>();
    let mut w = thread_idx_x();
    while w < words {
        tile.set(w / 32, w % 32, word_value(w as u32));
        w += block_dim().x;
    }
    // Every thread of the block reaches this barrier.
    sync_threads();
    let first = (thread_idx_x() % 32) * stride;
    let (row, col) = (first / 32, first % 32);
    let mut sum = 0u32;
    for p in 0..args.passes as usize {
        let shifted = row + p % 8;
        for k in 0..READS {
            // SAFETY: `row <= 31 * 33 / 32 = 31`, so `shifted + k <= 45 < 48`, and `col < 32`.
            sum = sum.wrapping_add(unsafe { tile.get_unchecked(shifted + k, col) });
        }
    }
    args.out.set(global_idx_x(), sum);
}
