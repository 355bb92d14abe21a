//! The strided read on the CPU (book §3.2.3, `strideTexture`).
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// `b[i] = a[i * s] + 1` for `i < n`. Refuses an `a` that does not hold element `(n - 1) s`.
pub fn stride_read<T: Real + Send + Sync>(a: &[T], n: usize, s: usize) -> Result<Vec<T>> {
    let last = n.checked_sub(1).map(|i| i.checked_mul(s));
    if let Some(last) = last
        && last.is_none_or(|k| k >= a.len())
    {
        return Err(Error::InvalidArgument(format!(
            "{n} reads at stride {s} reach past the {} elements given",
            a.len()
        )));
    }
    Ok((0..n).into_par_iter().map(|i| a[i * s] + T::from_f64(1.0)).collect())
}
