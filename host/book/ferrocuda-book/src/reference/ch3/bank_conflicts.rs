//! The sums the bank-conflict kernel's threads must produce: the same words, read in the same
//! order, added with the same wrapping arithmetic.
use book_kernels::ch3::bank_conflicts::{READS, word_value};
use rayon::prelude::*;

/// Thread `g`'s sum, for `threads` threads: lane `g mod 32` reads, in pass `p`, the words
/// `lane * stride + 32 ((p mod 8) + k)`, `k < READS`.
pub fn sums(threads: usize, stride: usize, passes: usize) -> Vec<u32> {
    let per_lane: Vec<u32> = (0..32)
        .map(|lane| {
            // In the kernels' 32-bit index arithmetic: wrapping, whatever the stride.
            let first = (lane as u32).wrapping_mul(stride as u32);
            // Pass `p` reads what pass `p mod 8` reads, and wrapping addition is associative
            // and commutative, so whole periods of 8 passes fold into one multiplication: the
            // reference costs the same for 4 passes as for 4 billion.
            let pass = |p: usize| {
                (0..READS).fold(0u32, |sum, k| {
                    sum.wrapping_add(word_value(first.wrapping_add(32 * (p + k) as u32)))
                })
            };
            let period = (0..8).fold(0u32, |sum, p| sum.wrapping_add(pass(p)));
            let whole = (passes / 8) as u32; // wraps as the kernel's 32-bit sum does
            (0..passes % 8).fold(period.wrapping_mul(whole), |sum, p| sum.wrapping_add(pass(p)))
        })
        .collect();
    (0..threads).into_par_iter().map(|g| per_lane[g % 32]).collect()
}
