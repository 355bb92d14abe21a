//! The CPU reference of ch6-deriv (book §6.1, Appendix D.5 `derivativeTest`; the stretched grid
//! of §6.1.4): the problem's extents and directions, the test function and its analytic
//! derivative, the stencil's coefficients on the uniform and the stretched grid, the 9-point
//! derivative with the book's periodic wrap (rayon), and the book's RMS and MAX errors.
//!
//! The derivative rounds exactly as the kernels do (`a d1`, then three fused multiply-adds, in
//! the book's order), so it equals their output bit for bit.
use crate::reference::{HostFloat, try_collect};
use ferrocuda::footprint::try_vec;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// Points the stencil reaches on each side.
pub const HALO: usize = 4;
/// The stencil's coefficients times the grid spacing: the book's `4./5.`, `-1./5.`, `4./105.`,
/// `-1./280.`.
pub const STENCIL: [f64; 4] = [4.0 / 5.0, -1.0 / 5.0, 4.0 / 105.0, -1.0 / 280.0];
/// The stretching parameter of §6.1.4, whose value the book does not give: `dx = C (1 - alpha
/// sin^2(2 pi s)) ds` clusters points near s = 1/4 and 3/4, the largest spacing `1 / (1 -
/// alpha)` = 2 times the smallest. Large enough that the grid is far from uniform, small enough
/// that the 8th-order truncation error at the book's 64 points (8.2e-7 in f64) stays below f32
/// round-off.
pub const ALPHA: f64 = 0.5;
/// The test function's wave numbers, the book's `fx = fy = fz = 1`.
pub const WAVE_NUMBER: f64 = 1.0;

/// The direction of a derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    X,
    Y,
    Z,
}

impl Direction {
    pub const ALL: [Direction; 3] = [Direction::X, Direction::Y, Direction::Z];

    /// 0, 1, 2.
    pub fn index(self) -> usize {
        self as usize
    }

    /// `x`, `y`, `z`.
    pub fn name(self) -> &'static str {
        ["x", "y", "z"][self.index()]
    }
}

/// The grid the points lie on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grid {
    /// `x(i) = i / (m - 1)`: the book's §6.1.1-6.1.3.
    Uniform,
    /// `x(s_i)` with `s_i = i / (m - 1)` and the mapping of §6.1.4, [`ALPHA`].
    Stretched,
}

/// The extents of `f(mx, my, mz)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Extents {
    pub mx: usize,
    pub my: usize,
    pub mz: usize,
}

impl Extents {
    /// A cube of `m` points per side.
    pub const fn cube(m: usize) -> Self {
        Self { mx: m, my: m, mz: m }
    }

    /// `mx * my * mz`; an error when it overflows.
    pub fn points(self) -> Result<usize> {
        self.mx
            .checked_mul(self.my)
            .and_then(|p| p.checked_mul(self.mz))
            .ok_or_else(|| Error::InvalidArgument(format!("{self} points overflow the address space")))
    }

    /// The extent along `direction`.
    pub fn along(self, direction: Direction) -> usize {
        [self.mx, self.my, self.mz][direction.index()]
    }

    /// The stride between neighbours along `direction`.
    pub fn stride(self, direction: Direction) -> usize {
        [1, self.mx, self.mx * self.my][direction.index()]
    }
}

impl std::fmt::Display for Extents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.mx, self.my, self.mz)
    }
}

/// `f32` or `f64` on the host: what the reference computes with.
pub trait DerivFloat: HostFloat {}

impl<T: HostFloat> DerivFloat for T {}

/// `s_n = n / (m - 1)`, the computational coordinate of point `n` of a line of `m` points.
fn s(n: usize, m: usize) -> f64 {
    n as f64 / (m - 1) as f64
}

/// The stretched grid's `x(s) = 2/(2 - alpha) [s - alpha (s/2 - sin(4 pi s)/(8 pi))]` (§6.1.4),
/// which maps [0, 1] onto [0, 1] with `x(s + 1) = x(s) + 1`.
pub fn stretched_x(s: f64) -> f64 {
    let pi = std::f64::consts::PI;
    2.0 / (2.0 - ALPHA) * (s - ALPHA * (s / 2.0 - (4.0 * pi * s).sin() / (8.0 * pi)))
}

/// `ds/dx = (1 - alpha/2) / (1 - alpha sin^2(2 pi s))`, the book's `scale`.
pub fn stretched_ds_dx(s: f64) -> f64 {
    (1.0 - ALPHA / 2.0) / (1.0 - ALPHA * (2.0 * std::f64::consts::PI * s).sin().powi(2))
}

/// The stencil's four coefficient arrays of a line of `m` points, `[a, b, c, d]`, each of `m`
/// values: `STENCIL[k] * dsinv` (`dsinv = m - 1`), times `ds/dx` at each point on the stretched
/// grid. Computed in f64, rounded once to `T`.
pub fn coefficients<T: DerivFloat>(grid: Grid, m: usize) -> [Vec<T>; 4] {
    let dsinv = (m - 1) as f64;
    std::array::from_fn(|k| {
        (0..m)
            .map(|n| {
                let scale = match grid {
                    Grid::Uniform => 1.0,
                    Grid::Stretched => stretched_ds_dx(s(n, m)),
                };
                T::from_f64(STENCIL[k] * dsinv * scale)
            })
            .collect()
    })
}

