//! The book's test helpers, on the harness all tests share (`ferrocuda-testing`: every GPU test
//! on device 0 when one is present and on the CPU simulator when not, or as
//! `FERROCUDA_BACKEND=auto|cuda|sim` says; CUDA-only and multi-GPU tests reported as ignored).
#![allow(dead_code)]

pub use ferrocuda_testing::*;

use ferrocuda::{Gpu, LoadedKernels};
use ferrocuda_book::example::Options;

/// The book's kernels on `gpu`.
pub fn book(gpu: &Gpu) -> Result<LoadedKernels<'_>, String> {
    ferrocuda_book::kernels(gpu).map_err(|e| e.to_string())
}

/// Runs an example's `run` with `options` and fails unless every check passed.
pub fn example_passes(gpu: &Gpu, id: &str, options: Options) -> TestResult {
    let example = ferrocuda_book::registry::find(id).ok_or(format!("no example {id}"))?;
    let outcome = (example.run)(gpu, &options).map_err(fail)?;
    let failed: Vec<String> = outcome
        .checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.to_string())
        .collect();
    ensure(failed.is_empty(), || failed.join("; "))
}

/// The memory plans of `ids` on the simulator: every size from `min` up plans some bytes, more
/// for a larger size (and more in f64 where the id has an f64 path), and a count that overflows
/// is `None` rather than a wrapped figure.
pub fn memory_plans_grow(ids: &[&str]) -> TestResult {
    use ferrocuda_book::example::{Options, Precision};
    let gpu = Gpu::simulator();
    for &id in ids {
        let example = ferrocuda_book::registry::find(id).ok_or(format!("no example {id}"))?;
        let size = example.size.ok_or(format!("{id} describes no --size"))?;
        let total = |precision: Precision, n: usize| {
            let options = Options {
                size: Some(n),
                precision,
                ..Options::default()
            };
            (size.memory)(&options, &gpu, n).map(|p| p.device_bytes + p.host_bytes)
        };
        let mut last = 0;
        for n in [size.min, size.min + 1, 2 * size.min, 1000, 4096] {
            if n > size.max {
                continue;
            }
            let bytes = total(Precision::F32, n).ok_or(format!("{id} --size {n}: no plan"))?;
            ensure(bytes > 0 && bytes >= last, || {
                format!("{id} --size {n}: {bytes} bytes after {last}")
            })?;
            if example.f64 {
                let wide = total(Precision::F64, n).ok_or(format!("{id} --size {n} f64: no plan"))?;
                ensure(wide > bytes, || {
                    format!("{id} --size {n}: f64 plans {wide} bytes, f32 {bytes}")
                })?;
            }
            last = bytes;
        }
        ensure(
            size.max < usize::MAX / 2 || total(Precision::F32, usize::MAX / 2).is_none(),
            || format!("{id}: an overflowing size has a plan"),
        )?;
    }
    Ok(())
}
