//! What an example is, for the examples and the runner alike: its description ([`Example`]:
//! id, options, size, memory plan, run), the options the runner resolved ([`Options`]), and what
//! a run returns ([`Outcome`]). A floor below every example; the table of them is
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

/// The runner's options: those every example shares, and the example's own [`Flag`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Problem size (elements; each example says what it means), or the source's own size.
    pub size: Option<usize>,
    /// Precision, for the examples that have both.
    pub precision: Precision,
    /// Timed repetitions.
    pub reps: usize,
    /// The example's own flags as given: `("--seed", Some("1234"))`, `("--book", None)`.
    pub flags: Vec<FlagValue>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            size: None,
            precision: Precision::F32,
            reps: 10,
            flags: Vec::new(),
        }
    }
}

/// A flag as given on the command line, with its value (`None` for a switch).
pub type FlagValue = (String, Option<String>);

/// One option an example takes beyond the shared ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// `--seed`.
    pub name: &'static str,
    /// The value's placeholder (`N`, `on|off`), or `None` for a switch that takes no value.
    pub value: Option<&'static str>,
    /// One line: what it does, its unit and its default.
    pub help: &'static str,
    /// Another of the example's options this one needs (`--plot` needs `--study`).
    pub requires: Option<&'static str>,
}

impl Flag {
    /// An option taking a value shown as `value` in the help.
    pub const fn value(name: &'static str, value: &'static str, help: &'static str) -> Self {
        Self {
            name,
            value: Some(value),
            help,
            requires: None,
        }
    }

    /// A switch, taking no value.
    pub const fn switch(name: &'static str, help: &'static str) -> Self {
        Self {
            name,
            value: None,
            help,
            requires: None,
        }
    }

    /// The same option, refused unless `other` is given too.
    pub const fn requires(self, other: &'static str) -> Self {
        Self {
            requires: Some(other),
            ..self
        }
    }
}

/// What `--size` means for an example, its defaults, and the memory a run of a given size needs.
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
    /// The bytes a run of this size needs on the device and on the host at its peak, given the
    /// other options; `None` when the count overflows. Checked before the run starts.
    pub memory: fn(&Options, &Gpu, usize) -> Option<Footprint>,
}

impl Size {
    /// The default on `gpu`.
    pub fn default_on(&self, gpu: &Gpu) -> usize {
        gpu.pick(self.gpu, self.simulator)
    }
}

impl Options {
    /// `--size`, or `default` (callers pass `gpu.pick(book_size, SIMULATOR_SIZE)` where the source's
    /// size is large); at least one element.
    pub fn size_or(&self, default: usize) -> Result<usize> {
        match self.size.unwrap_or(default) {
            0 => Err(Error::InvalidArgument("--size must be at least 1".into())),
            n => Ok(n),
        }
    }

    /// With `flag` set to `value` (`None` for a switch), replacing an earlier value.
    pub fn with_flag(mut self, flag: &str, value: Option<&str>) -> Self {
        self.flags.retain(|(f, _)| f != flag);
        self.flags.push((flag.to_string(), value.map(str::to_string)));
        self
    }

    /// True when the switch `flag` (`--book`) was given.
    pub fn switch(&self, flag: &str) -> bool {
        self.flags.iter().any(|(f, _)| f == flag)
    }

    /// The value of `flag`, if given.
    pub fn value(&self, flag: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| f == flag)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The value of `flag` parsed as a `T` (a number, an enum with `FromStr`), if given; a
    /// one-sentence error when it does not parse.
    /// The value's own parse error (a library type's range sentence) is kept.
    pub fn parsed<T: FromStr>(&self, flag: &str) -> Result<Option<T>>
    where
        T::Err: fmt::Display,
    {
        self.value(flag)
            .map(|v| {
                v.parse()
                    .map_err(|e| Error::InvalidArgument(format!("{flag} {v}: {e}")))
            })
            .transpose()
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

/// One runnable example.
pub struct Example {
    /// `ch1-increment`, as in the spec.
    pub id: &'static str,
    /// One line.
    pub description: &'static str,
    /// `--size`, or `None` for an example whose sizes are fixed by its source.
    pub size: Option<Size>,
    /// True when it has an f64 path (`--precision f64`); f32 otherwise.
    pub f64: bool,
    /// True when it repeats timed runs (`--reps`).
    pub reps: bool,
    /// Its own options, beyond size, precision and repetitions.
    pub flags: &'static [Flag],
    /// Runs it on `gpu`.
    pub run: fn(&Gpu, &Options) -> Result<Outcome>,
}

impl Example {
    /// The precision a run takes without `--precision`: f64 for the examples whose source
    /// computes in double precision ([`F64_BY_DEFAULT`]), f32 otherwise.
    pub fn default_precision(&self) -> Precision {
        match F64_BY_DEFAULT.contains(&self.id) {
            true => Precision::F64,
            false => Precision::F32,
        }
    }

    /// The options of a run given no option at all: the shared defaults, in
    /// [`Example::default_precision`].
    pub fn default_options(&self) -> Options {
        Options {
            precision: self.default_precision(),
            ..Options::default()
        }
    }
}

/// The examples whose source computes in f64, so that `--precision` defaults to f64 there
/// (`--precision f32` runs the single-precision variant).
pub static F64_BY_DEFAULT: &[&str] = &[
    // The book's tables of §3.5.1 and §3.5.2 are f64.
    "ch3-tlp-copy",
    "ch3-ilp-copy",
    // The PGI article's arrays are real*8.
    "stream",
];
