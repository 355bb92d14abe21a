//! The runner: `cargo xtask list | run <id> [options] | bench [options] | ptx [--report | --validate | <kernel>]`.
//!
//! Every failure is one sentence on stderr and a non-zero exit code.
use ferrocuda::gpu::BackendChoice;
use ferrocuda::{Error, Gpu, ptx};
use ferrocuda_book::examples::{self, Options};
use ferrocuda_book::{agreement, bench};
use std::process::ExitCode;

mod new;

const USAGE: &str = "usage:
  cargo xtask list
  cargo xtask run <example-id> [--size N] [--precision f32|f64] [--device N] [--reps N] [--backend auto|cuda|sim]
                               [the example's own options: `cargo xtask list` shows them]
  cargo xtask bench [--device N] [--size-mib N] [--reps N] [--backend auto|cuda|sim] [--only GROUP,..]

The backend defaults to FERROCUDA_BACKEND, else auto: CUDA when a GPU is present, the CPU simulator
otherwise.
  cargo xtask agree [--device N]     (every kernel on the simulator and on the GPU, compared)
  cargo xtask ptx --report | --validate | <kernel>
  cargo xtask new <name> [--dir <parent>]   (a project of your own, from the examples/dot template)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
        Some("run") => run(&args[1..]),
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

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some(id) = args.first().filter(|a| !a.starts_with("--")) else {
        return Err("`run` needs an example id; `cargo xtask list` shows them".into());
    };
    let example = examples::find(id).ok_or_else(|| format!("no example `{id}`; `cargo xtask list` shows them"))?;
    let shared = ["--size", "--precision", "--device", "--reps", "--backend"];
    let (flags, own) = Flags::parse_with(&args[1..], &shared, example.flags)?;
    let options = Options {
        size: flags.number("--size")?,
        precision: flags
            .value("--precision")
            .map(str::parse)
            .transpose()
            .map_err(|e: Error| e.to_string())?
            .unwrap_or_default(),
        reps: flags.number("--reps")?.unwrap_or(Options::default().reps),
        flags: own,
    };
    if options.reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    let gpu = open(&flags)?;
    let p = gpu.properties();
    if gpu.is_simulator() {
        println!("== {} on the {} ==", example.id, p.name);
    } else {
        println!(
            "== {} on device {}: {} (sm_{}) ==",
            example.id,
            p.ordinal,
            p.name,
            p.compute_capability_number()
        );
    }
    let outcome = (example.run)(&gpu, &options).map_err(|e| format!("{}: {e}", example.id))?;
    outcome.print();
    Ok(if outcome.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The `Gpu` that `--backend` (or `FERROCUDA_BACKEND`, or auto) and `--device` name; says once
/// when auto falls back to the simulator.
fn open(flags: &Flags) -> Result<Gpu, String> {
    let choice = match flags.value("--backend") {
        Some(value) => value.parse(),
        None => BackendChoice::from_env(),
    }
    .map_err(|e: Error| e.to_string())?;
    let device = flags.number("--device")?.unwrap_or(0);
    let (gpu, why_simulator) = Gpu::open(choice, device).map_err(|e| e.to_string())?;
    if let Some(reason) = why_simulator {
        let reason = match reason {
            Error::NoDriver => "No NVIDIA driver found",
            _ => "The NVIDIA driver reports no GPU",
        };
        println!("{reason}: running on the CPU simulator (its timings are simulator timings, not GPU ones).");
    }
    Ok(gpu)
}

/// `--flag value` pairs, each allowed flag at most once.
struct Flags(Vec<(String, String)>);

impl Flags {
    fn parse(args: &[String], allowed: &[&str]) -> Result<Self, String> {
        Ok(Self::parse_with(args, allowed, &[])?.0)
    }

    /// The shared `allowed` flags, and apart from them an example's own `flags` (switches take
    /// no value).
    fn parse_with(
        args: &[String],
        allowed: &[&str],
        own: &[examples::Flag],
    ) -> Result<(Self, Vec<examples::FlagValue>), String> {
        let (mut pairs, mut own_pairs) = (Vec::new(), Vec::new());
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let own_flag = own.iter().find(|f| f.name == flag);
            if !allowed.contains(&flag.as_str()) && own_flag.is_none() {
                let names: Vec<&str> = allowed.iter().copied().chain(own.iter().map(|f| f.name)).collect();
                return Err(format!("unknown option `{flag}` (allowed: {})", names.join(", ")));
            }
            let value = match own_flag {
                Some(examples::Flag { value: None, .. }) => None,
                _ => Some(it.next().ok_or_else(|| format!("`{flag}` needs a value"))?.clone()),
            };
            match own_flag {
                Some(_) => own_pairs.push((flag.clone(), value)),
                None => pairs.push((flag.clone(), value.unwrap_or_default())),
            }
        }
        Ok((Self(pairs), own_pairs))
    }

    fn value(&self, flag: &str) -> Option<&str> {
        self.0.iter().rev().find(|(f, _)| f == flag).map(|(_, v)| v.as_str())
    }

    fn number(&self, flag: &str) -> Result<Option<usize>, String> {
        self.value(flag)
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("`{flag}` takes a non-negative integer, not `{v}`"))
            })
            .transpose()
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
