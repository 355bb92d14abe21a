//! `cargo xtask`: the workspace's command. `cargo xtask new <NAME> [--dir <PARENT>]` runs here;
//! every other command (`list`, `run`, `mpirun`, `bench`, `agree`, `ptx`, `--help`) goes to the
//! runner, `ferrocuda-runner`, through `cargo run --release`, which builds it on first use.
//!
//! This package depends on nothing, so that making a new project from a fresh clone takes seconds
//! rather than the minutes the runner (which links the whole book) takes to build.
use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod new;

const NEW_USAGE: &str = "usage: cargo xtask new <NAME> [--dir <PARENT>]";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let result = match args.first().and_then(|a| a.to_str()) {
        Some("new") => new_command(&args[1..]),
        _ => forward(&args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// `new`'s arguments: the name, then `--dir PARENT` (or `--dir=PARENT`), in any order.
fn new_command(args: &[OsString]) -> Result<ExitCode, String> {
    let mut name: Option<String> = None;
    let mut dir = PathBuf::from(".");
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let text = arg
            .to_str()
            .ok_or_else(|| format!("`{}` is not UTF-8\n{NEW_USAGE}", arg.to_string_lossy()))?;
        match text {
            "-h" | "--help" => {
                println!(
                    "{NEW_USAGE}\nMakes <PARENT>/<NAME>/, a project of your own from the examples/dot template: a host package and its kernel crate, with tests that run on the CPU simulator."
                );
                return Ok(ExitCode::SUCCESS);
            }
            "--dir" => {
                let value = rest.next().ok_or(format!("`--dir` needs a folder\n{NEW_USAGE}"))?;
                dir = PathBuf::from(value);
            }
            _ if text.starts_with("--dir=") => dir = PathBuf::from(&text["--dir=".len()..]),
            _ if text.starts_with('-') => return Err(format!("`new` has no option `{text}`\n{NEW_USAGE}")),
            _ if name.is_some() => return Err(format!("`new` takes one name, and `{text}` is a second\n{NEW_USAGE}")),
            _ => name = Some(text.to_string()),
        }
    }
    let name = name.ok_or(format!("`new` needs the project's name\n{NEW_USAGE}"))?;
    new::run(&name, &dir)
}

/// Runs the runner with `args` (`cargo run --quiet --release -p ferrocuda-runner -- args`), in
/// this workspace, and passes its exit code on.
fn forward(args: &[OsString]) -> Result<ExitCode, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = workspace_root()?.join("Cargo.toml");
    let status = Command::new(cargo)
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "ferrocuda-runner",
            "--manifest-path",
        ])
        .arg(&manifest)
        .arg("--")
        .args(args)
        .status()
        .map_err(|e| format!("cannot start cargo to run the runner: {e}"))?;
    Ok(match (status.code(), status.signal()) {
        (Some(0), _) => ExitCode::SUCCESS,
        (Some(code), _) => ExitCode::from(u8::try_from(code).unwrap_or(2)),
        // Killed by a signal (a closed pipe, Ctrl-C): 128 + its number, as a shell reports it.
        (None, Some(signal)) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(2)),
        (None, None) => ExitCode::from(2),
    })
}

/// The ferrocuda checkout: two folders above this package (`xtask/xtask`).
fn workspace_root() -> Result<&'static Path, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .ok_or_else(|| "the xtask package is not two folders inside the ferrocuda checkout".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_with(args: &[&str]) -> Result<ExitCode, String> {
        new_command(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn new_refuses_bad_arguments_in_one_sentence_and_the_usage() {
        for (args, words) in [
            (&[][..], "needs the project's name"),
            (&["a", "b"][..], "takes one name, and `b` is a second"),
            (&["--bogus"][..], "has no option `--bogus`"),
            (&["app", "--dir"][..], "`--dir` needs a folder"),
        ] {
            let message = new_with(args).expect_err("refused");
            assert!(
                message.contains(words) && message.ends_with(NEW_USAGE),
                "{args:?}: {message}"
            );
        }
    }

    #[test]
    fn new_checks_the_parent_folder_after_the_arguments() {
        let message = new_with(&["app", "--dir=/no/such/folder"]).expect_err("refused");
        assert!(message.contains("`/no/such/folder` does not exist"), "{message}");
    }
}
