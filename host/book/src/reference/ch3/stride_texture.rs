//! The strided read on the CPU (book §3.2.3, `strideTexture`).
use ferrocuda::device::real::Real;
use rayon::prelude::*;

/// `b[i] = a[i * s] + 1` for `i < n`.
pub fn stride_read<T: Real + Send + Sync>(a: &[T], n: usize, s: usize) -> Vec<T> {
    (0..n).into_par_iter().map(|i| a[i * s] + T::from_f64(1.0)).collect()
}