/// The test function along a line of `m` points, and its exact derivative (the book's `f` and
/// `sol`, fx = 1). Uniform grid: as the book computes them, in `T`: `f = cos(twopi (i-1.) /
/// (mx-1))`, `sol = -twopi sin(..)`. Stretched grid: `f = cos(2 pi x(s))`, `sol = -2 pi sin(2 pi
/// x(s))` = (df/ds)(ds/dx), computed in f64 (`f` then rounded to `T`).
pub fn line_function<T: DerivFloat>(grid: Grid, m: usize) -> (Vec<T>, Vec<f64>) {
    let twopi = 2.0 * std::f64::consts::PI;
    (0..m)
        .map(|n| match grid {
            Grid::Uniform => {
                let (k, twopi_t) = (T::from_f64(WAVE_NUMBER), T::from_f64(twopi));
                let arg = k * twopi_t * T::from_f64(n as f64) / T::from_f64((m - 1) as f64);
                let sol = T::from_f64(-WAVE_NUMBER) * twopi_t * arg.sin();
                (arg.cos(), sol.into())
            }
            Grid::Stretched => {
                let x = stretched_x(s(n, m));
                (
                    T::from_f64((WAVE_NUMBER * twopi * x).cos()),
                    -WAVE_NUMBER * twopi * (WAVE_NUMBER * twopi * x).sin(),
                )
            }
        })
        .unzip()
}

/// `f(mx, my, mz)` varying along `direction` only, as the book fills it before each derivative,
/// and the exact derivative of each point.
pub fn field<T: DerivFloat>(grid: Grid, extents: Extents, direction: Direction) -> Result<(Vec<T>, Vec<f64>)> {
    let n = extents.points()?;
    let (m, stride) = (extents.along(direction), extents.stride(direction));
    let (line, exact) = line_function::<T>(grid, m);
    let along = |p: usize| (p / stride) % m;
    let f = try_collect((0..n).into_par_iter().map(|p| line[along(p)]))?;
    Ok((f, try_collect((0..n).into_par_iter().map(|p| exact[along(p)]))?))
}

/// Point `n + o - HALO` of a line of `m` points (`o` in 0..=8), with the book's periodic wrap:
/// the period is `m - 1` (the first and last points are one point).
pub fn wrap(n: usize, o: usize, m: usize) -> usize {
    let p = n + o;
    if p < HALO {
        p + m - 1 - HALO
    } else if p - HALO >= m {
        p - HALO - (m - 1)
    } else {
        p - HALO
    }
}

/// The 9-point derivative of `f` along `direction` with the per-point `coeffs` (see
/// [`coefficients`]), rounded as the kernels round; an error when the sizes do not fit.
pub fn derivative<T: DerivFloat>(
    f: &[T],
    extents: Extents,
    direction: Direction,
    coeffs: &[Vec<T>; 4],
) -> Result<Vec<T>> {
    let n = extents.points()?;
    let (m, stride) = (extents.along(direction), extents.stride(direction));
    if f.len() != n || coeffs.iter().any(|c| c.len() != m) || m <= HALO {
        return Err(Error::InvalidArgument(format!(
            "the {} derivative of {extents} needs {n} values, {m} > {HALO} points per line and {m} coefficients each",
            direction.name()
        )));
    }
    let mut df = try_vec(n, T::default())?;
    let plane = extents.mx * extents.my;
    df.par_chunks_mut(plane).enumerate().for_each(|(k, out)| {
        for (q, slot) in out.iter_mut().enumerate() {
            let p = k * plane + q;
            let line_n = (p / stride) % m;
            let base = p - line_n * stride;
            let at = |o: usize| f[base + wrap(line_n, o, m) * stride];
            let d = |o: usize| at(HALO + o) - at(HALO - o);
            let c = |k: usize| coeffs[k][line_n];
            let ab = c(1).mul_add(d(2), c(0) * d(1));
            *slot = c(3).mul_add(d(4), c(2).mul_add(d(3), ab));
        }
    });
    Ok(df)
}

/// The book's `RMS error = sqrt(sum((sol-df)**2)/(mx*my*mz))` and `MAX error = maxval(abs(sol -
/// df))`, summed in f64.
pub fn errors<T: Copy + Into<f64> + Send + Sync>(df: &[T], sol: &[f64]) -> (f64, f64) {
    let (sum, max) = df
        .par_iter()
        .zip(sol)
        .map(|(&d, &s)| {
            let e = s - d.into();
            // A NaN must not vanish in the maximum.
            (e * e, if e.is_nan() { f64::INFINITY } else { e.abs() })
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    ((sum / df.len().max(1) as f64).sqrt(), max)
}
