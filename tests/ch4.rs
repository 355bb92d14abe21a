//! GPU-vs-CPU tests of the book's chapter 4 (several GPUs in one process, §4.1): the library's
//! `cuda_transpose` and slab layout, peer copies between logical devices, and the examples
//! `ch4-*` with 1 to 4 logical devices.
mod common;
#[path = "ch4/library.rs"]
mod library;

use common::{CpuTest, GpuTest};

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("ch4_slab_layout_errors", library::ch4_slab_layout_errors),
        ("ch4_slab_layout_schedules", library::ch4_slab_layout_schedules),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        (
            "ch4_cuda_transpose_sections_exact",
            library::ch4_cuda_transpose_sections_exact,
        ),
        (
            "ch4_cuda_transpose_whole_exact",
            library::ch4_cuda_transpose_whole_exact,
        ),
        (
            "ch4_cuda_transpose_rejects_bad_sections",
            library::ch4_cuda_transpose_rejects_bad_sections,
        ),
        ("ch4_slab_layout_staged_exact", library::ch4_slab_layout_staged_exact),
    ];
    common::main(cpu_tests, gpu_tests)
}
