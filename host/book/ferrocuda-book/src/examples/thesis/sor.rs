//! thesis-sor: red-black SOR for the 2-D Laplace equation on one GPU (thesis "Modeling
//! Communication on Multi-GPU Systems", eq. 4.18, §5.4.2): the thesis's global-memory and
//! texture kernels (the read-only path here) and the split red/black layout, each checked bit
//! for bit against the rayon CPU solver; then the discretisation error against a harmonic
//! function, which falls as O(h^2).
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome, Precision};
use crate::examples::convergence::{GridError, second_order_table};
use crate::examples::thesis::sor_setup::{self, CPU_BUDGET, Setup, compare};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::gb_per_s;
use ferrocuda::sor::cpu as reference;
use ferrocuda::sor::single::{Solution, Stop, solve};
use ferrocuda::sor::state::bytes_per_iteration;
use ferrocuda::sor::{Omega, Problem, SorReal, Variant};
use ferrocuda::verify::Check;
use std::time::Instant;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "thesis-sor",
    description: "red-black SOR on one GPU: the thesis's window kernels and a split red/black layout vs rayon; O(h^2) error (thesis 4.3, 5.4)",
    size: Some(LegacySize {
        unit: "grid points per side, boundary included: the columns, and the rows unless --rows",
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
            name: "--rows",
            value: Some("M"),
            help: "grid rows, boundary included [default: --size]",
            requires: None,
        },
        Flag {
            name: "--iterations",
            value: Some("I"),
            help: "red-black iterations, or tol=X to stop at a residual [default: 100, the thesis's]",
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
            help: "gm, lintex, split, tiled or all [default: all]",
            requires: None,
        },
        Flag {
            name: "--problem",
            value: Some("P"),
            help: "thesis (boundary 100) or harmonic [default: thesis]",
            requires: None,
        },
    ],
    run,
};

/// The default side on a GPU: large enough to be bandwidth-bound, small enough for the CPU
/// reference to take a second or two.
pub const N: usize = 2048;
/// The default side on the simulator.
pub const SIMULATOR_N: usize = 130;
/// The convergence study's sides: h halves from one to the next.
pub const STUDY_SIDES: [usize; 5] = [17, 33, 65, 129, 257];
/// The simulator's.
pub const SIMULATOR_STUDY_SIDES: [usize; 3] = [9, 17, 33];
/// The study's residual tolerance (f64): far below the O(h^2) error, so that the error measured
/// is the discretisation's.
pub const STUDY_TOLERANCE: f64 = 1e-12;

/// The run's peak at `--size n` (`--rows`, `--precision`, `--kernel` and `--iterations` read as
/// the run reads them): on the device one kernel's grid at a time (the tiled kernel's with its
/// scratch grid, the split layout's two planes with a row of rounding) and the residual's
/// partials; on the host the initial grid, every kernel's downloaded grid, the last download's
/// planes, and the CPU reference where [`CPU_BUDGET`] lets it run (see
/// `sor_setup::cpu_reference_may_run`). The convergence study's grids (257^2 at most) are far
/// smaller.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    let (rows, _, points, element_bytes) = sor_setup::grid_of(options, n)?;
    let (grids_on_device, kernels) = match options.value("--kernel") {
        None | Some("all") => (2, Variant::ALL.len()),
        Some("tiled") => (2, 1),
        Some(_) => (1, 1),
    };
    let grid_bytes = points.checked_add(2 * rows)?.checked_mul(element_bytes)?;
    let mut plan = Footprint::NONE
        .device::<u8>(grids_on_device, grid_bytes)?
        .device::<f64>(1, 32 * 64)?
        .host::<u8>(kernels + 2, grid_bytes)?;
    if sor_setup::cpu_reference_may_run(options, points) {
        plan = plan.plus(sor_setup::cpu_reference_plan(rows, points, element_bytes)?)?;
    }
    Some(plan)
}

pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let setup = Setup::from_options(gpu, options, (N, SIMULATOR_N))?;
    let mut checks = match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, &setup)?,
        Precision::F64 => run_typed::<f64>(gpu, &setup)?,
    };
    checks.extend(convergence_study(gpu)?);
    Ok(Outcome { checks })
}

/// Solves with each kernel, prints the thesis's per-iteration kernel time (MKT) and the
/// bandwidth, and compares each grid with the CPU's.
pub fn run_typed<T: SorReal>(gpu: &Gpu, setup: &Setup) -> Result<Vec<Check>> {
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
        let mut cpu = ferrocuda::footprint::try_with_capacity(initial.len())?;
        cpu.extend_from_slice(&initial);
        crate::progress::spinner(&format!("CPU reference: {iterations} iterations"))
            .in_scope(|| reference::solve(&mut cpu, rows, cols, omega, iterations))?;
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

/// One row of the convergence study.
#[derive(Clone, Copy, Debug)]
pub struct ConvergencePoint {
    pub side: usize,
    pub h: f64,
    pub iterations: usize,
    pub max_error: f64,
}

/// Solves the harmonic problem to a residual of [`STUDY_TOLERANCE`] in f64 with the optimum
/// omega (split kernel) on each side of `sides`, and returns the error against the continuous
/// solution.
pub fn convergence(gpu: &Gpu, sides: &[usize]) -> Result<Vec<ConvergencePoint>> {
    let bar = crate::progress::bar("convergence study, grids", sides.len() as u64);
    let points = sides
        .iter()
        .map(|&n| {
            let initial: Vec<f64> = Problem::Harmonic.initial(n, n)?;
            let omega = Omega::Optimum.value(n);
            let stop = Stop::tolerance(STUDY_TOLERANCE, 200 * n)?;
            let solution = solve(gpu, Variant::Split, &initial, n, n, omega, stop)?;
            bar.inc(1);
            Ok(ConvergencePoint {
                side: n,
                h: 1.0 / (n - 1) as f64,
                iterations: solution.iterations,
                max_error: Problem::Harmonic.max_error(&solution.grid, n, n),
            })
        })
        .collect();
    bar.finish_and_clear();
    points
}

/// Prints the study and checks the O(h^2) rate: each halving of h divides the error by 4
/// (3.5 to 4.5 allowed: the leading term dominates from the first sides on).
fn convergence_study(gpu: &Gpu) -> Result<Vec<Check>> {
    let sides = gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]);
    let points = convergence(gpu, sides)?;
    println!(" Harmonic u = sin(pi x) sinh(pi y) / sinh(pi), f64, optimum omega, residual <= {STUDY_TOLERANCE:e}:");
    let grids: Vec<GridError> = points
        .iter()
        .map(|p| GridError {
            side: p.side,
            h: p.h,
            work: p.iterations,
            max_error: p.max_error,
        })
        .collect();
    Ok(second_order_table("iterations", &grids))
}
