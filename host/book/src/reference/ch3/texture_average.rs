//! The four- and eight-point averages on the CPU (book Appendix D.1, `res4` and `res8`), summed
//! with the kernels' own functions so that the results agree bit for bit.
use book_kernels::ch3::texture_average::{average4_at, average8_at};
use rayon::prelude::*;

/// The average of the four edge neighbours of each interior point of the `(n + 2)^2` array `a`
/// (row-major, one-element halo), `n^2` results.
pub fn average4(a: &[f32], n: usize) -> Vec<f32> {
    stencil(a, n, |at, i, j| average4_at(at, i, j))
}

/// The average of the eight neighbours of each interior point.
pub fn average8(a: &[f32], n: usize) -> Vec<f32> {
    stencil(a, n, |at, i, j| average8_at(at, i, j))
}

/// `point(at, i, j)` at every interior `(i, j)`, 1-based, where `at(i, j) = a[j * (n + 2) + i]`.
fn stencil(a: &[f32], n: usize, point: impl Fn(&dyn Fn(usize, usize) -> f32, usize, usize) -> f32 + Sync) -> Vec<f32> {
    let w = n + 2;
    let at = |i: usize, j: usize| a[j * w + i];
    (0..n * n)
        .into_par_iter()
        .map(|k| point(&at, k % n + 1, k / n + 1))
        .collect()
}
