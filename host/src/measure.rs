//! Repeated timing and the figures reported from it.
use crate::gpu::{Gpu, Result};

/// Statistics of repeated event timings, ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min_ms: f64,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

impl Stats {
    /// Statistics of `samples` (at least one).
    pub fn of(samples: &mut [f64]) -> Self {
        samples.sort_by(f64::total_cmp);
        let n = samples.len().max(1);
        let median = if samples.is_empty() {
            f64::NAN
        } else if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2.0
        };
        Self {
            min_ms: samples.first().copied().unwrap_or(f64::NAN),
            median_ms: median,
            mean_ms: samples.iter().sum::<f64>() / n as f64,
            max_ms: samples.last().copied().unwrap_or(f64::NAN),
        }
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
