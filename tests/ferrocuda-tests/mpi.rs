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
use std::time::{Duration, Instant};

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
    has_line(&stdout, "== ch4-mpi-assign-device on ", &format!("on {np} MPI rank(s)"))?;
    for rank in 0..np {
        has_line(&stdout, &format!("[{rank}] host: "), ", device: ")?;
        // On the simulator each rank has its own and sees its own array only; ranks sharing a
        // GPU see each other's (all allocate before any reads).
        let seen = if on_simulator() { "allocated: 1" } else { "allocated: " };
        has_line(&stdout, &format!("[{rank}] device arrays allocated: "), seen)?;
    }
    Ok(())
}

fn devices(np: usize) -> TestResult {
    let stdout = passes(np, &["run", "ch4-mpi-devices"])?;
    for rank in 0..np {
        has_line(&stdout, &format!("[{rank}] using device: "), " in compute mode: ")?;
        for allocating in 0..np {
            let line = format!("[{rank}] after allocation on rank: {allocating}, device arrays allocated: ");
            // On the simulator every rank has its own device: it sees its own array only, from
            // its own turn on. (On a GPU the count depends on how many ranks share it.)
            let seen = if on_simulator() {
                format!("allocated: {}", usize::from(rank <= allocating))
            } else {
                String::new()
            };
            has_line(&stdout, &line, &seen)?;
        }
    }
    Ok(())
}

fn transpose(id: &str, np: usize) -> TestResult {
    let stdout = passes(np, &["run", id, "--reps", "2"])?;
    has_line(&stdout, &format!("nprocs: {np}, Local input array size: "), "x")?;
    has_line(&stdout, "mpiTileDim: ", "x")?;
    has_line(&stdout, "Bandwidth (GB/s): ", "ms per transpose")?;
    has_line(&stdout, "one GPU, same kernel, no MPI: Bandwidth (GB/s): ", "ms")?;
    for rank in 0..np {
        has_line(&stdout, &format!("  [{rank}] pack "), "kernel")?;
        has_line(&stdout, &format!("  [{rank}] rank {rank}'s output slab"), "PASSED")?;
    }
    Ok(())
}

/// True when the tests run on the simulator (as the ranks will: same environment).
fn on_simulator() -> bool {
    common::gpu().as_ref().is_ok_and(ferrocuda::Gpu::is_simulator)
}

/// One test function per line: `name => body;`.
macro_rules! tests {
    ($($name:ident => $body:expr;)*) => {
        $(fn $name() -> TestResult { $body })*
    };
}

tests! {
    ch4_mpi_devices_1_rank => devices(1);
    ch4_mpi_devices_2_ranks => devices(2);
    ch4_mpi_devices_4_ranks => devices(4);
    ch4_mpi_assign_device_1_rank => assign_device(1);
    ch4_mpi_assign_device_2_ranks => assign_device(2);
    ch4_mpi_assign_device_4_ranks => assign_device(4);
    ch4_transpose_mpi_1_rank => transpose("ch4-transpose-mpi", 1);
    ch4_transpose_mpi_2_ranks => transpose("ch4-transpose-mpi", 2);
    ch4_transpose_mpi_4_ranks => transpose("ch4-transpose-mpi", 4);
    ch4_transpose_mpi_gpuaware_1_rank => transpose("ch4-transpose-mpi-gpuaware", 1);
    ch4_transpose_mpi_gpuaware_2_ranks => transpose("ch4-transpose-mpi-gpuaware", 2);
    ch4_transpose_mpi_gpuaware_4_ranks => transpose("ch4-transpose-mpi-gpuaware", 4);
}

/// Rank 1 given a size its layout refuses (100 is not 2 tiles of a multiple of 32) fails
/// after MPI has started, while rank 0 waits for it in a collective: the job must still end.
fn ch4_transpose_mpi_failing_rank_ends_the_job() -> TestResult {
    let good: &[&str] = &["run", "ch4-transpose-mpi"];
    let bad: &[&str] = &["run", "ch4-transpose-mpi", "--size", "100"];
    fails_naming_rank(&[(1, good), (1, bad)], 1, "must be multiples of cudaTileDim")
}

/// The same for the GPU-aware variant, with rank 2 of 3 failing.
fn ch4_transpose_mpi_gpuaware_failing_rank_ends_the_job() -> TestResult {
    let good: &[&str] = &["run", "ch4-transpose-mpi-gpuaware", "--size", "192"];
    let bad: &[&str] = &["run", "ch4-transpose-mpi-gpuaware", "--size", "100"];
    fails_naming_rank(&[(2, good), (1, bad)], 2, "must be multiples of nDevices")
}

/// Ranks given different valid sizes refuse together instead of exchanging mismatched tiles.
fn ch4_transpose_mpi_sizes_must_agree() -> TestResult {
    let a: &[&str] = &["run", "ch4-transpose-mpi", "--size", "128"];
    let b: &[&str] = &["run", "ch4-transpose-mpi", "--size", "256"];
    let output = mpirun_mpmd(&[(1, a), (1, b)])?;
    let (_, stderr) = texts(&output);
    ensure(
        !output.status.success() && stderr.contains("different --size values"),
        || {
            format!(
                "mismatched sizes were not refused: {}
{stderr}",
                output.status
            )
        },
    )
}

