//! thesis-sor-multi: red-black SOR over several partitions, one host thread each, on one or
//! more GPUs (thesis "Modeling Communication on Multi-GPU Systems", Fig. 5.5, §5.5, §6.2–6.3):
//! the thesis's exchange through pageable host memory against pinned asynchronous copies
//! overlapped with the interior update, peer copies and NCCL (one partition per GPU), or, with
//! `--exchange mpi` under `mpirun`, one partition per MPI process (`sor_multi/mpi.rs`), every final
//! grid checked bit for bit against the one-GPU solver; with `--study`, the thesis's experiments:
//! strong and weak scaling, strips against blocks, border widths, and the time split into
//! compute, transfer and sync.
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome, Precision};
use crate::examples::thesis::sor_setup::{self, CPU_BUDGET, Setup, compare};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::multi::{self, MultiConfig, MultiSolution};
use ferrocuda::sor::partition::Decomposition;
use ferrocuda::sor::single::{Stop, solve_iterations};
use ferrocuda::sor::{Problem, SorReal, Variant};
use ferrocuda::verify::Check;

#[cfg(feature = "mpi")]
mod mpi;
mod study;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "thesis-sor-multi",
    description: "red-black SOR on strips or 2x2 blocks over 1..N GPUs, host/pinned/peer/NCCL/MPI border exchange, checked against one GPU (thesis 5.3-5.5, 6.3)",
    size: Some(LegacySize {
        unit: "grid points per side, boundary included: the columns, and the rows unless --rows (--study sets its own sides)",
        gpu: N,
        simulator: SIMULATOR_N,
        min: 3,
        max: u32::MAX as usize / 2,
        memory,
    }),
    f64: true,
    reps: false,
    flags: &[
        Flag {
            name: "--devices",
            value: Some("D0,D1,.."),
            help: "device ordinals to run on, each once; partition r runs on the (r mod count)-th [default: --device's, 0]",
            requires: None,
        },
        Flag {
            name: "--partitions",
            value: Some("P"),
            help: "partitions, one host thread each (more than the devices share them); with --exchange mpi, the ranks [default: one per device, 4 with blocks]",
            requires: None,
        },
        Flag {
            name: "--decomposition",
            value: Some("D"),
            help: "strips or blocks (2 x 2, 4 partitions) [default: strips]",
            requires: None,
        },
        Flag {
            name: "--exchange",
            value: Some("E"),
            help: "host (the thesis's), pinned, peer, nccl (one partition per GPU), all (nccl where it runs), or mpi (one partition per MPI rank, under mpirun; builds with --features mpi) [default: all]",
            requires: None,
        },
        Flag {
            name: "--overlap",
            value: Some("on|off"),
            help: "update the borders first and send them during the interior update (pinned, peer and mpi only) [default: on]",
            requires: None,
        },
        Flag {
            name: "--border",
            value: Some("BS"),
            help: "iterations between exchanges; ghosts are 2 BS deep [default: 1]",
            requires: None,
        },
        Flag {
            name: "--rows",
            value: Some("M"),
            help: "grid rows, boundary included [default: --size]",
            requires: None,
        },
        Flag {
            name: "--iterations",
            value: Some("I"),
            help: "red-black iterations [default: 100]",
            requires: None,
        },
        Flag {
            name: "--omega",
            value: Some("W"),
            help: "thesis (the optimum capped at 1.9), optimum, or a value in (0, 2) [default: thesis]",
            requires: None,
        },
        Flag {
            name: "--kernel",
            value: Some("K"),
            help: "gm, lintex or split [default: split]",
            requires: None,
        },
        Flag {
            name: "--study",
            value: None,
            help: "the thesis's experiments: scaling over 1, 2, 4 partitions, blocks, domain shape (E3), gm vs lintex kernels (E4), weak scaling, border widths; medians and MADs",
            requires: None,
        },
        Flag {
            name: "--sides",
            value: Some("N1,N2,.."),
            help: "with --study: the strong-scaling sides; the largest also sets the shape and blocks experiments [default: 4096,8192,16384,32768; 66,130 on the simulator]",
            requires: Some("--study"),
        },
        Flag {
            name: "--attempts",
            value: Some("A"),
            help: "with --study: runs of each configuration, reported as median and MAD [default: the thesis's Table 6.3, 30/20/10/5 by side and 3 for border widths; 1 on the simulator]",
            requires: Some("--study"),
        },
        Flag {
            name: "--plot",
            value: Some("PREFIX.png"),
            help: "with --study: PNG charts PREFIX-speedup.png, PREFIX-split.png, PREFIX-border.png",
            requires: Some("--study"),
        },
    ],
    run,
};

