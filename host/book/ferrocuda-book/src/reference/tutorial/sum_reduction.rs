//! `sa = sum(a)`: the tutorial's `sum1` (serial partial sums of blocks of `mx`), and the f64 sum
//! the GPU results are checked against (with rayon, in place of `sum0`'s OpenMP reduction).

/// D3a's `sum1`: the sum of each block of `mx` values in f32, then the sum of those, in order.
pub fn sum1(a: &[f32], mx: usize) -> f32 {
    let block_sum = |block: &[f32]| block.iter().fold(0.0f32, |t, &v| t + v);
    a.chunks(mx.max(1)).fold(0.0, |sa, block| sa + block_sum(block))
}

/// The sum of the f32 values in f64: exact below 2^53 for integer values.
pub use crate::reference::course::reduction::sum as sum_f64;
