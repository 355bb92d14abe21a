//! thesis-sor-multi: red-black SOR over several partitions, one host thread each, on one or
//! more GPUs (thesis "Modeling Communication on Multi-GPU Systems", Fig. 5.5, §5.5, §6.2–6.3):
//! the thesis's exchange through pageable host memory against pinned asynchronous copies
//! overlapped with the interior update, peer copies and NCCL (one partition per GPU), or, with
//! `--exchange mpi` under `mpirun`, one partition per MPI process (`sor_multi/mpi.rs`), every final
//! grid checked bit for bit against the one-GPU solver; with `--study`, the thesis's experiments:
//! strong and weak scaling, strips against blocks, border widths, and the time split into
//! compute, transfer and sync.
use super::sor_setup::{AllOr, CPU_BUDGET, GRID_SIZE, Setup, compare, cpu_reference_plan, cpu_solve};
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::plot_option::prefixed;
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::multi::{self, MultiConfig, MultiSolution};
use ferrocuda::sor::partition::Decomposition;
use ferrocuda::sor::single::{Stop, solve_iterations};
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::Check;
use std::marker::PhantomData;
use std::path::Path;

#[cfg(feature = "mpi")]
mod mpi;
mod study;

/// The study's strong-scaling sides (f32: 32768^2 is 4 GiB).
pub const STUDY_SIDES: [usize; 4] = [4096, 8192, 16384, 32768];
pub const SIMULATOR_STUDY_SIDES: [usize; 2] = [66, 130];
/// The study's partition counts, the thesis's GPU counts.
pub const STUDY_PARTITIONS: [usize; 3] = [1, 2, 4];
/// The thesis launcher's border widths (`bsList`).
pub const THESIS_BORDERS: [usize; 11] = [1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100];
pub const SIMULATOR_BORDERS: [usize; 3] = [1, 2, 5];

/// The element types of the multi-GPU solver: [`SorReal`], and MPI's datatype in a build with
/// MPI (`--exchange mpi` sends them).
#[cfg(feature = "mpi")]
pub trait MultiReal: SorReal + ferrocuda::mpi::rsmpi::datatype::Equivalence {}
#[cfg(feature = "mpi")]
impl<T: SorReal + ferrocuda::mpi::rsmpi::datatype::Equivalence> MultiReal for T {}
#[cfg(not(feature = "mpi"))]
pub trait MultiReal: SorReal {}
#[cfg(not(feature = "mpi"))]
impl<T: SorReal> MultiReal for T {}

/// thesis-sor-multi, in precision `T`.
pub struct ThesisSorMulti<T>(PhantomData<T>);

/// A list of device ordinals or sides, given as `0,1,3` (one value of its option).
pub type List = Vec<usize>;

/// thesis-sor-multi's options.
#[derive(clap::Args, Clone, Debug)]
pub struct ThesisSorMultiOptions {
    /// device ordinals to run on, each once; partition r runs on the (r mod count)-th [default: --device's, 0]
    #[arg(long, value_name = "D0,D1,..", value_parser = device_list)]
    pub devices: Option<List>,
    /// partitions, one host thread each (more than the devices share them); with --exchange mpi, the ranks [default: one per device, 4 with blocks]
    #[arg(long, value_name = "P")]
    pub partitions: Option<usize>,
    /// strips or blocks (2 x 2, 4 partitions) [default: strips]
    #[arg(long, value_name = "D")]
    pub decomposition: Option<Decomposition>,
    /// host (the thesis's), pinned, peer, nccl (one partition per GPU), all (nccl where it runs), or mpi (one partition per MPI rank, under mpirun; builds with --features mpi) [default: all]
    #[arg(long, value_name = "E")]
    pub exchange: Option<AllOr<Strategy>>,
    /// update the borders first and send them during the interior update (pinned, peer and mpi only) [default: on]
    #[arg(long, value_name = "on|off", value_parser = on_off, action = clap::ArgAction::Set, default_value = "on", hide_default_value = true)]
    pub overlap: bool,
    /// iterations between exchanges; ghosts are 2 BS deep [default: 1]
    #[arg(long, value_name = "BS")]
    pub border: Option<usize>,
    /// grid rows, boundary included [default: --size]
    #[arg(long, value_name = "M")]
    pub rows: Option<usize>,
    /// red-black iterations [default: 100]
    #[arg(long, value_name = "I")]
    pub iterations: Option<Stop>,
    /// thesis (the optimum capped at 1.9), optimum, or a value in (0, 2) [default: thesis]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    pub omega: Option<Omega>,
    /// gm, lintex or split [default: split]
    #[arg(long, value_name = "K")]
    pub kernel: Option<AllOr<Variant>>,
    /// the thesis's experiments: scaling over 1, 2, 4 partitions, blocks, domain shape (E3), gm vs lintex kernels (E4), weak scaling, border widths; medians and MADs
    #[arg(long)]
    pub study: bool,
    /// with --study: the strong-scaling sides; the largest also sets the shape and blocks experiments [default: 4096,8192,16384,32768; 66,130 on the simulator]
    #[arg(long, value_name = "N1,N2,..", value_parser = side_list, requires = "study")]
    pub sides: Option<List>,
    /// with --study: runs of each configuration, reported as median and MAD [default: the thesis's Table 6.3, 30/20/10/5 by side and 3 for border widths; 1 on the simulator]
    #[arg(long, value_name = "A", value_parser = crate::cli::positive, requires = "study")]
    pub attempts: Option<usize>,
    /// with --study: PNG charts PREFIX-speedup.png, PREFIX-split.png, PREFIX-border.png
    #[arg(long, value_name = "PREFIX.png", value_parser = plot_prefix, requires = "study")]
    pub plot: Option<String>,
}

