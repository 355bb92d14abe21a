//! course-heat: the IT4I course's capstone, "HeatFlow: GPU Accelerated Version" (hands-on H7).
//! The course gives only the title, so this mini-app is **our own design** and reproduces
//! nothing of the course: the 2-D heat equation `u_t = alpha (u_xx + u_yy)` by explicit FTCS,
//! with the course's lessons put together: a global-memory kernel beside a shared-memory tiled
//! one (halo loads, several steps per launch), snapshots copied out on a second stream while
//! the next steps run, and a picture of the result.
//!
//! It checks every snapshot against the rayon CPU reference bit for bit, the final field
//! against the decaying Fourier mode (the scheme's own error is known exactly, see
//! [`problem::Problem::discretisation_error`]), the total heat with insulated edges, and the
//! O(h^2) convergence in f64.
pub mod image;
pub mod problem;
pub mod snapshots;
pub mod solver;
pub mod study;

use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::plot_option::writable_png;
use crate::reference::course::heat::Field;
use book_kernels::course::heat::HALO;
use ferrocuda::footprint::{self, Footprint, try_with_capacity};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::measure::{gb_per_s, memcpy_gb_per_s};
use ferrocuda::verify::{Check, Tolerance};
use problem::{Edges, FieldStats, Grid, Problem, parse_mode};
use snapshots::{Plan, Report};
use solver::{HeatReal, Kernel, Solver};
use std::marker::PhantomData;
use std::path::PathBuf;

/// course-heat, in precision `T`.
pub struct CourseHeat<T>(PhantomData<T>);

/// course-heat's own options.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseHeatOptions {
    /// grid rows, boundary included [default: --size, the columns]
    #[arg(long, value_name = "M")]
    pub rows: Option<usize>,
    /// fixed temperatures or zero flux through mirrored ghost cells
    #[arg(long, value_name = "dirichlet|insulated", value_enum, default_value_t = Edges::Dirichlet, hide_possible_values = true)]
    pub edges: Edges,
    /// dt as a fraction of the stability limit h^2 / (4 alpha), in (0, 1]
    #[arg(long, value_name = "C", default_value_t = CFL)]
    pub cfl: f64,
    /// time steps [default: 2000 on a GPU, 200 on the simulator]
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// steps between snapshots copied to the host [default: 200 on a GPU, 50 on the simulator]
    #[arg(long, value_name = "K")]
    pub snapshot_every: Option<usize>,
    /// the step kernel
    #[arg(long, value_name = "global|tiled|all", value_enum, default_value_t = Kernels::All, hide_possible_values = true)]
    pub kernel: Kernels,
    /// steps of the tiled kernel per launch, 1 to 4
    #[arg(long, value_name = "S", default_value_t = HALO)]
    pub steps_per_launch: usize,
    /// a decaying Fourier mode with an exact solution, or a hot disc
    #[arg(long, value_name = "mode|hotspot", value_enum, default_value_t = ProblemKind::Mode, hide_possible_values = true)]
    pub problem: ProblemKind,
    /// the Fourier mode's half-waves along x and y [default: 1,1]
    #[arg(long, value_name = "K,L", value_parser = parse_mode)]
    pub mode: Option<(u32, u32)>,
    /// write the final field as a PNG heat map
    #[arg(long, value_name = "FILE.png", value_parser = writable_png)]
    pub plot: Option<PathBuf>,
}

/// `--kernel`: one step kernel, or both.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    Global,
    Tiled,
    All,
}

impl Kernels {
    /// The kernels it runs.
    pub fn list(self) -> &'static [Kernel] {
        match self {
            Kernels::Global => &[Kernel::Global],
            Kernels::Tiled => &[Kernel::Tiled],
            Kernels::All => &Kernel::ALL,
        }
    }
}

/// `--problem`: the initial temperature, the mode's half-waves aside (`--mode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    Mode,
    Hotspot,
}