/// The default side on a GPU.
pub const N: usize = 8192;
/// The default side on the simulator.
pub const SIMULATOR_N: usize = 130;
/// The study's strong-scaling sides (f32: 32768^2 is 4 GiB).
pub const STUDY_SIDES: [usize; 4] = [4096, 8192, 16384, 32768];
pub const SIMULATOR_STUDY_SIDES: [usize; 2] = [66, 130];
/// The study's partition counts, the thesis's GPU counts.
pub const STUDY_PARTITIONS: [usize; 3] = [1, 2, 4];
/// The thesis launcher's border widths (`bsList`).
pub const THESIS_BORDERS: [usize; 11] = [1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100];
pub const SIMULATOR_BORDERS: [usize; 3] = [1, 2, 5];

/// The run's peak at `--size n` (`--rows`, `--precision`, `--kernel`, `--partitions`,
/// `--border` and `--iterations` read as the run reads them): on the device the one-GPU grid
/// with a row of rounding, or the partitions' grids with their ghost rows (`2 BS + 1` each side,
/// both counted as a whole grid more); on the host the initial grid, the one-GPU grid, the
/// partitioned solution's grid, the partitions' host copies while they are gathered (one grid),
/// and the CPU reference where [`CPU_BUDGET`] lets it run. With `--study` the sides are the
/// study's own on `gpu` ([`study_plan`] of the largest).
pub fn memory(options: &Options, gpu: &Gpu, n: usize) -> Option<Footprint> {
    if options.switch("--study") {
        let sides = study_sides(options, gpu).ok()?;
        return study_plan(options, gpu, sides.iter().copied().max()?);
    }
    let (rows, _, points, element_bytes) = sor_setup::grid_of(options, n)?;
    let partitions = options
        .parsed::<usize>("--partitions")
        .ok()
        .flatten()
        .unwrap_or(4)
        .max(1);
    let border = options.parsed::<usize>("--border").ok().flatten().unwrap_or(1);
    let ghost_rows = partitions.checked_mul(border.checked_mul(4)?.checked_add(2)?)?;
    let grid_bytes = points.checked_add(2 * rows)?.checked_mul(element_bytes)?;
    let ghost_bytes = ghost_rows.checked_mul(n)?.checked_mul(element_bytes)?;
    let mut plan = Footprint::NONE
        .device::<u8>(2, grid_bytes)?
        .device::<u8>(1, ghost_bytes)?
        .host::<u8>(5, grid_bytes)?
        .host::<u8>(1, ghost_bytes)?;
    if sor_setup::cpu_reference_may_run(options, points) {
        plan = plan.plus(sor_setup::cpu_reference_plan(rows, points, element_bytes)?)?;
    }
    Some(plan)
}

/// The study's strong-scaling sides: `--sides`, else [`STUDY_SIDES`] on a GPU and
/// [`SIMULATOR_STUDY_SIDES`] on the simulator; a sentence for a list that does not parse or
/// names a side below 5 (a strip of 4 partitions needs one interior row each).
pub fn study_sides(options: &Options, gpu: &Gpu) -> Result<Vec<usize>> {
    let Some(list) = options.value("--sides") else {
        return Ok(gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]).to_vec());
    };
    list.split(',')
        .map(|side| match side.trim().parse::<usize>() {
            Ok(n) if n >= 5 => Ok(n),
            _ => Err(Error::InvalidArgument(format!(
                "--sides {list}: each side must be a whole number of at least 5, not `{side}`"
            ))),
        })
        .collect()
}