/// A `--devices` value: device ordinals separated by commas, each once (each is opened once;
/// partitions share devices through `--partitions`).
fn device_list(list: &str) -> std::result::Result<List, String> {
    let mut devices = Vec::new();
    for item in list.split(',') {
        let ordinal = item
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("--devices takes device ordinals separated by commas, such as 0,1, not `{list}`"))?;
        if devices.contains(&ordinal) {
            return Err(format!(
                "--devices names device {ordinal} twice: each device is opened once, and --partitions shares them"
            ));
        }
        devices.push(ordinal);
    }
    Ok(devices)
}

/// A `--sides` value: sides of at least 5 (a strip of 4 partitions needs one interior row
/// each), separated by commas.
fn side_list(list: &str) -> std::result::Result<List, String> {
    list.split(',')
        .map(|side| match side.trim().parse::<usize>() {
            Ok(n) if n >= 5 => Ok(n),
            _ => Err(format!(
                "--sides {list}: each side must be a whole number of at least 5, not `{side}`"
            )),
        })
        .collect()
}

/// An `--overlap` value.
fn on_off(value: &str) -> std::result::Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("--overlap is on or off, not `{other}`")),
    }
}

/// A `--plot PREFIX.png` value whose charts can be written, checked through its first chart's
/// name, [`prefixed`]`(prefix, "speedup")`: the charts are drawn only after the whole study. A
/// prefix with another extension (`sor.svg`, whose charts would be PNG) is checked as it is, and
/// refused as a FILE.png that is not one.
pub fn plot_prefix(value: &str) -> std::result::Result<String, String> {
    let png_or_none = Path::new(value)
        .extension()
        .is_none_or(|e| e.eq_ignore_ascii_case("png"));
    let first = match png_or_none {
        true => prefixed(value, "speedup"),
        false => value.into(),
    };
    crate::plot::staging_file(&first).map_err(|e| e.to_string())?;
    Ok(value.to_string())
}

impl<T: MultiReal> Example for ThesisSorMulti<T> {
    const ID: &'static str = "thesis-sor-multi";
    const DESCRIPTION: &'static str = "red-black SOR on strips or 2x2 blocks over 1..N GPUs, host/pinned/peer/NCCL/MPI border exchange, checked against one GPU (thesis 5.3-5.5, 6.3)";
    const SIZE: Option<Size> = Some(Size {
        unit: "grid points per side, boundary included: the columns, and the rows unless --rows (--study sets its own sides)",
        gpu: 8192,
        ..GRID_SIZE
    });
    type Args = ThesisSorMultiOptions;

    /// The run's peak at `--size n` (`--rows`, `--partitions`, `--border` and `--iterations`
    /// read as the run reads them): on the device the one-GPU grid with a row of rounding, or
    /// the partitions' grids with their ghost rows (`2 BS + 1` each side, both counted as a
    /// whole grid more); on the host the initial grid, the one-GPU grid, the partitioned
    /// solution's grid, the partitions' host copies while they are gathered (one grid), and the
    /// CPU reference where [`CPU_BUDGET`] lets it run. With `--study` the sides are the study's
    /// own on `gpu`: the plan of one run at the largest, 4 strips, border 1, without the CPU
    /// reference (the study compares with one GPU).
    fn memory(run: &Run<ThesisSorMultiOptions>, gpu: &Gpu) -> Option<Footprint> {
        let args = &run.args;
        let (cols, rows, partitions, border, stop) = match args.study {
            true => {
                let side = study_sides(args, gpu).into_iter().max()?;
                (side, side, 4, 1, Some(Stop::Iterations(usize::MAX)))
            }
            false => (
                run.size,
                args.rows.unwrap_or(run.size),
                args.partitions.unwrap_or(4).max(1),
                args.border.unwrap_or(1),
                args.iterations,
            ),
        };
        let ghost_rows = partitions.checked_mul(border.checked_mul(4)?.checked_add(2)?)?;
        let grid = footprint::elements(&[rows, cols])?.checked_add(2 * rows)?;
        let ghosts = footprint::elements(&[ghost_rows, cols])?;
        Footprint::NONE
            .device::<T>(2, grid)?
            .device::<T>(1, ghosts)?
            .host::<T>(5, grid)?
            .host::<T>(1, ghosts)?
            .plus(cpu_reference_plan::<T>(rows, cols, stop)?)
    }

