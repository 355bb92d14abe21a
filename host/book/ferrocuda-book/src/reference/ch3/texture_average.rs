//! The four- and eight-point averages on the CPU (book Appendix D.1, `res4` and `res8`), summed
//! with the kernels' own functions so that the results agree bit for bit.
use crate::reference::try_collect;
use book_kernels::ch3::texture_average::{average4_at, average8_at};
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// The average of the four edge neighbours of each interior point of the `(n + 2)^2` array `a`
/// (row-major, one-element halo), `n^2` results. Refuses an `a` of other than `(n + 2)^2`
/// elements.
pub fn average4(a: &[f32], n: usize) -> Result<Vec<f32>> {
    stencil(a, n, |at, i, j| average4_at(at, i, j))
}

/// The average of the eight neighbours of each interior point; refuses as [`average4`].
pub fn average8(a: &[f32], n: usize) -> Result<Vec<f32>> {
    stencil(a, n, |at, i, j| average8_at(at, i, j))
}

/// `point(at, i, j)` at every interior `(i, j)`, 1-based, where `at(i, j) = a[j * (n + 2) + i]`.
fn stencil(
    a: &[f32],
    n: usize,
    point: impl Fn(&dyn Fn(usize, usize) -> f32, usize, usize) -> f32 + Sync,
) -> Result<Vec<f32>> {
    let w = n.checked_add(2);
    let interior = n.checked_mul(n);
    if interior.is_none() || w.and_then(|w| w.checked_mul(w)) != Some(a.len()) {
        return Err(Error::InvalidArgument(format!(
            "an {n} x {n} interior with its halo needs (n + 2)^2 elements, not {}",
            a.len()
        )));
    }
    let w = n + 2;
    let at = |i: usize, j: usize| a[j * w + i];
    try_collect((0..n * n).into_par_iter().map(|k| point(&at, k % n + 1, k / n + 1)))
}
