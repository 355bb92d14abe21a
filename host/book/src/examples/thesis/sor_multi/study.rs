//! `thesis-sor-multi --study`: the thesis's experiments (§6.3) on the GPUs present: strong
//! scaling over 1, 2 and 4 partitions, strips against 2 x 2 blocks, weak scaling, border widths,
//! every configuration checked bit for bit against one GPU.
use super::{MultiSetup, SIMULATOR_BORDERS, SIMULATOR_STUDY_SIDES, STUDY_PARTITIONS, STUDY_SIDES, THESIS_BORDERS};
use crate::examples::Options;
use crate::examples::thesis::sor_setup::compare;
use crate::plot::{Chart, Series};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::multi::{self, MultiConfig};
use ferrocuda::sor::partition::Decomposition;
use ferrocuda::sor::single::solve_iterations;
use ferrocuda::sor::{Problem, SorReal};
use ferrocuda::verify::Check;
use std::path::PathBuf;

/// One measured configuration of the study.
#[derive(Clone, Copy, Debug)]
struct Measured {
    ms_per_iteration: f64,
    metrics: [f64; 4],
}

fn measure<T: SorReal>(
    gpus: &[&Gpu],
    initial: &[T],
    rows: usize,
    cols: usize,
    config: MultiConfig,
    one: &[T],
    checks: &mut Vec<Check>,
) -> Result<Measured> {
    let solution = multi::solve(gpus, initial, rows, cols, config)?;
    let check = compare(&format!("{rows}x{cols} {config:?} vs one GPU"), &solution.grid, one);
    if !check.passed() {
        checks.push(check);
    } else if checks.is_empty() {
        checks.push(Check::condition(
            "every study configuration equals the one-GPU grid",
            true,
        ));
    }
    Ok(Measured {
        ms_per_iteration: solution.loop_time.as_secs_f64() * 1e3 / config.iterations.max(1) as f64,
        metrics: solution.metrics(config.iterations),
    })
}

