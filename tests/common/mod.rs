//! The GPU test harness: every GPU-vs-CPU test runs on device 0 when one is present, and is
//! reported as ignored, with a count and the reason, when not (libtest's "N ignored").
#![allow(dead_code)]

use ferrocuda::examples::Options;
use ferrocuda::{Error, Gpu};
use libtest_mimic::{Arguments, Trial};
use std::sync::OnceLock;

/// A test's result: `Err` carries the failure message.
pub type TestResult = Result<(), String>;

/// A GPU test.
pub type GpuTest = (&'static str, fn(&Gpu) -> TestResult);

/// A test that needs no GPU.
pub type CpuTest = (&'static str, fn() -> TestResult);

/// Device 0, opened once per test binary; `Err` says why there is none.
pub fn gpu() -> &'static Result<Gpu, Error> {
    static GPU: OnceLock<Result<Gpu, Error>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new(0))
}

/// Runs `cpu_tests` everywhere and `gpu_tests` where there is a GPU, then exits with libtest's
/// status.
pub fn main(cpu_tests: Vec<CpuTest>, gpu_tests: Vec<GpuTest>) -> ! {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = cpu_tests
        .into_iter()
        .map(|(name, test)| Trial::test(name, move || test().map_err(Into::into)))
        .collect();
    let no_gpu = gpu().is_err();
    if let Err(reason) = gpu()
        && !args.list
    {
        eprintln!("GPU tests: {} skipped, no GPU: {reason}", gpu_tests.len());
    }
    trials.extend(gpu_tests.into_iter().map(|(name, test)| {
        Trial::test(name, move || match gpu() {
            Ok(gpu) => test(gpu).map_err(Into::into),
            Err(reason) => Err(format!("no GPU: {reason}").into()),
        })
        .with_ignored_flag(no_gpu)
    }));
    libtest_mimic::run(&args, trials).exit()
}

/// Turns a library error into a test failure.
pub fn fail(e: Error) -> String {
    e.to_string()
}

/// Fails unless `holds`.
pub fn ensure(holds: bool, message: impl FnOnce() -> String) -> TestResult {
    if holds { Ok(()) } else { Err(message()) }
}

/// Runs an example's `run` with `options` and fails unless every check passed.
pub fn example_passes(gpu: &Gpu, id: &str, options: Options) -> TestResult {
    let example = ferrocuda::examples::find(id).ok_or(format!("no example {id}"))?;
    let outcome = (example.run)(gpu, &options).map_err(fail)?;
    let failed: Vec<String> = outcome
        .checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.to_string())
        .collect();
    ensure(failed.is_empty(), || failed.join("; "))
}

/// Sizes that break assumptions about a block size `b`: 1, 31, 33, b - 1, b + 1, and a
/// large non-multiple.
pub fn awkward_sizes(b: usize) -> Vec<usize> {
    vec![1, 31, 33, b - 1, b + 1, 100_003]
}
