//! `mpirun` for the MPI tests: the runner binary `ferrocuda-rank` (`run <id> [options]`) on N
//! ranks, oversubscribed (the ranks share this machine's cores and its one GPU or simulator),
//! killed after [`TIMEOUT`] so that a job that hangs fails its test instead of the whole run.
//! Include it with `#[path = "common/mpirun.rs"] mod mpirun;` (the bad-input tests use only
//! [`rank_bin`], the runner as a process, which needs no MPI).
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest an MPI job may take before the test calls it a hang (the largest simulator
/// job here takes seconds; a rank waiting for a partner that has gone waits forever).
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The runner binary each rank runs, where cargo built it.
pub const RANK_BIN: &str = env!("CARGO_BIN_EXE_ferrocuda-rank");

/// The runner binary: `FERROCUDA_RANK_BIN` when set, else where cargo built it, else beside
/// this test binary or one folder up (test binaries live in `target/release/deps/`), for test
/// binaries copied to another machine with `ferrocuda-rank`.
pub fn rank_bin() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("FERROCUDA_RANK_BIN") {
        return path.into();
    }
    let built = std::path::PathBuf::from(RANK_BIN);
    if built.is_file() {
        return built;
    }
    let here = std::env::current_exe().ok();
    let dir = here.as_deref().and_then(std::path::Path::parent);
    [dir, dir.and_then(std::path::Path::parent)]
        .into_iter()
        .flatten()
        .map(|d| d.join("ferrocuda-rank"))
        .find(|p| p.is_file())
        .unwrap_or(built)
}

/// `mpirun -np <np> ferrocuda-rank <args>`.
pub fn mpirun(np: usize, args: &[&str]) -> Result<Output, String> {
    mpirun_mpmd(&[(np, args)])
}

/// mpirun's MPMD form, `mpirun -np n1 ferrocuda-rank <args1> : -np n2 ferrocuda-rank <args2>
/// ...`: ranks `0..n1` get `args1`, the next `n2` ranks `args2`. `Err` when `mpirun` is missing
/// or the job outlived [`TIMEOUT`] (then killed with its ranks).
///
/// A job that failed without a byte on stdout or stderr never reached a rank's first line (every
/// rank prints a header, every refusal a sentence): OpenMPI's launcher failed to start, which a
/// loaded CI machine showed once in many runs. That job runs once more, and its second result
/// is the one judged.
pub fn mpirun_mpmd(parts: &[(usize, &[&str])]) -> Result<Output, String> {
    let command = || {
        let mut command = mpirun_command();
        for (i, (np, args)) in parts.iter().enumerate() {
            if i > 0 {
                command.arg(":");
            }
            command.arg("-np").arg(np.to_string()).arg(rank_bin()).args(*args);
        }
        command
    };
    let first = run_with_timeout(command(), TIMEOUT)?;
    if first.status.success() || !first.stdout.is_empty() || !first.stderr.is_empty() {
        return Ok(first);
    }
    eprintln!(
        "mpirun {parts:?} failed to start ({}, no output): running it once more",
        first.status
    );
    run_with_timeout(command(), TIMEOUT)
}

/// `mpirun --oversubscribe` (OpenMPI's), allowed to run as root: the program and ranks follow.
pub fn mpirun_command() -> Command {
    let mut command = Command::new("mpirun");
    // Root (containers, CI) needs both variables; --oversubscribe lets 4 ranks share 2 cores.
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg("--oversubscribe");
    command
}

/// Runs `command` in a process group of its own, capturing its output; after `timeout`, kills
/// the group (mpirun and its ranks) and returns an `Err` starting with "hang".
pub fn run_with_timeout(mut command: Command, timeout: Duration) -> Result<Output, String> {
    use std::os::unix::process::CommandExt;
    let shown = format!("{command:?}");
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start mpirun ({e}): install OpenMPI (`apt-get install openmpi-bin libopenmpi-dev libclang-dev`)"
            )
        })?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status: ExitStatus = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > timeout {
            // mpirun forwards SIGTERM to its ranks; whatever is left of the group then goes.
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
            std::thread::sleep(Duration::from_secs(3));
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
            let stderr = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
            return Err(format!(
                "hang: {shown} ran past {} s and was killed; its stderr: {stderr}",
                timeout.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}
