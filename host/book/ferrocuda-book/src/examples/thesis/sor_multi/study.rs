//! `thesis-sor-multi --study`: the thesis's experiments (§6.3) on the GPUs present: strong
//! scaling over 1, 2 and 4 partitions, strips against 2 x 2 blocks, the domain's shape (E3), the
//! global-memory against the texture (read-only path) kernels (E4), weak scaling and border
//! widths. Each configuration runs the attempts of Table 6.3 and prints the median and its median
//! absolute deviation, as the thesis graphs them; every attempt's grid is checked bit for bit
//! against one GPU.
use super::{MultiSetup, SIMULATOR_BORDERS, STUDY_PARTITIONS, THESIS_BORDERS, ThesisSorMultiOptions};
use crate::defaults::Pick;
use crate::examples::plot_option;
use crate::examples::thesis::sor_setup::compare;
use crate::plot::{Chart, Series};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::Stats;
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::multi::{self, MultiConfig};
use ferrocuda::sor::partition::Decomposition;
use ferrocuda::sor::single::solve_iterations;
use ferrocuda::sor::{Problem, SorReal, Variant};
use ferrocuda::verify::Check;

/// One configuration over its attempts: ms per iteration and the thesis's ET as medians with
/// their MADs, the metrics (MKT, MST, MTT, MCT) as medians.
#[derive(Clone, Copy, Debug)]
struct Measured {
    ms_per_iteration: Stats,
    elapsed_ms: Stats,
    metrics: [f64; 4],
}

/// `median ±MAD`, four decimals.
fn spread(stats: &Stats) -> String {
    format!("{:.4} ±{:.4}", stats.median_ms, stats.mad_ms)
}

/// Whether every grid of one experiment equalled its one-GPU grid: one passing check naming
/// the experiment, or the checks that failed.
fn agreement(what: &str, checks: Vec<Check>) -> Vec<Check> {
    let failed: Vec<Check> = checks.into_iter().filter(|c| !c.passed()).collect();
    match failed.is_empty() {
        true => vec![Check::condition(what, true)],
        false => failed,
    }
}

/// One grid of the study: its initial values and the one-GPU grid after the iterations, which
/// every partitioned grid must equal.
struct Reference<T> {
    rows: usize,
    cols: usize,
    initial: Vec<T>,
    one: Vec<T>,
}

/// Two configurations side by side: ET of each with its MAD and their ratio, then ms per
/// iteration likewise (the columns of E3 and E4).
fn side_by_side(first: &Measured, second: &Measured) -> String {
    let ratio = |a: &Stats, b: &Stats| a.median_ms / b.median_ms;
    format!(
        "{:>19} {:>19} {:>10.2} {:>17} {:>17} {:>10.2}",
        spread(&first.elapsed_ms),
        spread(&second.elapsed_ms),
        ratio(&first.elapsed_ms, &second.elapsed_ms),
        spread(&first.ms_per_iteration),
        spread(&second.ms_per_iteration),
        ratio(&first.ms_per_iteration, &second.ms_per_iteration)
    )
}

/// What every experiment shares: the GPUs (the one-GPU runs on the first), the run's setup,
/// and how many attempts each configuration gets.
struct Study<'a> {
    gpus: &'a [&'a Gpu],
    setup: &'a MultiSetup,
    /// `--attempts`.
    attempts: Option<usize>,
}