/// The peak of `--study` whose largest grid has `side` points a side (the weak scaling's
/// `4 n0 x n0` strips are no larger): the plan of one run at that side, without the CPU
/// reference (the study compares with one GPU).
pub fn study_plan(options: &Options, gpu: &Gpu, side: usize) -> Option<Footprint> {
    let study = Options {
        flags: vec![("--iterations".into(), Some("1000000000000".into()))],
        ..options.clone()
    };
    memory(&study, gpu, side)
}

/// The options beyond the one-GPU example's.
#[derive(Clone, Debug)]
struct MultiSetup {
    base: Setup,
    /// The device ordinals of `--devices`, in order, each once.
    devices: Vec<usize>,
    partitions: usize,
    decomposition: Decomposition,
    strategies: Vec<Strategy>,
    /// `--exchange all`: NCCL too, where it runs.
    all_strategies: bool,
    overlap: bool,
    border: usize,
    /// Red-black iterations (`--iterations`; a tolerance is refused).
    iterations: usize,
}

impl MultiSetup {
    fn from_options(gpu: &Gpu, options: &Options) -> Result<Self> {
        let mut base = Setup::from_options(gpu, options, (N, SIMULATOR_N))?;
        if options.value("--kernel").is_none() {
            base.variants = vec![Variant::Split];
        }
        if options.value("--kernel") == Some("all") {
            base.variants.retain(|v| v.runs_partitioned());
        }
        let Stop::Iterations(iterations) = base.stop else {
            return Err(Error::InvalidArgument(
                "the multi-GPU solver runs a fixed iteration count, as the thesis's".into(),
            ));
        };
        let devices = parse_devices(options.value("--devices"), gpu.properties().ordinal)?;
        if let Some(other) = devices
            .iter()
            .find(|&&d| gpu.is_simulator() && d != gpu.properties().ordinal)
        {
            return Err(Error::InvalidArgument(format!(
                "the simulator stands for one device, 0, so --devices cannot name device {other}"
            )));
        }
        let decomposition: Decomposition = options.parsed("--decomposition")?.unwrap_or_default();
        let default_partitions = if decomposition == Decomposition::Blocks {
            4
        } else {
            devices.len()
        };
        let all_strategies = matches!(options.value("--exchange"), None | Some("all"));
        let strategies = match options.value("--exchange") {
            Some(s) if !all_strategies => vec![s.parse()?],
            _ => Strategy::ALL.to_vec(),
        };
        let overlap = match options.value("--overlap") {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => return Err(Error::InvalidArgument(format!("--overlap is on or off, not `{other}`"))),
        };
        Ok(Self {
            base,
            devices,
            partitions: options.parsed("--partitions")?.unwrap_or(default_partitions),
            decomposition,
            strategies,
            all_strategies,
            overlap,
            border: options.parsed("--border")?.unwrap_or(1),
            iterations,
        })
    }
}

/// The device ordinals `list` names (`0,1,3`), in order, or `default` alone when it is not
/// given; a device named twice is refused (each is opened once; partitions share devices through
/// `--partitions`).
fn parse_devices(list: Option<&str>, default: usize) -> Result<Vec<usize>> {
    let Some(list) = list else {
        return Ok(vec![default]);
    };
    let mut devices = Vec::new();
    for item in list.split(',') {
        let ordinal = item.trim().parse::<usize>().map_err(|_| {
            Error::InvalidArgument(format!(
                "--devices takes device ordinals separated by commas, such as 0,1, not `{list}`"
            ))
        })?;
        if devices.contains(&ordinal) {
            return Err(Error::InvalidArgument(format!(
                "--devices names device {ordinal} twice: each device is opened once, and --partitions shares them"
            )));
        }
        devices.push(ordinal);
    }
    Ok(devices)
}

