//! `sa = sum(a)`: the tutorial's `sum1` (serial partial sums of blocks of `mx`), and the f64 sum
//! the GPU results are checked against (with rayon, in place of `sum0`'s OpenMP reduction).
use rayon::prelude::*;

/// D3a's `sum1`: the sum of each block of `mx` values in f32, then the sum of those, in order.
pub fn sum1(a: &[f32], mx: usize) -> f32 {
    let mut sa = 0.0f32;
    for block in a.chunks(mx.max(1)) {
        let mut t = 0.0f32;
        for &v in block {
            t += v;
        }
        sa += t;
    }
    sa
}

/// The sum of the f32 values in f64: exact below 2^53 for integer values.
pub fn sum_f64(a: &[f32]) -> f64 {
    a.par_iter().map(|&v| f64::from(v)).sum()
}
