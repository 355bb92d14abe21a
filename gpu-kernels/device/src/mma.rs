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
//! Needs sm_80 or later on the GPU (both shapes; the project builds sm_80 and sm_90).
use crate::arch;

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
    /// # Safety
    /// Every lane of the warp calls it together (convergently): `mma.sync.aligned`. The
    /// simulator reports a fault when a lane does not.
    #[inline(always)]
    pub unsafe fn mma_bf16(self, a: Bf16A, b: Bf16B) -> Self {
        // SAFETY: forwarded to the caller.
        Self(unsafe { arch::mma_bf16_m16n8k16(a.0, b.0, self.0) })
    }

    /// `self + a b` on the tensor cores (`mma.sync...m16n8k8...tf32`).
    ///
    /// # Safety
    /// As [`Accumulator::mma_bf16`].
    #[inline(always)]
    pub unsafe fn mma_tf32(self, a: Tf32A, b: Tf32B) -> Self {
        // SAFETY: forwarded to the caller.
        Self(unsafe { arch::mma_tf32_m16n8k8(a.0, b.0, self.0) })
    }
}