/// The thesis's experiments (§6.3) on the GPUs present.
pub(super) fn study<T: SorReal>(gpus: &[&Gpu], setup: &MultiSetup, options: &Options) -> Result<Vec<Check>> {
    let gpu = gpus[0];
    let iterations = setup.iterations;
    let variant = setup.base.variants[0];
    let sides = gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]);
    let base = |cols: usize, partitions, strategy: Strategy, border, decomposition| MultiConfig {
        decomposition,
        partitions,
        strategy,
        overlap: strategy.is_async(),
        border,
        variant,
        iterations,
        omega: setup.base.omega.value(cols),
    };
    let mut checks = Vec::new();
    let mut speedups: Vec<Series> = Vec::new();
    let mut split: Vec<Series> = vec![
        Series::new("kernel (MKT)", vec![]),
        Series::new("transfer (MTT)", vec![]),
        Series::new("sync (MST)", vec![]),
        Series::new("loop per iteration", vec![]),
    ];
    println!(
        " Strong scaling: ms per iteration (slowest partition's loop / {iterations}), {variant} kernel, {} partition(s) over {} GPU(s), border 1; speedup vs one GPU",
        STUDY_PARTITIONS
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join("/"),
        gpus.len()
    );
    println!(
        " {:>6} {:>3} {:>8} {:>11} {:>8} {:>9} {:>9} {:>9} {:>8}",
        "N", "P", "exchange", "ms/it", "speedup", "MKT", "MTT", "MST", "hidden"
    );
    // The study's three parts: the strong scaling's sides, then weak scaling and border widths.
    let bar = crate::progress::bar(
        "--study: strong scaling sides, weak scaling, border widths",
        sides.len() as u64 + 2,
    );
    for &n in sides {
        let initial: Vec<T> = Problem::Thesis.initial(n, n)?;
        let omega = setup.base.omega.value(n);
        let one = solve_iterations(gpu, variant, &initial, n, n, omega, iterations)?;
        let one_ms = one.elapsed_ms / iterations as f64;
        println!(" {n:>6} {:>3} {:>8} {one_ms:>11.4} {:>8.2}", 1, "1 GPU", 1.0);
        for strategy in Strategy::ALL {
            let mut points = vec![(1.0, 1.0)];
            for &p in &STUDY_PARTITIONS[1..] {
                let sequential = measure(
                    gpus,
                    &initial,
                    n,
                    n,
                    MultiConfig {
                        overlap: false,
                        ..base(n, p, strategy, 1, Decomposition::Strips)
                    },
                    &one.grid,
                    &mut checks,
                )?;
                let m = if strategy.is_async() {
                    measure(
                        gpus,
                        &initial,
                        n,
                        n,
                        base(n, p, strategy, 1, Decomposition::Strips),
                        &one.grid,
                        &mut checks,
                    )?
                } else {
                    sequential
                };
                // The exchange time the overlap hides: of the loop time beyond the kernels in the
                // sequential run, the share the overlapped run no longer spends (only with a GPU
                // per partition: partitions sharing a GPU also share its time).
                let exposed = sequential.ms_per_iteration - sequential.metrics[0];
                let hidden = (strategy.is_async() && exposed > 0.0 && p <= gpus.len())
                    .then(|| (sequential.ms_per_iteration - m.ms_per_iteration) / exposed);
                println!(
                    " {n:>6} {p:>3} {strategy:>8} {:>11.4} {:>8.2} {:>9.4} {:>9.4} {:>9.4} {:>8}",
                    m.ms_per_iteration,
                    one_ms / m.ms_per_iteration,
                    m.metrics[0],
                    m.metrics[2],
                    m.metrics[1],
                    hidden.map_or("-".into(), |h| format!("{:.0}%", 100.0 * h))
                );
                points.push((p as f64, one_ms / m.ms_per_iteration));
                if n == *sides.last().unwrap_or(&0) && strategy == Strategy::HostSync {
                    for (series, y) in
                        split
                            .iter_mut()
                            .zip([m.metrics[0], m.metrics[2], m.metrics[1], m.ms_per_iteration])
                    {
                        series.points.push((p as f64, y));
                    }
                }
            }
            speedups.push(Series::new(format!("N={n} {strategy}"), points));
        }
        if n == *sides.last().unwrap_or(&0) {
            let blocks = measure(
                gpus,
                &initial,
                n,
                n,
                base(n, 4, Strategy::HostSync, 1, Decomposition::Blocks),
                &one.grid,
                &mut checks,
            )?;
            let strips = measure(
                gpus,
                &initial,
                n,
                n,
                base(n, 4, Strategy::HostSync, 1, Decomposition::Strips),
                &one.grid,
                &mut checks,
            )?;
            println!(
                " Strips vs 2x2 blocks, N = {n}, 4 partitions, host exchange: strips {:.4} ms/it (MTT {:.4}), blocks {:.4} ms/it (MTT {:.4}): blocks / strips = {:.2}",
                strips.ms_per_iteration,
                strips.metrics[2],
                blocks.ms_per_iteration,
                blocks.metrics[2],
                blocks.ms_per_iteration / strips.ms_per_iteration
            );
        }
        bar.inc(1);
    }
    weak_scaling::<T>(gpus, setup, &base, &mut checks)?;
    bar.inc(1);
    let border_points = border_study::<T>(gpus, setup, &base, &mut checks)?;
    bar.finish_and_clear();
    if let Some(prefix) = options.value("--plot") {
        let path = |name: &str| -> PathBuf {
            let p = PathBuf::from(prefix);
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            p.with_file_name(format!("{stem}-{name}.png"))
        };
        Chart::new(
            "Red-black SOR: speedup over one GPU (strips, border 1)",
            "partitions (GPUs)",
            "speedup",
        )
        .write(path("speedup"), &speedups)?;
        Chart::new(
            format!("Time per iteration, N = {}, host exchange", sides.last().unwrap_or(&0)),
            "partitions (GPUs)",
            "ms",
        )
        .write(path("split"), &split)?;
        Chart::new(
            "Border width: ms per iteration (4 partitions)",
            "border width bs (iterations between exchanges)",
            "ms per iteration",
        )
        .log_x()
        .write(path("border"), &border_points)?;
        println!(
            " plots written to {}, {} and {}",
            path("speedup").display(),
            path("split").display(),
            path("border").display()
        );
    }
    Ok(checks)
}

