//! thesis-comm-model's printout and chart: the fits per path, Table 6.4, the exchanges
//! predicted against measured, and the thesis's analytic comparison.
use super::rig::{Rig, measure_exchange};
use super::{
    Exchange, HELD_OUT, Path, PathReport, SEED, SMALL_COPIES, STRIDE_WIDTH, Section, THESIS_TABLE_6_4,
    block_thresholds, busiest_exchange, predict_exchange, thesis_exchange_ms,
};
use crate::plot::{Chart, Series};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::mean_relative_error;

/// One line per path: `timer_reg`'s figures, both fits and their held-out errors.
pub(super) fn print_fits(reports: &[PathReport]) {
    println!();
    println!(
        " Per path: timer_reg (one 1-element copy: the smallest 2-D copy, as width 0 is refused), the linear fit t = t_startup + n t_word and the power law t = a n^b over full-row copies, the per-row start-up from short-row copies, and the mean relative error of each fit at {HELD_OUT} held-out random sizes (seed {SEED}):"
    );
    println!(
        " {:<17} {:>10} {:>10} {:>11} {:>10} {:>8} {:>10} {:>6} {:>10} {:>8} {:>8}",
        "path", "1 copy ms", "mean 1000", "t_start ms", "t_word ns", "GB/s", "a", "b", "t_row us", "err lin", "err pow"
    );
    for r in reports {
        println!(
            " {:<17} {:>10} {:>10} {:>11} {:>10} {:>8.2} {:>10.3e} {:>6.3} {:>10} {:>7.1}% {:>7.1}%",
            r.path.name(),
            sig(r.single_ms),
            sig(r.small_mean_ms),
            sig(r.linear.t_startup_ms),
            sig(r.linear.t_word_ms * 1e6),
            4.0 / (r.linear.t_word_ms * 1e6),
            r.power.a,
            r.power.b,
            sig(r.rows.t_row_ms * 1e3),
            100.0 * mean_relative_error(|n| r.linear.predict(n), &r.held_out),
            100.0 * mean_relative_error(|n| r.power.predict(n), &r.held_out),
        );
    }
}

/// Table 6.4 for pageable D2H: measured, the thesis's static model from the two small copies,
/// the per-row regression, and the thesis's numbers.
pub(super) fn print_table_6_4(rig: &mut Rig, d2h: &PathReport, failures: &mut Vec<String>) -> Result<()> {
    let n = rig.side;
    let t_startup = d2h.single_ms;
    let t_word = d2h.small_mean_ms - d2h.single_ms;
    println!();
    println!(
        " Table 6.4, pageable D2H from a pitched {n} x {n} matrix. Static model (the thesis's): t_startup = one 1-element copy = {} ms, t_word = mean of {SMALL_COPIES} 1-element copies - t_startup = {} ms. Row model: t_startup + K (t_row + N t_word) from the fits.",
        sig(t_startup),
        sig(t_word)
    );
    if t_word <= 0.0 {
        println!(
            " (timer_reg's t_word is not positive here: our smallest copy already moves one element, so the difference is noise)"
        );
    }
    println!(
        " {:>5} {:>6} {:>10} {:>16} {:>12} | thesis (Tesla S1070, CUDA 2.1): {:>6} {:>5} {:>9} {:>10}",
        "K", "N", "measured", "K(ts + N tw)", "row model", "K", "N", "measured", "model"
    );
    let rows = [(1, 0), (1, 1), (5, n), (5, n / 2), (n / 2, STRIDE_WIDTH)];
    for ((k, width), thesis) in rows.into_iter().zip(THESIS_TABLE_6_4) {
        let (ms, label) = match width {
            0 => (d2h.single_ms, "0 (1)".to_string()),
            1 => (d2h.small_mean_ms, "1".to_string()),
            w => (rig.measure(Path::PageableD2h, k, w, failures)?.median_ms, w.to_string()),
        };
        println!(
            " {:>5} {:>6} {:>10} {:>16} {:>12} | {:>38} {:>5} {:>9.3} {:>10.3}",
            k,
            label,
            sig(ms),
            sig(k as f64 * (t_startup + width as f64 * t_word)),
            sig(d2h.rows.predict(k, width.max(1))),
            thesis.0,
            thesis.1,
            thesis.2,
            thesis.3,
        );
    }
    println!(
        " (\"0 (1)\": our smallest copy moves one element; the row 1 x 1 is the mean of {SMALL_COPIES} such copies)"
    );
    Ok(())
}

