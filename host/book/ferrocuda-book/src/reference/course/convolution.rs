//! The course's convolutions on the CPU: 1-D in f32 with ghost cells 0 (one fused multiply-add
//! per in-range tap, in tap order, as the kernels), and 2-D on bytes normalised by the weights
//! of the in-image taps.
use crate::reference::try_collect;
use ferrocuda::Result;
use ferrocuda::footprint::try_vec;
use rayon::prelude::*;

/// `P[i] = sum_j N[i - Mask_Width/2 + j] * M[j]` over the `j` whose input lies in `n`.
pub fn convolution_1d(n: &[f32], m: &[f32]) -> Result<Vec<f32>> {
    let half = (m.len() / 2) as isize;
    try_collect((0..n.len()).into_par_iter().map(|i| {
        m.iter().enumerate().fold(0.0f32, |p, (j, &mj)| {
            let at = i as isize - half + j as isize;
            if (0..n.len() as isize).contains(&at) {
                n[at as usize].mul_add(mj, p)
            } else {
                p
            }
        })
    }))
}

/// The `w x h` byte image convolved with the `mask_width^2` mask (row-major): per pixel,
/// `floor(sum / weight)` over the in-image taps, 0 where their weights sum to 0.
/// Rows are counted on a progress line (a 9 x 9 mask over a large image takes seconds).
pub fn convolution_2d(input: &[u8], w: usize, h: usize, mask: &[u8], mask_width: usize) -> Result<Vec<u8>> {
    let half = (mask_width / 2) as isize;
    let mut out = try_vec(input.len(), 0u8)?;
    let bar = crate::progress::bar("CPU reference 2-D convolution, rows", h as u64);
    out.par_chunks_mut(w.max(1)).enumerate().for_each(|(row, out_row)| {
        for (col, out) in out_row.iter_mut().enumerate() {
            let (mut sum, mut weight) = (0u32, 0u32);
            for i in 0..mask_width {
                for j in 0..mask_width {
                    let (y, x) = (row as isize - half + i as isize, col as isize - half + j as isize);
                    if (0..h as isize).contains(&y) && (0..w as isize).contains(&x) {
                        let m = u32::from(mask[i * mask_width + j]);
                        sum += u32::from(input[y as usize * w + x as usize]) * m;
                        weight += m;
                    }
                }
            }
            *out = sum.checked_div(weight).map_or(0, |q| q as u8);
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    Ok(out)
}
