//! SplitMix64, the seeded, portable generator of the course examples' inputs (the histogram's
//! bytes, the matrix to sum, the convolutions' signal and image).
use rayon::prelude::*;

/// The generator's increment, the golden ratio's 64 bits.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The next value of the stream whose state is `state`.
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills `values` in parallel: each chunk of 2^16 from its own stream (`seed ^ chunk * GOLDEN`),
/// each value `value(next)`, so the result does not depend on the thread count.
pub fn par_fill<T: Send>(values: &mut [T], seed: u64, value: impl Fn(u64) -> T + Sync) {
    values.par_chunks_mut(1 << 16).enumerate().for_each(|(chunk, values)| {
        let mut state = seed ^ (chunk as u64).wrapping_mul(GOLDEN);
        for v in values {
            *v = value(next(&mut state));
        }
    });
}