/// Predicted against measured exchange per iteration, busiest GPU; returns whether every
/// exchange's data was right.
pub(super) fn print_exchanges(
    gpu: &Gpu,
    sides: &[usize],
    ghost: usize,
    reports: &[PathReport],
    reps: usize,
) -> Result<bool> {
    println!();
    println!(
        " Border exchange per iteration, busiest GPU, {ghost} ghost rows, GPU -> pageable host -> GPU (cudaMemcpy2D), ms:"
    );
    println!(
        " {:>6} {:>5} {:>7} {:>12} {:>14} {:>10}",
        "N", "GPUs", "layout", "row model", "linear only", "measured"
    );
    let mut exact = true;
    let (d2h, h2d) = (&reports[0].rows, &reports[1].rows);
    let linear_only = |e: &Exchange| {
        let words = |&(_, rows, width): &Section| (rows * width) as f64;
        e.borders
            .iter()
            .map(|(s, _)| d2h.linear.predict(words(s)) + h2d.linear.predict(words(s)))
            .sum::<f64>()
    };
    for &n in sides {
        for (gpus, blocks) in [(2, false), (4, false), (4, true)] {
            let exchange = busiest_exchange(n, gpus, blocks, ghost);
            let (ms, ok) = measure_exchange(gpu, &exchange, reps)?;
            exact &= ok;
            let layout = if blocks { "2x2" } else { "strips" };
            let predicted = predict_exchange(&exchange, d2h, h2d);
            let row = [predicted, linear_only(&exchange), ms].map(sig);
            println!(
                " {n:>6} {gpus:>5} {layout:>7} {:>12} {:>14} {:>10}",
                row[0], row[1], row[2]
            );
        }
    }
    Ok(exact)
}

/// (5.1), (5.2) and the conclusions (5.5)-(5.7), with the static and the fitted parameters.
pub(super) fn print_thesis_comparisons(d2h: &PathReport, n: usize, k: usize) {
    println!();
    println!(" The thesis's analytic comparison (5.1)-(5.7) at n = {n}, k = {k}, ms:");
    let static_word = d2h.small_mean_ms - d2h.single_ms;
    let sets = [
        ("static (timer_reg)", d2h.single_ms, static_word),
        ("fitted (t_row, t_word)", d2h.rows.t_row_ms, d2h.linear.t_word_ms),
    ];
    for (name, ts, tw) in sets {
        let (nf, kf) = (n as f64, k as f64);
        let [end, mid, block] = thesis_exchange_ms(nf, kf, ts, tw);
        let [t_end, t_mid] = block_thresholds(nf, kf, tw);
        let verdict = |slower: bool| if slower { "strips win" } else { "blocks win" };
        println!(
            "  {name}: t_startup {ts:.3e}, t_word {tw:.3e}; strip end {}, strip middle {}, block {}; end GPUs: {} (t_startup > {t_end:.3e}), middle GPUs: {} (t_startup > {t_mid:.3e}; n -> inf: > {:.3e})",
            sig(end),
            sig(mid),
            sig(block),
            verdict(ts > t_end),
            verdict(ts > t_mid),
            2.0 * kf * tw,
        );
    }
}

/// `x` with four significant digits: times span microseconds (simulator) to tens of ms.
fn sig(x: f64) -> String {
    let magnitude = if x == 0.0 || !x.is_finite() {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let digits = (3 - magnitude).clamp(0, 12) as usize;
    format!("{x:.digits$}")
}

/// The chart's frame: log-log, time as log10(ms) as the chart's y axis is linear.
pub(super) fn chart(gpu: &Gpu) -> Chart {
    Chart::new(
        format!("2-D copy time and fits, {}", gpu.properties().name),
        "bytes",
        "log10(time, ms)",
    )
    .log_x()
}

/// Per path: the measured full-row copies, the linear fit and the power law (where positive).
pub(super) fn series(reports: &[PathReport]) -> Vec<Series> {
    let mut out = Vec::new();
    for r in reports {
        let at = |f: &dyn Fn(f64) -> f64| {
            let points = r.contiguous.iter().map(|&(n, _)| (4.0 * n, f(n).log10()));
            points.filter(|p| p.1.is_finite()).collect()
        };
        let name = r.path.name();
        out.push(Series::new(
            name,
            r.contiguous.iter().map(|&(n, t)| (4.0 * n, t.log10())).collect(),
        ));
        out.push(Series::new(format!("{name} linear"), at(&|n| r.linear.predict(n))));
        out.push(Series::new(format!("{name} power"), at(&|n| r.power.predict(n))));
    }
    out
}
