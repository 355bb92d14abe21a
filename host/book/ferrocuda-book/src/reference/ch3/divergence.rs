//! The divergence kernels' outputs: the even/odd side per element, or per warp.
use crate::reference::try_collect;
use book_kernels::ch3::divergence::{side_a, side_b};
use ferrocuda::gpu::Result;
use rayon::prelude::*;

/// `x[i] = side_a(i)` when `side(i)` is true, `side_b(i)` otherwise.
pub fn divergence(n: usize, side: impl Fn(usize) -> bool + Sync) -> Result<Vec<f32>> {
    try_collect(
        (0..n)
            .into_par_iter()
            .map(|i| if side(i) { side_a(i) } else { side_b(i) }),
    )
}
