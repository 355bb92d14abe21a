//! thesis-sor: red-black SOR for the 2-D Laplace equation on one GPU (thesis "Modeling
//! Communication on Multi-GPU Systems", eq. 4.18, §5.4.2): the thesis's global-memory and
//! texture kernels (the read-only path here) and the split red/black layout, each checked bit
//! for bit against the rayon CPU solver; then the discretisation error against a harmonic
//! function, which falls as O(h^2).
use super::sor_setup::{AllOr, CPU_BUDGET, GRID_SIZE, Setup, compare, cpu_reference_plan, cpu_solve};
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::convergence::{GridError, second_order_table};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::gb_per_s;
use ferrocuda::sor::single::{Solution, Stop, solve};
use ferrocuda::sor::state::bytes_per_iteration;
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::Check;
use std::marker::PhantomData;
use std::time::Instant;

/// The convergence study's sides: h halves from one to the next.
pub const STUDY_SIDES: [usize; 5] = [17, 33, 65, 129, 257];
/// The simulator's.
pub const SIMULATOR_STUDY_SIDES: [usize; 3] = [9, 17, 33];
/// The study's residual tolerance (f64): far below the O(h^2) error, so that the error measured
/// is the discretisation's.
pub const STUDY_TOLERANCE: f64 = 1e-12;

/// thesis-sor, in precision `T`.
pub struct ThesisSor<T>(PhantomData<T>);

/// thesis-sor's options.
#[derive(clap::Args, Clone, Debug)]
pub struct ThesisSorOptions {
    /// grid rows, boundary included [default: --size]
    #[arg(long, value_name = "M")]
    pub rows: Option<usize>,
    /// red-black iterations, or tol=X to stop at a residual [default: 100, the thesis's]
    #[arg(long, value_name = "I")]
    pub iterations: Option<Stop>,
    /// thesis (the optimum capped at 1.9), optimum, or a value in (0, 2) [default: thesis]
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    pub omega: Option<Omega>,
    /// gm, lintex, split, tiled or all [default: all]
    #[arg(long, value_name = "K")]
    pub kernel: Option<AllOr<Variant>>,
    /// thesis (boundary 100) or harmonic [default: thesis]
    #[arg(long, value_name = "P")]
    pub problem: Option<Problem>,
}

impl<T: SorReal> Example for ThesisSor<T> {
    const ID: &'static str = "thesis-sor";
    const DESCRIPTION: &'static str = "red-black SOR on one GPU: the thesis's window kernels and a split red/black layout vs rayon; O(h^2) error (thesis 4.3, 5.4)";
    const SIZE: Option<Size> = Some(Size {
        unit: "grid points per side, boundary included: the columns, and the rows unless --rows",
        // Large enough to be bandwidth-bound, small enough for the CPU reference to take a
        // second or two.
        gpu: 2048,
        ..GRID_SIZE
    });
    type Args = ThesisSorOptions;

    /// The run's peak at `--size n` (and `--rows`, `--kernel` and `--iterations`): on the
    /// device one kernel's grid at a time (the tiled kernel's with its scratch grid, the split
    /// layout's two planes with a row of rounding) and the residual's partials; on the host the
    /// initial grid, every kernel's downloaded grid, the last download's planes, and the CPU
    /// reference where [`CPU_BUDGET`] lets it run ([`cpu_reference_plan`]). The convergence
    /// study's grids (257^2 at most) are far smaller.
    fn memory(run: &Run<ThesisSorOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let (cols, rows) = (run.size, run.args.rows.unwrap_or(run.size));
        let (grids_on_device, kernels) = match run.args.kernel {
            None | Some(AllOr::All) => (2, Variant::ALL.len()),
            Some(AllOr::One(Variant::Tiled)) => (2, 1),
            Some(_) => (1, 1),
        };
        let grid = footprint::elements(&[rows, cols])?.checked_add(2 * rows)?;
        Footprint::NONE
            .device::<T>(grids_on_device, grid)?
            .device::<f64>(1, 32 * 64)?
            .host::<T>(kernels + 2, grid)?
            .plus(cpu_reference_plan::<T>(rows, cols, run.args.iterations)?)
    }

    fn run(gpu: &Gpu, run: &Run<ThesisSorOptions>) -> Result<Outcome> {
        let args = &run.args;
        let mut setup = Setup::new(run.size, args.rows, args.iterations, args.omega)?;
        if let Some(AllOr::One(variant)) = args.kernel {
            setup.variants = vec![variant];
        }
        setup.problem = args.problem.unwrap_or_default();
        let mut checks = solve_each::<T>(gpu, &setup)?;
        checks.extend(convergence_study(gpu)?);
        Ok(Outcome { checks })
    }
}

