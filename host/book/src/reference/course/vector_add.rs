//! `c = a + b`.
use rayon::prelude::*;

/// `c[i] = a[i] + b[i]`, for `i` below the shorter of `a` and `b`.
pub fn vector_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.par_iter().zip(b).map(|(a, b)| a + b).collect()
}
