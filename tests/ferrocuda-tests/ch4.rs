//! GPU-vs-CPU tests of the book's chapter 4 (several GPUs in one process, §4.1): the library's
//! `cuda_transpose` and slab layout, peer copies between logical devices, and the examples
//! `ch4-*` with 1 to 4 logical devices.
mod common;
#[path = "ch4/devices.rs"]
mod devices;
#[path = "ch4/library.rs"]
mod library;
#[path = "ch4/plans.rs"]
mod plans;

use common::{CpuTest, GpuTest};

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("ch4_slab_layout_errors", library::ch4_slab_layout_errors),
        ("ch4_slab_layout_schedules", library::ch4_slab_layout_schedules),
        (
            "ch4_memory_info_simulator_deltas",
            devices::ch4_memory_info_simulator_deltas,
        ),
        ("ch4_memory_plans_monotone", plans::ch4_memory_plans_monotone),
        (
            "ch4_memory_plans_count_the_busiest_memory",
            plans::ch4_memory_plans_count_the_busiest_memory,
        ),
        ("bench_size_mib_checked", plans::bench_size_mib_checked),
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
        ("ch4_transpose_wide_exact", library::ch4_transpose_wide_exact),
        ("ch4_slab_layout_staged_exact", library::ch4_slab_layout_staged_exact),
        ("ch4_open_logical_round_robin", devices::ch4_open_logical_round_robin),
        (
            "ch4_memory_info_sees_allocations",
            devices::ch4_memory_info_sees_allocations,
        ),
        ("ch4_peer_copies_1d_exact", devices::ch4_peer_copies_1d_exact),
        ("ch4_peer_copies_2d_exact", devices::ch4_peer_copies_2d_exact),
        ("ch4_peer_access_calls", devices::ch4_peer_access_calls),
        (
            "ch4_examples_with_1_to_4_devices",
            devices::ch4_examples_with_1_to_4_devices,
        ),
        ("ch4_transpose_p2p_sizes", devices::ch4_transpose_p2p_sizes),
        ("ch4_copy_examples_sizes", devices::ch4_copy_examples_sizes),
        (
            "ch4_examples_reject_bad_arguments",
            devices::ch4_examples_reject_bad_arguments,
        ),
    ];
    // The examples' placement checks read each device's free memory.
    common::main_one_at_a_time(cpu_tests, gpu_tests)
}