/// Rank 1 given an unknown option fails before MPI starts; the job still ends, naming it.
fn mpi_bad_option_fails_before_mpi_starts() -> TestResult {
    let good: &[&str] = &["run", "ch4-mpi-assign-device"];
    let bad: &[&str] = &["run", "ch4-mpi-assign-device", "--no-such-option", "1"];
    fails_naming_rank(
        &[(1, good), (1, bad)],
        1,
        "unexpected argument '--no-such-option' found",
    )
}

/// `--device` is refused under MPI: each rank's device is MPI's choice, so an MPI id's command
/// line has no such option (clap's sentence).
fn mpi_device_option_refused() -> TestResult {
    fails_naming_rank(
        &[(2, &["run", "ch4-mpi-assign-device", "--device", "0"])],
        0,
        "unexpected argument '--device' found",
    )
}

/// The helper's timeout works: a job whose ranks never finish (`sleep`) is killed, with its
/// ranks, and reported as a hang, long before they would end.
fn mpirun_helper_reports_and_kills_a_hang() -> TestResult {
    let mut command = mpirun::mpirun_command();
    command.args(["-np", "2", "sleep", "300"]);
    let start = Instant::now();
    let result = mpirun::run_with_timeout(command, Duration::from_secs(2));
    ensure(start.elapsed() < Duration::from_secs(60), || {
        format!("the hung job took {:?} to be killed", start.elapsed())
    })?;
    match result {
        Err(e) if e.starts_with("hang") => Ok(()),
        Err(e) => Err(format!("not reported as a hang: {e}")),
        Ok(output) => Err(format!("the hung job was not killed: {}", output.status)),
    }
}

/// Child action: `ch4-transpose-mpi` called as a plain example (`Example::run`, no runner, no
/// mpirun): it starts MPI itself, as a job of one rank, on the GPU or simulator given.
fn in_process_child(_args: &[&str]) -> TestResult {
    let gpu = common::gpu().as_ref().map_err(|e| e.to_string())?;
    common::passes_with(gpu, "ch4-transpose-mpi", &["--reps", "1"])
}

/// An MPI example's `Example::run` works outside the runner (one rank, MPI started in process).
fn ch4_transpose_mpi_in_process() -> TestResult {
    let stdout = common::child_output("in-process")?;
    has_line(&stdout, "nprocs: 1, Local input array size: ", "x")
}

fn main() {
    common::run_child_action(&[("in-process", in_process_child)]);
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "mpirun_helper_reports_and_kills_a_hang",
            mpirun_helper_reports_and_kills_a_hang,
        ),
        ("ch4_mpi_devices_1_rank", ch4_mpi_devices_1_rank),
        ("ch4_mpi_devices_2_ranks", ch4_mpi_devices_2_ranks),
        ("ch4_mpi_devices_4_ranks", ch4_mpi_devices_4_ranks),
        ("ch4_mpi_assign_device_1_rank", ch4_mpi_assign_device_1_rank),
        ("ch4_mpi_assign_device_2_ranks", ch4_mpi_assign_device_2_ranks),
        ("ch4_mpi_assign_device_4_ranks", ch4_mpi_assign_device_4_ranks),
        ("ch4_transpose_mpi_1_rank", ch4_transpose_mpi_1_rank),
        ("ch4_transpose_mpi_2_ranks", ch4_transpose_mpi_2_ranks),
        ("ch4_transpose_mpi_4_ranks", ch4_transpose_mpi_4_ranks),
        ("ch4_transpose_mpi_gpuaware_1_rank", ch4_transpose_mpi_gpuaware_1_rank),
        ("ch4_transpose_mpi_gpuaware_2_ranks", ch4_transpose_mpi_gpuaware_2_ranks),
        ("ch4_transpose_mpi_gpuaware_4_ranks", ch4_transpose_mpi_gpuaware_4_ranks),
        (
            "ch4_transpose_mpi_failing_rank_ends_the_job",
            ch4_transpose_mpi_failing_rank_ends_the_job,
        ),
        (
            "ch4_transpose_mpi_gpuaware_failing_rank_ends_the_job",
            ch4_transpose_mpi_gpuaware_failing_rank_ends_the_job,
        ),
        ("ch4_transpose_mpi_sizes_must_agree", ch4_transpose_mpi_sizes_must_agree),
        ("ch4_transpose_mpi_in_process", ch4_transpose_mpi_in_process),
        (
            "mpi_bad_option_fails_before_mpi_starts",
            mpi_bad_option_fails_before_mpi_starts,
        ),
        ("mpi_device_option_refused", mpi_device_option_refused),
    ];
    common::main(cpu_tests, vec![])
}