/// The default side on a GPU: 4096^2 points, 64 MiB a field in f32, beyond the H100's L2.
pub const N: usize = 4096;
/// The default side on the simulator.
pub const SIMULATOR_N: usize = 128;
/// Default steps (GPU, simulator).
pub const STEPS: (usize, usize) = (2000, 200);
/// Default steps between snapshots (GPU, simulator): on a GPU the CPU reference, within its
/// [`CPU_BUDGET`], follows 4096^2 points to step 238, so the first snapshot is at 200.
pub const SNAPSHOT_EVERY: (usize, usize) = (200, 50);
/// Default fraction of the stability limit: 0.8, away from 1/3, where the leading error terms
/// of space and time cancel for the (1, 1) mode and the error would fall faster than h^2.
pub const CFL: f64 = 0.8;
/// Point updates beyond which the CPU reference stops following the snapshots (the kernels are
/// then compared with one another, bit for bit, through a hash of each snapshot).
pub const CPU_BUDGET: usize = 4_000_000_000;
/// Rounding allowed per step in the error against the exact solution and in the total heat, in
/// units of the precision's epsilon times the field's scale: an update rounds a handful of
/// times, each within half an epsilon of the values it combines, and FTCS with cfl <= 1 never
/// amplifies an earlier error (its weights are non-negative and sum to 1).
pub const ROUNDING_EPSILONS_PER_STEP: f64 = 4.0;

/// Host bytes a run keeps per snapshot until it ends, counted generously: its step (the plan's
/// list), its two events (the host's handles and the driver's records) and its interval.
pub const SNAPSHOT_RECORD_BYTES: usize = 512;

/// The run's parameters, from the options.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub grid: Grid,
    pub problem: Problem,
    pub plan: Plan,
    pub solvers: Vec<Solver>,
    pub plot: Option<PathBuf>,
}

impl Setup {
    /// The setup `run` asks for, or one sentence saying what is wrong.
    pub fn new(gpu: &Gpu, run: &Run<CourseHeatOptions>) -> Result<Self> {
        let (cols, args) = (run.size, &run.args);
        let grid = Grid::new(args.rows.unwrap_or(cols), cols, args.edges, args.cfl)?;
        let (k, l) = args.mode.unwrap_or((1, 1));
        let problem = match (args.problem, args.mode) {
            (ProblemKind::Mode, _) => Problem::Mode { k, l },
            (ProblemKind::Hotspot, None) => Problem::Hotspot,
            (ProblemKind::Hotspot, Some(_)) => {
                return Err(Error::InvalidArgument(
                    "--mode applies to --problem mode, not to the hot spot".into(),
                ));
            }
        };
        problem.check(&grid)?;
        let plan = Plan::new(
            args.steps.unwrap_or(gpu.pick(STEPS.0, STEPS.1)),
            args.snapshot_every
                .unwrap_or(gpu.pick(SNAPSHOT_EVERY.0, SNAPSHOT_EVERY.1)),
        )?;
        let solvers = args
            .kernel
            .list()
            .iter()
            .map(|&kernel| match kernel {
                Kernel::Global => Solver::new(kernel, 1),
                Kernel::Tiled => Solver::new(kernel, args.steps_per_launch),
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            grid,
            problem,
            plan,
            solvers,
            plot: args.plot.clone(),
        })
    }
}

