//! The row and column sums of a row-major matrix on the CPU, each in the kernels' order (left to
//! right, top to bottom, in f32), so they agree bit for bit.
use rayon::prelude::*;

/// Columns a CPU task sums at once (rows of it stream through the cache).
const COLUMN_BLOCK: usize = 1024;

/// `sums[r] = a[r][0] + a[r][1] + ...` for a matrix of `cols` columns.
pub fn row_sums(a: &[f32], cols: usize) -> Vec<f32> {
    a.par_chunks(cols.max(1))
        .map(|row| row.iter().fold(0.0f32, |sum, &x| sum + x))
        .collect()
}

/// `sums[c] = a[0][c] + a[1][c] + ...` for a matrix of `cols` columns.
pub fn col_sums(a: &[f32], cols: usize) -> Vec<f32> {
    let mut sums = vec![0.0f32; cols];
    sums.par_chunks_mut(COLUMN_BLOCK).enumerate().for_each(|(block, sums)| {
        let first = block * COLUMN_BLOCK;
        for row in a.chunks(cols) {
            for (sum, &x) in sums.iter_mut().zip(&row[first..]) {
                *sum += x;
            }
        }
    });
    sums
}
