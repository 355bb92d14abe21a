//! The runner: `cargo xtask list | run <id> [options] | mpirun -np N <id> | bench [options] | agree |
//! ptx [--report | --validate | <kernel>]`. `cargo xtask` (the `xtask` package) forwards these
//! here; it makes new projects itself, so that `cargo xtask new` does not build the book.
//!
//! Every failure is one sentence on stderr and a non-zero exit code.
use clap::{Args, Parser};
use ferrocuda::{Gpu, ptx};
use ferrocuda_book::runner::{self, open, report};
use ferrocuda_book::{agreement, bench, cli, registry};
use std::process::ExitCode;

mod mpirun;

/// ferrocuda's runner: the book's examples, the bench, the simulator-against-GPU agreement and the
/// PTX.
#[derive(Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", after_help = AFTER_HELP)]
enum Cli {
    /// Every example id, what it does and its own options.
    List,
    /// Runs one example (`cargo xtask run <id> --help` shows its options).
    #[command(disable_help_flag = true)]
    Run {
        /// The example id and its options.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ID [OPTIONS]")]
        args: Vec<String>,
    },
    /// Runs an MPI example of chapter 4 on N ranks: builds the runner with --features mpi, then
    /// `mpirun -np N target/release/ferrocuda-runner run <id> [options]`.
    #[command(disable_help_flag = true)]
    Mpirun {
        /// -np N, the example id and its options.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "-np N ID [OPTIONS]"
        )]
        args: Vec<String>,
    },
    /// The benchmarks: GB/s, GFLOP/s and ratios against memcpy, nvcc and NVIDIA's libraries.
    Bench(BenchArgs),
    /// Every kernel on the simulator and on the GPU, compared.
    Agree {
        /// The GPU, numbered from 0.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
        device: usize,
    },
    /// The embedded PTX: a kernel's text, ptxas's resource report, or validation.
    Ptx(PtxArgs),
}

const AFTER_HELP: &str =
    "The backend defaults to FERROCUDA_BACKEND, else auto: CUDA when a GPU is present, the CPU simulator otherwise.
`cargo xtask new <NAME> [--dir <PARENT>]` makes a project of your own from the examples/dot template.";

#[derive(Args)]
struct BenchArgs {
    /// The GPU, numbered from 0.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    device: usize,
    /// Working set of the bandwidth rows, MiB.
    #[arg(long, value_name = "MIB", value_parser = cli::positive, default_value_t = bench::Settings::default().working_set_mib)]
    size_mib: usize,
    /// Timed repetitions per row.
    #[arg(long, value_parser = cli::repetitions, default_value_t = bench::Settings::default().reps)]
    reps: usize,
    /// auto, cuda or sim [default: FERROCUDA_BACKEND, else auto].
    #[arg(long, value_parser = |v: &str| v.parse::<ferrocuda::gpu::BackendChoice>().map_err(|e| e.to_string()))]
    backend: Option<ferrocuda::gpu::BackendChoice>,
    /// Only these groups (comma-separated).
    #[arg(long, value_name = "GROUP,..", value_delimiter = ',')]
    only: Vec<String>,
}

#[derive(Args)]
#[group(required = true, multiple = false)]
struct PtxArgs {
    /// ptxas's registers, spills and shared memory for every kernel.
    #[arg(long)]
    report: bool,
    /// Checks every module with ptxas (PTXAS, else ptxas on the PATH).
    #[arg(long)]
    validate: bool,
    /// One kernel's PTX.
    kernel: Option<String>,
}

fn main() -> ExitCode {
    runner::handle_output_errors();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return runner::print_clap(&e),
    };
    let result = match cli {
        // The runner prints its own error, naming the MPI rank under mpirun.
        Cli::Run { args } => return runner::main_run(&args),
        Cli::Mpirun { args } => mpirun::run(&args),
        Cli::List => list(),
        Cli::Bench(args) => run_bench(args),
        Cli::Agree { device } => agree(device),
        Cli::Ptx(args) => ptx_command(args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn list() -> Result<ExitCode, String> {
    for e in registry::EXAMPLES {
        println!("{:<26} {}", e.id(), e.description());
        if let Some(size) = &e.size() {
            println!("{:<26}   {}", "", cli::describe_size(size));
        }
        for (name, help) in cli::own_options(*e) {
            println!("{:<26}   {name:<22} {help}", "");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_bench(args: BenchArgs) -> Result<ExitCode, String> {
    let backend = match args.backend {
        Some(choice) => choice,
        None => ferrocuda::gpu::BackendChoice::from_env().map_err(|e| e.to_string())?,
    };
    let gpu = open(backend, args.device).map_err(|e| report(&e))?;
    let settings = bench::Settings {
        working_set_mib: args.size_mib,
        reps: args.reps,
        only: args.only,
    };
    bench::run(&gpu, &settings).map_err(|e| report(&e))?;
    Ok(ExitCode::SUCCESS)
}

fn agree(device: usize) -> Result<ExitCode, String> {
    let cuda = Gpu::new(device).map_err(|e| report(&e))?;
    let sim = Gpu::simulator();
    println!(
        "simulator ({}) against {}:",
        sim.properties().name,
        cuda.properties().name
    );
    let rows = agreement::run(&cuda, &sim).map_err(|e| report(&e))?;
    Ok(if agreement::print(&rows) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn ptx_command(args: PtxArgs) -> Result<ExitCode, String> {
    match args {
        PtxArgs { report: true, .. } => {
            for set in ferrocuda_book::KERNEL_SETS {
                for module in set.modules() {
                    println!("== {} {} ==", set.name(), module.arch);
                    let report = ptx::ptxas_verbose(&module)?;
                    print!("{}", ptx::ResourceReport::parse(&report));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        PtxArgs { validate: true, .. } => {
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
        PtxArgs {
            kernel: Some(kernel), ..
        } => {
            let modules = ferrocuda_book::KERNEL_SETS.map(|set| set.modules().next());
            let text = modules
                .iter()
                .flatten()
                .find_map(|m| ptx::entry_ptx(m.ptx, &kernel))
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
        _ => Err("`ptx` needs --report, --validate or a kernel name".into()),
    }
}
