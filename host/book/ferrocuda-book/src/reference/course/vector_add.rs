//! `c = a + b`.
use ferrocuda::Result;
use rayon::prelude::*;

/// `c[i] = a[i] + b[i]`, for `i` below the shorter of `a` and `b`; the output allocated
/// fallibly.
pub fn vector_add(a: &[f32], b: &[f32]) -> Result<Vec<f32>> {
    crate::reference::try_collect(a.par_iter().zip(b).map(|(a, b)| a + b))
}
