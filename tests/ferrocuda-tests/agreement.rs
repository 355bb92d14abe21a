//! The simulator against the GPU: every kernel on the same inputs (see
//! `ferrocuda_book::agreement`). Needs a CUDA device; reported as ignored, with the reason, without one.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda_book::agreement;

fn agreement_every_kernel(gpu: &Gpu) -> TestResult {
    let rows = agreement::run(gpu, &Gpu::simulator()).map_err(fail)?;
    let differ: Vec<String> = rows
        .iter()
        .filter(|r| !r.agrees())
        .map(|r| r.check.to_string())
        .collect();
    ensure(rows.len() >= 40 && differ.is_empty(), || {
        format!("{} rows; differ: {}", rows.len(), differ.join("; "))
    })
}

/// Every launch of the agreement, run on two simulators: without a GPU this still runs each
/// kernel through the kernel set it belongs to (a launch through the wrong set is an error on
/// either backend) and checks that the simulator is deterministic.
fn agreement_every_kernel_runs_on_the_simulator() -> TestResult {
    let rows = agreement::run(&Gpu::simulator(), &Gpu::simulator()).map_err(fail)?;
    let differ: Vec<String> = rows
        .iter()
        .filter(|r| !r.agrees())
        .map(|r| r.check.to_string())
        .collect();
    ensure(rows.len() >= 40 && differ.is_empty(), || {
        format!("{} rows; differ: {}", rows.len(), differ.join("; "))
    })
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![(
        "agreement_every_kernel_runs_on_the_simulator",
        agreement_every_kernel_runs_on_the_simulator,
    )];
    let cuda_tests: Vec<GpuTest> = vec![("agreement_every_kernel", agreement_every_kernel)];
    common::main_with_cuda_only(cpu_tests, vec![], cuda_tests)
}
