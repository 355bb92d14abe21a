//! Warp-level matrix multiply-accumulate on the tensor cores (`mma.sync`, PTX ISA §9.7.14): one
//! warp multiplies a 16 x K tile of `A` by a K x 8 tile of `B` into a 16 x 8 tile of f32, each
//! lane holding a fragment of each. Two shapes, both with f32 accumulation:
//!
//! - BF16, m16n8k16: [`Bf16A`] (16 x 16), [`Bf16B`] (16 x 8), two BF16 per 32-bit word, the
//!   lower index in the low half ([`bf16_pair`]);
//! - TF32, m16n8k8: [`Tf32A`] (16 x 8), [`Tf32B`] (8 x 8), f32 inputs rounded to TF32 on load
//!   ([`to_tf32`], `cvt.rna`: to nearest, ties away).
//!
//! Fragments are typed values: a fragment of `A` cannot be passed where one of `B` goes, nor a
//! BF16 one to the TF32 instruction. Each `load` takes a closure that reads an element (or a word
//! of two BF16) of the tile at (row, column), so the tile may live in shared memory, global memory
//! or registers; `load` calls it for exactly the positions this lane's fragment holds.
//!
//! Lane `l` is in group `g = l / 4` at position `t = l % 4`. `A` is read by rows ("row"), `B` by
//! columns ("col"): a fragment of `B` holds column `g`. The accumulator holds rows `g` and `g + 8`,
//! columns `2t` and `2t + 1` ([`Accumulator::positions`]).
//!
//! Rounding contract: the products of BF16 or TF32 inputs are exact in f32; the sum's order and
//! internal rounding on the GPU are not specified by PTX. The CPU simulator computes the exactly
//! rounded `a b + c` (f64 sums, one rounding), so a GPU result differs from it by a few units in
//! the last place of the sum of |products|; compare with a tolerance of that size.
//!
//! From shared memory, each fragment also loads in one instruction per warp: `ldmatrix`
//! ([`ldmatrix_x4`]) moves four 8 x 8 blocks of 16-bit elements into exactly this layout, and
//! since a block of 8 rows of 16 bytes is 8 rows of 4 words, it serves TF32 words too
//! ([`Bf16A::load_shared`], [`Bf16B::load_shared_pair`], [`Tf32A::load_shared`],
//! [`Tf32B::load_shared_pair`]).
//!
//! Needs sm_80 or later on the GPU (both shapes; the project builds sm_80 and sm_90).
use crate::arch;
use crate::shared::Tile2d;

/// This lane's `(group, position in group)`: `(lane / 4, lane % 4)`.
#[inline(always)]
pub fn fragment_lane() -> (usize, usize) {
    let lane = arch::lane_id() as usize;
    (lane / 4, lane % 4)
}

/// `x` rounded to BF16 (to nearest, ties to even; a NaN stays a NaN), as its 16 bits.
#[inline(always)]
pub fn to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let rounded = bits + 0x7fff + ((bits >> 16) & 1);
    (rounded >> 16) as u16
}

/// The BF16 bits `b` as f32 (exact).
#[inline(always)]
pub fn from_bf16(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Two BF16 in one word, `even` (the lower index) in the low half.
#[inline(always)]
pub fn bf16_pair(even: u16, odd: u16) -> u32 {
    even as u32 | (odd as u32) << 16
}

/// `x` rounded to TF32 (`cvt.rna.tf32.f32`): 10 mantissa bits, to nearest with ties away from
/// zero, the low 13 bits zero.
#[inline(always)]
pub fn to_tf32(x: f32) -> u32 {
    arch::cvt_rna_tf32(x)
}

/// Four 8 x 8 blocks of 16-bit elements from a shared tile of 4-byte words, one warp together
/// (`ldmatrix.sync.aligned.m8n8.x4.shared.b16`, PTX ISA §9.7.14.5.15). Each lane names one row
/// of 16 bytes, words `4*chunk .. 4*chunk + 4` of `row`: lanes `8i .. 8i + 8` give rows 0..8 of
/// block `i`. Lane `l` receives, as word `i`, word `l % 4` of row `l / 4` of block `i`; a block
/// is thus spread as the `mma` fragments spread an 8 x 8 block of words (group `g`, position
/// `t`). Traps when a lane's row or chunk is out of the tile.
///
/// Cost: one instruction; rows of a padded tile whose pitch is 4 (mod 32) words, or 20 words,
/// fall in distinct banks for all 8 rows of a block, so each block is one shared-memory
/// wavefront.
///
/// # Safety
/// Every lane of the warp calls it together (convergently), after the tile's bytes were
/// written and made visible (a barrier).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn ldmatrix_x4<T: Copy, const ROWS: usize, const COLS: usize, const PAD: usize>(
    tile: &Tile2d<T, ROWS, COLS, PAD>,
    row: usize,
    chunk: usize,
) -> [u32; 4] {
    let address = tile.chunk_ptr(row, chunk);
    // SAFETY: in the tile, 16-byte aligned (`chunk_ptr`); convergence is the caller's contract.
    unsafe { arch::ldmatrix_x4_b16(address.cast()) }
}

