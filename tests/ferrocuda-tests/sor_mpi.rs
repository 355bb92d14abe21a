//! The thesis's red-black SOR with the MPI exchange (`thesis-sor-multi --exchange mpi`, one
//! partition per rank) under `mpirun` with 1, 2 and 4 ranks (oversubscribed: on the simulator
//! here, all ranks on one GPU or round-robin over several on a GPU machine): strips and 2 x 2
//! blocks, border 1 and 2, overlap on and off, f32 and f64, each final grid equal bit for bit to
//! the one-GPU grid (rank 0's check), PASSED and a zero exit code; and the refusals.
//! Needs the feature `mpi` and `mpirun`: `cargo test --release -p ferrocuda-tests --features mpi
//! --test sor_mpi`.
mod common;
#[path = "common/mpirun.rs"]
mod mpirun;

use common::{CpuTest, TestResult, ensure};
use mpirun::mpirun;
use std::process::Output;

/// Small on purpose (2 cores, 4 ranks on the simulator): 41 rows cut into 4 strips of at least
/// 4 rows (border 2's ghosts), an odd column count (the split layout's last compacted column),
/// blocks cut at column 18; 7 iterations, so that border 2 ends on a shorter period.
const GRID: [&str; 6] = ["--size", "37", "--rows", "41", "--iterations", "7"];

/// The (border, overlap, precision) each decomposition runs with.
const CASES: [(&str, &str, &str); 4] = [
    ("1", "on", "f32"),
    ("2", "off", "f64"),
    ("1", "off", "f64"),
    ("2", "on", "f32"),
];

fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `thesis-sor-multi --exchange mpi` with `extra` on `np` ranks: the job must succeed (every
/// rank's exit code 0), print PASSED, rank 0's bit-for-bit check of the MPI grid against one
/// GPU, a thesis line per rank and the time per iteration.
fn mpi_solve_passes(np: usize, decomposition: &str, extra: &[&str]) -> TestResult {
    let mut args = vec![
        "run",
        "thesis-sor-multi",
        "--exchange",
        "mpi",
        "--decomposition",
        decomposition,
    ];
    args.extend_from_slice(&GRID);
    args.extend_from_slice(extra);
    let output = mpirun(np, &args)?;
    let (stdout, stderr) = texts(&output);
    let shown = || {
        format!(
            "{args:?} on {np} rank(s): {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            output.status
        )
    };
    ensure(output.status.success(), shown)?;
    // Rank 0's verdict, then one line per other rank.
    ensure(stdout.lines().filter(|l| *l == "PASSED").count() == np, shown)?;
    let check = format!("mpi exchange, {decomposition} over {np} ranks vs one GPU: max abs error 0.000e0");
    ensure(
        stdout.lines().any(|l| l.contains(&check) && l.ends_with("PASSED")),
        shown,
    )?;
    for rank in 0..np {
        ensure(
            stdout.lines().any(|l| l.starts_with(&format!("   t{rank} (GPU "))),
            shown,
        )?;
        ensure(
            stdout.lines().any(|l| l.starts_with(&format!(" [{rank}] host: "))),
            shown,
        )?;
    }
    ensure(
        stdout.lines().any(|l| {
            l.starts_with(&format!(
                "   time per iteration, mpi exchange, {decomposition} over {np} partition(s): "
            ))
        }),
        shown,
    )
}

fn cases(np: usize, decomposition: &str) -> TestResult {
    for (border, overlap, precision) in CASES {
        let extra = ["--border", border, "--overlap", overlap, "--precision", precision];
        mpi_solve_passes(np, decomposition, &extra)?;
    }
    Ok(())
}

fn thesis_sor_multi_mpi_strips_1_rank() -> TestResult {
    cases(1, "strips")
}

fn thesis_sor_multi_mpi_strips_2_ranks() -> TestResult {
    cases(2, "strips")
}

fn thesis_sor_multi_mpi_strips_4_ranks() -> TestResult {
    cases(4, "strips")
}

fn thesis_sor_multi_mpi_blocks_4_ranks() -> TestResult {
    cases(4, "blocks")
}

/// The natural layout's kernels (the split one is the default above), over blocks' two phases.
fn thesis_sor_multi_mpi_natural_layout_kernels() -> TestResult {
    mpi_solve_passes(4, "blocks", &["--kernel", "gm", "--border", "2"])?;
    mpi_solve_passes(3, "strips", &["--kernel", "lintex", "--precision", "f64"])
}

/// A job that must be refused: non-zero exit within the timeout, one `error:` line in standard
/// error naming a rank and saying `why`, and no PASSED.
fn refused(np: usize, extra: &[&str], why: &str) -> TestResult {
    let mut args = vec!["run", "thesis-sor-multi", "--exchange", "mpi"];
    args.extend_from_slice(&GRID);
    args.extend_from_slice(extra);
    let output = mpirun(np, &args)?;
    let (stdout, stderr) = texts(&output);
    let shown = || {
        format!(
            "{args:?} on {np} rank(s): {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            output.status
        )
    };
    ensure(!output.status.success() && !stdout.contains("PASSED"), shown)?;
    ensure(
        stderr.lines().any(|l| l.starts_with("error: rank ") && l.contains(why)),
        shown,
    )
}

fn thesis_sor_multi_mpi_refuses_partitions_other_than_ranks() -> TestResult {
    refused(
        2,
        &["--partitions", "3"],
        "the MPI exchange runs one partition per rank: 3 partition(s) asked for, and 2 rank(s) started",
    )?;
    refused(
        2,
        &["--decomposition", "blocks"],
        "blocks are 2 x 2: they need 4 partitions, not 2",
    )
}

fn thesis_sor_multi_mpi_refuses_devices_and_study() -> TestResult {
    refused(2, &["--devices", "0"], "--devices does not apply with --exchange mpi")?;
    refused(1, &["--study"], "--exchange mpi runs one configuration per mpirun")
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("thesis_sor_multi_mpi_strips_1_rank", thesis_sor_multi_mpi_strips_1_rank),
        (
            "thesis_sor_multi_mpi_strips_2_ranks",
            thesis_sor_multi_mpi_strips_2_ranks,
        ),
        (
            "thesis_sor_multi_mpi_strips_4_ranks",
            thesis_sor_multi_mpi_strips_4_ranks,
        ),
        (
            "thesis_sor_multi_mpi_blocks_4_ranks",
            thesis_sor_multi_mpi_blocks_4_ranks,
        ),
        (
            "thesis_sor_multi_mpi_natural_layout_kernels",
            thesis_sor_multi_mpi_natural_layout_kernels,
        ),
        (
            "thesis_sor_multi_mpi_refuses_partitions_other_than_ranks",
            thesis_sor_multi_mpi_refuses_partitions_other_than_ranks,
        ),
        (
            "thesis_sor_multi_mpi_refuses_devices_and_study",
            thesis_sor_multi_mpi_refuses_devices_and_study,
        ),
    ];
    common::main(cpu_tests, vec![])
}