impl Study<'_> {
    /// How many times each configuration runs: `--attempts`, else `table` (Table 6.3's count)
    /// on a GPU and one on the simulator, whose times say nothing of a GPU's.
    fn attempts(&self, table: usize) -> usize {
        self.attempts.unwrap_or(self.gpus[0].pick(table, 1))
    }

    /// Rounds 1 and 2 of Table 6.3 (square and rectangular domains) for a side of `n`.
    fn attempts_for_side(&self, n: usize) -> usize {
        self.attempts(match n {
            ..4000 => 30,
            4000..8000 => 20,
            8000..33000 => 10,
            _ => 5,
        })
    }

    /// The configuration every experiment varies: the thesis's omega for a side of
    /// `omega_side`, overlap wherever the exchange is asynchronous.
    fn config(
        &self,
        omega_side: usize,
        partitions: usize,
        strategy: Strategy,
        border: usize,
        decomposition: Decomposition,
    ) -> MultiConfig {
        MultiConfig {
            decomposition,
            partitions,
            strategy,
            overlap: strategy.is_async(),
            border,
            variant: self.setup.base.variants[0],
            iterations: self.setup.iterations,
            omega: self.setup.base.omega.value(omega_side),
        }
    }

    /// The thesis's problem on `rows x cols` and its one-GPU grid, with the one GPU's ms per
    /// iteration over `attempts` (omega for a side of `omega_side`).
    fn reference<T: SorReal>(
        &self,
        (rows, cols): (usize, usize),
        omega_side: usize,
        attempts: usize,
    ) -> Result<(Reference<T>, Stats)> {
        let (iterations, variant) = (self.setup.iterations, self.setup.base.variants[0]);
        let omega = self.setup.base.omega.value(omega_side);
        let initial: Vec<T> = Problem::Thesis.initial(rows, cols)?;
        let mut per_iteration = vec![];
        let mut one = vec![];
        for _ in 0..attempts.max(1) {
            let solution = solve_iterations(self.gpus[0], variant, &initial, rows, cols, omega, iterations)?;
            per_iteration.push(solution.elapsed_ms / iterations.max(1) as f64);
            one = solution.grid;
        }
        let reference = Reference {
            rows,
            cols,
            initial,
            one,
        };
        Ok((reference, Stats::of(&mut per_iteration)))
    }

    /// Runs `config` on `grid` `attempts` times, checking each attempt's grid against one GPU's.
    fn measure<T: SorReal>(
        &self,
        grid: &Reference<T>,
        config: MultiConfig,
        attempts: usize,
        agreement: &mut Vec<Check>,
    ) -> Result<Measured> {
        let (rows, cols) = (grid.rows, grid.cols);
        let (mut per_iteration, mut elapsed) = (vec![], vec![]);
        let mut metrics: [Vec<f64>; 4] = Default::default();
        for _ in 0..attempts.max(1) {
            let solution = multi::solve(self.gpus, &grid.initial, rows, cols, config)?;
            agreement.push(compare(
                &format!("{rows}x{cols} {config:?} vs one GPU"),
                &solution.grid,
                &grid.one,
            ));
            per_iteration.push(solution.loop_time.as_secs_f64() * 1e3 / config.iterations.max(1) as f64);
            elapsed.push(solution.elapsed.as_secs_f64() * 1e3);
            for (all, value) in metrics.iter_mut().zip(solution.metrics(config.iterations)) {
                all.push(value);
            }
        }
        Ok(Measured {
            ms_per_iteration: Stats::of(&mut per_iteration),
            elapsed_ms: Stats::of(&mut elapsed),
            metrics: metrics.map(|mut all| Stats::of(&mut all).median_ms),
        })
    }

    /// Strong scaling over 1, 2 and 4 partitions at each side, every exchange, then strips against
    /// 2 x 2 blocks at the largest side: the speedup series and, at the largest side, the split of
    /// an iteration's time (kernel, transfer, sync, loop) for the plots.
    fn strong_scaling<T: SorReal>(
        &self,
        sides: &[usize],
        agreement: &mut Vec<Check>,
        side_done: &dyn Fn(),
    ) -> Result<(Vec<Series>, Vec<Series>)> {
        let (iterations, variant) = (self.setup.iterations, self.setup.base.variants[0]);
        let largest = sides.iter().copied().max().unwrap_or(0);
        let mut speedups: Vec<Series> = Vec::new();
        let split = ["kernel (MKT)", "transfer (MTT)", "sync (MST)", "loop per iteration"];
        let mut split: Vec<Series> = split.into_iter().map(|name| Series::new(name, vec![])).collect();
        println!(
            " Strong scaling: ms per iteration (slowest partition's loop / {iterations}, median ±MAD of the attempts), {variant} kernel, {} partition(s) over {} GPU(s), border 1; speedup vs one GPU (medians)",
            STUDY_PARTITIONS
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join("/"),
            self.gpus.len()
        );
        println!(
            " {:>6} {:>3} {:>8} {:>8} {:>17} {:>8} {:>9} {:>9} {:>9} {:>8}",
            "N", "P", "exchange", "attempts", "ms/it", "speedup", "MKT", "MTT", "MST", "hidden"
        );
        for &n in sides {
            let tries = self.attempts_for_side(n);
            let (grid, one_stats) = self.reference::<T>((n, n), n, tries)?;
            let one_ms = one_stats.median_ms;
            println!(
                " {n:>6} {:>3} {:>8} {tries:>8} {:>17} {:>8.2}",
                1,
                "1 GPU",
                spread(&one_stats),
                1.0
            );
            for strategy in Strategy::ALL {
                let mut points = vec![(1.0, 1.0)];
                for &p in &STUDY_PARTITIONS[1..] {
                    let config = self.config(n, p, strategy, 1, Decomposition::Strips);
                    let sequential = MultiConfig {
                        overlap: false,
                        ..config
                    };
                    let sequential = self.measure(&grid, sequential, tries, agreement)?;
                    let m = if strategy.is_async() {
                        self.measure(&grid, config, tries, agreement)?
                    } else {
                        sequential
                    };
                    // The exchange time the overlap hides: of the loop time beyond the kernels in the
                    // sequential run, the share the overlapped run no longer spends (only with a GPU
                    // per partition: partitions sharing a GPU also share its time).
                    let exposed = sequential.ms_per_iteration.median_ms - sequential.metrics[0];
                    let hidden = (strategy.is_async() && exposed > 0.0 && p <= self.gpus.len())
                        .then(|| (sequential.ms_per_iteration.median_ms - m.ms_per_iteration.median_ms) / exposed);
                    let ms = m.ms_per_iteration.median_ms;
                    println!(
                        " {n:>6} {p:>3} {strategy:>8} {tries:>8} {:>17} {:>8.2} {:>9.4} {:>9.4} {:>9.4} {:>8}",
                        spread(&m.ms_per_iteration),
                        one_ms / ms,
                        m.metrics[0],
                        m.metrics[2],
                        m.metrics[1],
                        hidden.map_or("-".into(), |h| format!("{:.0}%", 100.0 * h))
                    );
                    points.push((p as f64, one_ms / ms));
                    if n == largest && strategy == Strategy::HostSync {
                        for (series, y) in split.iter_mut().zip([m.metrics[0], m.metrics[2], m.metrics[1], ms]) {
                            series.points.push((p as f64, y));
                        }
                    }
                }
                speedups.push(Series::new(format!("N={n} {strategy}"), points));
            }
            if n == largest {
                let mut four = |decomposition| {
                    let config = self.config(n, 4, Strategy::HostSync, 1, decomposition);
                    self.measure(&grid, config, tries, agreement)
                };
                let blocks = four(Decomposition::Blocks)?;
                let strips = four(Decomposition::Strips)?;
                println!(
                    " Strips vs 2x2 blocks (E2), N = {n}, 4 partitions, host exchange: strips {} ms/it (MTT {:.4}), blocks {} ms/it (MTT {:.4}): blocks / strips = {:.2}",
                    spread(&strips.ms_per_iteration),
                    strips.metrics[2],
                    spread(&blocks.ms_per_iteration),
                    blocks.metrics[2],
                    blocks.ms_per_iteration.median_ms / strips.ms_per_iteration.median_ms
                );
            }
            side_done();
        }
        Ok((speedups, split))
    }

    /// E3, the domain's shape (Figs. 6.6, 6.7): Shape0 (N/2 rows x N columns) against Shape2
    /// (N x N/2) over 4 partitions, strips and 2 x 2 blocks, the thesis's host exchange. The
    /// thesis's speedup is median ET(Shape0) / median ET(Shape2); the loop's ratio is printed too,
    /// since ET also holds the first and last full transfers.
    fn shape_study<T: SorReal>(&self, n: usize, agreement: &mut Vec<Check>) -> Result<()> {
        let tries = self.attempts_for_side(n);
        println!(
            " Domain shape (E3), N = {n}, 4 partitions, host exchange, {tries} attempt(s): ET (first upload to last download) and ms per iteration, median ±MAD"
        );
        println!(
            " {:>8} {:>15} {:>19} {:>19} {:>10} {:>17} {:>17} {:>10}",
            "decomp.",
            "shapes 0/2",
            "ET Shape0, ms",
            "ET Shape2, ms",
            "ET 0/2",
            "ms/it Shape0",
            "ms/it Shape2",
            "ms/it 0/2"
        );
        let shapes = [
            self.reference::<T>((n / 2, n), n, 1)?.0,
            self.reference::<T>((n, n / 2), n, 1)?.0,
        ];
        for decomposition in [Decomposition::Strips, Decomposition::Blocks] {
            let config = self.config(n, 4, Strategy::HostSync, 1, decomposition);
            let mut measured = vec![];
            for grid in &shapes {
                measured.push(self.measure(grid, config, tries, agreement)?);
            }
            println!(
                " {:>8} {:>15} {}",
                decomposition.to_string(),
                format!("{}x{}/{}x{}", n / 2, n, n, n / 2),
                side_by_side(&measured[0], &measured[1])
            );
        }
        println!(
            " (thesis: strips show little benefit either way; blocks lose with Shape2, whose horizontal transfers are costly; the shape's influence stays < 1.2X)"
        );
        Ok(())
    }

    /// E4, global-memory against texture kernels (Fig. 6.8): the thesis's `gm` kernels against
    /// `lintex` (its texture fetches, here the read-only path), strips over 2 and 4 partitions,
    /// host exchange, at every side; speedup = median ET(gm) / median ET(lintex).
    fn kernel_study<T: SorReal>(&self, sides: &[usize], agreement: &mut Vec<Check>) -> Result<()> {
        println!(" Global memory vs texture kernels (E4), strips, host exchange: ET and ms per iteration, median ±MAD");
        println!(
            " {:>6} {:>3} {:>8} {:>19} {:>19} {:>10} {:>17} {:>17} {:>10}",
            "N", "P", "attempts", "ET gm, ms", "ET lintex, ms", "ET gm/tex", "ms/it gm", "ms/it lintex", "ms/it g/t"
        );
        for &n in sides {
            let tries = self.attempts_for_side(n);
            let grid = self.reference::<T>((n, n), n, 1)?.0;
            for &p in &STUDY_PARTITIONS[1..] {
                let config = |variant| MultiConfig {
                    variant,
                    ..self.config(n, p, Strategy::HostSync, 1, Decomposition::Strips)
                };
                let gm = self.measure(&grid, config(Variant::Gm), tries, agreement)?;
                let tex = self.measure(&grid, config(Variant::Lintex), tries, agreement)?;
                println!(" {n:>6} {p:>3} {tries:>8} {}", side_by_side(&gm, &tex));
            }
        }
        println!(
            " (thesis: \"practically at the same level\": coalesced global loads are as efficient as the texture's locality)"
        );
        Ok(())
    }

    /// Weak scaling: each partition keeps an `n0 x n0` strip (rows = n0 P).
    fn weak_scaling<T: SorReal>(&self, agreement: &mut Vec<Check>) -> Result<()> {
        let n0 = self.gpus[0].pick(8192, 66);
        let tries = self.attempts_for_side(n0);
        let mut base_ms = None;
        println!(
            " Weak scaling: {n0} x {n0} per partition, pinned exchange with overlap, {tries} attempt(s); efficiency = t(1) / t(P), medians"
        );
        for &p in &STUDY_PARTITIONS {
            let (rows, cols) = (n0 * p, n0);
            let (grid, one_stats) = self.reference::<T>((rows, cols), cols, tries)?;
            let stats = if p == 1 {
                one_stats
            } else {
                let config = self.config(cols, p, Strategy::PinnedAsync, 1, Decomposition::Strips);
                self.measure(&grid, config, tries, agreement)?.ms_per_iteration
            };
            let base_ms = *base_ms.get_or_insert(stats.median_ms);
            println!(
                "  P = {p}: {rows} x {cols}, {} ms per iteration, efficiency {:.2}",
                spread(&stats),
                base_ms / stats.median_ms
            );
        }
        Ok(())
    }

    /// The thesis's border-width experiment (Fig. 6.11): strips over 4 partitions.
    fn border_study<T: SorReal>(&self, agreement: &mut Vec<Check>) -> Result<Vec<Series>> {
        let gpu = self.gpus[0];
        // The thesis's Fig. 6.11 used 10000^2 (and 44000^2, 52000^2 on four 4 GB GPUs).
        let n = gpu.pick(8192, 130);
        let borders = gpu.pick(&THESIS_BORDERS[..], &SIMULATOR_BORDERS[..]);
        let tries = self.attempts(3);
        let grid = self.reference::<T>((n, n), n, 1)?.0;
        println!(
            " Border width, N = {n}, 4 strips, ms per iteration (ghosts 2 bs deep), median ±MAD of {tries} attempt(s):"
        );
        // The thesis's exchange and the overlapped one (peer copies behave as the pinned ones here).
        let strategies = [Strategy::HostSync, Strategy::PinnedAsync];
        println!(" {:>5} {:>17} {:>17}", "bs", "host", "pinned");
        let mut series: Vec<Series> = strategies.iter().map(|s| Series::new(s.to_string(), vec![])).collect();
        for &bs in borders.iter().filter(|&&bs| bs <= self.setup.iterations) {
            let mut line = format!(" {bs:>5}");
            for (k, strategy) in strategies.into_iter().enumerate() {
                let config = self.config(n, 4, strategy, bs, Decomposition::Strips);
                let m = self.measure(&grid, config, tries, agreement)?;
                line += &format!(" {:>17}", spread(&m.ms_per_iteration));
                series[k].points.push((bs as f64, m.ms_per_iteration.median_ms));
            }
            println!("{line}");
        }
        Ok(series)
    }
}

