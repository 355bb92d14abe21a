//! The CPU transpose (rayon), the reference of every transpose kernel (book §3.4: `gold =
//! transpose(in_h)`).
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// Output rows each rayon task fills: 32 rows of `ny`, so each input row is read in 32-element
/// runs (one or two cache lines) rather than one element at a time.
const ROWS_PER_TASK: usize = 32;

/// `odata[x * ny + y] = idata[y * nx + x]`: `idata` is `ny` rows of `nx`, `odata` `nx` rows of
/// `ny`. Refuses arrays of other than `nx * ny` elements.
pub fn transpose<T: Copy + Send + Sync>(odata: &mut [T], idata: &[T], nx: usize, ny: usize) -> Result<()> {
    let len = nx.checked_mul(ny);
    if len != Some(idata.len()) || len != Some(odata.len()) {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} transpose needs two arrays of nx * ny elements, not {} and {}",
            idata.len(),
            odata.len()
        )));
    }
    if nx * ny == 0 {
        return Ok(());
    }
    odata
        .par_chunks_mut(ROWS_PER_TASK * ny)
        .enumerate()
        .for_each(|(task, rows)| {
            let x0 = task * ROWS_PER_TASK;
            let count = rows.len() / ny;
            for y in 0..ny {
                for (dx, &value) in idata[y * nx + x0..y * nx + x0 + count].iter().enumerate() {
                    rows[dx * ny + y] = value;
                }
            }
        });
    Ok(())
}
