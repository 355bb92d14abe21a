//! One rank of an MPI test: `ferrocuda-rank run <id> [options]` is `cargo xtask run` (the book's
//! runner library, `ferrocuda_book::runner`) in a binary the tests can start under `mpirun`
//! (`tests/ferrocuda-tests/common/mpirun.rs`), built with the tests' `--features mpi`.
use std::process::ExitCode;

fn main() -> ExitCode {
    ferrocuda_book::runner::handle_output_errors();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => ferrocuda_book::runner::main_run(&args[1..]),
        _ => {
            eprintln!("error: usage: ferrocuda-rank run <example-id> [options]");
            ExitCode::from(2)
        }
    }
}