    fn run(gpu: &Gpu, run: &Run<ThesisSorMultiOptions>) -> Result<Outcome> {
        let setup = MultiSetup::new(gpu, run)?;
        #[cfg(feature = "mpi")]
        if setup.strategies.contains(&Strategy::Mpi) {
            return mpi::run::<T>(gpu, &setup, &run.args);
        }
        let opened = open_devices(gpu, &setup.devices)?;
        let gpus: Vec<&Gpu> = opened.iter().map(|g| g.as_ref().unwrap_or(gpu)).collect();
        let checks = match run.args.study {
            // The study's sides are its own; the runner checked their plan before this.
            true => study::study::<T>(&gpus, &setup, &run.args)?,
            false => run_typed::<T>(&gpus, &setup)?,
        };
        Ok(Outcome { checks })
    }
}

/// The study's strong-scaling sides: `--sides`, else [`STUDY_SIDES`] on a GPU and
/// [`SIMULATOR_STUDY_SIDES`] on the simulator.
pub fn study_sides(args: &ThesisSorMultiOptions, gpu: &Gpu) -> List {
    args.sides
        .clone()
        .unwrap_or_else(|| gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]).to_vec())
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
    /// The solver's configuration for `variant`, `strategy` and `partitions`: overlap where
    /// asked and the exchange is asynchronous.
    fn config(&self, variant: Variant, strategy: Strategy, partitions: usize) -> MultiConfig {
        MultiConfig {
            decomposition: self.decomposition,
            partitions,
            strategy,
            overlap: self.overlap && strategy.is_async(),
            border: self.border,
            variant,
            iterations: self.iterations,
            omega: self.base.omega.value(self.base.cols),
        }
    }

    /// The CPU solver's grid after the iterations, where it takes seconds (the thesis's problem
    /// within [`CPU_BUDGET`]): every one-GPU grid is compared with it.
    fn cpu_reference<T: SorReal>(&self, initial: &[T]) -> Result<Option<Vec<T>>> {
        let (rows, cols, iterations) = (self.base.rows, self.base.cols, self.iterations);
        let updates = rows.checked_mul(cols).and_then(|points| points.checked_mul(iterations));
        (self.base.problem == Problem::Thesis && updates.is_some_and(|u| u <= CPU_BUDGET))
            .then(|| cpu_solve(initial, rows, cols, self.base.omega.value(cols), iterations))
            .transpose()
    }

    fn new(gpu: &Gpu, run: &Run<ThesisSorMultiOptions>) -> Result<Self> {
        let args = &run.args;
        let mut base = Setup::new(run.size, args.rows, args.iterations, args.omega)?;
        base.variants = match args.kernel {
            None => vec![Variant::Split],
            Some(AllOr::All) => Variant::ALL.into_iter().filter(|v| v.runs_partitioned()).collect(),
            Some(AllOr::One(variant)) => vec![variant],
        };
        let Stop::Iterations(iterations) = base.stop else {
            return Err(Error::InvalidArgument(
                "the multi-GPU solver runs a fixed iteration count, as the thesis's".into(),
            ));
        };
        let ordinal = gpu.properties().ordinal;
        let devices = args.devices.clone().unwrap_or_else(|| vec![ordinal]);
        if let Some(other) = devices.iter().find(|&&d| gpu.is_simulator() && d != ordinal) {
            return Err(Error::InvalidArgument(format!(
                "the simulator stands for one device, 0, so --devices cannot name device {other}"
            )));
        }
        let decomposition = args.decomposition.unwrap_or_default();
        let default_partitions = match decomposition {
            Decomposition::Blocks => 4,
            Decomposition::Strips => devices.len(),
        };
        let (strategies, all_strategies) = match args.exchange {
            None | Some(AllOr::All) => (Strategy::ALL.to_vec(), true),
            Some(AllOr::One(strategy)) => (vec![strategy], false),
        };
        Ok(Self {
            base,
            devices,
            partitions: args.partitions.unwrap_or(default_partitions),
            decomposition,
            strategies,
            all_strategies,
            overlap: args.overlap,
            border: args.border.unwrap_or(1),
            iterations,
        })
    }
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

/// Runs on `gpus`, the devices of `--devices` in order; the one-GPU solutions on the first.
fn run_typed<T: SorReal>(gpus: &[&Gpu], setup: &MultiSetup) -> Result<Vec<Check>> {
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
    let cpu = setup.cpu_reference(&initial)?;
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
            let config = setup.config(variant, strategy, setup.partitions);
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
