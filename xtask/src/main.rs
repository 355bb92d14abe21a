//! The runner: `cargo xtask list | run <id> [options] | bench [options] | ptx [--report | --validate | <kernel>]`.
//!
//! Every failure is one sentence on stderr and a non-zero exit code.
use ferrocuda::{Gpu, ptx};
use ferrocuda_book::examples;
use ferrocuda_book::runner::{self, Flags, open};
use ferrocuda_book::{agreement, bench};
use std::process::ExitCode;

mod mpirun;
mod new;

const USAGE: &str = "usage:
  cargo xtask list
  cargo xtask run <example-id> [--size N] [--precision f32|f64] [--device N] [--reps N] [--backend auto|cuda|sim]
                               [the example's own options: `cargo xtask list` shows them]
  cargo xtask mpirun -np N <example-id> [options]   (an MPI example of chapter 4 on N ranks: builds
                               the runner with --features mpi, then mpirun -np N target/release/xtask run ...)
  cargo xtask bench [--device N] [--size-mib N] [--reps N] [--backend auto|cuda|sim] [--only GROUP,..]

The backend defaults to FERROCUDA_BACKEND, else auto: CUDA when a GPU is present, the CPU simulator
otherwise.
  cargo xtask agree [--device N]     (every kernel on the simulator and on the GPU, compared)
  cargo xtask ptx --report | --validate | <kernel>
  cargo xtask new <name> [--dir <parent>]   (a project of your own, from the examples/dot template)";

fn main() -> ExitCode {
    runner::handle_output_errors();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("run") {
        // The runner prints its own error, naming the MPI rank under mpirun.
        return runner::main_run(&args[1..]);
    }
    match dispatch(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(args: &[String]) -> Result<ExitCode, String> {
    match args.first().map(String::as_str) {
        Some("list") => {
            for e in examples::EXAMPLES {
                println!("{:<26} {}", e.id, e.description);
                for flag in e.flags {
                    let name = match flag.value {
                        Some(value) => format!("{} {value}", flag.name),
                        None => flag.name.to_string(),
                    };
                    println!("{:<26}   {name:<22} {}", "", flag.help);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("mpirun") => mpirun::run(&args[1..]),
        Some("bench") => {
            let flags = Flags::parse(&args[1..], &["--device", "--size-mib", "--reps", "--backend", "--only"])?;
            let gpu = open(&flags)?;
            let settings = bench::Settings {
                working_set_mib: flags
                    .number("--size-mib")?
                    .unwrap_or(bench::Settings::default().working_set_mib),
                reps: flags.number("--reps")?.unwrap_or(bench::Settings::default().reps),
                only: flags
                    .value("--only")
                    .map(|groups| groups.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
            };
            bench::run(&gpu, &settings).map_err(|e| e.to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        Some("agree") => {
            let flags = Flags::parse(&args[1..], &["--device"])?;
            let cuda = Gpu::new(flags.number("--device")?.unwrap_or(0)).map_err(|e| e.to_string())?;
            let sim = Gpu::simulator();
            println!(
                "simulator ({}) against {}:",
                sim.properties().name,
                cuda.properties().name
            );
            let rows = agreement::run(&cuda, &sim).map_err(|e| e.to_string())?;
            Ok(if agreement::print(&rows) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Some("ptx") => ptx_command(&args[1..]),
        Some("new") => new::run(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

fn ptx_command(args: &[String]) -> Result<ExitCode, String> {
    match args.first().map(String::as_str) {
        Some("--report") => {
            for set in ferrocuda_book::KERNEL_SETS {
                for module in set.modules() {
                    println!("== {} {} ==", set.name(), module.arch);
                    let report = ptx::ptxas_verbose(&module)?;
                    print!("{}", ptx::ResourceReport::parse(&report));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("--validate") => {
            for set in ferrocuda_book::KERNEL_SETS {
                for module in set.modules() {
                    ptx::ptxas_verbose(&module)?;
                    println!(
                        "{} {}: {} kernels, valid PTX",
                        set.name(),
                        module.arch,
                        ptx::entry_points(module.ptx).len()
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(kernel) if !kernel.starts_with("--") => {
            let modules = ferrocuda_book::KERNEL_SETS.map(|set| set.modules().next());
            let text = modules
                .iter()
                .flatten()
                .find_map(|m| ptx::entry_ptx(m.ptx, kernel))
                .ok_or_else(|| {
                    let names: Vec<&str> = modules
                        .iter()
                        .flatten()
                        .flat_map(|m| ptx::entry_points(m.ptx))
                        .collect();
                    format!(
                        "no kernel `{kernel}` in this build's PTX; kernels: {}",
                        names.join(", ")
                    )
                })?;
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(format!("`ptx` needs --report, --validate or a kernel name\n{USAGE}")),
    }
}
