//! The runner's output against a closed pipe and a full disk: it ends as Unix tools do, never
//! with a panic.
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// The runner: `FERROCUDA_XTASK_BIN` when set (the GPU machine's copy, `.gpu/xtask`), else where
/// cargo built it.
fn xtask() -> std::ffi::OsString {
    std::env::var_os("FERROCUDA_XTASK_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_xtask").into())
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