impl<T: HeatReal> Example for CourseHeat<T> {
    const ID: &'static str = "course-heat";
    const DESCRIPTION: &'static str = "2-D heat equation, FTCS (our own design for the course's HeatFlow capstone): global vs shared-tile kernels, snapshots on a second stream, vs rayon and the analytic mode";
    const SIZE: Option<Size> = Some(Size::new("grid points per side, boundary included: the columns, and the rows unless --rows (at least 3 with Dirichlet edges, 1 with insulated ones)", N, SIMULATOR_N).at_least(3).at_most(u32::MAX as usize));
    const REPS: bool = true;
    type Args = CourseHeatOptions;

    /// The run's peak at `--size n` (`--rows`, `--precision`, `--steps`, `--snapshot-every` and
    /// `--kernel` read as the run reads them): the three fields of the step kernels on the device (the
    /// memcpy measurement's two fields come before them); on the host the initial field, the CPU
    /// reference's two fields (when its budget lets it follow the first snapshot), the pinned
    /// snapshot buffers, each kernel's final field, and the record of every snapshot. Where a
    /// default differs between a GPU and the simulator, the larger plan is taken.
    fn memory(run: &Run<CourseHeatOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let (n, args) = (run.size, &run.args);
        let points = footprint::elements(&[args.rows.unwrap_or(n), n])?;
        let field_bytes = points.checked_mul(size_of::<T>())?;
        let steps = args.steps.unwrap_or(STEPS.0);
        // The simulator's default interval, the smaller, makes the most snapshots.
        let every = args.snapshot_every.unwrap_or(SNAPSHOT_EVERY.1).max(1);
        let first_snapshot = every.min(steps).max(1);
        let reference_fields = match points.checked_mul(first_snapshot) {
            Some(updates) if updates <= CPU_BUDGET => 2,
            _ => 0,
        };
        let snapshots = steps.div_ceil(every.min(SNAPSHOT_EVERY.0)).max(1);
        let pinned_bytes = field_bytes.max(snapshots.checked_mul(field_bytes)?.min(snapshots::PINNED_BUDGET_BYTES));
        let kernels = args.kernel.list().len();
        Footprint::NONE
            .device::<u8>(3, field_bytes)?
            .host::<u8>(1 + reference_fields + kernels, field_bytes)?
            .host::<u8>(1, pinned_bytes)?
            .host::<u8>(steps.div_ceil(every), SNAPSHOT_RECORD_BYTES)
    }

    fn run(gpu: &Gpu, run: &Run<CourseHeatOptions>) -> Result<Outcome> {
        let setup = Setup::new(gpu, run)?;
        println!(" course-heat is our own design: the course names its HeatFlow capstone and nothing more.");
        let mut checks = run_typed::<T>(gpu, &setup, run.reps)?;
        checks.extend(study::convergence_study(gpu, setup.grid.edges)?);
        Ok(Outcome { checks })
    }
}

/// One row of a run's table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapshotRow {
    pub step: usize,
    pub stats: FieldStats,
    /// `max |u - exact|`, where the exact solution is known.
    pub error: Option<f64>,
}

/// Everything one kernel's run produced.
pub struct KernelRun<T> {
    pub solver: Solver,
    pub rows: Vec<SnapshotRow>,
    pub report: Report,
    /// The snapshots the CPU followed, compared with its fields (`None`: beyond its budget).
    pub cpu: Option<Check>,
    pub final_field: Vec<T>,
}

/// Runs `solver` with snapshots; `cpu`, when given, is the CPU field and the last step it
/// follows: each snapshot up to that step is compared with it, bit for bit.
pub fn run_kernel<T: HeatReal>(
    gpu: &Gpu,
    setup: &Setup,
    solver: Solver,
    initial: &[T],
    mut cpu: Option<(&mut Field<T>, usize)>,
) -> Result<KernelRun<T>> {
    let (grid, problem, steps) = (setup.grid, setup.problem, setup.plan.steps);
    let dt = grid.dt::<T>();
    let mut rows = vec![SnapshotRow {
        step: 0,
        stats: FieldStats::of(&grid, initial),
        error: problem.max_error(&grid, initial, 0.0),
    }];
    let mut cpu_check: Option<Check> = None;
    let mut final_field = Vec::new();
    let budget = snapshots::PINNED_BUDGET_BYTES;
    let report = snapshots::run_with_budget(gpu, solver, &grid, initial, setup.plan, budget, &mut |step, field| {
        rows.push(SnapshotRow {
            step,
            stats: FieldStats::of(&grid, field),
            error: problem.max_error(&grid, field, step as f64 * dt),
        });
        if let Some((reference, limit)) = cpu.as_mut()
            && step <= *limit
        {
            reference.advance_to(step);
            let check = Check::compare("", field, &reference.values, Tolerance::EXACT);
            // Each snapshot is a field of its own: a mismatch's index is its point in the field.
            match cpu_check.as_mut() {
                None => cpu_check = Some(check),
                Some(merged) => merged.absorb(check, 0),
            }
        }
        if step == steps {
            final_field = try_with_capacity(field.len())?;
            final_field.extend_from_slice(field);
        }
        Ok(())
    })?;
    Ok(KernelRun {
        solver,
        rows,
        report,
        cpu: cpu_check,
        final_field,
    })
}

