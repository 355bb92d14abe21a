//! The command line of `cargo xtask run <id>`: one clap command per example, built from its
//! registration ([`crate::entry::Entry`]), so that each id's `--help` lists exactly the options
//! it uses, with their meaning, unit and defaults (the GPU's and the simulator's), and anything
//! else is refused by clap in one sentence with a suggestion: an option it does not use, one
//! given twice, a value out of range (in the library's own words, where a library type parses it). Then the run's
//! memory plan is checked against the device and the host before anything is allocated.
//!
//! The shared options are built with clap's builder rather than its derive, because which of
//! them an example takes (`--size`, `--precision f64`, `--reps`) is per example; its own options
//! are its clap derive ([`Entry::own_options`]).
use crate::entry::{DEFAULT_REPS, Entry, Shared};
use crate::example::{Precision, Size};
use clap::builder::PossibleValue;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use ferrocuda::footprint::{Capacity, Footprint};
use ferrocuda::gpu::BackendChoice;
use ferrocuda::{Error, Gpu};

/// Where to run: `--backend` (else `FERROCUDA_BACKEND`, else auto) and `--device`.
#[derive(Clone, Copy, Debug)]
pub struct DeviceChoice {
    pub backend: BackendChoice,
    pub ordinal: usize,
}

/// The clap command of `example`: its description, the shared options it uses and its own.
pub fn command(example: &dyn Entry) -> Command {
    let mut command = Command::new(example.id())
        .bin_name(format!("cargo xtask run {}", example.id()))
        .about(example.description())
        .no_binary_name(true)
        .arg(backend_arg());
    if let Some(size) = &example.size() {
        let max = match (size.min, size.max) {
            (1, usize::MAX) => String::new(),
            (min, usize::MAX) => format!("; at least {min}"),
            (1, max) => format!("; at most {max}"),
            (min, max) => format!("; from {min} to {max}"),
        };
        command = command.arg(
            Arg::new("size")
                .long("size")
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(positive)
                .help(format!(
                    "{} [default: {} on a GPU, {} on the simulator{max}]",
                    size.unit, size.gpu, size.simulator
                )),
        );
    }
    let precisions = example.precisions();
    let values = precisions.iter().map(|p| match p {
        Precision::F32 => PossibleValue::new("f32").alias("single"),
        Precision::F64 => PossibleValue::new("f64").alias("double"),
    });
    // An example with its own `--precision` (course-matmul-tiled's bf16 and tf32) parses it.
    let own = example.own_options(Command::new(example.id()));
    let own_precision = own.get_arguments().any(|a| a.get_long() == Some("precision"));
    command = command.args((!own_precision).then(|| {
        Arg::new("precision")
            .long("precision")
            .value_name("P")
            .value_parser(values.collect::<Vec<_>>())
            .help(match precisions {
                [Precision::F64, ..] => "floating-point precision, f64 as the source's [default: f64]",
                [_, _, ..] => "floating-point precision [default: f32]",
                _ => "floating-point precision: this example has an f32 path only [default: f32]",
            })
    }));
    if example.reps() {
        command = command.arg(
            Arg::new("reps")
                .long("reps")
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(repetitions)
                .help(format!(
                    "timed repetitions, at most {MAX_REPS} [default: {}]",
                    DEFAULT_REPS
                )),
        );
    }
    if !example.is_mpi() {
        // An MPI rank runs on the device MPI assigns it, never on one the command line names.
        command = command.arg(
            Arg::new("device")
                .long("device")
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(clap::value_parser!(usize))
                .help("the GPU to run on, numbered from 0 as nvidia-smi does [default: 0]"),
        );
    }
    if example.size().is_some() {
        command = command.arg(
            Arg::new("plan")
                .long("plan")
                .action(ArgAction::SetTrue)
                .help("print the memory the run needs at this size, what the device and the host have, and the largest --size that fits; run nothing"),
        );
    }
    // After the example's options: a clap derive's doc comment would replace the description.
    example
        .own_options(command)
        .about(example.description())
        .long_about(None)
}

/// The `--backend` option, shared with the runner's other commands.
pub fn backend_arg() -> Arg {
    Arg::new("backend")
        .long("backend")
        .value_name("B")
        .value_parser(|v: &str| v.parse::<BackendChoice>().map_err(|e| e.to_string()))
        .help("auto (a GPU when there is one, else the CPU simulator), cuda or sim [default: FERROCUDA_BACKEND, else auto]")
}

/// The backend `--backend` named, else `FERROCUDA_BACKEND`'s, else auto.
pub fn backend(matches: &ArgMatches) -> Result<BackendChoice, Error> {
    match matches.get_one::<BackendChoice>("backend") {
        Some(choice) => Ok(*choice),
        None => BackendChoice::from_env(),
    }
}

/// A whole number of at least 1 (a size, a repetition count).
pub fn positive(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(0) => Err("it must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("it must be a whole number from 1 to {}", usize::MAX)),
    }
}

