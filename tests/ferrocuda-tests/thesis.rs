//! GPU-vs-CPU tests of the thesis's red-black SOR (`thesis-sor`, `thesis-sor-multi`): every
//! kernel, layout and precision bit for bit against the rayon solver on grids whose sides break
//! the kernels' tiles; the multi-GPU solver, every decomposition, exchange strategy, border
//! width and overlap, bit for bit against the one-GPU result, with several partitions per GPU;
//! the NCCL exchange, which needs one partition per GPU, on two GPUs when there are two.
mod common;
#[path = "thesis/multi_gpu.rs"]
mod multi_gpu;
use ferrocuda_book::defaults::Pick;
use multi_gpu::*;

use common::{CpuTest, TestResult, ensure, fail};
use ferrocuda::kernels::sor::{BLACK, RED, Region};
use ferrocuda::sor::cpu as reference;
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::multi::{self, MultiConfig};
use ferrocuda::sor::partition::Decomposition;
use ferrocuda::sor::single::{Stop, solve, solve_iterations};
use ferrocuda::sor::{DeviceGrid, Omega, Problem, SorReal, Variant};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Error, Gpu};
use ferrocuda_book::example::Precision;

/// Grid shapes: the smallest with an interior, sides one off the window's 110 columns and the
/// split kernel's 32 x 8 block, odd and even rows, a wide and a tall one.
const SHAPES: [(usize, usize); 7] = [(3, 3), (4, 5), (9, 111), (10, 112), (67, 229), (130, 33), (17, 300)];

fn same<T: SorReal>(what: &str, got: &[T], expected: &[T]) -> TestResult {
    let check = Check::compare(what, got, expected, Tolerance::EXACT);
    ensure(check.passed(), || check.to_string())
}

fn cpu<T: SorReal>(initial: &[T], rows: usize, cols: usize, omega: f64, iterations: usize) -> Result<Vec<T>, String> {
    let mut grid = initial.to_vec();
    reference::solve(&mut grid, rows, cols, omega, iterations).map_err(fail)?;
    Ok(grid)
}

