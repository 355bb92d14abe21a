//! ch5-bs-european-mc's checks: the GPU's statistics against the CPU's Monte Carlo over the same
//! normals within bounds derived from the two summation orders ([`Bounds`]), its payoffs bit for
//! bit, the Monte Carlo against the closed form, and Hastings' CDF against the exact one.
use super::{GpuMc, HALF_WIDTHS, HASTINGS_VS_EXACT, McReal, wide};
use crate::reference::ch5::bs_european_mc::{
    self as reference, EuropeanOption, HASTINGS_MAX_ERROR, McReference, McStats,
};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

/// Additions the GPU's sums may put a payoff through beyond its thread's own loop: the block
/// reduction (two 5-level warp trees), then `reduce::sum` of the partials (a 16-byte chunk of 4
/// and a 256-thread block's 10 levels in each of its two passes), with room to spare.
pub const GPU_TREE_DEPTH: usize = 40;

/// Bounds on `|GPU - CPU|` for each statistic, `[put, call]`. The payoffs agree bit for bit
/// (every rounding in `payoffs` is explicit, the exponential included), so only the order of the
/// additions differs. Both sides add nonnegative payoffs, so each sum is within `depth * u` of
/// the exact sum of its terms (first-order error analysis; `depth` the most additions a term
/// meets in that order, `u` half an ulp). The deviations from the means then differ by at most
/// the means' difference (in root mean square, by the triangle inequality) plus their own
/// roundings, and the intervals by the mean's bound plus `1.96/sqrt(N)` times the deviation's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub mean: [f64; 2],
    pub sd: [f64; 2],
    pub ci: [f64; 2],
}

impl Bounds {
    /// The bounds for the CPU's statistics over `n` samples and a GPU launch of `gpu_threads`
    /// threads in all.
    pub fn new<T: McReal>(cpu: &McStats<T>, n: usize, gpu_threads: usize) -> Self {
        let u = T::EPSILON / 2.0;
        let depth = (n.div_ceil(gpu_threads) + GPU_TREE_DEPTH + reference::pairwise_depth(n)) as f64;
        let per_option = |mean: T, sd: T| {
            let (mean, sd) = (wide(mean).abs(), wide(sd));
            // The division by N rounds on each side.
            let mean_bound = (depth + 2.0) * u * mean;
            // Each squared deviation rounds its difference and its square (fused on the GPU),
            // then the division by N - 1 and the root round.
            let sd_bound = mean_bound * (n as f64 / (n as f64 - 1.0)).sqrt() + (depth + 8.0) * u * sd;
            let half_width = reference::Z_95 * sd / (n as f64).sqrt();
            // 1.96 sd, / sqrt(N) and the sum or difference each round on each side.
            let ci_bound = mean_bound + reference::Z_95 / (n as f64).sqrt() * sd_bound + 8.0 * u * (mean + half_width);
            (mean_bound, sd_bound, ci_bound)
        };
        let put = per_option(cpu.mean_put, cpu.sd_put);
        let call = per_option(cpu.mean_call, cpu.sd_call);
        Self {
            mean: [put.0, call.0],
            sd: [put.1, call.1],
            ci: [put.2, call.2],
        }
    }
}

/// A check that `gpu[i]` is within `bounds[i]` of `cpu[i]` (both NaN agrees: the deviation of
/// one sample is 0/0 on both sides).
pub fn check_within(what: &str, gpu: &[f64], cpu: &[f64], bounds: &[f64]) -> Check {
    let mut check = Check::compare(what, gpu, cpu, Tolerance::EXACT);
    check.mismatches = 0;
    check.first_mismatch = None;
    for (i, ((&g, &c), &bound)) in gpu.iter().zip(cpu).zip(bounds).enumerate() {
        let agree = (g - c).abs() <= bound || (g.is_nan() && c.is_nan());
        if !agree {
            check.mismatches += 1;
            check.first_mismatch.get_or_insert((i, g, c));
        }
    }
    check
}