/// Weak scaling: each partition keeps an `n0 x n0` strip (rows = n0 P).
fn weak_scaling<T: SorReal>(
    gpus: &[&Gpu],
    setup: &MultiSetup,
    base: &dyn Fn(usize, usize, Strategy, usize, Decomposition) -> MultiConfig,
    checks: &mut Vec<Check>,
) -> Result<()> {
    let gpu = gpus[0];
    let n0 = gpu.pick(8192, 66);
    let iterations = setup.iterations;
    let variant = setup.base.variants[0];
    let mut base_ms = 0.0;
    println!(" Weak scaling: {n0} x {n0} per partition, pinned exchange with overlap; efficiency = t(1) / t(P)");
    for &p in &STUDY_PARTITIONS {
        let (rows, cols) = (n0 * p, n0);
        let initial: Vec<T> = Problem::Thesis.initial(rows, cols)?;
        let omega = setup.base.omega.value(cols);
        let one = solve_iterations(gpu, variant, &initial, rows, cols, omega, iterations)?;
        let ms = if p == 1 {
            one.elapsed_ms / iterations as f64
        } else {
            measure(
                gpus,
                &initial,
                rows,
                cols,
                base(cols, p, Strategy::PinnedAsync, 1, Decomposition::Strips),
                &one.grid,
                checks,
            )?
            .ms_per_iteration
        };
        if p == 1 {
            base_ms = ms;
        }
        println!(
            "  P = {p}: {rows} x {cols}, {ms:.4} ms per iteration, efficiency {:.2}",
            base_ms / ms
        );
    }
    Ok(())
}

/// The thesis's border-width experiment (Fig. 6.11): strips over 4 partitions.
fn border_study<T: SorReal>(
    gpus: &[&Gpu],
    setup: &MultiSetup,
    base: &dyn Fn(usize, usize, Strategy, usize, Decomposition) -> MultiConfig,
    checks: &mut Vec<Check>,
) -> Result<Vec<Series>> {
    let gpu = gpus[0];
    // The thesis's Fig. 6.11 used 10000^2 (and 44000^2, 52000^2 on four 4 GB GPUs).
    let n = gpu.pick(8192, 130);
    let iterations = setup.iterations;
    let borders = gpu.pick(&THESIS_BORDERS[..], &SIMULATOR_BORDERS[..]);
    let initial: Vec<T> = Problem::Thesis.initial(n, n)?;
    let omega = setup.base.omega.value(n);
    let one = solve_iterations(gpu, setup.base.variants[0], &initial, n, n, omega, iterations)?;
    println!(" Border width, N = {n}, 4 strips, ms per iteration (ghosts 2 bs deep):");
    // The thesis's exchange and the overlapped one (peer copies behave as the pinned ones here).
    let strategies = [Strategy::HostSync, Strategy::PinnedAsync];
    println!(" {:>5} {:>10} {:>10}", "bs", "host", "pinned");
    let mut series: Vec<Series> = strategies.iter().map(|s| Series::new(s.to_string(), vec![])).collect();
    for &bs in borders.iter().filter(|&&bs| bs <= iterations) {
        let mut line = format!(" {bs:>5}");
        for (k, strategy) in strategies.into_iter().enumerate() {
            let m = measure(
                gpus,
                &initial,
                n,
                n,
                base(n, 4, strategy, bs, Decomposition::Strips),
                &one.grid,
                checks,
            )?;
            line += &format!(" {:>10.4}", m.ms_per_iteration);
            series[k].points.push((bs as f64, m.ms_per_iteration));
        }
        println!("{line}");
    }
    Ok(series)
}
