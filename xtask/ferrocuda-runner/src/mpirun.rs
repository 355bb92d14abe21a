//! `cargo xtask mpirun -np N <id> [options]`: an MPI example of chapter 4 on N ranks. Builds
//! the runner with `--features mpi` into the same target folder (only the binary relinks when the
//! rest is built), then starts `mpirun -np N target/release/ferrocuda-runner run <id> [options]` and passes
//! its exit code on.
use ferrocuda_book::example::Example;
use ferrocuda_book::examples::thesis::sor_multi::ThesisSorMulti;
use ferrocuda_book::registry;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask mpirun -np N <example-id> [options]";

/// The one sentence for a machine without MPI.
const INSTALL: &str = "`mpirun` is not on the PATH: install OpenMPI (`apt-get install openmpi-bin libopenmpi-dev libclang-dev` on Debian or Ubuntu) and run again";

pub fn run(args: &[String]) -> Result<ExitCode, String> {
    if matches!(args, [flag, ..] if flag == "--help" || flag == "-h") {
        println!(
            "{USAGE}\nRuns an MPI example on N ranks (`cargo xtask list` shows the ids; `cargo xtask run <id> --help` its options)."
        );
        return Ok(ExitCode::SUCCESS);
    }
    let (ranks, rest) = match args {
        [np, n, rest @ ..] if np == "-np" || np == "-n" => {
            let ranks: usize = n
                .parse()
                .ok()
                .filter(|&r| r > 0)
                .ok_or_else(|| format!("`{np}` takes a positive number of ranks, not `{n}`\n{USAGE}"))?;
            (ranks, rest)
        }
        _ => return Err(format!("`mpirun` needs -np N first\n{USAGE}")),
    };
    let Some(id) = rest.first().filter(|id| !id.starts_with('-')) else {
        return Err(format!("`mpirun` needs an example id after -np N\n{USAGE}"));
    };
    if registry::find(id).is_some() && !takes_ranks(id) {
        return Err(format!(
            "`{id}` is not an MPI example, so {ranks} ranks would run {ranks} independent copies: run it with \
             `cargo xtask run {id}`; the MPI examples are {} and {} (--exchange mpi)",
            mpi_ids().join(", "),
            ThesisSorMulti::<f32>::ID
        ));
    }
    let mpirun = on_path("mpirun").ok_or(INSTALL)?;
    let runner = std::env::current_exe().map_err(|e| format!("cannot find the runner's own binary: {e}"))?;
    if !cfg!(feature = "mpi") {
        build_with_mpi()?;
    }
    let open_mpi = Command::new(&mpirun)
        .arg("--version")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("Open MPI"));
    let mut command = Command::new(&mpirun);
    if open_mpi {
        // More ranks than cores is what a one-GPU test of N ranks needs; OpenMPI refuses it
        // unless asked. Root (containers, CI) is refused unless confirmed twice.
        command
            .arg("--oversubscribe")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    command
        .arg("-np")
        .arg(ranks.to_string())
        .arg(&runner)
        .arg("run")
        .args(rest);
    eprintln!("{}", shown(&command));
    let status = command
        .status()
        .map_err(|e| format!("cannot start {}: {e}", mpirun.display()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(2)),
        None => ExitCode::from(2),
    })
}

/// The ids whose ranks work together: chapter 4's MPI examples, and thesis-sor-multi, whose
/// `--exchange mpi` puts one partition on each rank.
fn takes_ranks(id: &str) -> bool {
    registry::find(id).is_some_and(|e| e.is_mpi()) || id == ThesisSorMulti::<f32>::ID
}

/// The ids of the examples that run one process per GPU.
fn mpi_ids() -> Vec<&'static str> {
    registry::EXAMPLES
        .iter()
        .filter(|e| e.is_mpi())
        .map(|e| e.id())
        .collect()
}

/// `cargo build --release -p ferrocuda-runner --features mpi`, in this workspace and target folder.
fn build_with_mpi() -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "ferrocuda-runner",
            "--features",
            "mpi",
            "--manifest-path",
        ])
        .arg(&manifest)
        .status()
        .map_err(|e| format!("cannot start cargo to build the runner with MPI: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the runner with MPI (`cargo build --release -p ferrocuda-runner --features mpi`) failed; if mpicc or libclang is missing: {}",
            "apt-get install openmpi-bin libopenmpi-dev libclang-dev"
        ));
    }
    Ok(())
}

/// The first `name` on the PATH that is a file.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// The command as a shell line, for the user to see (and rerun) what runs.
fn shown(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
