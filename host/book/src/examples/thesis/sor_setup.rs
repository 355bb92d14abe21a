//! What the two SOR examples share (`thesis-sor`, `thesis-sor-multi`): the run's parameters
//! from the options (grid, iterations or tolerance, omega, kernels, problem), the CPU
//! reference's budget, and the bit-for-bit comparison of grids.
use crate::examples::Options;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::sor::single::Stop;
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::{Check, Tolerance};

/// The thesis's iteration count (Table 6.3 runs).
pub const ITERATIONS: usize = 100;
/// Point updates beyond which the CPU reference is skipped (the kernels are then compared with
/// one another, which run different code on different layouts).
pub const CPU_BUDGET: usize = 4_000_000_000;

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
