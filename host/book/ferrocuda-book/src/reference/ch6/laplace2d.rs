//! The book's Laplace solver on the CPU (§6.2; Appendix D.5, the host version of
//! `laplaceRoutines`): the initial field, Jacobi sweeps with rayon, the book's `do while` loop,
//! and the analytic solution the field tends to.
//!
//! A sweep computes each point with the kernels' own [`jacobi_point`], so the CPU's residuals
//! and field equal every kernel's bit for bit.
use crate::reference::{HostFloat, try_copy};
use book_kernels::ch6::laplace2d::{LaplaceReal, jacobi_point, neighbourhood};
use ferrocuda::footprint::try_vec;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// The book's `tol = 1.0e-5_fp_kind`.
pub const TOLERANCE: f64 = 1.0e-5;
/// The book's `iterMax`.
pub const ITER_MAX: usize = 100;
/// The largest `iterMax` accepted: a million sweeps, a residual slot of 8 bytes each on the GPU.
pub const MAX_ITER_MAX: usize = 1_000_000;

/// `f32` or `f64` with the elementary functions of the book's `initialize`, in the working
/// precision (`libm`, the same on every machine).
pub trait Elementary: LaplaceReal + HostFloat {}

impl<T: LaplaceReal + HostFloat> Elementary for T {}

/// The points of an `nx x ny` mesh, after checking it: at least 3 x 3 (one interior point),
/// extents that the kernels' `u32` arguments hold, and a point count that fits memory sizes.
pub fn check_mesh(nx: usize, ny: usize) -> Result<usize> {
    if nx < 3 || ny < 3 {
        return Err(Error::InvalidArgument(format!(
            "the Laplace mesh needs at least 3 x 3 points (one interior point), not {nx} x {ny}"
        )));
    }
    nx.checked_mul(ny)
        .filter(|n| n.checked_mul(size_of::<f64>()).is_some() && nx <= u32::MAX as usize && ny <= u32::MAX as usize)
        .ok_or_else(|| Error::InvalidArgument(format!("a {nx} x {ny} mesh is too large to address")))
}

/// When the book's loop `do while (maxResidual > tol .and. iter <= iterMax)` stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stop {
    /// `tol`, converted to the working precision where it is compared.
    pub tolerance: f64,
    /// `iterMax`: the loop makes `iterMax + 1` sweeps unless the residual falls to `tol` first.
    pub iter_max: usize,
}

impl Stop {
    /// The book's: `tol = 1.0e-5`, `iterMax = 100` (101 sweeps; the tolerance is not reached).
    pub const BOOK: Stop = Stop {
        tolerance: TOLERANCE,
        iter_max: ITER_MAX,
    };

    /// A stop after `iter_max + 1` sweeps or at `tolerance`; refuses a tolerance that is not a
    /// positive number and more than [`MAX_ITER_MAX`] iterations.
    pub fn new(tolerance: f64, iter_max: usize) -> Result<Self> {
        if tolerance.is_nan() || tolerance <= 0.0 {
            return Err(Error::InvalidArgument(format!(
                "the tolerance must be a positive number, not {tolerance}"
            )));
        }
        if iter_max > MAX_ITER_MAX {
            return Err(Error::InvalidArgument(format!(
                "--iterations takes at most {MAX_ITER_MAX}, not {iter_max}"
            )));
        }
        Ok(Self { tolerance, iter_max })
    }

    /// The book's `maxResidual = 2*tol` before the first sweep.
    pub fn initial_residual<T: Elementary>(&self) -> T {
        T::from_f64(self.tolerance) * T::from_f64(2.0)
    }

    /// The loop's condition: true while another sweep is due after `iter` sweeps whose last
    /// residual is `residual`.
    pub fn continues<T: Elementary>(&self, residual: T, iter: usize) -> bool {
        residual > T::from_f64(self.tolerance) && iter <= self.iter_max
    }

    /// Residual slots a run may fill: the most sweeps the loop makes.
    pub fn max_sweeps(&self) -> usize {
        self.iter_max + 1
    }
}

