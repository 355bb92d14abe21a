//! What the two SOR examples share (`thesis-sor`, `thesis-sor-multi`): the run's parameters
//! from the options (grid, iterations or tolerance, omega, kernels, problem), the CPU
//! reference's budget, and the bit-for-bit comparison of grids.
use crate::defaults::Pick;
use crate::example::{Options, Precision};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::sor::single::Stop;
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::{Check, Tolerance};

/// The thesis's iteration count (Table 6.3 runs).
pub const ITERATIONS: usize = 100;
/// Point updates beyond which the CPU reference is skipped (the kernels are then compared with
/// one another, which run different code on different layouts).
pub const CPU_BUDGET: usize = 4_000_000_000;

/// The grid of `--size n` as the run reads the options: `(rows, cols, points, bytes per
/// value)`, `--rows` defaulting to `n`; `None` when the points overflow.
pub fn grid_of(options: &Options, n: usize) -> Option<(usize, usize, usize, usize)> {
    let rows = options.parsed::<usize>("--rows").ok().flatten().unwrap_or(n);
    let element_bytes = match options.precision {
        Precision::F32 => 4,
        Precision::F64 => 8,
    };
    Some((rows, n, footprint::elements(&[rows, n])?, element_bytes))
}

/// True when the CPU reference may run for a grid of `points` at `--iterations` (the thesis's
/// count by default; a `tol=` stop, whose count is unknown before the solve, counts as one
/// iteration, so that the plan never leaves the reference out): the plan's side of the test
/// the runs make against [`CPU_BUDGET`] once the iterations are known.
pub fn cpu_reference_may_run(options: &Options, points: usize) -> bool {
    let iterations = match options.parsed::<Stop>("--iterations").ok().flatten() {
        Some(Stop::Iterations(n)) => n.max(1),
        Some(Stop::Tolerance { .. }) => 1,
        None => ITERATIONS,
    };
    points
        .checked_mul(iterations)
        .is_some_and(|updates| updates <= CPU_BUDGET)
}

/// The CPU reference's host bytes for a `rows x cols` grid of `points` values: its grid, and
/// a half-sweep's new values of one colour (half the points, a vector per row).
pub fn cpu_reference_plan(rows: usize, points: usize, element_bytes: usize) -> Option<Footprint> {
    let half_sweep = (points / 2).checked_add(rows)?;
    Footprint::NONE
        .host::<u8>(1, points.checked_mul(element_bytes)?)?
        .host::<u8>(1, half_sweep.checked_mul(element_bytes)?)?
        .host::<Vec<u8>>(1, rows)
}

/// The run's parameters, from the options.
#[derive(Clone, Debug)]
pub struct Setup {
    pub rows: usize,
    pub cols: usize,
    pub stop: Stop,
    pub omega: Omega,
    pub variants: Vec<Variant>,
    pub problem: Problem,
}

impl Setup {
    /// The setup `options` ask for, with `default_side` (GPU, simulator) when `--size` is not
    /// given.
    pub fn from_options(gpu: &Gpu, options: &Options, default_side: (usize, usize)) -> Result<Self> {
        let cols = options.size_or(gpu.pick(default_side.0, default_side.1))?;
        let rows = options.parsed("--rows")?.unwrap_or(cols);
        ferrocuda::sor::domain::check_extents(rows, cols)?;
        let variants = match options.value("--kernel") {
            None | Some("all") => Variant::ALL.to_vec(),
            Some(k) => vec![k.parse()?],
        };
        // Parsed here rather than through `Options::parsed`, so that a refused omega says why.
        let omega = options.value("--omega").map(str::parse::<Omega>).transpose()?;
        Ok(Self {
            rows,
            cols,
            stop: options.parsed("--iterations")?.unwrap_or(Stop::Iterations(ITERATIONS)),
            omega: omega.unwrap_or_default(),
            variants,
            problem: options.parsed("--problem")?.unwrap_or_default(),
        })
    }
}

/// Bit-for-bit comparison: every kernel rounds as the CPU reference does.
pub fn compare<T: SorReal>(what: &str, got: &[T], expected: &[T]) -> Check {
    Check::compare(what, got, expected, Tolerance::EXACT)
}