/// The thesis's experiments (§6.3) on the GPUs present.
pub(super) fn study<T: SorReal>(gpus: &[&Gpu], setup: &MultiSetup, args: &ThesisSorMultiOptions) -> Result<Vec<Check>> {
    let gpu = gpus[0];
    let study = Study {
        gpus,
        setup,
        attempts: args.attempts,
    };
    let sides = &super::study_sides(args, gpu)[..];
    let largest = sides.iter().copied().max().unwrap_or(0);
    // The study's rounds, for the progress line.
    let bar = crate::progress::bar(
        "--study: strong scaling sides, domain shape, kernels, weak scaling, border widths",
        sides.len() as u64 + 4,
    );
    let mut grids: [Vec<Check>; 5] = Default::default();
    let (speedups, split) = study.strong_scaling::<T>(sides, &mut grids[0], &|| bar.inc(1))?;
    study.shape_study::<T>(largest, &mut grids[1])?;
    bar.inc(1);
    study.kernel_study::<T>(sides, &mut grids[2])?;
    bar.inc(1);
    study.weak_scaling::<T>(&mut grids[3])?;
    bar.inc(1);
    let border_points = study.border_study::<T>(&mut grids[4])?;
    bar.finish_and_clear();
    if let Some(prefix) = &args.plot {
        plot(prefix, largest, &speedups, &split, &border_points)?;
    }
    let experiments = [
        "every strong-scaling and strips-vs-blocks grid equals the one-GPU grid",
        "every Shape0 and Shape2 grid equals its one-GPU grid",
        "every gm and lintex grid equals the one-GPU grid",
        "every weak-scaling grid equals its one-GPU grid",
        "every border-width grid equals the one-GPU grid",
    ];
    Ok(experiments
        .into_iter()
        .zip(grids)
        .flat_map(|(what, checks)| agreement(what, checks))
        .collect())
}

/// The study's charts, `PREFIX-speedup.png`, `PREFIX-split.png` and `PREFIX-border.png`.
fn plot(prefix: &str, largest: usize, speedups: &[Series], split: &[Series], borders: &[Series]) -> Result<()> {
    let path = |name: &str| plot_option::prefixed(prefix, name);
    Chart::new(
        "Red-black SOR: speedup over one GPU (strips, border 1)",
        "partitions (GPUs)",
        "speedup",
    )
    .write(path("speedup"), speedups)?;
    Chart::new(
        format!("Time per iteration, N = {largest}, host exchange"),
        "partitions (GPUs)",
        "ms",
    )
    .write(path("split"), split)?;
    Chart::new(
        "Border width: ms per iteration (4 partitions)",
        "border width bs (iterations between exchanges)",
        "ms per iteration",
    )
    .log_x()
    .write(path("border"), borders)?;
    println!(
        " plots written to {}, {} and {}",
        path("speedup").display(),
        path("split").display(),
        path("border").display()
    );
    Ok(())
}