/// The book's `initialize`: `pi = 2 asin(1)`, `y0(i) = sin(pi (i-1) / (nx-1))`, `a(:,1) = y0`,
/// `a(:,ny) = y0 exp(-pi)`, 0 elsewhere, all in the working precision (row `j` of the result
/// is the book's column `j + 1`).
pub fn initial<T: Elementary>(nx: usize, ny: usize) -> Result<Vec<T>> {
    let n = check_mesh(nx, ny)?;
    let pi = T::from_f64(2.0) * T::from_f64(1.0).asin();
    let decay = (T::default() - pi).exp();
    let mut a = try_vec(n, T::default())?;
    for i in 0..nx {
        let y0 = (pi * T::from_f64(i as f64) / T::from_f64((nx - 1) as f64)).sin();
        a[i] = y0;
        a[(ny - 1) * nx + i] = y0 * decay;
    }
    Ok(a)
}

/// One Jacobi sweep: every interior point of `a_new` from `a` (boundary points untouched);
/// returns the residual `max |a_new - a|` over the interior. Rows in parallel.
pub fn sweep<T: Elementary>(a: &[T], a_new: &mut [T], nx: usize, ny: usize) -> T {
    let largest = a_new
        .par_chunks_mut(nx)
        .enumerate()
        .filter(|(j, _)| *j >= 1 && j + 1 < ny)
        .map(|(j, row)| {
            let mut largest = 0u64;
            for i in 1..nx - 1 {
                let value = jacobi_point(&neighbourhood(|dx, dy| a[(j + dy - 1) * nx + i + dx - 1]));
                largest = largest.max((value - a[j * nx + i]).abs_bits());
                row[i] = value;
            }
            largest
        })
        .max()
        .unwrap_or(0);
    T::from_abs_bits(largest)
}

/// What a run of the book's loop produced.
#[derive(Clone, Debug)]
pub struct Solution<T> {
    /// The residual of each sweep, in order (sweep `k` is element `k - 1`).
    pub residuals: Vec<T>,
    /// The field after the last sweep.
    pub field: Vec<T>,
}

/// The book's `laplaceSolution` on the CPU from the field `initial`: sweeps while `stop`
/// continues, `a = aNew` after each.
pub fn solve<T: Elementary>(initial: &[T], nx: usize, ny: usize, stop: Stop) -> Result<Solution<T>> {
    let n = check_mesh(nx, ny)?;
    if initial.len() != n {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} mesh has {n} points, not {}",
            initial.len()
        )));
    }
    let (mut a, mut a_new) = (try_copy(initial)?, try_copy(initial)?);
    let mut residual = stop.initial_residual::<T>();
    let mut residuals = Vec::new();
    let bar = crate::progress::bar("CPU reference sweeps", stop.max_sweeps() as u64);
    while stop.continues(residual, residuals.len()) {
        residual = sweep(&a, &mut a_new, nx, ny);
        residuals.push(residual);
        bar.inc(1);
        // `a = aNew`: the boundaries of both are the initial field's, so a swap is the copy.
        std::mem::swap(&mut a, &mut a_new);
    }
    bar.finish_and_clear();
    Ok(Solution { residuals, field: a })
}

/// The largest `|a - u|` over the mesh, `u = sin(pi x) exp(-pi y)` at `x = i / (nx - 1)`,
/// `y = j / (ny - 1)`: the harmonic function with the book's boundary values, to which the
/// iteration converges (up to the stencil's discretisation error).
pub fn max_error_vs_harmonic<T: Elementary>(field: &[T], nx: usize, ny: usize) -> f64 {
    let pi = std::f64::consts::PI;
    field
        .par_chunks(nx)
        .enumerate()
        .map(|(j, row)| {
            let decay = (-pi * j as f64 / (ny - 1) as f64).exp();
            row.iter()
                .enumerate()
                .map(|(i, &v)| (v.into() - (pi * i as f64 / (nx - 1) as f64).sin() * decay).abs())
                .fold(0.0, f64::max)
        })
        .reduce(|| 0.0, f64::max)
}
