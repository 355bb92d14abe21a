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
            (0..passes).fold(0u32, |sum, p| {
                (0..READS).fold(sum, |sum, k| {
                    sum.wrapping_add(word_value(first.wrapping_add(32 * (p % 8 + k) as u32)))
                })
            })
        })
        .collect();
    (0..threads).into_par_iter().map(|g| per_lane[g % 32]).collect()
}
