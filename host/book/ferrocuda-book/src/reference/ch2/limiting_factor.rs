//! `a = sin(b)` with the same `libm` routine the accurate kernel runs.
use rayon::prelude::*;

/// `a[i] = sinf(b[i])`, for `i` below the shorter of `a` and `b`.
pub fn base(a: &mut [f32], b: &[f32]) {
    a.par_iter_mut().zip(b).for_each(|(a, &b)| *a = libm::sinf(b));
}