/// The statistics as `[mean put, mean call, sd put, sd call, CI put low, high, CI call low,
/// high]`, widened to f64.
pub fn statistics<T: McReal>(stats: &McStats<T>, n: usize) -> [f64; 8] {
    let [put_low, put_high] = stats.ci_put(n);
    let [call_low, call_high] = stats.ci_call(n);
    [
        stats.mean_put,
        stats.mean_call,
        stats.sd_put,
        stats.sd_call,
        put_low,
        put_high,
        call_low,
        call_high,
    ]
    .map(wide)
}

/// The checks of a GPU run against the CPU's Monte Carlo over the same normals: the statistics
/// within [`Bounds`], and every payoff bit for bit.
pub fn agreement_checks<T: McReal>(gpu: &Gpu, mc: &GpuMc<T>, reference: &McReference<T>) -> Result<Vec<Check>> {
    let n = reference.put.len();
    let threads = (mc.shape.grid.0 * mc.shape.block.0) as usize;
    let bounds = Bounds::new(&reference.stats, n, threads);
    let ([mean_put, mean_call], [sd_put, sd_call], [ci_put, ci_call]) = (bounds.mean, bounds.sd, bounds.ci);
    let statistics_check = check_within(
        &format!(
            "{} {n} samples: means, deviations, intervals vs the CPU over the same normals",
            T::LABEL
        ),
        &statistics(&mc.stats, n),
        &statistics(&reference.stats, n),
        &[mean_put, mean_call, sd_put, sd_call, ci_put, ci_put, ci_call, ci_call],
    );
    let put = gpu.download(&mc.buffers.put_d)?;
    let call = gpu.download(&mc.buffers.call_d)?;
    Ok(vec![
        statistics_check,
        Check::compare(
            &format!("{} put payoffs vs the CPU", T::LABEL),
            &put,
            &reference.put,
            Tolerance::EXACT,
        ),
        Check::compare(
            &format!("{} call payoffs vs the CPU", T::LABEL),
            &call,
            &reference.call,
            Tolerance::EXACT,
        ),
    ])
}

/// The Monte Carlo values within [`HALF_WIDTHS`] confidence-interval half-widths of the closed
/// form with Hastings' CDF (plus that CDF's error, at most `7.5e-8 (S + E)` on a price).
pub fn closed_form_check<T: McReal>(option: &EuropeanOption, stats: &McStats<T>, n: usize) -> Check {
    let closed_form = reference::black_scholes(option, reference::cnd_hastings);
    let hastings = HASTINGS_MAX_ERROR * (option.s + option.e);
    let half_width = |sd: T| reference::Z_95 * wide(sd) / (n as f64).sqrt();
    check_within(
        &format!(
            "{} {n} samples: Monte Carlo within {HALF_WIDTHS} half-widths of the closed form",
            T::LABEL
        ),
        &[wide(stats.mean_put), wide(stats.mean_call)],
        &[closed_form.put, closed_form.call],
        &[
            HALF_WIDTHS * half_width(stats.sd_put) + hastings,
            HALF_WIDTHS * half_width(stats.sd_call) + hastings,
        ],
    )
}

/// The closed form with Hastings' CDF (the book's) and with the exact one, printed, and checked
/// to differ by less than [`HASTINGS_VS_EXACT`].
pub fn hastings_check(option: &EuropeanOption) -> Check {
    let hastings = reference::black_scholes(option, reference::cnd_hastings);
    let exact = reference::black_scholes(option, reference::cnd_exact);
    println!(
        "Black-Scholes in f64: Hastings' CDF (the book's) put {:.16}, call {:.16}; exact CDF (erfc) put {:.16}, call {:.16}",
        hastings.put, hastings.call, exact.put, exact.call
    );
    Check::compare(
        "closed form: Hastings' CDF vs the exact CDF",
        &[hastings.put, hastings.call],
        &[exact.put, exact.call],
        HASTINGS_VS_EXACT,
    )
}
