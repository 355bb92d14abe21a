//! What the chapter 3 sweeps share: the sizes of the offset, stride and strided-read sweeps (the
//! book's 4 MB per launch, blocks of 256, offsets and strides up to 32 in arrays of `33 n`),
//! their input and their loop over two kernels, and the merging of a sweep's checks into one
//! line (also the copies' block-size sweeps).
use crate::defaults::Pick;
use crate::example::{Run, Size};
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::verify::Check;

/// The book's `nMB = 4`: megabytes each launch reads (and writes).
pub const N_MB: usize = 4;
/// The book's `blockSize = 256`.
pub const BLOCK_SIZE: u32 = 256;
/// The largest offset and stride of the sweeps.
pub const MAX_S: usize = 32;
/// The book's arrays hold `33 * n` elements: room for an offset or a stride of 32.
pub const SPAN_FACTOR: usize = MAX_S + 1;
/// Threads per launch on the simulator: a few dozen blocks, so the 130 timed configurations
/// finish in about a second.
pub const SIMULATOR_N: usize = 1 << 14;

/// `--size` of the offset, stride and strided-read sweeps.
pub const SIZE: Size = Size::new(
    "threads per launch, the arrays holding 33 times as many elements (the GPU's default is 4 MB of f32; of f64, half as many threads)",
    N_MB * 1024 * 1024 / size_of::<f32>(),
    SIMULATOR_N,
);

/// Threads per launch: `--size`, or the book's `N_MB` MB of `T` on a GPU ([`SIMULATOR_N`] on
/// the simulator).
pub fn threads<T, A>(gpu: &Gpu, run: &Run<A>) -> usize {
    match run.size_given {
        true => run.size,
        false => gpu.pick(N_MB * 1024 * 1024 / size_of::<T>(), SIMULATOR_N),
    }
}

/// `long_device` and `long_host` arrays of `SPAN_FACTOR * n` elements of `T`, `short_device`
/// and `short_host` of `n`; `None` on overflow.
pub fn plan<T>(n: usize, [long_device, short_device, long_host, short_host]: [usize; 4]) -> Option<Footprint> {
    let long = SPAN_FACTOR.checked_mul(n)?;
    Footprint::NONE
        .device::<T>(long_device, long)?
        .device::<T>(short_device, n)?
        .host::<T>(long_host, long)?
        .host::<T>(short_host, n)
}

/// The input of a sweep with `n` threads: `SPAN_FACTOR * n` small integers and halves, so that
/// `x + 1` is exact in both precisions.
pub fn halves<T: Real>(n: usize) -> Result<Vec<T>> {
    let len = SPAN_FACTOR.checked_mul(n).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{n} threads per launch need arrays of {SPAN_FACTOR} x {n} elements, more than this machine can count"
        ))
    })?;
    try_from_fn(len, |i| T::from_f64((i % 2048) as f64 * 0.5))
}

/// `Single` or `Double`, as the book's headers name `T`.
pub fn precision_word<T>() -> &'static str {
    if size_of::<T>() == 4 { "Single" } else { "Double" }
}

/// Per offset or stride, the bandwidths of the two kernels compared, GB/s.
pub type Rows = Vec<(usize, [f64; 2])>;

/// Column `k` of `rows` as a chart's points.
pub fn column(rows: &Rows, k: usize) -> Vec<(f64, f64)> {
    rows.iter().map(|(s, gb)| (*s as f64, gb[k])).collect()
}

/// Runs `measure(s, k)` (the bandwidth and the check of kernel `k`, 0 or 1, at `s`) for every
/// `s` of `values`: the rows, and each kernel's checks merged, each labelled `{label} {s}`.
pub fn sweep_two(
    values: impl IntoIterator<Item = usize>,
    label: &str,
    mut measure: impl FnMut(usize, usize) -> Result<(f64, Check)>,
) -> Result<(Rows, [SweepCheck; 2])> {
    let mut rows = Vec::new();
    let mut merged: [SweepCheck; 2] = Default::default();
    for s in values {
        let mut gb = [0.0; 2];
        for (k, m) in merged.iter_mut().enumerate() {
            let (rate, check) = measure(s, k)?;
            gb[k] = rate;
            m.add(format!("{label} {s}"), check);
        }
        rows.push((s, gb));
    }
    Ok((rows, merged))
}

/// The checks of one sweep as one line: the values compared, the largest errors, the sum of
/// the mismatches, and the first configuration that failed.
#[derive(Default)]
pub struct SweepCheck {
    checks: Vec<(String, Check)>,
}

impl SweepCheck {
    /// Adds the check of the configuration `label` (`s = 3`, `256 threads`).
    pub fn add(&mut self, label: impl Into<String>, check: Check) {
        self.checks.push((label.into(), check));
    }

    /// The merged check, named `what`.
    pub fn into_check(self, what: &str) -> Check {
        let first_bad = self.checks.iter().find(|(_, c)| !c.passed());
        let what = match first_bad {
            Some((label, _)) => format!("{what} (first mismatch at {label})"),
            None => what.to_string(),
        };
        let mut out = Check::condition(&what, true);
        out.len = self.checks.iter().map(|(_, c)| c.len).sum();
        for (_, c) in &self.checks {
            out.max_abs_err = out.max_abs_err.max(c.max_abs_err);
            out.max_rel_err = out.max_rel_err.max(c.max_rel_err);
            out.mismatches += c.mismatches;
        }
        out.first_mismatch = first_bad.and_then(|(_, c)| c.first_mismatch);
        out
    }
}
