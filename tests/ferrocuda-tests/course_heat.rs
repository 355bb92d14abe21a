//! GPU-vs-CPU tests of course-heat, the 2-D heat-equation mini-app (our own design for the IT4I
//! course's "HeatFlow" capstone): both kernels against the rayon reference at awkward sizes, both
//! edge kinds, f32 and f64; the error against the exact Fourier mode; heat conservation with
//! insulated edges; the snapshots against the CPU field at the same steps; refusals; the PTX.
mod common;

use book_kernels::course::heat::{DIRICHLET, HALO, INSULATED, TILE_H, TILE_W};
use common::{GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::gpu::Error;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::examples::course::heat::image::write_heat_map;
use ferrocuda_book::examples::course::heat::problem::{Edges, FieldStats, Grid, Problem};
use ferrocuda_book::examples::course::heat::snapshots::{self, Plan};
use ferrocuda_book::examples::course::heat::solver::{self, HeatReal, Kernel, Solver};
use ferrocuda_book::examples::course::heat::study;
use ferrocuda_book::reference::course::heat::{Field, step};

/// The largest error the exact-mode tests allow between the measured error and the scheme's own
/// (known in closed form) in f64: the rounding of a few hundred steps, about 1e-14, with room.
const F64_MODE_TOLERANCE: f64 = 1e-12;
/// The same for f32: 4 epsilons per step over 100 steps of values at most 1 (as the example's
/// `ROUNDING_EPSILONS_PER_STEP`), about 5e-5.
const F32_MODE_TOLERANCE: f64 = 4.0 * f32::EPSILON as f64 * 101.0;

/// Grid shapes `(rows, cols)` that break the kernels' assumptions: the least grid, shapes that
/// are not multiples of a warp or of the tile (`TILE_H x TILE_W` plus and minus one), and a grid
/// several tiles across with partial tiles on both sides.
fn awkward_shapes(edges: Edges) -> Vec<(usize, usize)> {
    let mut shapes = vec![
        (3, 3),
        (17, 33),
        (33, 17),
        (TILE_H - 1, TILE_W - 1),
        (TILE_H + 1, TILE_W + 1),
        (2 * TILE_H + 3, 3 * TILE_W - 5),
    ];
    if edges == Edges::Insulated {
        shapes.extend([(1, 1), (1, 33), (31, 1), (2, 2)]);
    }
    shapes
}

/// A seeded field of values in [0, 1): every point differs, so a misplaced neighbour shows.
fn random_field<T: HeatReal>(n: usize, seed: u64) -> Vec<T> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            T::from_f64((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// Every solver: the global kernel, and the tiled one at each step count per launch.
fn solvers() -> Vec<Solver> {
    let mut all = vec![Solver::fastest(Kernel::Global)];
    all.extend((1..=HALO).map(|s| Solver::new(Kernel::Tiled, s).expect("1..=HALO steps")));
    all
}

/// `steps` steps of a random field with every solver against the CPU, bit for bit.
fn kernels_match_cpu<T: HeatReal>(gpu: &Gpu, edges: Edges, rows: usize, cols: usize, steps: usize) -> TestResult {
    let grid = Grid::new(rows, cols, edges, 0.9).map_err(fail)?;
    let initial: Vec<T> = random_field(grid.points(), (rows * 1000 + cols) as u64);
    let mut cpu = Field::new(&initial, rows, cols, edges.code(), grid.r::<T>()).map_err(fail)?;
    cpu.advance_to(steps);
    for solver in solvers() {
        let gpu_field = solver::solve(gpu, solver, &grid, &initial, steps).map_err(fail)?;
        let check = Check::compare("field", &gpu_field, &cpu.values, Tolerance::EXACT);
        ensure(check.passed(), || {
            format!(
                "{solver}, {rows} x {cols} {}, {edges} edges, {steps} steps: {check}",
                T::NAME
            )
        })?;
    }
    Ok(())
}

fn course_heat_awkward_sizes_f32(gpu: &Gpu) -> TestResult {
    for edges in [Edges::Dirichlet, Edges::Insulated] {
        for (rows, cols) in awkward_shapes(edges) {
            // 7 steps: not a multiple of 2, 3 or 4 steps per launch.
            kernels_match_cpu::<f32>(gpu, edges, rows, cols, 7)?;
        }
    }
    Ok(())
}

fn course_heat_awkward_sizes_f64(gpu: &Gpu) -> TestResult {
    for edges in [Edges::Dirichlet, Edges::Insulated] {
        for (rows, cols) in awkward_shapes(edges) {
            kernels_match_cpu::<f64>(gpu, edges, rows, cols, 5)?;
        }
    }
    Ok(())
}

/// The measured error against the exact mode equals the scheme's own, `|G^n - exp(-lambda t)|`
/// times the mode's maximum, within rounding: a wrong stencil, edge or time step breaks it.
fn course_heat_analytic_error_bound(gpu: &Gpu) -> TestResult {
    let cases = [
        (Edges::Dirichlet, 33, 65, Problem::Mode { k: 2, l: 1 }),
        (Edges::Insulated, 40, 24, Problem::Mode { k: 1, l: 3 }),
    ];
    for (edges, rows, cols, problem) in cases {
        let grid = Grid::new(rows, cols, edges, 0.8).map_err(fail)?;
        let steps = 100;
        for solver in [Solver::fastest(Kernel::Global), Solver::fastest(Kernel::Tiled)] {
            let initial: Vec<f64> = problem.initial(&grid).map_err(fail)?;
            let field = solver::solve(gpu, solver, &grid, &initial, steps).map_err(fail)?;
            let t = steps as f64 * grid.dt::<f64>();
            let measured = problem.max_error(&grid, &field, t).ok_or("no exact solution")?;
            let predicted = problem
                .discretisation_error::<f64>(&grid, steps)
                .ok_or("no prediction")?;
            ensure((measured - predicted).abs() <= F64_MODE_TOLERANCE, || {
                format!("{solver}, {edges}, f64: error {measured:e}, the scheme's {predicted:e}")
            })?;
            ensure(predicted > 100.0 * F64_MODE_TOLERANCE, || {
                format!("the scheme's error {predicted:e} is too small to test")
            })?;
            let initial: Vec<f32> = problem.initial(&grid).map_err(fail)?;
            let field = solver::solve(gpu, solver, &grid, &initial, steps).map_err(fail)?;
            let measured = problem
                .max_error(&grid, &field, steps as f64 * grid.dt::<f32>())
                .ok_or("no exact solution")?;
            let predicted = problem
                .discretisation_error::<f32>(&grid, steps)
                .ok_or("no prediction")?;
            ensure((measured - predicted).abs() <= F32_MODE_TOLERANCE, || {
                format!("{solver}, {edges}, f32: error {measured:e}, the scheme's {predicted:e}")
            })?;
        }
    }
    Ok(())
}

/// The study's errors fall by about 4 per halving of h, for both edge kinds.
fn course_heat_converges_as_h_squared(gpu: &Gpu) -> TestResult {
    for edges in [Edges::Dirichlet, Edges::Insulated] {
        let points = study::convergence(gpu, edges, &study::SIMULATOR_STUDY_SIDES).map_err(fail)?;
        for pair in points.windows(2) {
            let ratio = pair[0].max_error / pair[1].max_error;
            ensure((3.5..=4.5).contains(&ratio), || {
                format!(
                    "{edges}: error ratio {ratio} from n = {} to {}",
                    pair[0].side, pair[1].side
                )
            })?;
        }
    }
    Ok(())
}

/// With insulated edges the total heat stays within rounding of the initial one; with a hot
/// Dirichlet wall it grows far beyond that (so the test can tell).
fn course_heat_conserves_heat_when_insulated(gpu: &Gpu) -> TestResult {
    fn drift<T: HeatReal>(gpu: &Gpu, edges: Edges, steps: usize) -> Result<(f64, f64), String> {
        let grid = Grid::new(45, 70, edges, 1.0).map_err(fail)?;
        let initial: Vec<T> = Problem::Hotspot.initial(&grid).map_err(fail)?;
        let before = FieldStats::of(&grid, &initial);
        let field = solver::solve(gpu, Solver::fastest(Kernel::Tiled), &grid, &initial, steps).map_err(fail)?;
        let after = FieldStats::of(&grid, &field);
        let epsilon = if size_of::<T>() == 4 {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        let allowed = 4.0 * epsilon * steps as f64 * before.abs_heat + 1e-12 * before.abs_heat;
        Ok(((after.heat - before.heat).abs(), allowed))
    }
    for (d, allowed) in [
        drift::<f32>(gpu, Edges::Insulated, 200)?,
        drift::<f64>(gpu, Edges::Insulated, 200)?,
    ] {
        ensure(d <= allowed, || format!("insulated: drift {d:e} beyond {allowed:e}"))?;
    }
    let (d, allowed) = drift::<f64>(gpu, Edges::Dirichlet, 200)?;
    ensure(d > 1e3 * allowed, || {
        format!("a hot wall should add heat: drift {d:e}, allowance {allowed:e}")
    })
}

/// Every snapshot equals the CPU field at its step, in step order, for both kernels, with a
/// pinned buffer for each snapshot and with two reused ones (waits for the device).
fn course_heat_snapshots_equal_cpu(gpu: &Gpu) -> TestResult {
    let grid = Grid::new(TILE_H + 5, TILE_W + 9, Edges::Insulated, 0.7).map_err(fail)?;
    let initial: Vec<f32> = random_field(grid.points(), 77);
    let plan = Plan::new(23, 5).map_err(fail)?;
    let field_bytes = grid.points() * size_of::<f32>();
    for solver in [Solver::fastest(Kernel::Global), Solver::fastest(Kernel::Tiled)] {
        for (budget, slots, drains) in [(usize::MAX, 5, 0), (2 * field_bytes, 2, 3)] {
            let mut cpu = Field::new(&initial, grid.rows, grid.cols, INSULATED, grid.r::<f32>()).map_err(fail)?;
            let mut seen = Vec::new();
            let mut mismatch = None;
            let report = snapshots::run_with_budget(gpu, solver, &grid, &initial, plan, budget, &mut |step, field| {
                cpu.advance_to(step);
                let check = Check::compare("snapshot", field, &cpu.values, Tolerance::EXACT);
                if !check.passed() && mismatch.is_none() {
                    mismatch = Some(format!("step {step}: {check}"));
                }
                seen.push(step);
                Ok(())
            })
            .map_err(fail)?;
            ensure(mismatch.is_none(), || {
                format!("{solver}: {}", mismatch.clone().unwrap_or_default())
            })?;
            ensure(seen == vec![5, 10, 15, 20, 23], || {
                format!("{solver}: snapshots at {seen:?}")
            })?;
            ensure(report.slots == slots && report.drains == drains, || {
                format!(
                    "{solver}: {} slots and {} drains, not {slots} and {drains}",
                    report.slots, report.drains
                )
            })?;
            ensure(report.intervals.len() == 5, || {
                format!("{solver}: {:?}", report.intervals)
            })?;
        }
    }
    Ok(())
}

fn course_heat_program(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "course-heat",
        &["--size", "70", "--reps", "2", "--steps", "60", "--snapshot-every", "25"],
    )
}

fn course_heat_program_insulated_f64(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "course-heat",
        &[
            "--size",
            "57",
            "--precision",
            "f64",
            "--reps",
            "2",
            "--rows",
            "33",
            "--edges",
            "insulated",
            "--mode",
            "2,3",
            "--steps",
            "41",
            "--snapshot-every",
            "10",
            "--steps-per-launch",
            "3",
        ],
    )
}

fn course_heat_program_hotspot_plot(gpu: &Gpu) -> TestResult {
    let path = std::env::temp_dir().join(format!("ferrocuda-course-heat-{}.png", std::process::id()));
    let plot = path.to_string_lossy();
    let passed = passes_with(
        gpu,
        "course-heat",
        &[
            "--size",
            "40",
            "--reps",
            "1",
            "--problem",
            "hotspot",
            "--kernel",
            "tiled",
            "--steps",
            "30",
            "--snapshot-every",
            "30",
            "--plot",
            &plot,
        ],
    );
    let png = std::fs::read(&path).map_err(|e| format!("no heat map at {}: {e}", path.display()));
    std::fs::remove_file(&path).ok();
    passed?;
    ensure(png?.starts_with(b"\x89PNG\r\n\x1a\n"), || {
        "the heat map is not a PNG".into()
    })
}

/// Bad sizes and flags are refused with one sentence, never a panic.
fn course_heat_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let refused = |what: &str, result: Result<(), Error>, needle: &str| -> TestResult {
        match result {
            Err(Error::InvalidArgument(message)) if message.contains(needle) => Ok(()),
            other => Err(format!("{what}: {other:?}, not a refusal naming `{needle}`")),
        }
    };
    let run = |flags: &[(&str, &str)], size: usize| -> Result<(), Error> {
        let size = size.to_string();
        let mut args = vec!["--size", &size, "--reps", "1"];
        args.extend(flags.iter().flat_map(|&(flag, value)| [flag, value]));
        crate::common::run_args(gpu, "course-heat", &args).map(|_| ())
    };
    refused("cfl 1.2", run(&[("--cfl", "1.2")], 16), "h^2 / (4 alpha)")?;
    refused("cfl 0", run(&[("--cfl", "0")], 16), "cfl <= 1")?;
    refused("cfl NaN", run(&[("--cfl", "NaN")], 16), "(0, 1]")?;
    refused("2 x 2 Dirichlet", run(&[], 2), "at least 3 x 3")?;
    refused("mode 8,1 on 9 x 9", run(&[("--mode", "8,1")], 9), "not resolved")?;
    refused("mode text", run(&[("--mode", "one")], 16), "K,L")?;
    refused(
        "mode with hot spot",
        run(&[("--problem", "hotspot"), ("--mode", "1,1")], 16),
        "--mode",
    )?;
    refused("steps 0", run(&[("--steps", "0")], 16), "at least 1")?;
    refused("snapshot-every 0", run(&[("--snapshot-every", "0")], 16), "at least 1")?;
    refused("steps per launch 5", run(&[("--steps-per-launch", "5")], 16), "1 to 4")?;
    refused(
        "kernel",
        run(&[("--kernel", "fast")], 16),
        "possible values: global, tiled, all",
    )?;
    refused(
        "edges",
        run(&[("--edges", "open")], 16),
        "possible values: dirichlet, insulated",
    )?;
    refused(
        "problem",
        run(&[("--problem", "wave")], 16),
        "possible values: mode, hotspot",
    )?;
    // `--plot` is checked by the runner before any example runs (bad_input's
    // `plot_paths_are_checked_before_the_work`, every id that draws).
    let grid = Grid::new(8, 8, Edges::Insulated, 0.5).map_err(fail)?;
    let field = gpu.upload(&vec![0f32; 64]).map_err(fail)?;
    let mut out = gpu.zeros::<f32>(64).map_err(fail)?;
    refused(
        "5 steps in one tiled launch",
        solver::launch(
            gpu,
            None,
            None,
            Solver::fastest(Kernel::Tiled),
            &grid,
            &field,
            &mut out,
            5,
        ),
        "1 to 4 steps",
    )?;
    let mut short = gpu.zeros::<f32>(63).map_err(fail)?;
    refused(
        "a field of the wrong size",
        solver::launch(
            gpu,
            None,
            None,
            Solver::fastest(Kernel::Global),
            &grid,
            &field,
            &mut short,
            1,
        ),
        "64 points",
    )
}

/// One step of a 3 x 3 grid by hand: Dirichlet moves only the centre, `u + r (sum - 4 u)`;
/// insulated edges mirror, so a 1 x 1 grid never changes and a 1 x 2 one exchanges `r` of the
/// difference each step.
fn course_heat_reference_by_hand() -> TestResult {
    let field = [1.0f64, 2.0, 3.0, 4.0, 10.0, 6.0, 7.0, 8.0, 9.0];
    let mut out = [0.0; 9];
    step(&field, &mut out, 3, 3, DIRICHLET, 0.25);
    let centre = 10.0 + 0.25 * (2.0 + 4.0 + 6.0 + 8.0 - 40.0);
    let mut expected = field;
    expected[4] = centre;
    ensure(out == expected, || format!("Dirichlet 3 x 3: {out:?}"))?;
    let mut one = [0.0f32];
    step(&[5.0], &mut one, 1, 1, INSULATED, 0.25);
    ensure(one == [5.0], || format!("insulated 1 x 1: {one:?}"))?;
    let mut two = [0.0f64; 2];
    step(&[1.0, 0.0], &mut two, 1, 2, INSULATED, 0.25);
    ensure(two == [0.75, 0.25], || format!("insulated 1 x 2: {two:?}"))
}

fn course_heat_snapshot_plan() -> TestResult {
    let steps = |n, every| Plan::new(n, every).map(|p| p.snapshot_steps()).map_err(fail);
    ensure(steps(10, 5)? == vec![5, 10], || "10 every 5".into())?;
    ensure(steps(11, 5)? == vec![5, 10, 11], || "11 every 5".into())?;
    ensure(steps(3, 7)? == vec![3], || "3 every 7".into())?;
    ensure(Plan::new(0, 1).is_err() && Plan::new(1, 0).is_err(), || {
        "zero steps accepted".into()
    })
}

/// The CPU follows the snapshots as far as its budget allows: the example's GPU default (4096^2,
/// a snapshot every 200 steps) to step 200; with the first snapshot at 250, not at all.
fn course_heat_cpu_budget() -> TestResult {
    use ferrocuda_book::examples::course::heat::{N, cpu_limit};
    let grid = Grid::new(N, N, Edges::Dirichlet, 0.8).map_err(fail)?;
    let limit = |every| Plan::new(2000, every).map(|plan| cpu_limit(&grid, &plan)).map_err(fail);
    ensure(limit(200)? == 200, || "4096^2, every 200".into())?;
    ensure(limit(250)? == 0, || "4096^2, every 250".into())?;
    let small = Grid::new(64, 64, Edges::Insulated, 0.8).map_err(fail)?;
    ensure(cpu_limit(&small, &Plan::new(77, 10).map_err(fail)?) == 77, || {
        "64^2".into()
    })
}

fn course_heat_heat_map() -> TestResult {
    let path = std::env::temp_dir().join(format!("ferrocuda-heat-map-{}.png", std::process::id()));
    let field: Vec<f32> = (0..12).map(|i| i as f32).collect();
    write_heat_map(&path, "test", &field, 3, 4).map_err(fail)?;
    let png = std::fs::read(&path).map_err(|e| e.to_string())?;
    std::fs::remove_file(&path).ok();
    ensure(png.starts_with(b"\x89PNG\r\n\x1a\n"), || "not a PNG".into())?;
    ensure(write_heat_map(&path, "short", &field, 4, 4).is_err(), || {
        "a field of the wrong size was drawn".into()
    })?;
    ensure(write_heat_map(&path, "nan", &[f64::NAN], 1, 1).is_err(), || {
        "a NaN field was drawn".into()
    })
}

/// The update's two multiply-adds are explicit `fma.rn` in every instance (the CPU reference
/// computes the same fused operations), no kernel spills to local memory, the global kernel
/// reads through the read-only path and the tiled one through shared memory with barriers.
fn course_heat_ptx() -> TestResult {
    for set in ferrocuda_book::KERNEL_SETS {
        for module in set.modules() {
            for t in ["f32", "f64"] {
                for name in ["heat_step", "heat_step_tiled"] {
                    let symbol = format!("{name}_{t}");
                    let Some(body) = ferrocuda::ptx::entry_ptx(module.ptx, &symbol) else {
                        continue;
                    };
                    let fmas = body.matches(&format!("fma.rn.{t}")).count();
                    ensure(fmas == 2, || {
                        format!("{symbol} ({}): {fmas} fma.rn, not 2", module.arch)
                    })?;
                    ensure(!body.contains(".local"), || format!("{symbol} uses local memory"))?;
                    let expected: &[&str] = if name == "heat_step" {
                        &["ld.global.nc"]
                    } else {
                        &["ld.shared", "st.shared", "bar.sync", "ld.global.nc"]
                    };
                    for p in expected {
                        ensure(body.contains(p), || format!("{symbol} lacks `{p}`"))?;
                    }
                }
            }
        }
    }
    let found = ferrocuda_book::KERNELS
        .modules()
        .filter(|m| ferrocuda::ptx::entry_ptx(m.ptx, "heat_step_tiled_f64").is_some())
        .count();
    ensure(found > 0, || "no module holds heat_step_tiled_f64".into())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("course_heat_awkward_sizes_f32", course_heat_awkward_sizes_f32),
        ("course_heat_awkward_sizes_f64", course_heat_awkward_sizes_f64),
        ("course_heat_analytic_error_bound", course_heat_analytic_error_bound),
        ("course_heat_converges_as_h_squared", course_heat_converges_as_h_squared),
        (
            "course_heat_conserves_heat_when_insulated",
            course_heat_conserves_heat_when_insulated,
        ),
        ("course_heat_snapshots_equal_cpu", course_heat_snapshots_equal_cpu),
        ("course_heat_program", course_heat_program),
        ("course_heat_program_insulated_f64", course_heat_program_insulated_f64),
        ("course_heat_program_hotspot_plot", course_heat_program_hotspot_plot),
        ("course_heat_rejects_bad_arguments", course_heat_rejects_bad_arguments),
    ];
    common::main(
        vec![
            ("course_heat_reference_by_hand", course_heat_reference_by_hand),
            ("course_heat_snapshot_plan", course_heat_snapshot_plan),
            ("course_heat_heat_map", course_heat_heat_map),
            ("course_heat_cpu_budget", course_heat_cpu_budget),
            ("course_heat_ptx", course_heat_ptx),
        ],
        gpu_tests,
    )
}
