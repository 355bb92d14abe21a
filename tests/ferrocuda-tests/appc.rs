//! Appendix C: `appc-sgemm` (cuBLAS on device data; the naive kernel on the simulator) and
//! `appc-fcallingc` (nvcc's `zero.cu` from Rust on CUDA, its Rust twin on both backends).
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::gpu::Gpu;
use ferrocuda_book::examples::appc::fcallingc;

/// The book's side and sides that leave partial 16 x 16 blocks.
fn appc_sgemm_sizes(gpu: &Gpu) -> TestResult {
    for n in [1, 17, 100, 129] {
        passes_with(gpu, "appc-sgemm", &["--size", &n.to_string()])?;
    }
    Ok(())
}

/// The program passes (on CUDA this compiles `zero.cu` with nvcc and launches it), and the Rust
/// twin clears exactly the four elements it was given.
fn appc_fcallingc_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "appc-fcallingc", &[])?;
    let a = fcallingc::zero_through(gpu, &ferrocuda_book::kernels(gpu).map_err(fail)?).map_err(fail)?;
    ensure(a == [0.0; fcallingc::N], || format!("zero left {a:?}"))
}

fn appc_memory_plans() -> TestResult {
    common::memory_plans_grow(&["appc-sgemm"])
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![("appc_memory_plans", appc_memory_plans)];
    let gpu_tests: Vec<GpuTest> = vec![
        ("appc_sgemm_sizes", appc_sgemm_sizes),
        ("appc_fcallingc_program", appc_fcallingc_program),
    ];
    common::main(cpu_tests, gpu_tests)
}
