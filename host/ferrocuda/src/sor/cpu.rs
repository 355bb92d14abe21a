//! Red-black SOR on the CPU with rayon (thesis eq. 4.18), the reference of every GPU kernel and
//! of the multi-GPU drivers: the same colouring, region, update order and roundings as
//! `gpu_kernels::sor`, so results agree bit for bit in f32 and f64.
//!
//! Layout: natural, row-major, `pitch` elements a row. Within a colour the updates are
//! independent (each reads only the other colour), so each half-sweep computes the new values
//! of all rows in parallel from the unchanged array, then stores them.
//!
//! Bad input (a grid that is not `rows x cols` or not whole rows of `pitch`, a region that
//! reaches the edge, omega outside (0, 2)) is refused with [`Error::InvalidArgument`], never a
//! panic.
use super::domain::{check_extents, check_grid_len, check_omega};
use crate::gpu::{Error, Result};
use ferrocuda_device::real::Real;
use gpu_kernels::sor::{BLACK, RED, Region, relax, residual_at};
use rayon::prelude::*;

/// One colour half-sweep of `region` of the `rows x pitch` array `grid` (`rows` is
/// `grid.len() / pitch`), whose local `(0, 0)` has absolute parity `parity`. Refuses a grid that
/// is not whole rows, a region whose points have a neighbour outside the array, a colour other
/// than `RED` or `BLACK`, and omega outside (0, 2).
pub fn half_sweep<T: Real + Send + Sync>(
    grid: &mut [T],
    pitch: usize,
    region: Region,
    parity: u32,
    color: u32,
    omega: T,
) -> Result<()> {
    check_omega(omega.to_f64())?;
    if pitch == 0 || !grid.len().is_multiple_of(pitch) {
        return Err(Error::InvalidArgument(format!(
            "a grid of {} points is not whole rows of {pitch}",
            grid.len()
        )));
    }
    let rows = grid.len() / pitch;
    if !region.fits(rows, pitch) {
        return Err(Error::InvalidArgument(format!(
            "the region {region:?} reaches the edge of a {rows} x {pitch} grid"
        )));
    }
    if color != RED && color != BLACK {
        return Err(Error::InvalidArgument(format!(
            "the colour is RED ({RED}) or BLACK ({BLACK}), not {color}"
        )));
    }
    if region.is_empty() {
        return Ok(());
    }
    let (r0, r1) = (region.row_begin as usize, region.row_end as usize);
    let (c0, c1) = (region.col_begin as usize, region.col_end as usize);
    let first_col = |r: usize| {
        let q = (color as usize + parity as usize + r) & 1;
        c0 + ((c0 & 1) != q) as usize
    };
    let read: &[T] = grid;
    // The new values of each row, allocated fallibly: a grid too large for the host is an error.
    let updated: Vec<Vec<T>> = (r0..r1)
        .into_par_iter()
        .map(|r| {
            let at = |r: usize, j: usize| read[r * pitch + j];
            let columns = (first_col(r)..c1).step_by(2);
            let mut values = crate::footprint::try_with_capacity(columns.len())?;
            values.extend(
                columns.map(|j| relax(at(r, j), at(r, j - 1), at(r, j + 1), at(r - 1, j), at(r + 1, j), omega)),
            );
            Ok(values)
        })
        .collect::<Result<_>>()?;
    for (r, values) in (r0..r1).zip(updated) {
        for (j, v) in (first_col(r)..c1).step_by(2).zip(values) {
            grid[r * pitch + j] = v;
        }
    }
    Ok(())
}

/// `iterations` red-black iterations (red half-sweep, then black) over the interior of the
/// `rows x cols` array `grid` (pitch `cols`, absolute parity 0) with `omega` converted to `T`:
/// the whole solver (nothing to do without an interior). Refuses a grid of other than
/// `rows * cols` points and omega outside (0, 2).
pub fn solve<T: Real + Send + Sync>(
    grid: &mut [T],
    rows: usize,
    cols: usize,
    omega: f64,
    iterations: usize,
) -> Result<()> {
    check_grid_len(grid.len(), rows, cols)?;
    check_omega(omega)?;
    if rows < 3 || cols < 3 {
        return Ok(());
    }
    check_extents(rows, cols)?;
    let (interior, omega) = (interior(rows, cols), T::from_f64(omega));
    for _ in 0..iterations {
        half_sweep(grid, cols, interior, 0, RED, omega)?;
        half_sweep(grid, cols, interior, 0, BLACK, omega)?;
    }
    Ok(())
}

/// Every point but the boundary rows and columns of a `rows x cols` array.
pub fn interior(rows: usize, cols: usize) -> Region {
    Region {
        row_begin: 1,
        row_end: rows.saturating_sub(1).max(1) as u32,
        col_begin: 1,
        col_end: cols.saturating_sub(1).max(1) as u32,
    }
}

/// The largest `|(W + E + N + S) / 4 - u|` over the interior of the `rows x cols` array `grid`,
/// computed as the GPU's residual kernels compute it. Refuses a grid of other than `rows * cols`
/// points.
pub fn max_residual<T: Real + Send + Sync>(grid: &[T], rows: usize, cols: usize) -> Result<f64> {
    check_grid_len(grid.len(), rows, cols)?;
    Ok((1..rows.saturating_sub(1))
        .into_par_iter()
        .map(|r| {
            (1..cols.saturating_sub(1))
                .map(|j| residual_at(|r, j| grid[r * cols + j], r, j).to_f64())
                .fold(0.0, f64::max)
        })
        .reduce(|| 0.0, f64::max))
}