/// The row and 16-byte chunk this lane names to [`ldmatrix_x4`] for the four 8 x 8 word blocks
/// of a 16 x 8-word tile at (`row0`, `word0`): block `i` at rows `8 (i % 2)` (`row_major`) or
/// `8 (i / 2)`, words `4 (i / 2)` or `4 (i % 2)`. Traps unless `word0` is a multiple of 4.
#[inline(always)]
fn ldmatrix_lane(row0: usize, word0: usize, row_major: bool) -> (usize, usize) {
    if !word0.is_multiple_of(4) {
        crate::global::bounds_failure()
    }
    let lane = arch::lane_id() as usize;
    let (block, row) = (lane / 8, lane % 8);
    let (row_block, word_block) = if row_major {
        (block % 2, block / 2)
    } else {
        (block / 2, block % 2)
    };
    (row0 + row + 8 * row_block, word0 / 4 + word_block)
}

/// This lane's fragment of a 16 x 16 BF16 tile of `A` (m16n8k16, "row").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bf16A(pub [u32; 4]);

impl Bf16A {
    /// Reads the fragment: `pair(row, p)` is the word of columns `2p` and `2p + 1` of `row`.
    #[inline(always)]
    pub fn load(pair: impl Fn(usize, usize) -> u32) -> Self {
        let (g, t) = fragment_lane();
        Self([pair(g, t), pair(g + 8, t), pair(g, t + 4), pair(g + 8, t + 4)])
    }

    /// Reads the fragment of rows `row0 .. row0 + 16`, words `word0 .. word0 + 8` (a multiple
    /// of 4) of a shared tile of pairs, with one [`ldmatrix_x4`]: the words [`Bf16A::load`]
    /// reads, in one instruction instead of four loads.
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<u32, ROWS, COLS, PAD>,
        row0: usize,
        word0: usize,
    ) -> Self {
        let (row, chunk) = ldmatrix_lane(row0, word0, true);
        // SAFETY: forwarded to the caller.
        Self(unsafe { ldmatrix_x4(tile, row, chunk) })
    }
}

/// This lane's fragment of a 16 x 8 BF16 tile of `B` (m16n8k16, "col").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bf16B(pub [u32; 2]);

impl Bf16B {
    /// Reads the fragment: `pair(col, p)` is the word of rows `2p` and `2p + 1` of column `col`
    /// (contiguous when `B` is stored transposed, `n x k`).
    #[inline(always)]
    pub fn load(pair: impl Fn(usize, usize) -> u32) -> Self {
        let (g, t) = fragment_lane();
        Self([pair(g, t), pair(g, t + 4)])
    }

    /// Reads the fragments of two neighbouring 16 x 8 tiles, columns `col0 .. col0 + 8` and
    /// `col0 + 8 .. col0 + 16` of `B`, stored as rows of a shared tile of `B^T` (`n x k` pairs),
    /// words `word0 .. word0 + 8` (a multiple of 4), with one [`ldmatrix_x4`].
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared_pair<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<u32, ROWS, COLS, PAD>,
        col0: usize,
        word0: usize,
    ) -> [Self; 2] {
        let (row, chunk) = ldmatrix_lane(col0, word0, false);
        // SAFETY: forwarded to the caller.
        let w = unsafe { ldmatrix_x4(tile, row, chunk) };
        [Self([w[0], w[1]]), Self([w[2], w[3]])]
    }
}

/// This lane's fragment of a 16 x 8 TF32 tile of `A` (m16n8k8, "row").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tf32A(pub [u32; 4]);

impl Tf32A {
    /// Reads the fragment, rounding each element `at(row, col)` to TF32.
    #[inline(always)]
    pub fn load(at: impl Fn(usize, usize) -> f32) -> Self {
        let (g, t) = fragment_lane();
        Self([at(g, t), at(g + 8, t), at(g, t + 4), at(g + 8, t + 4)].map(to_tf32))
    }
}

impl Tf32A {
    /// Reads the fragment from elements already rounded to TF32 ([`to_tf32`]), as words.
    #[inline(always)]
    pub fn load_rounded(at: impl Fn(usize, usize) -> u32) -> Self {
        let (g, t) = fragment_lane();
        Self([at(g, t), at(g + 8, t), at(g, t + 4), at(g + 8, t + 4)])
    }

