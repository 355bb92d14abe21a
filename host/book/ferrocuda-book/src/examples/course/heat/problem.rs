//! course-heat's problem (our own design): the grid and its time step, the edges, the initial
//! fields, the analytic Fourier mode with the discrete solution's exact error against it, and
//! the statistics of a field (largest |u|, total heat).
use book_kernels::course::heat::{DIRICHLET, INSULATED};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;
use std::f64::consts::PI;
use std::fmt;

/// The diffusivity: the unit square's x side is 1, time is in units of `1 / alpha`.
pub const ALPHA: f64 = 1.0;

/// The edges of the rectangle (`--edges`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// Fixed temperatures: the first and last row and column keep their initial values. Points
    /// sit on the grid's lines, `x_j = j h`, edges included (a vertex-centred grid).
    Dirichlet,
    /// Zero flux: a ghost cell beyond each edge mirrors the edge cell. Points sit at cell
    /// centres, `x_j = (j + 1/2) h`, the faces at `0` and `cols h` (a cell-centred grid).
    #[value(alias = "neumann")]
    Insulated,
}

impl Edges {
    /// The kernels' code for it.
    pub fn code(self) -> u32 {
        match self {
            Edges::Dirichlet => DIRICHLET,
            Edges::Insulated => INSULATED,
        }
    }
}

impl fmt::Display for Edges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edges::Dirichlet => "dirichlet",
            Edges::Insulated => "insulated",
        })
    }
}

/// A `rows x cols` grid of spacing `h` (the x side is 1) and its time step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    pub edges: Edges,
    /// Grid spacing in x and y.
    pub h: f64,
    /// `dt / (h^2 / (4 alpha))`, the fraction of the stability limit (0 < cfl <= 1).
    pub cfl: f64,
}

impl Grid {
    /// The grid, or one sentence saying why not: Dirichlet edges need 3 x 3 points (one to
    /// update), insulated ones 1 x 1; `cfl` lies in (0, 1].
    pub fn new(rows: usize, cols: usize, edges: Edges, cfl: f64) -> Result<Self> {
        let least = match edges {
            Edges::Dirichlet => 3,
            Edges::Insulated => 1,
        };
        if rows < least || cols < least {
            return Err(Error::InvalidArgument(format!(
                "a grid with {edges} edges needs at least {least} x {least} points, not {rows} x {cols}"
            )));
        }
        if u32::try_from(rows).is_err() || u32::try_from(cols).is_err() || rows.checked_mul(cols).is_none() {
            return Err(Error::InvalidArgument(format!(
                "a {rows} x {cols} grid is larger than the kernels index"
            )));
        }
        if cfl.is_nan() || cfl <= 0.0 || cfl > 1.0 {
            return Err(Error::InvalidArgument(format!(
                "--cfl {cfl} is outside (0, 1]: explicit FTCS for the 2-D heat equation is stable only for dt <= h^2 / (4 alpha), i.e. cfl <= 1"
            )));
        }
        let h = match edges {
            Edges::Dirichlet => 1.0 / (cols - 1) as f64,
            Edges::Insulated => 1.0 / cols as f64,
        };
        Ok(Self {
            rows,
            cols,
            edges,
            h,
            cfl,
        })
    }

    /// Points of the grid.
    pub fn points(&self) -> usize {
        self.rows * self.cols
    }

    /// `r = alpha dt / h^2 = cfl / 4`, rounded to `T` as the kernels use it.
    pub fn r<T: Real>(&self) -> T {
        T::from_f64(self.cfl / 4.0)
    }

    /// The time step the kernels take in `T`: `r h^2 / alpha` with `r` as rounded to `T`.
    pub fn dt<T: Real>(&self) -> f64 {
        self.r::<T>().to_f64() * self.h * self.h / ALPHA
    }

    /// Bytes a time step moves at least: one read and one write of every point.
    pub fn bytes_per_step(&self, element_bytes: usize) -> usize {
        2 * self.points() * element_bytes
    }

    /// x of column `j` (y of row `j`): on the grid's lines for Dirichlet edges, at cell centres
    /// for insulated ones.
    pub fn coordinate(&self, j: usize) -> f64 {
        match self.edges {
            Edges::Dirichlet => j as f64 * self.h,
            Edges::Insulated => (j as f64 + 0.5) * self.h,
        }
    }