/// Solves with each kernel, prints the thesis's per-iteration kernel time (MKT) and the
/// bandwidth, and compares each grid with the CPU's.
pub fn solve_each<T: SorReal>(gpu: &Gpu, setup: &Setup) -> Result<Vec<Check>> {
    let Setup { rows, cols, stop, .. } = *setup;
    let omega = setup.omega.value(cols);
    let initial: Vec<T> = setup.problem.initial(rows, cols)?;
    println!(
        " {}: {rows} x {cols} {}, {} problem, omega = {omega:.6}, {stop} ({})",
        gpu.properties().name,
        std::any::type_name::<T>(),
        setup.problem,
        gpu.timing_label()
    );
    let points = (rows - 2) * (cols - 2);
    let bytes = bytes_per_iteration(points, size_of::<T>());
    println!(
        " {:<8} {:>11} {:>14} {:>12} {:>16}",
        "kernel", "iterations", "MKT [ms/it]", "GB/s", "residual"
    );
    let mut solutions: Vec<(Variant, Solution<T>)> = Vec::new();
    for &variant in &setup.variants {
        let solution = match stop {
            Stop::Iterations(_) => solve(gpu, variant, &initial, rows, cols, omega, stop)?,
            Stop::Tolerance { .. } => crate::progress::spinner(&format!("{variant}: solving to {stop}"))
                .in_scope(|| solve(gpu, variant, &initial, rows, cols, omega, stop))?,
        };
        let per_iteration = solution.elapsed_ms / solution.iterations.max(1) as f64;
        println!(
            " {variant:<8} {:>11} {per_iteration:>14.4} {:>12.1} {:>16}",
            solution.iterations,
            gb_per_s(bytes, per_iteration),
            solution.residual.map_or("-".into(), |r| format!("{r:.3e}"))
        );
        solutions.push((variant, solution));
    }
    let mut checks = Vec::new();
    let iterations = solutions.first().map_or(0, |(_, s)| s.iterations);
    if points.saturating_mul(iterations) <= CPU_BUDGET {
        let started = Instant::now();
        let cpu = cpu_solve(&initial, rows, cols, omega, iterations)?;
        println!(
            " CPU (rayon, {} threads): {iterations} iterations in {:.3} s",
            rayon::current_num_threads(),
            started.elapsed().as_secs_f64()
        );
        for (variant, solution) in &solutions {
            checks.push(compare(
                &format!("{variant} vs CPU, {iterations} iterations"),
                &solution.grid,
                &cpu,
            ));
        }
        println!(
            " max |u - {}| after {iterations} iterations: {:.4e}",
            if setup.problem == Problem::Thesis {
                "100"
            } else {
                "u_exact"
            },
            setup.problem.max_error(&cpu, rows, cols)
        );
    } else {
        println!(
            " CPU reference skipped: {points} points x {iterations} iterations is beyond its budget; kernels compared with one another"
        );
        for pair in solutions.windows(2) {
            let ((a, sa), (b, sb)) = (&pair[0], &pair[1]);
            checks.push(compare(
                &format!("{a} vs {b}, {iterations} iterations"),
                &sa.grid,
                &sb.grid,
            ));
        }
    }
    Ok(checks)
}

/// The convergence study: the harmonic problem solved to a residual of [`STUDY_TOLERANCE`] in
/// f64 with the optimum omega (split kernel) on each of the study's sides, its error against the
/// continuous solution printed with the iterations it took, and the O(h^2) rate checked: each
/// halving of h divides the error by 4 (3.5 to 4.5 allowed: the leading term dominates from the
/// first sides on).
fn convergence_study(gpu: &Gpu) -> Result<Vec<Check>> {
    let sides = gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]);
    let bar = crate::progress::bar("convergence study, grids", sides.len() as u64);
    let grids = sides
        .iter()
        .map(|&n| {
            let initial: Vec<f64> = Problem::Harmonic.initial(n, n)?;
            let omega = Omega::Optimum.value(n);
            let stop = Stop::tolerance(STUDY_TOLERANCE, 200 * n)?;
            let solution = solve(gpu, Variant::Split, &initial, n, n, omega, stop)?;
            bar.inc(1);
            Ok(GridError {
                side: n,
                h: 1.0 / (n - 1) as f64,
                work: solution.iterations,
                max_error: Problem::Harmonic.max_error(&solution.grid, n, n),
            })
        })
        .collect::<Result<Vec<_>>>();
    bar.finish_and_clear();
    let grids = grids?;
    println!(" Harmonic u = sin(pi x) sinh(pi y) / sinh(pi), f64, optimum omega, residual <= {STUDY_TOLERANCE:e}:");
    Ok(second_order_table("iterations", &grids))
}
