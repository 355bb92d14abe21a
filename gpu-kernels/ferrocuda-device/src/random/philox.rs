//! Philox4x32-10, the counter-based generator of Salmon et al., "Parallel random numbers: as easy
//! as 1, 2, 3" (SC'11; Random123), which cuRAND also ships as `CURAND_RNG_PSEUDO_PHILOX4_32_10`.
//!
//! A counter-based generator is a pure function `(key, counter) -> 4 random words`: thread `i`
//! draws block `i` of the stream with no state to set up or carry, and the CPU reproduces any
//! element bit for bit from the same `(key, counter)`, because only integer multiplies and xors are
//! involved. The same code compiles for the GPU and for the host.

/// The multipliers of the two 32-bit lanes (Random123's `PHILOX_M4x32_0/1`).
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
/// The Weyl increments of the key per round (the golden ratio and `sqrt(3) - 1`, 32 bits).
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;
/// Rounds: 10, the count Random123 and cuRAND use (7 pass BigCrush; 10 leave a safety margin).
pub const ROUNDS: usize = 10;

/// A 64-bit seed as Philox's two-word key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Key(pub [u32; 2]);

impl Key {
    /// The key of `seed`: its low word, then its high word (cuRAND's `curand_init` order).
    #[inline(always)]
    pub const fn from_seed(seed: u64) -> Self {
        Key([seed as u32, (seed >> 32) as u32])
    }
}

/// The 128-bit counter of block `index` of stream `stream`: the words `(index lo, index hi,
/// stream lo, stream hi)`, so each of 2^64 streams has 2^64 blocks of four words.
#[inline(always)]
pub const fn counter(stream: u64, index: u64) -> [u32; 4] {
    [index as u32, (index >> 32) as u32, stream as u32, (stream >> 32) as u32]
}

/// The high and low words of `a * b`. Written as two 32-bit products, so the GPU gets
/// `mul.hi.u32` and `mul.lo.u32` (one `IMAD.WIDE.U32` or two `IMAD`s), not the 64-bit multiply
/// that LLVM otherwise emits for a product of zero-extended words.
#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    (((u64::from(a) * u64::from(b)) >> 32) as u32, a.wrapping_mul(b))
}

/// The four random words of `counter` under `key`: ten Philox rounds.
///
/// Cost: 20 32x32->64-bit multiplies and 30 xors/adds; no memory.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: Key) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key.0;
    let mut round = 0;
    while round < ROUNDS {
        let (hi0, lo0) = mul_hi_lo(M0, c0);
        let (hi1, lo1) = mul_hi_lo(M1, c2);
        (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
        k0 = k0.wrapping_add(W0);
        k1 = k1.wrapping_add(W1);
        round += 1;
    }
    [c0, c1, c2, c3]
}

/// `word` as an `f32` uniform in (0, 1]: its top 24 bits plus one, times 2^-24, so every value is
/// exact and 0 never occurs (a logarithm of it is finite, as Box-Muller needs).
#[inline(always)]
pub fn uniform_f32(word: u32) -> f32 {
    ((word >> 8) + 1) as f32 * (1.0 / 16_777_216.0)
}

/// Two words as an `f64` uniform in (0, 1]: 53 bits (`hi`'s 32 above `lo`'s top 21) plus one,
/// times 2^-53, exact as [`uniform_f32`].
#[inline(always)]
pub fn uniform_f64(hi: u32, lo: u32) -> f64 {
    (((u64::from(hi) << 21) | u64::from(lo >> 11)) + 1) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known-answer tests for philox4x32_10 (`kat_vectors`).
    #[test]
    fn random123_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], Key([0; 2])),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], Key([u32::MAX; 2])),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                Key([0xa409_3822, 0x299f_31d0])
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn uniforms_are_in_the_half_open_unit_interval() {
        assert_eq!(uniform_f32(0), 1.0 / 16_777_216.0);
        assert_eq!(uniform_f32(u32::MAX), 1.0);
        assert_eq!(uniform_f64(0, 0), 1.0 / 9_007_199_254_740_992.0);
        assert_eq!(uniform_f64(u32::MAX, u32::MAX), 1.0);
    }
}