/// The devices of `--devices` beyond `gpu`, the runner's (the one of `--device`), each opened
/// once: `None` where the ordinal is `gpu`'s own, which is used as it is.
fn open_devices(gpu: &Gpu, devices: &[usize]) -> Result<Vec<Option<Gpu>>> {
    devices
        .iter()
        .map(|&ordinal| match ordinal == gpu.properties().ordinal {
            true => Ok(None),
            false => Gpu::new(ordinal).map(Some),
        })
        .collect()
}

pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let setup = MultiSetup::from_options(gpu, options)?;
    #[cfg(feature = "mpi")]
    if setup.strategies.contains(&Strategy::Mpi) {
        return mpi::run(gpu, &setup, options);
    }
    let opened = open_devices(gpu, &setup.devices)?;
    let gpus: Vec<&Gpu> = opened.iter().map(|g| g.as_ref().unwrap_or(gpu)).collect();
    let checks = match options.precision {
        Precision::F32 => run_typed::<f32>(&gpus, &setup, options)?,
        Precision::F64 => run_typed::<f64>(&gpus, &setup, options)?,
    };
    Ok(Outcome { checks })
}

/// Runs on `gpus`, the devices of `--devices` in order; the one-GPU solutions on the first.
fn run_typed<T: SorReal>(gpus: &[&Gpu], setup: &MultiSetup, options: &Options) -> Result<Vec<Check>> {
    if options.switch("--study") {
        // The study's sides are its own; the runner checked their plan ([`memory`]) before this.
        return study::study::<T>(gpus, setup, options);
    }
    let gpu = gpus[0];
    let (rows, cols, iterations) = (setup.base.rows, setup.base.cols, setup.iterations);
    let omega = setup.base.omega.value(cols);
    let initial: Vec<T> = setup.base.problem.initial(rows, cols)?;
    println!(
        " {rows} x {cols} {}, {} problem, omega = {omega:.6}, {iterations} iterations, {} over {} partition(s) on {} GPU(s) ({}), border {} (ghosts {} deep)",
        T::NAME,
        setup.base.problem,
        setup.decomposition,
        setup.partitions,
        gpus.len(),
        gpus.iter()
            .map(|g| format!("{}: {}", g.properties().ordinal, g.properties().name))
            .collect::<Vec<_>>()
            .join(", "),
        setup.border,
        2 * setup.border
    );
    print_header();
    let mut strategies = setup.strategies.clone();
    if setup.all_strategies {
        let refused = match setup.partitions {
            0 | 1 => Some("one partition exchanges nothing".to_string()),
            p => Strategy::nccl_refused(gpus, p),
        };
        match refused {
            None => strategies.push(Strategy::Nccl),
            Some(why) => println!(" nccl exchange skipped: {why}"),
        }
    }
    // The CPU solver, once, where it takes seconds: every one-GPU grid is compared with it.
    let updates = rows.checked_mul(cols).and_then(|points| points.checked_mul(iterations));
    let cpu = (setup.base.problem == Problem::Thesis && updates.is_some_and(|u| u <= CPU_BUDGET)).then(|| {
        let mut cpu = ferrocuda::footprint::try_with_capacity(initial.len())?;
        cpu.extend_from_slice(&initial);
        crate::progress::spinner(&format!("CPU reference: {iterations} iterations"))
            .in_scope(|| ferrocuda::sor::cpu::solve(&mut cpu, rows, cols, omega, iterations))
            .map(|()| cpu)
    });
    let cpu = cpu.transpose()?;
    let mut checks = Vec::new();
    let mut csv = Vec::new();
    for &variant in &setup.base.variants {
        let one = solve_iterations(gpu, variant, &initial, rows, cols, omega, iterations)?;
        if let Some(cpu) = &cpu {
            checks.push(compare(&format!("{variant}, one GPU vs CPU"), &one.grid, cpu));
        }
        let one_ms = one.elapsed_ms / iterations.max(1) as f64;
        print_one_gpu_row(variant, one_ms);
        for &strategy in &strategies {
            let config = MultiConfig {
                decomposition: setup.decomposition,
                partitions: setup.partitions,
                strategy,
                overlap: setup.overlap && strategy.is_async(),
                border: setup.border,
                variant,
                iterations,
                omega,
            };
            let solution = multi::solve(gpus, &initial, rows, cols, config)?;
            csv.push(print_row(&config, &solution, (rows, cols), one_ms));
            if strategy == Strategy::HostSync {
                print_thread_lines(gpus, &solution, iterations);
            }
            checks.push(compare(
                &format!("{variant}, {strategy} exchange, {} vs one GPU", setup.decomposition),
                &solution.grid,
                &one.grid,
            ));
        }
    }
    println!(" M;N;Border_Size;MKT[ms];MST[ms];MTT[ms];MCT[ms];Elapsed Time[s]");
    for line in csv {
        println!(" {line}");
    }
    Ok(checks)
}

