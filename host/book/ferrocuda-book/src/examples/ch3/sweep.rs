//! What the chapter 3 sweeps share: the sizes of the offset, stride and strided-read sweeps (the
//! book's 4 MB per launch, blocks of 256, offsets and strides up to 32 in arrays of `33 n`), and
//! the merging of a sweep's checks into one line (also the copies' block-size sweeps).
use crate::defaults::Pick;
use crate::example::{LegacySize, Options, Precision};
use ferrocuda::footprint::Footprint;
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

/// `--size`, or the book's `N_MB` MB of `T` on a GPU ([`SIMULATOR_N`] on the simulator).
pub fn book_elements<T>(gpu: &Gpu, options: &Options) -> Result<usize> {
    options.size_or(gpu.pick(N_MB * 1024 * 1024 / size_of::<T>(), SIMULATOR_N))
}

/// `--size` of the offset, stride and strided-read sweeps, whose run's peak is `memory`.
pub const fn size(memory: fn(&Options, &Gpu, usize) -> Option<Footprint>) -> LegacySize {
    LegacySize {
        unit: "threads per launch, the arrays holding 33 times as many elements (the GPU's default is 4 MB of f32; of f64, half as many threads)",
        gpu: N_MB * 1024 * 1024 / size_of::<f32>(),
        simulator: SIMULATOR_N,
        min: 1,
        max: usize::MAX,
        memory,
    }
}

/// `arrays` arrays of `SPAN_FACTOR * n` elements and `short` of `n`, in `options`' precision,
/// on the device and on the host; `None` on overflow.
pub fn plan(
    options: &Options,
    n: usize,
    [long_device, short_device, long_host, short_host]: [usize; 4],
) -> Option<Footprint> {
    let long = SPAN_FACTOR.checked_mul(n)?;
    fn of<T>(long: usize, n: usize, [ld, sd, lh, sh]: [usize; 4]) -> Option<Footprint> {
        Footprint::NONE
            .device::<T>(ld, long)?
            .device::<T>(sd, n)?
            .host::<T>(lh, long)?
            .host::<T>(sh, n)
    }
    let counts = [long_device, short_device, long_host, short_host];
    match options.precision {
        Precision::F32 => of::<f32>(long, n, counts),
        Precision::F64 => of::<f64>(long, n, counts),
    }
}

/// `SPAN_FACTOR * n`, the elements of a sweep's arrays, or a sentence saying it overflows.
pub fn span_elements(n: usize) -> Result<usize> {
    SPAN_FACTOR.checked_mul(n).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{n} threads per launch need arrays of {SPAN_FACTOR} x {n} elements, more than this machine can count"
        ))
    })
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
