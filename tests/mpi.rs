//! The MPI examples of chapter 4 (book §4.2) under `mpirun` with 1, 2 and 4 ranks (oversubscribed:
//! on the simulator here, all ranks on one GPU or round-robin over several on a GPU machine), and
//! failing ranks: the job must end non-zero within the timeout, naming the rank, never hang.
//! Needs the feature `mpi` and `mpirun`: `cargo test --release -p ferrocuda-tests --features mpi
//! --test mpi`.
mod common;
#[path = "common/mpirun.rs"]
mod mpirun;

use common::{CpuTest, TestResult, ensure};
use mpirun::{mpirun, mpirun_mpmd};
use std::process::Output;

/// Rank counts every MPI example runs with.
const RANKS: [usize; 3] = [1, 2, 4];

/// The job's standard output when it succeeded and printed PASSED; its output and standard error
/// in the failure otherwise.
fn passes(np: usize, args: &[&str]) -> Result<String, String> {
    let output = mpirun(np, args)?;
    let (stdout, stderr) = texts(&output);
    ensure(output.status.success() && stdout.lines().any(|l| l == "PASSED"), || {
        format!(
            "{args:?} on {np} ranks: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            output.status
        )
    })?;
    Ok(stdout)
}

fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Fails unless some line of `text` starts with `prefix` and contains `part`.
fn has_line(text: &str, prefix: &str, part: &str) -> TestResult {
    ensure(text.lines().any(|l| l.starts_with(prefix) && l.contains(part)), || {
        format!("no line `{prefix}...{part}...` in:\n{text}")
    })
}

/// A job that must fail: non-zero exit within the timeout, standard error naming `rank`.
fn fails_naming_rank(parts: &[(usize, &[&str])], rank: usize, why: &str) -> TestResult {
    let output = mpirun_mpmd(parts)?;
    let (stdout, stderr) = texts(&output);
    ensure(!output.status.success(), || {
        format!("the job succeeded although {why}:\n{stdout}")
    })?;
    let named = format!("rank {rank}");
    ensure(
        stderr
            .lines()
            .any(|l| l.starts_with("error: ") && l.contains(&named) && l.contains(why)),
        || format!("no `error: ... {named} ... {why}` line in stderr:\n{stderr}"),
    )
}

fn assign_device(np: usize) -> TestResult {
    let stdout = passes(np, &["run", "ch4-mpi-assign-device"])?;
    for rank in 0..np {
        has_line(&stdout, &format!("[{rank}] host: "), ", device: ")?;
    }
    has_line(&stdout, "== ch4-mpi-assign-device on ", &format!("on {np} MPI rank(s)"))
}

fn ch4_mpi_assign_device_1_rank() -> TestResult {
    assign_device(1)
}
fn ch4_mpi_assign_device_2_ranks() -> TestResult {
    assign_device(2)
}
fn ch4_mpi_assign_device_4_ranks() -> TestResult {
    assign_device(4)
}

/// Rank 1 given an unknown option fails before MPI starts; the job still ends, naming it.
fn mpi_bad_option_fails_before_mpi_starts() -> TestResult {
    let good: &[&str] = &["run", "ch4-mpi-assign-device"];
    let bad: &[&str] = &["run", "ch4-mpi-assign-device", "--no-such-option", "1"];
    fails_naming_rank(&[(1, good), (1, bad)], 1, "unknown option `--no-such-option`")
}

/// `--device` is refused under MPI: each rank's device is MPI's choice.
fn mpi_device_option_refused() -> TestResult {
    fails_naming_rank(
        &[(2, &["run", "ch4-mpi-assign-device", "--device", "0"])],
        0,
        "takes no --device",
    )
}

fn main() {
    let _ = RANKS;
    let cpu_tests: Vec<CpuTest> = vec![
        ("ch4_mpi_assign_device_1_rank", ch4_mpi_assign_device_1_rank),
        ("ch4_mpi_assign_device_2_ranks", ch4_mpi_assign_device_2_ranks),
        ("ch4_mpi_assign_device_4_ranks", ch4_mpi_assign_device_4_ranks),
        (
            "mpi_bad_option_fails_before_mpi_starts",
            mpi_bad_option_fails_before_mpi_starts,
        ),
        ("mpi_device_option_refused", mpi_device_option_refused),
    ];
    common::main(cpu_tests, vec![])
}
