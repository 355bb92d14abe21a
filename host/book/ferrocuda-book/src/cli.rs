//! The command line of `cargo xtask run <id>`: one clap command per example, built from its
//! [`Example`] description, so that each id's `--help` lists exactly the options it uses, with
//! their meaning, unit and defaults (the GPU's and the simulator's), and anything else is refused
//! by clap in one sentence with a suggestion: an option it does not use, one given twice, a value
//! out of range (in the library's own words, where a library type parses it). Then the run's
//! memory plan is checked against the device and the host before anything is allocated.
//!
//! The shared options are built with clap's builder rather than its derive, because which of
//! them an example takes (`--size`, `--precision f64`, `--reps`) is per example.
use crate::example::{Example, Options, Precision, Size};
use clap::builder::PossibleValue;
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
pub fn command(example: &Example) -> Command {
    let mut command = Command::new(example.id)
        .bin_name(format!("cargo xtask run {}", example.id))
        .about(example.description)
        .no_binary_name(true)
        .arg(backend_arg());
    if let Some(size) = &example.size {
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
    let precisions = match example.f64 {
        true => vec![
            PossibleValue::new("f32").alias("single"),
            PossibleValue::new("f64").alias("double"),
        ],
        false => vec![PossibleValue::new("f32").alias("single")],
    };
    // An example with its own `--precision` (course-matmul-tiled's bf16 and tf32) parses it.
    let own_precision = example.flags.iter().any(|flag| flag.name == "--precision");
    command = command.args((!own_precision).then(|| {
        Arg::new("precision")
            .long("precision")
            .value_name("P")
            .value_parser(precisions)
            .help(match (example.f64, example.default_precision()) {
                (true, Precision::F64) => "floating-point precision, f64 as the source's [default: f64]",
                (true, Precision::F32) => "floating-point precision [default: f32]",
                (false, _) => "floating-point precision: this example has an f32 path only [default: f32]",
            })
    }));
    if example.reps {
        command = command.arg(
            Arg::new("reps")
                .long("reps")
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(repetitions)
                .help(format!(
                    "timed repetitions, at most {MAX_REPS} [default: {}]",
                    Options::default().reps
                )),
        );
    }
    if !crate::examples::ch4::mpi::is_mpi(example.id) {
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
    if example.size.is_some() {
        command = command.arg(
            Arg::new("plan")
                .long("plan")
                .action(ArgAction::SetTrue)
                .help("print the memory the run needs at this size, what the device and the host have, and the largest --size that fits; run nothing"),
        );
    }
    for flag in example.flags {
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

/// The options and the device `matches` gives, for `example`'s command.
pub fn options(example: &Example, matches: &ArgMatches) -> Result<(Options, DeviceChoice), Error> {
    let generic = matches.try_get_one::<String>("precision").ok().flatten();
    let precision = match generic.map(String::as_str) {
        Some("f64" | "double") => Precision::F64,
        Some(_) => Precision::F32,
        None => example.default_precision(),
    };
    let own = example
        .flags
        .iter()
        .filter_map(|flag| match flag.value {
            Some(_) => matches
                .get_one::<String>(flag.name)
                .map(|v| (flag.name.to_string(), Some(v.clone()))),
            None => matches.get_flag(flag.name).then(|| (flag.name.to_string(), None)),
        })
        .collect();
    let options = Options {
        // Asked only of ids that take `--size`: clap's debug build refuses an id it never declared.
        size: example.size.and_then(|_| matches.get_one::<usize>("size").copied()),
        precision,
        reps: match example.reps {
            true => matches.get_one::<usize>("reps").copied(),
            false => None,
        }
        .unwrap_or(Options::default().reps),
        flags: own,
    };
    let device = DeviceChoice {
        backend: backend(matches)?,
        ordinal: match crate::examples::ch4::mpi::is_mpi(example.id) {
            true => 0,
            false => matches.get_one::<usize>("device").copied().unwrap_or(0),
        },
    };
    Ok((options, device))
}

/// The size a run of `example` uses on `gpu`: `--size`, else the default there (said on the
/// simulator, whose default is smaller); `None` for an example without sizes.
pub fn resolved_size(example: &Example, options: &Options, gpu: &Gpu) -> Option<usize> {
    let size = example.size.as_ref()?;
    Some(options.size.unwrap_or_else(|| {
        let n = size.default_on(gpu);
        if gpu.is_simulator() && size.simulator != size.gpu {
            println!(" --size {n}: the simulator's default (on a GPU: {})", size.gpu);
        }
        n
    }))
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
    /// Plans the example of `size` at size `n` with `options` on `gpu`.
    pub fn new(size: &Size, options: &Options, gpu: &Gpu, n: usize) -> Result<Self, Error> {
        let plan = |options: &Options, k: usize| {
            (size.memory)(
                &Options {
                    size: Some(k),
                    ..options.clone()
                },
                gpu,
                k,
            )
        };
        let capacity = Capacity::of(gpu)?;
        let footprint = plan(options, n);
        let fits = footprint.is_some_and(|f| capacity.fits(f));
        // Past the size asked for only when it fits: up to the example's limit, or 2^48 elements
        // (beyond any machine's memory, and a short search).
        let below = match fits {
            true => size.max.min(1 << 48).max(n).saturating_add(1),
            false => n,
        };
        let largest = capacity
            .largest_fitting(below, |k| plan(options, k))
            .filter(|&k| k >= size.min);
        let culprits = match fits {
            true => Vec::new(),
            false => options
                .flags
                .iter()
                .filter_map(|(name, value)| Some((name, value.as_deref()?)))
                .filter(|(name, _)| {
                    let without = Options {
                        flags: options.flags.iter().filter(|(f, _)| f != *name).cloned().collect(),
                        ..options.clone()
                    };
                    plan(&without, n).is_some_and(|f| capacity.fits(f))
                })
                .map(|(name, value)| format!("{name} {value}"))
                .collect(),
        };
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

/// Checks, before anything is allocated, that `example` at its size (given, or the default on
/// `gpu`) fits in the device's free memory and the host's available memory; when not, one
/// sentence with both figures, the options that make it too big, and the largest size that fits.
pub fn check_memory(example: &Example, options: &Options, gpu: &Gpu) -> Result<(), Error> {
    let (Some(size), Some(n)) = (&example.size, resolved_size(example, options, gpu)) else {
        return Ok(());
    };
    check_limit(size, n)?;
    let capacity = Capacity::of(gpu)?;
    if (size.memory)(options, gpu, n).is_some_and(|f| capacity.fits(f)) {
        return Ok(());
    }
    let check = MemoryCheck::new(size, options, gpu, n)?;
    Err(Error::OutOfMemory(format!(
        "{} {}: {}",
        check.subject(),
        check.needs(),
        check.advice(size.min)
    )))
}

/// `--plan`: prints in one line what `example` at its size needs, what there is, and the largest
/// size that fits; runs nothing. A size past the example's limit is refused as the run refuses it.
pub fn print_plan(example: &Example, options: &Options, gpu: &Gpu) -> Result<(), Error> {
    let (Some(size), Some(n)) = (&example.size, resolved_size(example, options, gpu)) else {
        return Ok(());
    };
    check_limit(size, n)?;
    let check = MemoryCheck::new(size, options, gpu, n)?;
    println!(
        "plan: {} {} ({}); {}",
        check.subject(),
        check.needs(),
        if check.fits() { "fits" } else { "does not fit" },
        check.advice(size.min)
    );
    Ok(())
}

/// What `--size` means for `size`, for the list of examples.
pub fn describe_size(size: &Size) -> String {
    format!(
        "--size N: {} (default {} on a GPU, {} on the simulator; at least {})",
        size.unit, size.gpu, size.simulator, size.min
    )
}
