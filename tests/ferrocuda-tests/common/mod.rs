//! The book's test helpers, on the harness all tests share (`ferrocuda-testing`: every GPU test
//! on device 0 when one is present and on the CPU simulator when not, or as
//! `FERROCUDA_BACKEND=auto|cuda|sim` says; CUDA-only and multi-GPU tests reported as ignored).
#![allow(dead_code)]

pub use ferrocuda_testing::*;

use ferrocuda::{Gpu, LoadedKernels};
use ferrocuda_book::example::Outcome;

/// The book's kernels on `gpu`.
pub fn book(gpu: &Gpu) -> Result<LoadedKernels<'_>, String> {
    ferrocuda_book::kernels(gpu).map_err(|e| e.to_string())
}

/// Runs the example `id` with the command line `args` (its options, after the id), as
/// `cargo xtask run` does without its header.
pub fn run_args(gpu: &Gpu, id: &str, args: &[&str]) -> ferrocuda::Result<Outcome> {
    ferrocuda_book::runner::run_on(gpu, id, args)
}

/// Runs the example `id` with the command line `args` and fails unless every check passed.
pub fn passes_with(gpu: &Gpu, id: &str, args: &[&str]) -> TestResult {
    let outcome = run_args(gpu, id, args).map_err(fail)?;
    let failed: Vec<String> = outcome
        .checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.to_string())
        .collect();
    ensure(failed.is_empty(), || failed.join("; "))
}

/// The example `id`'s own options (`--seed`), beyond those every example shares.
pub fn own_options(id: &str) -> Result<Vec<String>, String> {
    let example = ferrocuda_book::registry::find(id).ok_or(format!("no example {id}"))?;
    Ok(ferrocuda_book::cli::own_options(example)
        .into_iter()
        .map(|(name, _)| name.split(' ').next().unwrap_or_default().to_string())
        .collect())
}

/// The memory plans of `ids` on the simulator: every size from `min` up plans some bytes, more
/// for a larger size (and more in f64 where the id has an f64 path), and a count that overflows
/// is `None` rather than a wrapped figure.
pub fn memory_plans_grow(ids: &[&str]) -> TestResult {
    use ferrocuda_book::entry::Shared;
    use ferrocuda_book::example::Precision;
    let gpu = Gpu::simulator();
    for &id in ids {
        let example = ferrocuda_book::registry::find(id).ok_or(format!("no example {id}"))?;
        let size = example.size().ok_or(format!("{id} describes no --size"))?;
        let matches = ferrocuda_book::cli::command(example)
            .try_get_matches_from(Vec::<String>::new())
            .map_err(|e| e.to_string())?;
        let total = |precision: Precision, n: usize| {
            let shared = Shared {
                size: Some(n),
                precision,
                reps: 1,
            };
            let plan = example.memory(&gpu, &shared, n, &matches).ok()??;
            Some(plan.device_bytes + plan.host_bytes)
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
            if example.precisions().len() > 1 {
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