/// The table's header, above the one-GPU and the multi-partition rows.
fn print_header() {
    println!(
        " {:<7} {:<8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>9}",
        "kernel", "exchange", "overlap", "MKT[ms]", "MST[ms]", "MTT[ms]", "MCT[ms]", "loop[ms/it]", "ET[s]", "vs 1 GPU"
    );
}

/// The one-GPU row: its time per iteration, `one_ms`, in the loop column.
fn print_one_gpu_row(variant: Variant, one_ms: f64) {
    println!(
        " {variant:<7} {:<8} {:>7} {:>9.4} {:>9} {:>9} {:>9} {one_ms:>11.4} {:>9} {:>9}",
        "1 GPU", "-", one_ms, "-", "-", "-", "-", "1.00"
    );
}

/// Prints the row of `solution` (a solve of a `rows x cols` grid as `config` says), then its time
/// per iteration, the line to compare across exchanges (threads or MPI ranks); returns the
/// thesis's CSV line.
fn print_row<T>(
    config: &MultiConfig,
    solution: &MultiSolution<T>,
    (rows, cols): (usize, usize),
    one_ms: f64,
) -> String {
    let iterations = config.iterations;
    let [mkt, mst, mtt, mct] = solution.metrics(iterations);
    let loop_ms = solution.loop_time.as_secs_f64() * 1e3 / iterations.max(1) as f64;
    println!(
        " {:<7} {:<8} {:>7} {mkt:>9.4} {mst:>9.4} {mtt:>9.4} {mct:>9.4} {loop_ms:>11.4} {:>9.4} {:>9.2}",
        config.variant,
        config.strategy,
        if config.overlap { "on" } else { "off" },
        solution.elapsed.as_secs_f64(),
        one_ms / loop_ms
    );
    println!(
        "   time per iteration, {} exchange, {} over {} partition(s): {loop_ms:.4} ms (the slowest partition's loop / {iterations}; one GPU {one_ms:.4} ms)",
        config.strategy, config.decomposition, config.partitions
    );
    format!(
        "{rows};{cols};{};{mkt:.6};{mst:.6};{mtt:.6};{mct:.6};{:.9}",
        config.border,
        solution.elapsed.as_secs_f64()
    )
}

/// The thesis's per-thread lines (`t%d avarage RSOR kernel time per iteration`, ...), for the
/// exchange it implemented, each with its device's ordinal.
fn print_thread_lines<T>(gpus: &[&Gpu], solution: &MultiSolution<T>, iterations: usize) {
    for r in &solution.ranks {
        let per = |d: std::time::Duration| d.as_secs_f64() * 1e3 / r.exchanges.max(1) as f64;
        println!(
            "   t{} (GPU {}): total kernel time {:.3} ms, MKT {:.4}; total transfer time {:.3} ms, MTT {:.4}; total synchronization time {:.3} ms, MST {:.4}; MCT {:.4}",
            r.rank,
            gpus.get(r.device).map_or(r.device, |g| g.properties().ordinal),
            r.kernel_ms,
            r.kernel_ms / iterations.max(1) as f64,
            r.times.transfer.as_secs_f64() * 1e3,
            per(r.times.transfer),
            r.times.sync.as_secs_f64() * 1e3,
            per(r.times.sync),
            per(r.times.transfer + r.times.sync)
        );
    }
}