/// The most timed repetitions `--reps` takes: each repetition's time is kept for the median, so
/// the bound keeps that list small (8 MB) and a run's length sane.
pub const MAX_REPS: usize = 1_000_000;

/// A `--reps` value: a whole number from 1 to [`MAX_REPS`].
pub fn repetitions(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_REPS).contains(&n) => Ok(n),
        _ => Err(format!(
            "it must be a whole number from 1 to {MAX_REPS} (each repetition's time is kept for the median)"
        )),
    }
}

/// The shared options and the device `matches` gives, for `example`'s command.
pub fn options(example: &dyn Entry, matches: &ArgMatches) -> Result<(Shared, DeviceChoice), Error> {
    // `try_`: an example's own `--precision` (another type) is not the shared one.
    let precision = match matches
        .try_get_one::<String>("precision")
        .ok()
        .flatten()
        .map(String::as_str)
    {
        Some("f64" | "double") => Precision::F64,
        Some(_) => Precision::F32,
        None => example.precisions()[0],
    };
    let shared = Shared {
        // Asked only of ids that take `--size`: clap's debug build refuses an id it never declared.
        size: example.size().and_then(|_| matches.get_one::<usize>("size").copied()),
        precision,
        reps: match example.reps() {
            true => matches.get_one::<usize>("reps").copied(),
            false => None,
        }
        .unwrap_or(DEFAULT_REPS),
    };
    let device = DeviceChoice {
        backend: backend(matches)?,
        ordinal: match example.is_mpi() {
            true => 0,
            false => matches.get_one::<usize>("device").copied().unwrap_or(0),
        },
    };
    Ok((shared, device))
}

/// The size a run of `example` uses on `gpu`: `--size`, else the default there (said on the
/// simulator, whose default is smaller); 0 for an example without sizes.
pub fn resolved_size(example: &dyn Entry, shared: &Shared, gpu: &Gpu) -> usize {
    let Some(size) = example.size() else {
        return 0;
    };
    shared.size.unwrap_or_else(|| {
        let n = size.default_on(gpu);
        if gpu.is_simulator() && size.simulator != size.gpu {
            println!(" --size {n}: the simulator's default (on a GPU: {})", size.gpu);
        }
        n
    })
}

/// The command line `args` (the example's options, after its id) without the option `name` and
/// its value: what a run would be without it.
fn without(args: &[String], name: &str) -> Vec<String> {
    let long = format!("--{name}");
    let mut kept = Vec::with_capacity(args.len());
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if *arg == long {
            skip_value = true;
        } else if !arg.starts_with(&format!("{long}=")) {
            kept.push(arg.clone());
        }
    }
    kept
}

/// The memory a run of an example at size `n` needs, against what the device and the host have.
pub struct MemoryCheck {
    pub n: usize,
    /// `None` when the bytes overflow 64 bits.
    pub footprint: Option<Footprint>,
    pub capacity: Capacity,
    /// The largest size from the example's minimum that fits, if any.
    pub largest: Option<usize>,
    /// When the run does not fit: the example's own options (`--rows 100000`) without any one of
    /// which it would, so the refusal names them rather than blaming `--size` alone.
    pub culprits: Vec<String>,
}

impl MemoryCheck {
    /// Plans `example` at size `n` on `gpu`, with the command line `args` that gave `matches`.
    pub fn new(
        example: &dyn Entry,
        shared: &Shared,
        gpu: &Gpu,
        n: usize,
        args: &[String],
        matches: &ArgMatches,
    ) -> Result<Self, Error> {
        let Some(size) = example.size() else {
            return Err(Error::InvalidArgument(format!("{} has no --size", example.id())));
        };
        let plan = |matches: &ArgMatches, k: usize| {
            example.memory(
                gpu,
                &Shared {
                    size: Some(k),
                    ..*shared
                },
                k,
                matches,
            )
        };
        let capacity = Capacity::of(gpu)?;
        let footprint = plan(matches, n)?;
        let fits = footprint.is_some_and(|f| capacity.fits(f));
        // Past the size asked for only when it fits: up to the example's limit, or 2^48 elements
        // (beyond any machine's memory, and a short search).
        let below = match fits {
            true => size.max.min(1 << 48).max(n).saturating_add(1),
            false => n,
        };
        let largest = capacity
            .largest_fitting(below, |k| plan(matches, k).ok().flatten())
            .filter(|&k| k >= size.min);
        let mut culprits = Vec::new();
        if !fits {
            // The example's own options given on the command line, each tried without.
            let command = command(example);
            let own = example.own_options(Command::new(example.id()));
            for arg in own.get_arguments() {
                let id = arg.get_id().as_str();
                let given = matches.value_source(id) == Some(ValueSource::CommandLine);
                let (true, true, Some(long), Ok(Some(value))) = (
                    given,
                    arg.get_action().takes_values(),
                    arg.get_long(),
                    matches.try_get_raw(id),
                ) else {
                    continue;
                };
                let Ok(other) = command.clone().try_get_matches_from(without(args, long)) else {
                    continue;
                };
                if plan(&other, n)?.is_some_and(|f| capacity.fits(f)) {
                    let value: Vec<_> = value.map(|v| v.to_string_lossy().into_owned()).collect();
                    culprits.push(format!("--{long} {}", value.join(" ")));
                }
            }
        }
        Ok(Self {
            n,
            footprint,
            capacity,
            largest,
            culprits,
        })
    }