    /// The rectangle's sides `(x, y)`.
    pub fn lengths(&self) -> (f64, f64) {
        match self.edges {
            Edges::Dirichlet => (1.0, (self.rows - 1) as f64 * self.h),
            Edges::Insulated => (1.0, self.rows as f64 * self.h),
        }
    }
}

/// The initial temperature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A Fourier mode with `k` half-waves along x and `l` along y: `sin sin` with Dirichlet
    /// edges (held at 0), `cos cos` with insulated ones. It decays as `exp(-lambda t)`.
    Mode { k: u32, l: u32 },
    /// A disc of temperature 1 at the centre (radius a fifth of the shorter side) in a plate at
    /// 0; with Dirichlet edges the first row is a wall held at 1, the other edges at 0.
    Hotspot,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Mode { k, l } => write!(f, "Fourier mode ({k}, {l})"),
            Problem::Hotspot => f.write_str("hot spot"),
        }
    }
}

/// Parses `--mode K,L`.
pub fn parse_mode(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("--mode takes K,L (two whole numbers), not `{text}`");
    let (k, l) = text.split_once(',').ok_or_else(bad)?;
    Ok((
        k.trim().parse().map_err(|_| bad())?,
        l.trim().parse().map_err(|_| bad())?,
    ))
}

impl Problem {
    /// Fails unless the mode is resolved on `grid` and not identically zero: with Dirichlet
    /// edges `1 <= k < cols - 1` and `1 <= l < rows - 1`, with insulated ones `k < cols` and
    /// `l < rows`.
    pub fn check(&self, grid: &Grid) -> Result<()> {
        let Problem::Mode { k, l } = *self else {
            return Ok(());
        };
        let (k, l) = (k as usize, l as usize);
        let fits = match grid.edges {
            Edges::Dirichlet => k >= 1 && l >= 1 && k + 1 < grid.cols && l + 1 < grid.rows,
            Edges::Insulated => k < grid.cols && l < grid.rows,
        };
        if fits {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "--mode {k},{l} is not resolved on a {} x {} grid with {} edges (Dirichlet: 1 <= K < cols - 1, 1 <= L < rows - 1; insulated: K < cols, L < rows)",
                grid.rows, grid.cols, grid.edges
            )))
        }
    }

    /// The mode's shape at row `i`, column `j`, without its decay (0 for the hot spot).
    fn mode_shape(&self, grid: &Grid, i: usize, j: usize) -> f64 {
        let Problem::Mode { k, l } = *self else {
            return 0.0;
        };
        let (lx, ly) = grid.lengths();
        let (ax, ay) = (
            f64::from(k) * PI * grid.coordinate(j) / lx,
            f64::from(l) * PI * grid.coordinate(i) / ly,
        );
        match grid.edges {
            Edges::Dirichlet if i == 0 || j == 0 || i + 1 == grid.rows || j + 1 == grid.cols => 0.0,
            Edges::Dirichlet => ax.sin() * ay.sin(),
            Edges::Insulated => ax.cos() * ay.cos(),
        }
    }

    /// The initial field, row-major.
    pub fn initial<T: Real + Send>(&self, grid: &Grid) -> Result<Vec<T>> {
        let mut field = ferrocuda::footprint::try_vec(grid.points(), T::default())?;
        let (lx, ly) = grid.lengths();
        let radius = 0.2 * lx.min(ly);
        field.par_chunks_mut(grid.cols).enumerate().for_each(|(i, row)| {
            for (j, u) in row.iter_mut().enumerate() {
                let value = match self {
                    Problem::Mode { .. } => self.mode_shape(grid, i, j),
                    Problem::Hotspot if grid.edges == Edges::Dirichlet && i == 0 => 1.0,
                    Problem::Hotspot => {
                        let (dx, dy) = (grid.coordinate(j) - lx / 2.0, grid.coordinate(i) - ly / 2.0);
                        if dx.hypot(dy) <= radius { 1.0 } else { 0.0 }
                    }
                };
                *u = T::from_f64(value);
            }
        });
        Ok(field)
    }

    /// The mode's decay rate `lambda = alpha pi^2 (k^2 / Lx^2 + l^2 / Ly^2)`.
    fn decay_rate(&self, grid: &Grid) -> Option<f64> {
        let Problem::Mode { k, l } = *self else {
            return None;
        };
        let (lx, ly) = grid.lengths();
        Some(ALPHA * PI * PI * ((f64::from(k) / lx).powi(2) + (f64::from(l) / ly).powi(2)))
    }

    /// The factor FTCS multiplies the mode by each step: the mode (sines, or the cosines of the
    /// mirrored edges, DCT-II) is an eigenvector of the 5-point Laplacian on the grid, so
    /// `G = 1 - 4 r (sin^2(k pi h / 2 Lx) + sin^2(l pi h / 2 Ly))` exactly.
    fn amplification<T: Real>(&self, grid: &Grid) -> Option<f64> {
        let Problem::Mode { k, l } = *self else {
            return None;
        };
        let (lx, ly) = grid.lengths();
        let half_angle = |m: u32, side: f64| (f64::from(m) * PI * grid.h / (2.0 * side)).sin().powi(2);
        Some(1.0 - 4.0 * grid.r::<T>().to_f64() * (half_angle(k, lx) + half_angle(l, ly)))
    }

    /// The largest |mode shape| over the grid's points.
    fn shape_max(&self, grid: &Grid) -> f64 {
        (0..grid.rows)
            .into_par_iter()
            .map(|i| {
                (0..grid.cols)
                    .map(|j| self.mode_shape(grid, i, j).abs())
                    .fold(0.0, f64::max)
            })
            .reduce(|| 0.0, f64::max)
    }

    /// `max |u - exact|` over the grid at time `t`, or `None` where no exact solution is known
    /// (the hot spot).
    pub fn max_error<T: Real + Into<f64> + Sync>(&self, grid: &Grid, field: &[T], t: f64) -> Option<f64> {
        let decay = (-self.decay_rate(grid)? * t).exp();
        Some(
            field
                .par_chunks(grid.cols)
                .enumerate()
                .map(|(i, row)| {
                    row.iter()
                        .enumerate()
                        .map(|(j, &u)| (u.into() - self.mode_shape(grid, i, j) * decay).abs())
                        .fold(0.0, f64::max)
                })
                .reduce(|| 0.0, f64::max),
        )
    }

    /// The error the scheme itself makes after `steps` steps of `T`'s time step, rounding
    /// aside: the discrete solution is `G^steps` times the mode, so its largest error is
    /// `|G^steps - exp(-lambda t)|` times the mode's largest value. `None` for the hot spot.
    pub fn discretisation_error<T: Real>(&self, grid: &Grid, steps: usize) -> Option<f64> {
        let g = self.amplification::<T>(grid)?;
        let t = steps as f64 * grid.dt::<T>();
        let discrete = g.powf(steps as f64);
        Some((discrete - (-self.decay_rate(grid)? * t).exp()).abs() * self.shape_max(grid))
    }
}