/// The largest snapshot step the CPU reference follows within [`CPU_BUDGET`] (0: none).
pub fn cpu_limit(grid: &Grid, plan: &Plan) -> usize {
    plan.snapshot_steps()
        .into_iter()
        .filter(|&s| grid.points().saturating_mul(s) <= CPU_BUDGET)
        .max()
        .unwrap_or(0)
}

/// Runs every kernel of `setup`, prints their tables, and checks them.
pub fn run_typed<T: HeatReal>(gpu: &Gpu, setup: &Setup, reps: usize) -> Result<Vec<Check>> {
    let (grid, plan) = (setup.grid, setup.plan);
    let initial: Vec<T> = setup.problem.initial(&grid)?;
    let dt = grid.dt::<T>();
    println!(
        " {}: {} x {} {}, {} edges, {}, h = {:.4e}, dt = {dt:.4e} (cfl {}), {} steps to t = {:.4e}, a snapshot every {} ({})",
        gpu.properties().name,
        grid.rows,
        grid.cols,
        T::NAME,
        grid.edges,
        setup.problem,
        grid.h,
        grid.cfl,
        plan.steps,
        plan.steps as f64 * dt,
        plan.every,
        gpu.timing_label()
    );
    let field_bytes = grid.points() * size_of::<T>();
    let memcpy = memcpy_gb_per_s(gpu, field_bytes, reps)?;
    let limit = cpu_limit(&grid, &plan);
    let (rows, cols, edges) = (grid.rows, grid.cols, grid.edges.code());
    let mut reference = (limit > 0)
        .then(|| Field::new(&initial, rows, cols, edges, grid.r::<T>()))
        .transpose()?;
    let mut runs: Vec<KernelRun<T>> = Vec::new();
    for &solver in &setup.solvers {
        // The CPU follows the first kernel; the others are compared with that one's bits.
        let cpu = reference
            .as_mut()
            .filter(|_| runs.is_empty())
            .map(|field| (field, limit));
        let run = run_kernel(gpu, setup, solver, &initial, cpu)?;
        print_table(gpu, &grid, &run, memcpy, size_of::<T>());
        runs.push(run);
    }
    if gpu.is_simulator() {
        println!(
            " On the simulator streams do not run concurrently: each step and snapshot copy ran synchronously when issued (the same computation, without overlap)."
        );
    }
    let mut checks = Vec::new();
    let Some(first) = runs.first() else {
        return Ok(checks);
    };
    match &first.cpu {
        Some(check) => checks.push(Check {
            what: format!(
                "{} snapshots to step {limit} vs CPU (rayon), bit for bit",
                first.solver.kernel
            ),
            ..check.clone()
        }),
        None => println!(
            " CPU reference skipped: {} points x {} steps is beyond its budget of {CPU_BUDGET} point updates",
            grid.points(),
            plan.every.min(plan.steps)
        ),
    }
    if limit > 0 && limit < plan.steps {
        println!(
            " the CPU reference followed the snapshots to step {limit} (its budget of {CPU_BUDGET} point updates); the kernels are compared with one another to step {}",
            plan.steps
        );
    }
    for other in &runs[1..] {
        let same = other.rows.len() == first.rows.len()
            && other
                .rows
                .iter()
                .zip(&first.rows)
                .all(|(a, b)| a.step == b.step && a.stats.bits_hash == b.stats.bits_hash);
        checks.push(Check::condition(
            &format!(
                "{}: every snapshot has the bits of {}'s",
                other.solver.kernel, first.solver.kernel
            ),
            same,
        ));
    }
    checks.extend(analytic_check::<T>(setup, first));
    checks.extend(heat_check::<T>(setup, first));
    if let Some(path) = &setup.plot {
        let title = format!(
            "course-heat: {} x {}, {} edges, t = {:.3e}",
            grid.rows,
            grid.cols,
            grid.edges,
            plan.steps as f64 * dt
        );
        image::write_heat_map(path, &title, &first.final_field, grid.rows, grid.cols)?;
        println!(" heat map of the final field written to {}", path.display());
    }
    Ok(checks)
}

