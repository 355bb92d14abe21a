//! The one-GPU solver: upload, iterate (a fixed count, the thesis's mode, or until the residual
//! falls below a tolerance), download.
use super::domain::check_omega;
use super::state::{DeviceGrid, SorReal, Variant};
use crate::gpu::{Error, Gpu, Result};
use std::fmt;
use std::str::FromStr;

/// The most iterations `tol=X` runs: a tolerance below the precision's round-off is never met.
pub const MAX_TOLERANCE_ITERATIONS: usize = 100_000;

/// When the solver stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// After this many red-black iterations (the thesis's mode; it used 100).
    Iterations(usize),
    /// When the largest residual `|(W + E + N + S) / 4 - u|` is at most `tolerance`, checked
    /// every `check_every` iterations, or after `max_iterations`.
    Tolerance {
        tolerance: f64,
        max_iterations: usize,
        check_every: usize,
    },
}

impl Stop {
    /// A tolerance stop checked every 50 iterations, at most `max_iterations`.
    pub fn tolerance(tolerance: f64, max_iterations: usize) -> Result<Self> {
        if tolerance.is_nan() || tolerance <= 0.0 {
            return Err(Error::InvalidArgument(format!(
                "the tolerance must be a positive number, not {tolerance}"
            )));
        }
        Ok(Stop::Tolerance {
            tolerance,
            max_iterations,
            check_every: 50,
        })
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Iterations(n) => write!(f, "{n} iterations"),
            Stop::Tolerance {
                tolerance,
                max_iterations,
                ..
            } => {
                write!(f, "residual <= {tolerance:e} (at most {max_iterations} iterations)")
            }
        }
    }
}

impl FromStr for Stop {
    type Err = Error;
    /// `100` (iterations) or `tol=1e-6`.
    fn from_str(s: &str) -> Result<Self> {
        match s.strip_prefix("tol=") {
            Some(t) => Self::tolerance(
                t.parse()
                    .map_err(|_| Error::InvalidArgument(format!("`{t}` is not a tolerance")))?,
                MAX_TOLERANCE_ITERATIONS,
            ),
            None => s
                .parse()
                .map(Stop::Iterations)
                .map_err(|_| Error::InvalidArgument(format!("`{s}` is neither an iteration count nor tol=<x>"))),
        }
    }
}

/// What a solve produced.
#[derive(Clone, Debug)]
pub struct Solution<T> {
    /// The final grid, natural layout.
    pub grid: Vec<T>,
    /// Red-black iterations run.
    pub iterations: usize,
    /// The last residual measured (tolerance mode only).
    pub residual: Option<f64>,
    /// Milliseconds of the iteration loop, CUDA events on the GPU's stream (host clock on the
    /// simulator); with a tolerance it includes the residual checks.
    pub elapsed_ms: f64,
}

/// Solves on `gpu` from the natural `rows x cols` grid `initial` with the kernels of `variant`
/// and `omega` converted to `T`. Refuses omega outside (0, 2), a grid smaller than 3 x 3 and
/// one of other than `rows * cols` points.
pub fn solve<T: SorReal>(
    gpu: &Gpu,
    variant: Variant,
    initial: &[T],
    rows: usize,
    cols: usize,
    omega: f64,
    stop: Stop,
) -> Result<Solution<T>> {
    check_omega(omega)?;
    if let Stop::Tolerance { check_every: 0, .. } = stop {
        return Err(Error::InvalidArgument(
            "a tolerance stop must check the residual every 1 or more iterations, not every 0".into(),
        ));
    }
    let omega = T::from_f64(omega);
    let mut grid = DeviceGrid::upload(gpu, variant, initial, rows, cols, 0)?;
    let region = grid.interior();
    let start = gpu.record_event(None)?;
    let (iterations, residual) = match stop {
        Stop::Iterations(n) => {
            grid.iterations(gpu, None, region, omega, n)?;
            (n, None)
        }
        Stop::Tolerance {
            tolerance,
            max_iterations,
            check_every,
        } => {
            let mut done = 0;
            loop {
                let batch = check_every.min(max_iterations - done);
                grid.iterations(gpu, None, region, omega, batch)?;
                done += batch;
                let residual = grid.max_residual(gpu, region)?;
                if residual <= tolerance || done >= max_iterations {
                    break (done, Some(residual));
                }
            }
        }
    };
    let end = gpu.record_event(None)?;
    let elapsed_ms = start.elapsed_ms(&end)?;
    Ok(Solution {
        grid: grid.download(gpu)?,
        iterations,
        residual,
        elapsed_ms,
    })
}

/// [`solve`] for a fixed count of `iterations`: the thesis's mode.
pub fn solve_iterations<T: SorReal>(
    gpu: &Gpu,
    variant: Variant,
    initial: &[T],
    rows: usize,
    cols: usize,
    omega: f64,
    iterations: usize,
) -> Result<Solution<T>> {
    solve(gpu, variant, initial, rows, cols, omega, Stop::Iterations(iterations))
}
