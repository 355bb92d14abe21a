//! The runner's output against a closed pipe and a full disk, and its
//! commands' refusals: it ends as Unix tools do, never with a panic or a lost output and exit 0.
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// The runner: `FERROCUDA_XTASK_BIN` when set (the GPU machine's copy, `.gpu/xtask`), else where
/// cargo built it.
fn xtask() -> std::ffi::OsString {
    std::env::var_os("FERROCUDA_XTASK_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_ferrocuda-runner").into())
}
/// SIGPIPE's number on Linux.
const SIGPIPE: i32 = 13;

#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    // A pipe whose reader is gone before the runner starts: its first line meets EPIPE, as
    // `cargo xtask list | head -1` meets it after one line.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = Command::new(xtask())
        .arg("list")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "a closed pipe printed: {stderr}");
    assert_eq!(output.status.signal(), Some(SIGPIPE), "{:?}", output.status);
}

#[test]
fn a_full_disk_is_one_sentence_and_exit_code_2() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let output = Command::new(xtask())
        .arg("list")
        .stdout(full)
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: cannot write the output: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// The runner with `args`, stdout to `/dev/full`.
fn to_full_disk(args: &[&str]) -> std::process::Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    Command::new(xtask())
        .args(args)
        .env("FERROCUDA_BACKEND", "sim")
        .stdout(full)
        .output()
        .expect("xtask runs")
}

/// Fails unless `output` is one sentence on stderr starting `error: ` with `words`, exit code 2.
fn one_sentence(output: &std::process::Output, words: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(words), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn help_that_cannot_be_written_is_an_error() {
    // clap's help was printed with its write error ignored: exit 0, the help lost.
    for args in [&["--help"][..], &["run", "stream", "--help"], &["bench", "--help"]] {
        one_sentence(&to_full_disk(args), "cannot write the output");
    }
}

#[test]
fn bench_groups_that_need_a_gpu_are_refused_on_the_simulator() {
    let output = Command::new(xtask())
        .args(["bench", "--backend", "sim", "--only", "stream", "--reps", "1"])
        .output()
        .expect("xtask runs");
    one_sentence(&output, "--only stream needs a CUDA device");
}

#[test]
fn mpirun_refuses_an_example_that_is_not_mpi() {
    // It ran N independent copies, each printing PASSED.
    let output = Command::new(xtask())
        .args(["mpirun", "-np", "2", "ch1-increment"])
        .output()
        .expect("xtask runs");
    one_sentence(&output, "`ch1-increment` is not an MPI example");
    let help = Command::new(xtask())
        .args(["mpirun", "--help"])
        .output()
        .expect("xtask runs");
    assert!(help.status.success(), "{help:?}");
    assert!(String::from_utf8_lossy(&help.stdout).contains("-np N"), "{help:?}");
}
