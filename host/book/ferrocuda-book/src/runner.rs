//! The runner of `cargo xtask run <id>` as a library: option parsing, opening the device, the
//! header, the outcome and the exit code, shared by `xtask` and by the MPI test binary
//! `ferrocuda-rank` (one copy per rank under `mpirun`).
//!
//! An MPI example (chapter 4, [`Entry::is_mpi`]) is run differently: MPI starts first, each
//! rank opens its own device (`ferrocuda::mpi::Mpi::assign_device`, never device 0 in every
//! rank), the ranks' checks are gathered to rank 0, and an error on any rank ends the whole job
//! with one line naming that rank (exit code 2), never a hang.
use crate::cli;
use crate::entry::{Entry, Shared};
use crate::example::Outcome;
use crate::registry;
use ferrocuda::gpu::BackendChoice;
use ferrocuda::{Error, Gpu};
use std::io::Write;
use std::process::ExitCode;

/// Makes the program's output fail as Unix tools' does: a closed pipe (`cargo xtask list | head
/// -1`) ends it quietly, by SIGPIPE's default action (Rust's runtime ignores the signal and
/// `println!` then panics); any other failure to write standard output (a full disk) is one
/// sentence on stderr and exit code 2, not a panic. Call first thing in `main`. (A descriptor
/// closed before the program starts, `cmd >&-`, cannot be told from `/dev/null`: Rust's runtime
/// opens `/dev/null` on it before `main`.)
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

/// Prints clap's help, version or error text, and gives its exit code: 0 for help and version
/// (on stdout), 2 for an error (on stderr); 2 with one sentence when the text cannot be written
/// (`--help > /dev/full`), rather than 0 with the help lost.
pub fn print_clap(error: &clap::Error) -> ExitCode {
    if let Err(cause) = error.print() {
        let _ = writeln!(std::io::stderr(), "error: cannot write the output: {cause}");
        return ExitCode::from(2);
    }
    ExitCode::from(if error.use_stderr() { 2 } else { 0 })
}

/// `run <id> [options]` as a whole program: runs it, prints a failure on stderr (one line, with
/// its causes, naming the MPI rank when a launcher started this process), and gives the exit code
/// (2 for an error or a refused command line, 1 for failed checks).
pub fn main_run(args: &[String]) -> ExitCode {
    match run_example(args) {
        Ok(code) => code,
        Err(error) => {
            let text = match &error {
                // clap's own text: the sentence, then a tip and the usage.
                RunError::Usage(usage) => usage.render().to_string(),
                other => format!("error: {}\n", report(other)),
            };
            let text = match launcher_rank() {
                Some(rank) => text.replacen("error: ", &format!("error: rank {rank}: "), 1),
                None => text,
            };
            // One write: mpirun forwards output as it reads it, and must not split the line.
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            ExitCode::from(2)
        }
    }
}

/// Why `run` failed, its causes kept (see [`report`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The command line: no id, an unknown id, an option the example does not take, a value out
    /// of range, an option given twice (clap's error, with its tip and usage).
    #[error("{0}")]
    Usage(#[from] clap::Error),
    /// No example has this id.
    #[error("no example `{0}`; `cargo xtask list` shows them")]
    UnknownExample(String),
    /// The device could not be opened, or MPI could not start.
    #[error(transparent)]
    Setup(ferrocuda::Error),
    /// The example failed (a refused size, a kernel fault, a CUDA error), after its header.
    #[error("{id}: {source}")]
    Example {
        id: &'static str,
        #[source]
        source: ferrocuda::Error,
    },
}

/// An error and its causes on one line: `a: b (because: c)`, each cause once (a message that
/// already quotes its cause's text is not made to repeat it).
pub fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let line = c.to_string();
        if !text.contains(&line) {
            text.push_str(&format!(" (because: {line})"));
        }
        cause = c.source();
    }
    text
}

