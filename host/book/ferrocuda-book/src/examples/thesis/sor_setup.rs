//! What the two SOR examples share (`thesis-sor`, `thesis-sor-multi`): the run's parameters
//! (grid, iterations or tolerance, omega, kernels, problem), `--kernel all` and `--exchange all`,
//! the CPU reference's budget and memory, and the bit-for-bit comparison of grids.
use crate::example::Size;
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Error, Result};
use ferrocuda::sor::single::Stop;
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::{Check, Tolerance};
use std::str::FromStr;

/// The thesis's iteration count (Table 6.3 runs).
pub const ITERATIONS: usize = 100;
/// Point updates beyond which the CPU reference is skipped (the kernels are then compared with
/// one another, which run different code on different layouts).
pub const CPU_BUDGET: usize = 4_000_000_000;

/// `--size` of both SOR examples, each with its unit and its GPU default: 130 on the simulator,
/// at least one interior point (3), at most `u32::MAX / 2`.
pub const GRID_SIZE: Size = Size::new("", 0, 130).at_least(3).at_most(u32::MAX as usize / 2);

/// A value of `--kernel` or `--exchange`: `all`, or one of the library's names (its sentence
/// when it is neither).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllOr<T> {
    All,
    One(T),
}

impl<T: FromStr<Err = Error>> FromStr for AllOr<T> {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "all" => Ok(Self::All),
            one => one.parse().map(Self::One),
        }
    }
}

/// The CPU reference's host bytes for a `rows x cols` grid of `T` where [`CPU_BUDGET`] lets it
/// run at `stop` (the thesis's count by default; a `tol=` stop, whose count is unknown before
/// the solve, counts as one iteration, so that the plan never leaves the reference out): its
/// grid, and a half-sweep's new values of one colour (half the points, a vector per row).
pub fn cpu_reference_plan<T>(rows: usize, cols: usize, stop: Option<Stop>) -> Option<Footprint> {
    let points = footprint::elements(&[rows, cols])?;
    let iterations = match stop {
        Some(Stop::Iterations(n)) => n.max(1),
        Some(Stop::Tolerance { .. }) => 1,
        None => ITERATIONS,
    };
    if points
        .checked_mul(iterations)
        .is_none_or(|updates| updates > CPU_BUDGET)
    {
        return Some(Footprint::NONE);
    }
    Footprint::NONE
        .host::<T>(1, points)?
        .host::<T>(1, (points / 2).checked_add(rows)?)?
        .host::<Vec<T>>(1, rows)
}

/// The run's parameters.
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
    /// A grid of `cols` columns (`--size`) and `rows` rows (`--rows`, square by default), its
    /// extents checked; [`ITERATIONS`] and the thesis's omega by default.
    pub fn new(cols: usize, rows: Option<usize>, stop: Option<Stop>, omega: Option<Omega>) -> Result<Self> {
        let rows = rows.unwrap_or(cols);
        ferrocuda::sor::domain::check_extents(rows, cols)?;
        Ok(Self {
            rows,
            cols,
            stop: stop.unwrap_or(Stop::Iterations(ITERATIONS)),
            omega: omega.unwrap_or_default(),
            variants: Variant::ALL.to_vec(),
            problem: Problem::default(),
        })
    }
}

/// The CPU reference (rayon): `initial` after `iterations`, a spinner on the terminal meanwhile.
pub fn cpu_solve<T: SorReal>(initial: &[T], rows: usize, cols: usize, omega: f64, iterations: usize) -> Result<Vec<T>> {
    let mut cpu = footprint::try_with_capacity(initial.len())?;
    cpu.extend_from_slice(initial);
    crate::progress::spinner(&format!("CPU reference: {iterations} iterations"))
        .in_scope(|| ferrocuda::sor::cpu::solve(&mut cpu, rows, cols, omega, iterations))?;
    Ok(cpu)
}

/// Bit-for-bit comparison: every kernel rounds as the CPU reference does.
pub fn compare<T: SorReal>(what: &str, got: &[T], expected: &[T]) -> Check {
    Check::compare(what, got, expected, Tolerance::EXACT)
}
