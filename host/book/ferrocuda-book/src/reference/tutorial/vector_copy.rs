//! `a = b`, the tutorial's `copy0`/`copy1` (with rayon instead of OpenMP).
use rayon::prelude::*;

/// `a[j] = b[j]`, for `j` below the shorter of `a` and `b`.
pub fn copy(a: &mut [f32], b: &[f32]) {
    a.par_iter_mut().zip(b).for_each(|(a, &b)| *a = b);
}
