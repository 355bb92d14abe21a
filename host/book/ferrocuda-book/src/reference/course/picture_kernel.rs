//! `PictureKernel` on the CPU: the doubled picture, and the paths its blocks take, thread by
//! thread.
use ferrocuda::Result;
use rayon::prelude::*;

/// `2.0 * pin[i]` for every pixel, allocated fallibly.
pub fn picture(pin: &[f32]) -> Result<Vec<f32>> {
    crate::reference::try_collect(pin.par_iter().map(|&p| 2.0 * p))
}

/// For each block of a grid of `block`-sized blocks over an `n x m` picture (the course's grid,
/// `((n-1)/bx+1, (m-1)/by+1)`), the threads whose `Row < m && Col < n` test holds, found by
/// asking every thread; row-major over the blocks.
pub fn working_threads_per_block(n: usize, m: usize, block: (usize, usize)) -> Vec<usize> {
    let (gx, gy) = ((n - 1) / block.0 + 1, (m - 1) / block.1 + 1);
    (0..gx * gy)
        .map(|b| {
            let (bx, by) = (b % gx, b / gx);
            (0..block.0 * block.1)
                .filter(|t| {
                    let col = bx * block.0 + t % block.0;
                    let row = by * block.1 + t / block.0;
                    row < m && col < n
                })
                .count()
        })
        .collect()
}
