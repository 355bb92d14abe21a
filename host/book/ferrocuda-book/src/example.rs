//! What an example is, for the examples and the runner alike: the [`Example`] trait (id, own
//! options as a clap derive, size, memory plan, run), what a run is given ([`Run`]) and what it
//! returns ([`Outcome`]). A floor below every example; the table of them is
//! [`crate::registry`], a floor above.
use crate::defaults::Pick;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::verify::Check;
use std::fmt;
use std::str::FromStr;

/// Floating-point precision of an example (`--precision`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    F32,
    F64,
}

impl FromStr for Precision {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "f32" | "single" => Ok(Precision::F32),
            "f64" | "double" => Ok(Precision::F64),
            other => Err(Error::InvalidArgument(format!(
                "precision must be f32 or f64, not `{other}`"
            ))),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        })
    }
}

/// What `--size` means for an example, and its defaults.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// What one unit counts, for the help: `elements per array`, `grid points per side`.
    pub unit: &'static str,
    /// The default on a GPU (the source's size).
    pub gpu: usize,
    /// The default on the simulator (smaller, so that a run takes seconds).
    pub simulator: usize,
    /// The smallest size the example accepts (a stencil needs an interior point, a tiled kernel
    /// a whole tile), or 1; a smaller size is refused by the example in its own sentence.
    pub min: usize,
    /// The largest size the example accepts whatever the memory (an index type's range, a
    /// kernel's limit), or `usize::MAX`.
    pub max: usize,
}

impl Size {
    /// `--size` counting `unit`, with these defaults, from 1 up.
    pub const fn new(unit: &'static str, gpu: usize, simulator: usize) -> Self {
        Self {
            unit,
            gpu,
            simulator,
            min: 1,
            max: usize::MAX,
        }
    }

    /// The same, refusing sizes below `min`.
    pub const fn at_least(self, min: usize) -> Self {
        Self { min, ..self }
    }

    /// The same, refusing sizes above `max`.
    pub const fn at_most(self, max: usize) -> Self {
        Self { max, ..self }
    }

    /// The default on `gpu`.
    pub fn default_on(&self, gpu: &Gpu) -> usize {
        gpu.pick(self.gpu, self.simulator)
    }
}

/// Prints one kernel's time and effective bandwidth (bytes read plus written, 1e9 B/GB), saying
/// how it was timed.
pub fn print_kernel_time(gpu: &Gpu, kernel: &str, ms: f64, bytes: usize) {
    let bandwidth = ferrocuda::measure::gb_per_s(bytes, ms);
    println!(
        " {kernel}: {ms:.4} ms ({}), {bandwidth:.1} GB/s effective",
        gpu.timing_label()
    );
}

/// The simulator's default problem size for examples whose sources use millions of elements:
/// large enough to span many blocks, small enough to finish in seconds.
pub const SIMULATOR_SIZE: usize = 1 << 20;

/// What an example verified.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub checks: Vec<Check>,
}

impl Outcome {
    /// True when every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Check::passed)
    }

    /// Prints each check and the verdict.
    pub fn print(&self) {
        for check in &self.checks {
            println!("  {check}");
        }
        println!("{}", if self.passed() { "PASSED" } else { "FAILED" });
    }
}

/// One runnable example: its id, its own options, its sizes, its memory plan and its run. An
/// example with two precisions is generic over its element type and registered twice over
/// ([`crate::entry::Generic`]); the runner turns `--precision` into the instance it runs.
pub trait Example: 'static {
    /// `ch1-increment`, as in the spec.
    const ID: &'static str;
    /// One line.
    const DESCRIPTION: &'static str;
    /// `--size`, or `None` for an example whose sizes are fixed by its source.
    const SIZE: Option<Size> = None;
    /// True when it repeats timed runs (`--reps`).
    const REPS: bool = false;
    /// Its own options beyond size, precision and repetitions: a clap derive ([`NoOptions`]
    /// for none), so that `--help` lists them and clap refuses a bad value in one sentence.
    type Args: clap::Args + Clone + fmt::Debug + Send + Sync;
    /// The bytes a run of `run.size` needs on the device and on the host at its peak; `None`
    /// when the count overflows. Checked before the run starts, and by `--plan`.
    fn memory(run: &Run<Self::Args>, gpu: &Gpu) -> Option<Footprint> {
        let _ = (run, gpu);
        Some(Footprint::NONE)
    }
    /// Runs it on `gpu`.
    fn run(gpu: &Gpu, run: &Run<Self::Args>) -> Result<Outcome>;
}

/// The options of an example that has none of its own.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct NoOptions {}

/// What a run of an example is given: the shared options, resolved, and its own.
#[derive(Clone, Debug)]
pub struct Run<A> {
    /// `--size`, else the default on this device ([`Size::default_on`]); 0 for an example
    /// without sizes.
    pub size: usize,
    /// True when `--size` was given (an example whose source's shape is not square keeps it
    /// unless given a size).
    pub size_given: bool,
    pub precision: Precision,
    /// Timed repetitions.
    pub reps: usize,
    /// The example's own options.
    pub args: A,
}