/// What a snapshot's table row shows of a field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldStats {
    /// `max |u|`.
    pub max_abs: f64,
    /// The total heat `sum u h^2` (the integral of u).
    pub heat: f64,
    /// `sum |u| h^2`, which FTCS never increases (all weights are non-negative for cfl <= 1):
    /// the scale of the rounding in the total heat.
    pub abs_heat: f64,
    /// A hash of the values' bits, to compare the fields of two kernels without keeping them.
    pub bits_hash: u64,
}

impl FieldStats {
    /// The statistics of `field` on `grid`, summed row by row in f64 and then in row order, so
    /// the result does not depend on the thread count.
    pub fn of<T: Into<f64> + Copy + Sync>(grid: &Grid, field: &[T]) -> Self {
        let rows: Vec<(f64, f64, f64, u64)> = field
            .par_chunks(grid.cols)
            .map(|row| {
                let mut hash = FNV_OFFSET;
                let (mut max_abs, mut heat, mut abs_heat) = (0.0f64, 0.0, 0.0);
                for &u in row {
                    let u: f64 = u.into();
                    max_abs = max_abs.max(u.abs());
                    heat += u;
                    abs_heat += u.abs();
                    hash = fnv1a(hash, u.to_bits());
                }
                (max_abs, heat, abs_heat, hash)
            })
            .collect();
        let area = grid.h * grid.h;
        let mut stats = FieldStats {
            max_abs: 0.0,
            heat: 0.0,
            abs_heat: 0.0,
            bits_hash: FNV_OFFSET,
        };
        for (max_abs, heat, abs_heat, hash) in rows {
            stats.max_abs = stats.max_abs.max(max_abs);
            stats.heat += heat * area;
            stats.abs_heat += abs_heat * area;
            stats.bits_hash = fnv1a(stats.bits_hash, hash);
        }
        stats
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over the 8 bytes of `word` (an f32 widens to f64 exactly, so its bits are kept).
fn fnv1a(mut hash: u64, word: u64) -> u64 {
    for byte in word.to_le_bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}
