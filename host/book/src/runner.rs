//! The runner of `cargo xtask run <id>` as a library: option parsing, opening the device, the
//! header, the outcome and the exit code, shared by `xtask` and by the MPI test binary
//! `ferrocuda-rank` (one copy per rank under `mpirun`).
//!
//! An MPI example (chapter 4, [`examples::ch4::mpi`]) is run differently: MPI starts first, each
//! rank opens its own device (`ferrocuda::mpi::Mpi::assign_device`, never device 0 in every
//! rank), the ranks' checks are gathered to rank 0, and an error on any rank ends the whole job
//! with one line naming that rank (exit code 2), never a hang.
use crate::examples::{self, Options};
use ferrocuda::gpu::BackendChoice;
use ferrocuda::{Error, Gpu};
use std::io::Write;
use std::process::ExitCode;

/// The options every example shares (`cargo xtask list` shows each example's own).
pub const SHARED_FLAGS: [&str; 5] = ["--size", "--precision", "--device", "--reps", "--backend"];

/// Makes the program's output fail as Unix tools' does: a closed pipe (`cargo xtask list | head
/// -1`) ends it quietly, by SIGPIPE's default action (Rust's runtime ignores the signal and
/// `println!` then panics); any other failure to write standard output (a full disk) is one
/// sentence on stderr and exit code 2, not a panic. Call first thing in `main`.
pub fn handle_output_errors() {
    // SAFETY: restores a signal's default action, before this program starts any thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = (payload.downcast_ref::<String>().map(String::as_str))
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if let Some(cause) = message.strip_prefix("failed printing to stdout: ") {
            let _ = writeln!(std::io::stderr(), "error: cannot write the output: {cause}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// `run <id> [options]` as a whole program: runs it, prints a failure as one line on stderr
/// (naming the MPI rank when a launcher started this process), and gives the exit code (2 for
/// an error, 1 for failed checks).
pub fn main_run(args: &[String]) -> ExitCode {
    match run_example(args) {
        Ok(code) => code,
        Err(message) => {
            let line = match launcher_rank() {
                Some(rank) => format!("error: rank {rank}: {message}\n"),
                None => format!("error: {message}\n"),
            };
            // One write: mpirun forwards output as it reads it, and must not split the line.
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
            ExitCode::from(2)
        }
    }
}

/// Runs the example `args[0]` with the options that follow: on the device `--backend` and
/// `--device` name (an MPI example: on the device MPI assigns to this rank), printing the header,
/// the example's lines and its checks. `Ok` carries success, or failure when a check failed;
/// `Err` one sentence.
pub fn run_example(args: &[String]) -> Result<ExitCode, String> {
    let Some(id) = args.first().filter(|a| !a.starts_with("--")) else {
        return Err("`run` needs an example id; `cargo xtask list` shows them".into());
    };
    let example = examples::find(id).ok_or_else(|| format!("no example `{id}`; `cargo xtask list` shows them"))?;
    let (flags, own) = Flags::parse_with(&args[1..], &SHARED_FLAGS, example.flags)?;
    let options = Options {
        size: flags.number("--size")?,
        precision: flags
            .value("--precision")
            .map(str::parse)
            .transpose()
            .map_err(|e: Error| e.to_string())?
            .unwrap_or_default(),
        reps: flags.number("--reps")?.unwrap_or(Options::default().reps),
        flags: own,
    };
    if options.reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    if examples::ch4::mpi::is_mpi(example.id) {
        return run_mpi(example, &flags, &options);
    }
    let gpu = open(&flags)?;
    let p = gpu.properties();
    if gpu.is_simulator() {
        println!("== {} on the {} ==", example.id, p.name);
    } else {
        println!(
            "== {} on device {}: {} (sm_{}) ==",
            example.id,
            p.ordinal,
            p.name,
            p.compute_capability_number()
        );
    }
    let outcome = (example.run)(&gpu, &options).map_err(|e| format!("{}: {e}", example.id))?;
    outcome.print();
    Ok(if outcome.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// An MPI example in a build without MPI: refused in one sentence naming the build command.
#[cfg(not(feature = "mpi"))]
fn run_mpi(example: &examples::Example, _flags: &Flags, _options: &Options) -> Result<ExitCode, String> {
    Err(examples::ch4::mpi::needs_mpi_build(example.id).to_string())
}

/// An MPI example: MPI started, this rank's device assigned, the example run, its checks
/// gathered to rank 0 (which prints them per rank and the verdict), every rank returning the
/// job's verdict; an error on any rank ends the job (`Mpi::finish`).
#[cfg(feature = "mpi")]
fn run_mpi(example: &examples::Example, flags: &Flags, options: &Options) -> Result<ExitCode, String> {
    use ferrocuda::mpi::Mpi;
    if flags.value("--device").is_some() {
        return Err(format!(
            "{} takes no --device: each rank uses the device MPI assigns it (its rank on its node, round-robin over the node's GPUs)",
            example.id
        ));
    }
    let choice = backend_choice(flags)?;
    let run = examples::ch4::mpi::find(example.id).ok_or_else(|| format!("{}: not an MPI example", example.id))?;
    let mpi = Mpi::init().map_err(|e| e.to_string())?;
    let result = (|| {
        let (gpu, placement) = mpi.assign_device(choice)?;
        if mpi.rank() == 0 {
            println!(
                "== {} on {} MPI rank(s), {} host(s), {} ==",
                example.id,
                mpi.size(),
                placement.node.hosts,
                if gpu.is_simulator() {
                    "the CPU simulator".to_string()
                } else {
                    format!(
                        "{} (sm_{})",
                        gpu.properties().name,
                        gpu.properties().compute_capability_number()
                    )
                }
            );
        }
        let outcome = run(&mpi, &gpu, &placement, options)?;
        let lines: Vec<String> = outcome
            .checks
            .iter()
            .map(|c| format!("  [{}] {c}", mpi.rank()))
            .collect();
        let passed = mpi.all_true(outcome.passed());
        if let Some(per_rank) = mpi.gather_text(&lines.join("\n")) {
            per_rank.iter().filter(|t| !t.is_empty()).for_each(|t| println!("{t}"));
            println!("{}", if passed { "PASSED" } else { "FAILED" });
        }
        Ok(passed)
    })();
    let passed = mpi.finish(result).map_err(|e| format!("{}: {e}", example.id))?;
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// This process's MPI rank as the launcher set it, for errors before (or without) MPI.
fn launcher_rank() -> Option<usize> {
    #[cfg(feature = "mpi")]
    return ferrocuda::mpi::launcher_rank();
    #[cfg(not(feature = "mpi"))]
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
}

/// The backend `--backend` names, else `FERROCUDA_BACKEND`, else auto.
pub fn backend_choice(flags: &Flags) -> Result<BackendChoice, String> {
    match flags.value("--backend") {
        Some(value) => value.parse(),
        None => BackendChoice::from_env(),
    }
    .map_err(|e: Error| e.to_string())
}

/// The `Gpu` that `--backend` (or `FERROCUDA_BACKEND`, or auto) and `--device` name; says once
/// when auto falls back to the simulator.
pub fn open(flags: &Flags) -> Result<Gpu, String> {
    let choice = backend_choice(flags)?;
    let device = flags.number("--device")?.unwrap_or(0);
    let (gpu, why_simulator) = Gpu::open(choice, device).map_err(|e| e.to_string())?;
    if let Some(reason) = why_simulator {
        let reason = match reason {
            Error::NoDriver => "No NVIDIA driver found",
            _ => "The NVIDIA driver reports no GPU",
        };
        println!("{reason}: running on the CPU simulator (its timings are simulator timings, not GPU ones).");
    }
    Ok(gpu)
}

/// `--flag value` pairs, each allowed flag at most once.
pub struct Flags(Vec<(String, String)>);

impl Flags {
    /// The `allowed` flags, each with a value; anything else is an error naming them.
    pub fn parse(args: &[String], allowed: &[&str]) -> Result<Self, String> {
        Ok(Self::parse_with(args, allowed, &[])?.0)
    }

    /// The shared `allowed` flags, and apart from them an example's own `flags` (switches take
    /// no value).
    pub fn parse_with(
        args: &[String],
        allowed: &[&str],
        own: &[examples::Flag],
    ) -> Result<(Self, Vec<examples::FlagValue>), String> {
        let (mut pairs, mut own_pairs) = (Vec::new(), Vec::new());
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let own_flag = own.iter().find(|f| f.name == flag);
            if !allowed.contains(&flag.as_str()) && own_flag.is_none() {
                let names: Vec<&str> = allowed.iter().copied().chain(own.iter().map(|f| f.name)).collect();
                return Err(format!("unknown option `{flag}` (allowed: {})", names.join(", ")));
            }
            let value = match own_flag {
                Some(examples::Flag { value: None, .. }) => None,
                _ => Some(it.next().ok_or_else(|| format!("`{flag}` needs a value"))?.clone()),
            };
            match own_flag {
                Some(_) => own_pairs.push((flag.clone(), value)),
                None => pairs.push((flag.clone(), value.unwrap_or_default())),
            }
        }
        Ok((Self(pairs), own_pairs))
    }

    /// The value of `flag`, if given (the last one).
    pub fn value(&self, flag: &str) -> Option<&str> {
        self.0.iter().rev().find(|(f, _)| f == flag).map(|(_, v)| v.as_str())
    }

    /// The value of `flag` as a non-negative integer, if given.
    pub fn number(&self, flag: &str) -> Result<Option<usize>, String> {
        self.value(flag)
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("`{flag}` takes a non-negative integer, not `{v}`"))
            })
            .transpose()
    }
}