/// Runs the example `args[0]` with the options that follow: on the device `--backend` and
/// `--device` name (an MPI example: on the device MPI assigns to this rank), having checked that
/// the run's memory plan fits, printing the header, the example's lines and its checks. `Ok`
/// carries success (also for `--help`), or failure when a check failed.
pub fn run_example(args: &[String]) -> Result<ExitCode, RunError> {
    let Some(id) = args.first().filter(|a| !a.starts_with('-')) else {
        let help = "`run` needs an example id: cargo xtask run <id> [options]; `cargo xtask list` shows the ids, `cargo xtask run <id> --help` an example's options".to_string();
        if args.iter().any(|a| a == "--help" || a == "-h") {
            println!("{help}");
            return Ok(ExitCode::SUCCESS);
        }
        return Err(RunError::Usage(clap::Error::raw(
            clap::error::ErrorKind::MissingRequiredArgument,
            help + "\n",
        )));
    };
    let example = registry::find(id).ok_or_else(|| RunError::UnknownExample(id.clone()))?;
    let args = &args[1..];
    let matches = match cli::command(example).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) => return Ok(print_clap(&e)),
        Err(e) => return Err(e.into()),
    };
    let (shared, device) = cli::options(example, &matches).map_err(RunError::Setup)?;
    let failed = |source| RunError::Example {
        id: example.id(),
        source,
    };
    if matches.try_get_one::<bool>("plan").ok().flatten() == Some(&true) {
        // An MPI rank's device is device 0 of its node's share: plan on device 0, without MPI.
        let gpu = open(device.backend, device.ordinal).map_err(RunError::Setup)?;
        let n = cli::resolved_size(example, &shared, &gpu);
        cli::print_plan(example, &shared, &gpu, n, args, &matches).map_err(failed)?;
        return Ok(ExitCode::SUCCESS);
    }
    if example.is_mpi() {
        return run_mpi(example, device.backend, &shared, args, &matches);
    }
    let gpu = open(device.backend, device.ordinal).map_err(RunError::Setup)?;
    let p = gpu.properties();
    if gpu.is_simulator() {
        println!("== {} on the {} ==", example.id(), p.name);
    } else {
        println!(
            "== {} on device {}: {} (sm_{}) ==",
            example.id(),
            p.ordinal,
            p.name,
            p.compute_capability_number()
        );
    }
    let n = cli::resolved_size(example, &shared, &gpu);
    cli::check_memory(example, &shared, &gpu, n, args, &matches).map_err(failed)?;
    let outcome = example.run(&gpu, &shared, n, &matches).map_err(failed)?;
    outcome.print();
    Ok(if outcome.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs the example `id` on `gpu` with the command line `args` (its options, after the id), as
/// `cargo xtask run` does but without the header and the verdict: parsed by its command, its
/// memory plan checked, run. For tests, and for a program embedding the book.
pub fn run_on(gpu: &Gpu, id: &str, args: &[&str]) -> Result<Outcome, Error> {
    let example = registry::find(id).ok_or_else(|| Error::InvalidArgument(format!("no example `{id}`")))?;
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let matches = cli::command(example)
        .try_get_matches_from(&args)
        .map_err(|e| Error::InvalidArgument(e.kind().to_string() + ": " + &e.render().to_string()))?;
    let (shared, _) = cli::options(example, &matches)?;
    let n = cli::resolved_size(example, &shared, gpu);
    cli::check_memory(example, &shared, gpu, n, &args, &matches)?;
    example.run(gpu, &shared, n, &matches)
}

/// An MPI example in a build without MPI: refused in one sentence naming the build command.
#[cfg(not(feature = "mpi"))]
fn run_mpi(
    example: &dyn Entry,
    _backend: BackendChoice,
    _shared: &Shared,
    _args: &[String],
    _matches: &clap::ArgMatches,
) -> Result<ExitCode, RunError> {
    Err(RunError::Setup(crate::entry::needs_mpi_build(example.id())))
}

/// An MPI example: MPI started, this rank's device assigned, the example run, its checks
/// gathered to rank 0 (which prints them per rank and the verdict), every rank returning the
/// job's verdict; an error on any rank ends the job (`Mpi::finish`).
#[cfg(feature = "mpi")]
fn run_mpi(
    example: &dyn Entry,
    choice: BackendChoice,
    shared: &Shared,
    args: &[String],
    matches: &clap::ArgMatches,
) -> Result<ExitCode, RunError> {
    use ferrocuda::mpi::Mpi;
    let failed = |source| RunError::Example {
        id: example.id(),
        source,
    };
    let mpi = Mpi::init().map_err(RunError::Setup)?;
    let result = (|| {
        let (gpu, placement) = mpi.assign_device(choice)?;
        if mpi.rank() == 0 {
            println!(
                "== {} on {} MPI rank(s), {} host(s), {} ==",
                example.id(),
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
        let n = cli::resolved_size(example, shared, &gpu);
        cli::check_memory(example, shared, &gpu, n, args, matches)?;
        let outcome = example.run_rank(&mpi, &gpu, &placement, shared, n, matches)?;
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
    let passed = mpi.finish(result).map_err(failed)?;
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

/// The `Gpu` that `backend` and `device` name; says once when auto falls back to the simulator.
pub fn open(backend: BackendChoice, device: usize) -> Result<Gpu, Error> {
    let (gpu, why_simulator) = Gpu::open(backend, device)?;
    if let Some(reason) = why_simulator {
        let reason = match reason {
            Error::NoDriver => "No NVIDIA driver found",
            _ => "The NVIDIA driver reports no GPU",
        };
        println!("{reason}: running on the CPU simulator (its timings are simulator timings, not GPU ones).");
    }
    Ok(gpu)
}