fn kernels_match_cpu<T: SorReal>(gpu: &Gpu) -> TestResult {
    for (rows, cols) in SHAPES {
        for problem in [Problem::Thesis, Problem::Harmonic] {
            let initial: Vec<T> = problem.initial(rows, cols).map_err(fail)?;
            for (omega, iterations) in [(1.9, 7), (1.0, 3)] {
                let expected = cpu(&initial, rows, cols, omega, iterations)?;
                for variant in Variant::ALL {
                    let got = solve_iterations(gpu, variant, &initial, rows, cols, omega, iterations).map_err(fail)?;
                    same(
                        &format!("{variant} {rows}x{cols} {problem} omega {omega}"),
                        &got.grid,
                        &expected,
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn thesis_sor_kernels_match_cpu_f32(gpu: &Gpu) -> TestResult {
    kernels_match_cpu::<f32>(gpu)
}

fn thesis_sor_kernels_match_cpu_f64(gpu: &Gpu) -> TestResult {
    kernels_match_cpu::<f64>(gpu)
}

/// The tiled kernel on regions short of the interior, at both parities of local `(0, 0)`, in
/// chunks of four half-sweeps and one: regions that start and end inside a tile, at odd and
/// even rows and columns, so each tile's region bounds and colour planes shift.
fn tiled_regions_match_cpu<T: SorReal>(gpu: &Gpu) -> TestResult {
    let omega = 1.9;
    for (rows, cols) in [(75, 250), (41, 131)] {
        let initial: Vec<T> = Problem::Harmonic.initial(rows, cols).map_err(fail)?;
        let regions = [
            Region {
                row_begin: 3,
                row_end: rows as u32 - 5,
                col_begin: 7,
                col_end: cols as u32 - 2,
            },
            Region {
                row_begin: 34,
                row_end: 37,
                col_begin: 118,
                col_end: 125,
            },
        ];
        for parity in [0, 1] {
            for region in regions {
                let mut expected = initial.clone();
                let mut grid = DeviceGrid::upload(gpu, Variant::Tiled, &initial, rows, cols, parity).map_err(fail)?;
                let w = T::from_f64(omega);
                for color in [BLACK, RED, BLACK] {
                    reference::half_sweep(&mut expected, cols, region, parity, color, w).map_err(fail)?;
                    grid.half_sweep(gpu, None, region, color, w).map_err(fail)?;
                }
                for _ in 0..3 {
                    reference::half_sweep(&mut expected, cols, region, parity, RED, w).map_err(fail)?;
                    reference::half_sweep(&mut expected, cols, region, parity, BLACK, w).map_err(fail)?;
                }
                grid.iterations(gpu, None, region, w, 3).map_err(fail)?;
                same(
                    &format!("tiled {rows}x{cols} parity {parity} {region:?}"),
                    &grid.download(gpu).map_err(fail)?,
                    &expected,
                )?;
            }
        }
    }
    Ok(())
}

fn thesis_sor_tiled_regions_match_cpu(gpu: &Gpu) -> TestResult {
    tiled_regions_match_cpu::<f32>(gpu)?;
    tiled_regions_match_cpu::<f64>(gpu)
}

fn thesis_sor_tolerance_stops_at_the_residual(gpu: &Gpu) -> TestResult {
    let n = 33;
    let initial: Vec<f64> = Problem::Harmonic.initial(n, n).map_err(fail)?;
    let stop = Stop::Tolerance {
        tolerance: 1e-9,
        max_iterations: 10_000,
        check_every: 10,
    };
    let solution = solve(gpu, Variant::Split, &initial, n, n, Omega::Optimum.value(n), stop).map_err(fail)?;
    let residual = solution.residual.ok_or("no residual reported")?;
    let cpu_residual = reference::max_residual(&solution.grid, n, n).map_err(fail)?;
    ensure(residual <= 1e-9 && residual == cpu_residual, || {
        format!(
            "residual {residual:e} (CPU {cpu_residual:e}) after {} iterations",
            solution.iterations
        )
    })?;
    ensure(solution.iterations < 10_000 && solution.iterations % 10 == 0, || {
        format!("stopped after {} iterations", solution.iterations)
    })
}

fn thesis_sor_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    let size = gpu.pick(258, 66).to_string();
    for precision in [Precision::F32, Precision::F64] {
        let precision = precision.to_string();
        let args = [
            "--size",
            &size,
            "--precision",
            &precision,
            "--rows",
            "71",
            "--iterations",
            "20",
        ];
        common::passes_with(gpu, "thesis-sor", &args).map_err(|e| format!("{precision}: {e}"))?;
    }
    Ok(())
}

fn thesis_sor_refuses_bad_input(gpu: &Gpu) -> TestResult {
    let initial = vec![0.0f32; 4];
    ensure(
        solve(gpu, Variant::Split, &initial, 2, 2, 1.5, Stop::Iterations(1)).is_err(),
        || "a 2 x 2 grid was accepted".into(),
    )?;
    ensure(
        "2.5".parse::<Omega>().is_err() && "x".parse::<Variant>().is_err(),
        || "a bad omega or kernel was accepted".into(),
    )?;
    ensure(Stop::tolerance(-1.0, 10).is_err(), || {
        "a negative tolerance was accepted".into()
    })
}

/// Fails unless `result` is one `InvalidArgument` sentence containing `expected`.
fn refused<R: std::fmt::Debug>(what: &str, result: ferrocuda::Result<R>, expected: &str) -> TestResult {
    match result {
        Err(e @ Error::InvalidArgument(_)) => {
            let message = e.to_string();
            ensure(message.contains(expected) && !message.contains('\n'), || {
                format!("{what}: `{message}` does not say `{expected}` in one line")
            })
        }
        other => Err(format!("{what}: {other:?}, not a refusal")),
    }
}

/// The first line of a refusal: the command line's is clap's sentence, then a tip on the lines
/// after it.
fn first_line<R>(result: ferrocuda::Result<R>) -> ferrocuda::Result<R> {
    result.map_err(|e| match e {
        Error::InvalidArgument(text) => Error::InvalidArgument(text.lines().next().unwrap_or_default().into()),
        other => other,
    })
}

/// Omega outside the open interval (0, 2) (0, 2, 5, -1, NaN) is refused with one sentence at
/// every entry that takes it: parsing, both one-GPU solvers, the multi-GPU solver, the device
/// grid's half-sweeps and iterations, the CPU reference, and the example's `--omega`; 1.0 and
/// 1.9 are accepted everywhere.
fn thesis_sor_refuses_omega_outside_0_2(gpu: &Gpu) -> TestResult {
    let n = 9;
    let initial: Vec<f32> = Problem::Thesis.initial(n, n).map_err(fail)?;
    let config = |omega| MultiConfig {
        omega,
        iterations: 2,
        ..configs(2, Decomposition::Strips, &Strategy::ALL)[0]
    };
    for omega in [0.0, 2.0, 5.0, -1.0, f64::NAN] {
        let sentence = format!("omega must lie in (0, 2) for SOR to converge, not {omega}");
        refused(
            &format!("`{omega}` parsed"),
            omega.to_string().parse::<Omega>(),
            &sentence,
        )?;
        let stop = Stop::Iterations(1);
        refused(
            "solve",
            solve(gpu, Variant::Split, &initial, n, n, omega, stop),
            &sentence,
        )?;
        for variant in Variant::ALL {
            let result = solve_iterations(gpu, variant, &initial, n, n, omega, 1);
            refused(&format!("solve_iterations {variant}"), result, &sentence)?;
        }
        let result = multi::solve(&[gpu], &initial, n, n, config(omega));
        refused("multi::solve", result.map(|s| s.grid), &sentence)?;
        let mut grid = DeviceGrid::upload(gpu, Variant::Gm, &initial, n, n, 0).map_err(fail)?;
        let region = grid.interior();
        let w = omega as f32;
        refused("half_sweep", grid.half_sweep(gpu, None, region, 0, w), &sentence)?;
        refused("iterations", grid.iterations(gpu, None, region, w, 1), &sentence)?;
        let mut cpu_grid = initial.clone();
        refused(
            "the CPU solve",
            reference::solve(&mut cpu_grid, n, n, omega, 1),
            &sentence,
        )?;
        let result = reference::half_sweep(&mut cpu_grid, n, region, 0, 0, w);
        refused("the CPU half-sweep", result, &sentence)?;
        let result = common::run_args(gpu, "thesis-sor", &["--omega", &omega.to_string()]);
        refused("thesis-sor --omega", first_line(result).map(|_| ()), &sentence)?;
    }
    for omega in [1.0, 1.9] {
        let parsed = omega.to_string().parse::<Omega>().map_err(fail)?;
        ensure(parsed == Omega::Value(omega), || {
            format!("`{omega}` parsed as {parsed:?}")
        })?;
        let expected = cpu(&initial, n, n, omega, 3)?;
        let got = solve(gpu, Variant::Split, &initial, n, n, omega, Stop::Iterations(3)).map_err(fail)?;
        same(&format!("solve, omega {omega}"), &got.grid, &expected)?;
        let got = solve_iterations(gpu, Variant::Gm, &initial, n, n, omega, 3).map_err(fail)?;
        same(&format!("solve_iterations, omega {omega}"), &got.grid, &expected)?;
        let got = multi::solve(
            &[gpu],
            &initial,
            n,
            n,
            MultiConfig {
                iterations: 3,
                ..config(omega)
            },
        )
        .map_err(fail)?;
        same(&format!("multi::solve, omega {omega}"), &got.grid, &expected)?;
        let mut grid = DeviceGrid::upload(gpu, Variant::Lintex, &initial, n, n, 0).map_err(fail)?;
        let region = grid.interior();
        grid.iterations(gpu, None, region, omega as f32, 3).map_err(fail)?;
        same(
            &format!("DeviceGrid, omega {omega}"),
            &grid.download(gpu).map_err(fail)?,
            &expected,
        )?;
    }
    Ok(())
}

/// The CPU reference refuses bad input with one sentence instead of panicking: a grid of other
/// than `rows x cols` points (the 100 points of the issue for 66 x 66), a grid that is not whole
/// rows of its pitch, a region whose points reach the array's edge, a colour other than red or
/// black.
fn thesis_sor_cpu_reference_refuses_bad_input() -> TestResult {
    let mut short = vec![0.0f32; 100];
    refused(
        "66 x 66 from 100 points",
        reference::solve(&mut short, 66, 66, 1.9, 1),
        "66 x 66 grid needs 4356 points, not 100",
    )?;
    refused(
        "residual of 100 points",
        reference::max_residual(&short, 66, 66),
        "needs 4356 points",
    )?;
    refused(
        "rows x cols overflowing",
        reference::max_residual(&short, usize::MAX, 3),
        "grid",
    )?;
    let interior = reference::interior(10, 10);
    refused(
        "pitch 0",
        reference::half_sweep(&mut short, 0, interior, 0, 0, 1.5f32),
        "whole rows",
    )?;
    refused(
        "pitch 7",
        reference::half_sweep(&mut short, 7, interior, 0, 0, 1.5f32),
        "whole rows",
    )?;
    let outside = reference::interior(11, 10);
    refused(
        "a region past the last row",
        reference::half_sweep(&mut short, 10, outside, 0, 0, 1.5f32),
        "region",
    )?;
    refused(
        "colour 2",
        reference::half_sweep(&mut short, 10, interior, 0, 2, 1.5f32),
        "colour",
    )?;
    let mut grid: Vec<f64> = Problem::Harmonic.initial(10, 10).map_err(fail)?;
    reference::half_sweep(&mut grid, 10, interior, 1, 1, 1.5).map_err(fail)?;
    reference::solve(&mut grid, 10, 10, 1.5, 2).map_err(fail)?;
    let residual = reference::max_residual(&grid, 10, 10).map_err(fail)?;
    ensure(residual > 0.0 && residual.is_finite(), || {
        format!("residual {residual}")
    })?;
    // Without an interior there is nothing to do, as before.
    let mut line = vec![1.0f32; 2 * 5];
    reference::solve(&mut line, 2, 5, 1.5, 3).map_err(fail)?;
    ensure(line.iter().all(|&v| v == 1.0), || format!("{line:?}"))
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "thesis_sor_cpu_reference_refuses_bad_input",
            thesis_sor_cpu_reference_refuses_bad_input,
        ),
        (
            "thesis_sor_multi_study_on_the_simulator",
            thesis_sor_multi_study_on_the_simulator,
        ),
    ];
    common::main_with_multi_gpu(
        cpu_tests,
        vec![
            ("thesis_sor_kernels_match_cpu_f32", thesis_sor_kernels_match_cpu_f32),
            ("thesis_sor_kernels_match_cpu_f64", thesis_sor_kernels_match_cpu_f64),
            ("thesis_sor_tiled_regions_match_cpu", thesis_sor_tiled_regions_match_cpu),
            (
                "thesis_sor_tolerance_stops_at_the_residual",
                thesis_sor_tolerance_stops_at_the_residual,
            ),
            ("thesis_sor_program_f32_and_f64", thesis_sor_program_f32_and_f64),
            ("thesis_sor_refuses_bad_input", thesis_sor_refuses_bad_input),
            (
                "thesis_sor_refuses_omega_outside_0_2",
                thesis_sor_refuses_omega_outside_0_2,
            ),
            (
                "thesis_sor_multi_strips_match_one_gpu",
                thesis_sor_multi_strips_match_one_gpu,
            ),
            (
                "thesis_sor_multi_blocks_match_one_gpu",
                thesis_sor_multi_blocks_match_one_gpu,
            ),
            ("thesis_sor_multi_refuses_bad_input", thesis_sor_multi_refuses_bad_input),
            ("thesis_sor_multi_program", thesis_sor_multi_program),
            (
                "thesis_sor_multi_refuses_bad_options",
                thesis_sor_multi_refuses_bad_options,
            ),
            (
                "thesis_sor_multi_nccl_refuses_partitions_sharing_a_gpu",
                thesis_sor_multi_nccl_refuses_partitions_sharing_a_gpu,
            ),
        ],
        vec![],
        vec![
            (
                "thesis_sor_multi_strips_on_two_gpus",
                2,
                thesis_sor_multi_strips_on_two_gpus,
            ),
            ("thesis_sor_multi_on_four_gpus", 4, thesis_sor_multi_on_four_gpus),
        ],
    )
}
