//! The problems the solver runs, their grids, and the relaxation factor (thesis §4.3, Appendix
//! D.1).
use crate::gpu::{Error, Result};
use ferrocuda_device::real::Real;
use rayon::prelude::*;
use std::f64::consts::PI;
use std::fmt;
use std::str::FromStr;

/// The thesis's boundary value (`MAX_TEMP` of `grid_gen`).
pub const MAX_TEMP: f64 = 100.0;

/// The thesis's cap on the relaxation factor (`if(*omega > 1.9) *omega = 1.9;`).
pub const THESIS_OMEGA_CAP: f64 = 1.9;

/// What the grid holds at the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Problem {
    /// The thesis's `grid_gen`: every boundary point 100, the interior 0. The discrete solution
    /// is 100 everywhere.
    #[default]
    Thesis,
    /// A harmonic function on the unit square, `u = sin(pi x) sinh(pi y) / sinh(pi)`, on the
    /// boundary, the interior 0: the converged discrete solution differs from `u` by O(h^2).
    Harmonic,
}

impl FromStr for Problem {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "thesis" => Ok(Self::Thesis),
            "harmonic" => Ok(Self::Harmonic),
            other => Err(Error::InvalidArgument(format!(
                "the problem is thesis or harmonic, not `{other}`"
            ))),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Thesis => "thesis",
            Self::Harmonic => "harmonic",
        })
    }
}

impl Problem {
    /// The harmonic function at `(x, y)` of the unit square.
    pub fn harmonic(x: f64, y: f64) -> f64 {
        (PI * x).sin() * (PI * y).sinh() / PI.sinh()
    }

    /// The initial `rows x cols` grid (row-major; row `r` is `y = r h`, column `j` is `x = j h`).
    pub fn initial<T: Real + Send + Sync>(self, rows: usize, cols: usize) -> Result<Vec<T>> {
        check_extents(rows, cols)?;
        let boundary = |r: usize, j: usize| r == 0 || j == 0 || r == rows - 1 || j == cols - 1;
        let mut grid = vec![T::from_f64(0.0); rows * cols];
        grid.par_chunks_mut(cols).enumerate().for_each(|(r, row)| {
            for (j, v) in row.iter_mut().enumerate() {
                if boundary(r, j) {
                    *v = T::from_f64(self.exact(rows, cols, r, j));
                }
            }
        });
        Ok(grid)
    }

    /// The solution of the continuous problem at grid point `(r, j)`: 100 for the thesis's,
    /// the harmonic function for the other.
    pub fn exact(self, rows: usize, cols: usize, r: usize, j: usize) -> f64 {
        match self {
            Self::Thesis => MAX_TEMP,
            Self::Harmonic => Self::harmonic(j as f64 / (cols - 1) as f64, r as f64 / (rows - 1) as f64),
        }
    }

    /// The largest `|grid - exact|` over the grid.
    pub fn max_error<T: Real>(self, grid: &[T], rows: usize, cols: usize) -> f64 {
        grid.iter()
            .enumerate()
            .map(|(k, v)| (v.to_f64() - self.exact(rows, cols, k / cols, k % cols)).abs())
            .fold(0.0, f64::max)
    }
}

/// A grid needs an interior: at least 3 x 3 points; and each side must fit the kernels' 32-bit
/// indices.
pub fn check_extents(rows: usize, cols: usize) -> Result<()> {
    if rows < 3 || cols < 3 {
        return Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} grid has no interior: SOR needs at least 3 x 3 points"
        )));
    }
    if rows > u32::MAX as usize / 2 || cols > u32::MAX as usize / 2 {
        return Err(Error::InvalidArgument(format!("a {rows} x {cols} grid is too large")));
    }
    Ok(())
}

/// Refuses a relaxation factor outside the open interval (0, 2), where red-black SOR diverges
/// (or, at 0, never moves): NaN and the infinities included.
pub fn check_omega(omega: f64) -> Result<()> {
    if omega > 0.0 && omega < 2.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "omega must lie in (0, 2) for SOR to converge, not {omega}"
        )))
    }
}

/// Refuses a natural `rows x cols` grid that does not hold `rows * cols` points.
pub fn check_grid_len(len: usize, rows: usize, cols: usize) -> Result<()> {
    match rows.checked_mul(cols) {
        Some(points) if points == len => Ok(()),
        Some(points) => Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} grid needs {points} points, not {len}"
        ))),
        None => Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} grid has more points than memory can address"
        ))),
    }
}

/// The relaxation factor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Omega {
    /// The thesis's: the optimum for its column count, capped at 1.9 (so 1.9 whenever
    /// `cols >= 128`).
    #[default]
    Thesis,
    /// The optimum `2 / (1 + sin(pi / (n + 1)))`, `n` the column count (eq. 4.17).
    Optimum,
    /// Given.
    Value(f64),
}

impl FromStr for Omega {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "thesis" => Ok(Self::Thesis),
            "optimum" | "opt" => Ok(Self::Optimum),
            value => match value.parse::<f64>() {
                Ok(w) => check_omega(w).map(|()| Self::Value(w)),
                Err(_) => Err(Error::InvalidArgument(format!(
                    "omega is thesis, optimum or a number in (0, 2), not `{value}`"
                ))),
            },
        }
    }
}

impl Omega {
    /// The factor for a grid of `cols` columns.
    pub fn value(self, cols: usize) -> f64 {
        let optimum = 2.0 / (1.0 + (PI / (cols as f64 + 1.0)).sin());
        match self {
            Self::Thesis => optimum.min(THESIS_OMEGA_CAP),
            Self::Optimum => optimum,
            Self::Value(w) => w,
        }
    }
}