    /// True when the run fits.
    pub fn fits(&self) -> bool {
        self.footprint.is_some_and(|f| self.capacity.fits(f))
    }

    /// `--size N`, with the options that make the run too big: `--size 64 with --rows 10000000000`.
    pub fn subject(&self) -> String {
        match self.culprits.is_empty() {
            true => format!("--size {}", self.n),
            false => format!("--size {} with {}", self.n, self.culprits.join(" ")),
        }
    }

    /// `needs 48.0 GiB on the device and ...; the device has ... free and the host ... available`.
    pub fn needs(&self) -> String {
        match self.footprint {
            Some(footprint) => format!("needs {}", self.capacity.describe(footprint)),
            None => "needs more bytes than 64-bit arithmetic can count".into(),
        }
    }

    /// What would fit: `the largest --size that fits is N`; when other options make the run too
    /// big, those options first (`--rows 10000000000 makes it too big: ...`).
    pub fn advice(&self, min: usize) -> String {
        let with = match self.culprits.len() {
            0 => "",
            _ => " with them",
        };
        let largest = match self.largest {
            Some(k) => format!("the largest --size that fits{with} is {k}"),
            None => format!("not even --size {min} fits{with}"),
        };
        match self.culprits.len() {
            0 => largest,
            1 => format!(
                "{} makes it too big (without it the run fits); {largest}",
                self.culprits[0]
            ),
            _ => format!(
                "{} each make it too big (without any one of them the run fits); {largest}",
                self.culprits.join(", ")
            ),
        }
    }
}

/// Refuses a size past the example's own limit, in the same words for a run and for `--plan`.
fn check_limit(size: &Size, n: usize) -> Result<(), Error> {
    match n > size.max {
        true => Err(Error::InvalidArgument(format!(
            "--size {n} is past this example's limit of {}",
            size.max
        ))),
        false => Ok(()),
    }
}

/// Checks, before anything is allocated, that `example` at size `n` fits in the device's free
/// memory and the host's available memory; when not, one sentence with both figures, the options
/// that make it too big, and the largest size that fits.
pub fn check_memory(
    example: &dyn Entry,
    shared: &Shared,
    gpu: &Gpu,
    n: usize,
    args: &[String],
    matches: &ArgMatches,
) -> Result<(), Error> {
    let Some(size) = example.size() else {
        return Ok(());
    };
    check_limit(&size, n)?;
    let capacity = Capacity::of(gpu)?;
    if example
        .memory(gpu, shared, n, matches)?
        .is_some_and(|f| capacity.fits(f))
    {
        return Ok(());
    }
    let check = MemoryCheck::new(example, shared, gpu, n, args, matches)?;
    Err(Error::OutOfMemory(format!(
        "{} {}: {}",
        check.subject(),
        check.needs(),
        check.advice(size.min)
    )))
}

/// `--plan`: prints in one line what `example` at size `n` needs, what there is, and the largest
/// size that fits; runs nothing. A size past the example's limit is refused as the run refuses it.
pub fn print_plan(
    example: &dyn Entry,
    shared: &Shared,
    gpu: &Gpu,
    n: usize,
    args: &[String],
    matches: &ArgMatches,
) -> Result<(), Error> {
    let Some(size) = example.size() else {
        return Ok(());
    };
    check_limit(&size, n)?;
    let check = MemoryCheck::new(example, shared, gpu, n, args, matches)?;
    println!(
        "plan: {} {} ({}); {}",
        check.subject(),
        check.needs(),
        if check.fits() { "fits" } else { "does not fit" },
        check.advice(size.min)
    );
    Ok(())
}

/// The example's own options, beyond the shared ones, as the list shows them: (`--seed N`,
/// its help).
pub fn own_options(example: &dyn Entry) -> Vec<(String, String)> {
    let command = example.own_options(Command::new(example.id()));
    command
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            let name = match (arg.get_action().takes_values(), arg.get_value_names()) {
                (true, Some(values)) => format!("--{long} {}", values.join(" ")),
                _ => format!("--{long}"),
            };
            Some((name, arg.get_help().map(ToString::to_string).unwrap_or_default()))
        })
        .collect()
}

/// What `--size` means for `size`, for the list of examples.
pub fn describe_size(size: &Size) -> String {
    format!(
        "--size N: {} (default {} on a GPU, {} on the simulator; at least {})",
        size.unit, size.gpu, size.simulator, size.min
    )
}