    /// Reads the fragment of rows `row0 .. row0 + 16`, columns `col0 .. col0 + 8` (a multiple
    /// of 4) of a shared f32 tile with one [`ldmatrix_x4`] (a word is two 16-bit halves, which
    /// `ldmatrix` keeps together), rounding each element to TF32 as [`Tf32A::load`] does.
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<f32, ROWS, COLS, PAD>,
        row0: usize,
        col0: usize,
    ) -> Self {
        // SAFETY: forwarded to the caller.
        let Self(words) = unsafe { Self::load_shared_rounded(tile, row0, col0) };
        Self(words.map(|w| to_tf32(f32::from_bits(w))))
    }

    /// [`Tf32A::load_shared`] of elements already rounded to TF32 ([`to_tf32`]): the words as
    /// they are.
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared_rounded<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<f32, ROWS, COLS, PAD>,
        row0: usize,
        col0: usize,
    ) -> Self {
        let (row, chunk) = ldmatrix_lane(row0, col0, true);
        // SAFETY: forwarded to the caller.
        Self(unsafe { ldmatrix_x4(tile, row, chunk) })
    }
}

/// This lane's fragment of an 8 x 8 TF32 tile of `B` (m16n8k8, "col").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tf32B(pub [u32; 2]);

impl Tf32B {
    /// Reads the fragment, rounding each element to TF32: `at(col, row)` is element (row, col)
    /// of `B`, column first (contiguous when `B` is stored transposed, `n x k`).
    #[inline(always)]
    pub fn load(at: impl Fn(usize, usize) -> f32) -> Self {
        let (g, t) = fragment_lane();
        Self([at(g, t), at(g, t + 4)].map(to_tf32))
    }

    /// Reads the fragment from elements already rounded to TF32, as words.
    #[inline(always)]
    pub fn load_rounded(at: impl Fn(usize, usize) -> u32) -> Self {
        let (g, t) = fragment_lane();
        Self([at(g, t), at(g, t + 4)])
    }

    /// Reads the fragments of two neighbouring 8 x 8 tiles, columns `col0 .. col0 + 16` of `B`
    /// stored as rows of a shared f32 tile of `B^T`, rows `k0 .. k0 + 8` of `B` (a multiple of
    /// 4), with one [`ldmatrix_x4`], rounding each element to TF32 as [`Tf32B::load`] does.
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared_pair<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<f32, ROWS, COLS, PAD>,
        col0: usize,
        k0: usize,
    ) -> [Self; 2] {
        // SAFETY: forwarded to the caller.
        let pair = unsafe { Self::load_shared_pair_rounded(tile, col0, k0) };
        pair.map(|Self(words)| Self(words.map(|w| to_tf32(f32::from_bits(w)))))
    }

    /// [`Tf32B::load_shared_pair`] of elements already rounded to TF32: the words as they are.
    ///
    /// # Safety
    /// As [`ldmatrix_x4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load_shared_pair_rounded<const ROWS: usize, const COLS: usize, const PAD: usize>(
        tile: &Tile2d<f32, ROWS, COLS, PAD>,
        col0: usize,
        k0: usize,
    ) -> [Self; 2] {
        let (row, chunk) = ldmatrix_lane(col0, k0, false);
        // SAFETY: forwarded to the caller.
        let w = unsafe { ldmatrix_x4(tile, row, chunk) };
        [Self([w[0], w[1]]), Self([w[2], w[3]])]
    }
}

/// This lane's four f32 of a 16 x 8 accumulator tile.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accumulator(pub [f32; 4]);

impl Accumulator {
    /// The (row, column) in the 16 x 8 tile of each of this lane's four values.
    #[inline(always)]
    pub fn positions() -> [(usize, usize); 4] {
        let (g, t) = fragment_lane();
        [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
    }

    /// `self + a b` on the tensor cores (`mma.sync...m16n8k16...bf16`).
    ///
    /// Call from: every lane of the warp together (convergently): `mma.sync.aligned`. Otherwise
    /// the GPU's result is undefined, and the simulator reports a fault. Safe, as the shuffles
    /// are: the operands are registers, no memory is touched.
    #[inline(always)]
    pub fn mma_bf16(self, a: Bf16A, b: Bf16B) -> Self {
        // SAFETY: a convergence contract only: register operands, no memory access.
        Self(unsafe { arch::mma_bf16_m16n8k16(a.0, b.0, self.0) })
    }

    /// `self + a b` on the tensor cores (`mma.sync...m16n8k8...tf32`).
    ///
    /// Call from: as [`Accumulator::mma_bf16`].
    #[inline(always)]
    pub fn mma_tf32(self, a: Tf32A, b: Tf32B) -> Self {
        // SAFETY: a convergence contract only: register operands, no memory access.
        Self(unsafe { arch::mma_tf32_m16n8k8(a.0, b.0, self.0) })
    }
}
