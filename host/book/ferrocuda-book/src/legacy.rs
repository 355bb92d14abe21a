//! The examples not yet moved onto the [`crate::example::Example`] trait: their description as
//! data ([`LegacyExample`]) and their stringly options ([`Options`], [`Flag`]), registered through
//! the same [`Entry`] as the others. Each example that moves deletes its use of this module; the
//! module goes when the last one has moved.
use crate::entry::{Entry, Shared};
use crate::example::{Outcome, Precision, Size};
use clap::{Arg, ArgAction, ArgMatches, Command};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Error, Gpu, Result};
use std::fmt;
use std::str::FromStr;

/// [`Size`] with the memory plan of a legacy example.
#[derive(Clone, Copy, Debug)]
pub struct LegacySize {
    pub unit: &'static str,
    pub gpu: usize,
    pub simulator: usize,
    pub min: usize,
    pub max: usize,
    /// The bytes a run of this size needs on the device and on the host at its peak, given the
    /// other options; `None` when the count overflows.
    pub memory: fn(&Options, &Gpu, usize) -> Option<Footprint>,
}

impl LegacySize {
    /// The size without its plan.
    pub fn size(&self) -> Size {
        Size {
            unit: self.unit,
            gpu: self.gpu,
            simulator: self.simulator,
            min: self.min,
            max: self.max,
        }
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
            reps: crate::entry::DEFAULT_REPS,
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

/// One runnable example.
pub struct LegacyExample {
    /// `ch1-increment`, as in the spec.
    pub id: &'static str,
    /// One line.
    pub description: &'static str,
    /// `--size`, or `None` for an example whose sizes are fixed by its source.
    pub size: Option<LegacySize>,
    /// True when it has an f64 path (`--precision f64`); f32 otherwise.
    pub f64: bool,
    /// True when it repeats timed runs (`--reps`).
    pub reps: bool,
    /// Its own options, beyond size, precision and repetitions.
    pub flags: &'static [Flag],
    /// Runs it on `gpu`.
    pub run: fn(&Gpu, &Options) -> Result<Outcome>,
}

impl LegacyExample {
    /// The precision a run takes without `--precision`: f64 for the examples whose source
    /// computes in double precision ([`F64_BY_DEFAULT`]), f32 otherwise.
    pub fn default_precision(&self) -> Precision {
        match F64_BY_DEFAULT.contains(&self.id) {
            true => Precision::F64,
            false => Precision::F32,
        }
    }

    /// The options of a run given no option at all: the shared defaults, in
    /// [`LegacyExample::default_precision`].
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

impl LegacyExample {
    /// The [`Options`] of the command line's `matches`.
    fn options(&self, shared: &Shared, n: usize, matches: &ArgMatches) -> Options {
        let flags = self
            .flags
            .iter()
            .filter_map(|flag| match flag.value {
                Some(_) => matches
                    .get_one::<String>(flag.name)
                    .map(|v| (flag.name.to_string(), Some(v.clone()))),
                None => matches.get_flag(flag.name).then(|| (flag.name.to_string(), None)),
            })
            .collect();
        Options {
            size: match shared.size {
                Some(_) => Some(n),
                None => None,
            },
            precision: shared.precision,
            reps: shared.reps,
            flags,
        }
    }
}

impl Entry for LegacyExample {
    fn id(&self) -> &'static str {
        self.id
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn size(&self) -> Option<Size> {
        self.size.map(|s| s.size())
    }
    fn reps(&self) -> bool {
        self.reps
    }
    fn precisions(&self) -> &'static [Precision] {
        match (self.f64, self.default_precision()) {
            (false, _) => &[Precision::F32],
            (true, Precision::F32) => &[Precision::F32, Precision::F64],
            (true, Precision::F64) => &[Precision::F64, Precision::F32],
        }
    }
    fn is_mpi(&self) -> bool {
        crate::examples::ch4::mpi::is_mpi(self.id)
    }
    fn own_options(&self, mut command: Command) -> Command {
        for flag in self.flags {
            let long = flag.name.trim_start_matches("--");
            let mut arg = Arg::new(flag.name).long(long).help(flag.help);
            arg = match flag.value {
                Some(value) => arg.value_name(value).allow_negative_numbers(true),
                None => arg.action(ArgAction::SetTrue),
            };
            if let Some(other) = flag.requires {
                arg = arg.requires(other);
            }
            command = command.arg(arg);
        }
        command
    }
    fn memory(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Option<Footprint>> {
        let options = Options {
            size: Some(n),
            ..self.options(shared, n, matches)
        };
        Ok(self.size.and_then(|size| (size.memory)(&options, gpu, n)))
    }
    fn check_paths(&self, shared: &Shared, matches: &ArgMatches) -> Result<()> {
        crate::examples::plot_option::check_path(self.flags, &self.options(shared, 0, matches))
    }
    fn run(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Outcome> {
        (self.run)(gpu, &self.options(shared, n, matches))
    }
    #[cfg(feature = "mpi")]
    fn run_rank(
        &self,
        mpi: &ferrocuda::mpi::Mpi,
        gpu: &Gpu,
        placement: &ferrocuda::mpi::Placement,
        shared: &Shared,
        n: usize,
        matches: &ArgMatches,
    ) -> Result<Outcome> {
        let run = crate::examples::ch4::mpi::find(self.id)
            .ok_or_else(|| Error::InvalidArgument(format!("{} is not an MPI example", self.id)))?;
        run(mpi, gpu, placement, &self.options(shared, n, matches))
    }
}
