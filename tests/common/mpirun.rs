//! `mpirun` for the MPI tests: the runner binary `ferrocuda-rank` (`run <id> [options]`) on N
//! ranks, oversubscribed (the ranks share this machine's cores and its one GPU or simulator),
//! killed after [`TIMEOUT`] so that a job that hangs fails its test instead of the whole run.
//! Include it with `#[path = "common/mpirun.rs"] mod mpirun;` from a test that has the feature
//! `mpi` (the binary exists only then).
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest an MPI job may take before the test calls it a hang (the largest simulator
/// job here takes seconds; a rank waiting for a partner that has gone waits forever).
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The runner binary each rank runs.
pub const RANK_BIN: &str = env!("CARGO_BIN_EXE_ferrocuda-rank");

/// `mpirun -np <np> ferrocuda-rank <args>`.
pub fn mpirun(np: usize, args: &[&str]) -> Result<Output, String> {
    mpirun_mpmd(&[(np, args)])
}

/// mpirun's MPMD form, `mpirun -np n1 ferrocuda-rank <args1> : -np n2 ferrocuda-rank <args2>
/// ...`: ranks `0..n1` get `args1`, the next `n2` ranks `args2`. `Err` when `mpirun` is missing
/// or the job outlived [`TIMEOUT`] (then killed with its ranks).
pub fn mpirun_mpmd(parts: &[(usize, &[&str])]) -> Result<Output, String> {
    let mut command = Command::new("mpirun");
    // Root (containers, CI) needs both variables; --oversubscribe lets 4 ranks share 2 cores.
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg("--oversubscribe");
    for (i, (np, args)) in parts.iter().enumerate() {
        if i > 0 {
            command.arg(":");
        }
        command.arg("-np").arg(np.to_string()).arg(RANK_BIN).args(*args);
    }
    run_with_timeout(command, TIMEOUT)
}

/// Runs `command` in a process group of its own, capturing its output; kills the group after
/// `timeout`.
fn run_with_timeout(mut command: Command, timeout: Duration) -> Result<Output, String> {
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