/// Prints one kernel's table: a row per snapshot, with the bandwidth of the steps since the
/// previous one (one read and one write per point per step).
fn print_table<T>(gpu: &Gpu, grid: &Grid, run: &KernelRun<T>, memcpy: f64, element_bytes: usize) {
    println!(" {}:", run.solver);
    println!(
        " {:>7} {:>12} {:>12} {:>14} {:>16} {:>9} {:>8}",
        "step", "time", "max |u|", "total heat", "max |u - exact|", "GB/s", "/memcpy"
    );
    let dt = grid.dt::<f64>();
    for (k, row) in run.rows.iter().enumerate() {
        let rate = k.checked_sub(1).and_then(|i| run.report.intervals.get(i)).map(|iv| {
            gb_per_s(
                grid.bytes_per_step(element_bytes) * (iv.to_step - iv.from_step),
                iv.elapsed_ms,
            )
        });
        println!(
            " {:>7} {:>12.4e} {:>12.6} {:>14.6e} {:>16} {:>9} {:>8}",
            row.step,
            row.step as f64 * dt,
            row.stats.max_abs,
            row.stats.heat,
            row.error.map_or("-".into(), |e| format!("{e:.4e}")),
            rate.map_or("-".into(), |r| format!("{r:.1}")),
            rate.map_or("-".into(), |r| format!("{:.3}", r / memcpy)),
        );
    }
    let steps = run.rows.last().map_or(0, |r| r.step);
    let rate = gb_per_s(grid.bytes_per_step(element_bytes) * steps, run.report.total_ms);
    println!(
        " {steps} steps in {:.3} ms ({}): {rate:.1} GB/s, {:.3} of memcpy ({memcpy:.0} GB/s); {} pinned snapshot buffer(s), {} wait(s) for the device to reuse one",
        run.report.total_ms,
        gpu.timing_label(),
        rate / memcpy,
        run.report.slots,
        run.report.drains
    );
}

/// The final field against the Fourier mode: the measured error must be the scheme's own
/// (known exactly) within the rounding allowance.
fn analytic_check<T: HeatReal>(setup: &Setup, run: &KernelRun<T>) -> Option<Check> {
    let steps = setup.plan.steps;
    let predicted = setup.problem.discretisation_error::<T>(&setup.grid, steps)?;
    let measured = run.rows.last()?.error?;
    let scale = run.rows.first()?.stats.max_abs;
    let allowance = ROUNDING_EPSILONS_PER_STEP * T::EPSILON * (steps + 1) as f64 * scale;
    println!(
        " analytic: max |u - exact| = {measured:.4e} after {steps} steps; the scheme's own error |G^n - exp(-lambda t)| max|mode| = {predicted:.4e}; rounding allowance {allowance:.2e}"
    );
    Some(Check::condition(
        &format!(
            "error vs the exact mode {measured:.3e} = the scheme's {predicted:.3e} within rounding ({allowance:.1e})"
        ),
        (measured - predicted).abs() <= allowance,
    ))
}

/// With insulated edges, the total heat of every snapshot equals the initial one within the
/// rounding allowance.
fn heat_check<T: HeatReal>(setup: &Setup, run: &KernelRun<T>) -> Option<Check> {
    if setup.grid.edges != Edges::Insulated {
        return None;
    }
    let initial = run.rows.first()?.stats;
    // The f64 sums of the statistics round too: a few epsilons of f64 per point.
    let summing = setup.grid.points() as f64 * f64::EPSILON * initial.abs_heat;
    let drifts: Vec<(f64, f64)> = run
        .rows
        .iter()
        .map(|row| {
            let allowed = ROUNDING_EPSILONS_PER_STEP * T::EPSILON * row.step as f64 * initial.abs_heat + summing;
            ((row.stats.heat - initial.heat).abs(), allowed)
        })
        .collect();
    let conserved = drifts.iter().all(|(drift, allowed)| drift <= allowed);
    let (worst, allowed_at_worst) = drifts
        .iter()
        .copied()
        .max_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)))
        .unwrap_or((0.0, 0.0));
    println!(
        " total heat (insulated edges): initial {:.6e}, largest drift {worst:.3e} (allowed there {allowed_at_worst:.3e})",
        initial.heat
    );
    Some(Check::condition(
        &format!("total heat conserved with insulated edges (drift {worst:.2e})"),
        conserved,
    ))
}
