//! Repeated timing and the figures reported from it, and the least-squares fits of the
//! communication model (thesis §6.3.1): linear `t = t_startup + n t_word` and power law `t = a n^b`.
use crate::gpu::{Gpu, Result};

/// Statistics of repeated event timings, ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min_ms: f64,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
    /// The median absolute deviation, `median(|x - median|)`: the spread the thesis graphs
    /// beside each median (§6.2), robust to the outliers that made it report medians.
    pub mad_ms: f64,
}

impl Stats {
    /// Statistics of `samples` (NaN where there are none).
    ///
    /// ```
    /// let s = ferrocuda::measure::Stats::of(&mut [3.0, 1.0, 2.0, 10.0, 2.5]);
    /// assert_eq!((s.median_ms, s.mad_ms, s.min_ms, s.max_ms), (2.5, 0.5, 1.0, 10.0));
    /// ```
    pub fn of(samples: &mut [f64]) -> Self {
        samples.sort_by(f64::total_cmp);
        let n = samples.len().max(1);
        let median = median_of_sorted(samples);
        let mut deviations: Vec<f64> = samples.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        Self {
            min_ms: samples.first().copied().unwrap_or(f64::NAN),
            median_ms: median,
            mean_ms: samples.iter().sum::<f64>() / n as f64,
            max_ms: samples.last().copied().unwrap_or(f64::NAN),
            mad_ms: median_of_sorted(&deviations),
        }
    }
}

/// The median of sorted `values`, NaN for none.
fn median_of_sorted(values: &[f64]) -> f64 {
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Runs `work` once to warm up (module JIT, first-touch), then `reps` times, each timed with
/// events on the `Gpu`'s stream.
pub fn time_reps(gpu: &Gpu, reps: usize, mut work: impl FnMut() -> Result<()>) -> Result<Stats> {
    work()?;
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        samples.push(gpu.time_ms(&mut work)?);
    }
    Ok(Stats::of(&mut samples))
}

/// Effective bandwidth, GB/s (1e9 bytes, as the book): `(bytes read + bytes written) / time`.
pub fn gb_per_s(bytes: usize, ms: f64) -> f64 {
    bytes as f64 / ms * 1e-6
}

/// Device-to-device `cudaMemcpy` of one `bytes`-sized array: the bandwidth ceiling, GB/s,
/// counting bytes read plus bytes written.
pub fn memcpy_gb_per_s(gpu: &Gpu, bytes: usize, reps: usize) -> Result<f64> {
    let from = gpu.zeros::<u8>(bytes)?;
    let mut to = gpu.zeros::<u8>(bytes)?;
    gpu.copy_device_to_device(&from, &mut to)?;
    let mut samples = Vec::new();
    for _ in 0..reps.max(1) {
        samples.push(gpu.time_ms(|| gpu.copy_device_to_device(&from, &mut to))?);
    }
    Ok(gb_per_s(2 * bytes, Stats::of(&mut samples).median_ms))
}

/// Weighted least-squares line through `points`: `(intercept, slope)` of `y = intercept +
/// slope * x`, minimising `sum(w_i * (y_i - intercept - slope * x_i)^2)`. NaN unless at least two
/// distinct `x` carry weight.
///
/// ```
/// let (a, b) = ferrocuda::measure::weighted_least_squares(&[(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)], &[1.0; 3]);
/// assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
/// ```
pub fn weighted_least_squares(points: &[(f64, f64)], weights: &[f64]) -> (f64, f64) {
    let pw = || points.iter().zip(weights);
    let total: f64 = weights.iter().sum();
    let mean_x = pw().map(|(&(x, _), w)| w * x).sum::<f64>() / total;
    let mean_y = pw().map(|(&(_, y), w)| w * y).sum::<f64>() / total;
    let sxy: f64 = pw().map(|(&(x, y), w)| w * (x - mean_x) * (y - mean_y)).sum();
    let sxx: f64 = pw().map(|(&(x, _), w)| w * (x - mean_x).powi(2)).sum();
    let slope = sxy / sxx;
    (mean_y - slope * mean_x, slope)
}

/// The linear communication model `t = t_startup + n t_word` (thesis eq. 3.3), ms and elements.
///
/// ```
/// use ferrocuda::measure::LinearFit;
/// let fit = LinearFit::fit(&[(1e3, 0.0101), (1e6, 0.11), (1e8, 10.01)]);
/// assert!((fit.t_word_ms - 1e-7).abs() < 1e-15 && (fit.t_startup_ms - 0.01).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearFit {
    pub t_startup_ms: f64,
    pub t_word_ms: f64,
}

impl LinearFit {
    /// Least squares over `(elements, ms)`, weighted by `1/t^2` so that each point counts by
    /// its relative residual: the sizes span four decades, and unweighted, the largest copy
    /// alone would set `t_startup`.
    pub fn fit(points: &[(f64, f64)]) -> Self {
        let weights: Vec<f64> = points.iter().map(|&(_, t)| t.powi(-2)).collect();
        let (t_startup_ms, t_word_ms) = weighted_least_squares(points, &weights);
        Self {
            t_startup_ms,
            t_word_ms,
        }
    }

    /// Predicted ms for `n` elements.
    pub fn predict(&self, n: f64) -> f64 {
        self.t_startup_ms + n * self.t_word_ms
    }
}

/// The thesis's power law `t = a n^b` (6.2), ms and elements.
///
/// ```
/// use ferrocuda::measure::PowerFit;
/// let fit = PowerFit::fit(&[(1e3, 2e-3 * 1e3f64.powf(0.99)), (1e6, 2e-3 * 1e6f64.powf(0.99))]);
/// assert!((fit.b - 0.99).abs() < 1e-9 && (fit.a - 2e-3).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerFit {
    pub a: f64,
    pub b: f64,
}

impl PowerFit {
    /// Least squares on `ln t = ln a + b ln n` (6.3).
    pub fn fit(points: &[(f64, f64)]) -> Self {
        let logs: Vec<(f64, f64)> = points.iter().map(|&(n, t)| (n.ln(), t.ln())).collect();
        let (ln_a, b) = weighted_least_squares(&logs, &vec![1.0; logs.len()]);
        Self { a: ln_a.exp(), b }
    }

    /// Predicted ms for `n` elements.
    pub fn predict(&self, n: f64) -> f64 {
        self.a * n.powf(self.b)
    }
}

/// Mean `|predicted - measured| / measured` over `(elements, ms)`.
pub fn mean_relative_error(predict: impl Fn(f64) -> f64, points: &[(f64, f64)]) -> f64 {
    points.iter().map(|&(n, t)| (predict(n) - t).abs() / t).sum::<f64>() / points.len() as f64
}
