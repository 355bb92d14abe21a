//! `c = a + b`.
use rayon::prelude::*;

/// `c[i] = a[i] + b[i]`.
pub fn vector_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.par_iter().zip(b).map(|(a, b)| a + b).collect()
}
