//! Tests of the book's chapter 5 examples: the summation methods of §5.4 (`ch5/sum_accuracy.rs`),
//! the pi examples of §5.2-§5.3 (`ch5/pi.rs`), the Monte Carlo pricing of §5.5
//! (`ch5/bs_european_mc.rs`) and the generators (`ch5/curand.rs`); here, what spans them.
#[path = "ch5/bs_european_mc.rs"]
mod bs_european_mc;
mod common;
#[path = "ch5/curand.rs"]
mod curand;
#[path = "ch5/pi.rs"]
mod pi;
#[path = "ch5/sum_accuracy.rs"]
mod sum_accuracy;

use common::{CpuTest, GpuTest, TestResult};
use ferrocuda::Gpu;

/// The memory plans of chapter 5's ids.
fn ch5_memory_plans() -> TestResult {
    common::memory_plans_grow(&[
        "ch5-pi-cuf",
        "ch5-pi-fma",
        "ch5-pi-reduction-twopass",
        "ch5-pi-reduction-atomiclock",
        "ch5-curand-basic",
        "ch5-sum-accuracy",
        "ch5-bs-european-mc",
    ])
}

/// `--book` runs the book's sizes: a `--size` beside it is refused in one sentence.
fn ch5_book_refuses_size() -> TestResult {
    for id in ["ch5-pi-cuf", "ch5-pi-fma", "ch5-bs-european-mc"] {
        match common::run_args(&Gpu::simulator(), id, &["--size", "1000", "--book"]) {
            Err(ferrocuda::Error::InvalidArgument(e)) if e.contains("--size") => {}
            Err(e) => return Err(format!("{id} --book --size: another error: {e}")),
            Ok(_) => return Err(format!("{id} ran --book with --size")),
        }
    }
    Ok(())
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "ch5_sum_accuracy_pairwise_kahan_errors",
            sum_accuracy::ch5_sum_accuracy_pairwise_kahan_errors,
        ),
        ("ch5_sum_accuracy_threshold", sum_accuracy::ch5_sum_accuracy_threshold),
        ("ch5_sum_accuracy_sevens", sum_accuracy::ch5_sum_accuracy_sevens),
        (
            "ch5_sum_accuracy_awkward_lengths",
            sum_accuracy::ch5_sum_accuracy_awkward_lengths,
        ),
        (
            "ch5_sum_accuracy_backward_beats_forward",
            sum_accuracy::ch5_sum_accuracy_backward_beats_forward,
        ),
        (
            "ch5_sum_accuracy_fortran_e_format",
            sum_accuracy::ch5_sum_accuracy_fortran_e_format,
        ),
        ("ch5_pi_cuf_estimate_and_row", pi::ch5_pi_cuf_estimate_and_row),
        ("ch5_pi_fma_test_accuracy", pi::ch5_pi_fma_test_accuracy),
        (
            "ch5_bs_european_mc_hastings_vs_exact",
            bs_european_mc::ch5_bs_european_mc_hastings_vs_exact,
        ),
        (
            "ch5_bs_european_mc_closed_form_identities",
            bs_european_mc::ch5_bs_european_mc_closed_form_identities,
        ),
        (
            "ch5_bs_european_mc_exp_accuracy",
            bs_european_mc::ch5_bs_european_mc_exp_accuracy,
        ),
        (
            "ch5_bs_european_mc_book_values",
            bs_european_mc::ch5_bs_european_mc_book_values,
        ),
        (
            "ch5_bs_european_mc_bounds_catch_errors",
            bs_european_mc::ch5_bs_european_mc_bounds_catch_errors,
        ),
        ("ch5_curand_seeded_needs_cuda", curand::ch5_curand_seeded_needs_cuda),
        (
            "ch5_bs_european_mc_book_needs_curand",
            bs_european_mc::ch5_bs_european_mc_book_needs_curand,
        ),
        ("ch5_curand_basic_flags", curand::ch5_curand_basic_flags),
        ("ch5_memory_plans", ch5_memory_plans),
        ("ch5_book_refuses_size", ch5_book_refuses_size),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch5_sum_accuracy_program", sum_accuracy::ch5_sum_accuracy_program),
        (
            "ch5_sum_accuracy_gpu_tree_sum_of_sevens",
            sum_accuracy::ch5_sum_accuracy_gpu_tree_sum_of_sevens,
        ),
        ("ch5_pi_cuf_count_awkward_sizes", pi::ch5_pi_cuf_count_awkward_sizes),
        ("ch5_pi_cuf_program", pi::ch5_pi_cuf_program),
        ("ch5_pi_fma_table_5_1_points", pi::ch5_pi_fma_table_5_1_points),
        ("ch5_pi_fma_mismatches_match_cpu", pi::ch5_pi_fma_mismatches_match_cpu),
        ("ch5_pi_fma_program", pi::ch5_pi_fma_program),
        ("ch5_pi_reductions_launch_shapes", pi::ch5_pi_reductions_launch_shapes),
        ("ch5_pi_reductions_programs", pi::ch5_pi_reductions_programs),
        (
            "ch5_pi_reductions_refuse_bad_shapes",
            pi::ch5_pi_reductions_refuse_bad_shapes,
        ),
        (
            "ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes",
            bs_european_mc::ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes,
        ),
        ("ch5_bs_european_mc_program", bs_european_mc::ch5_bs_european_mc_program),
        (
            "ch5_curand_basic_philox_program",
            curand::ch5_curand_basic_philox_program,
        ),
    ];
    // The book's numbers come from cuRAND's streams: on a CUDA device only.
    let cuda_tests: Vec<GpuTest> = vec![
        ("ch5_pi_cuf_book_tables", pi::ch5_pi_cuf_book_tables),
        ("ch5_pi_fma_book_table", pi::ch5_pi_fma_book_table),
        ("ch5_bs_european_mc_book", bs_european_mc::ch5_bs_european_mc_book),
        ("ch5_curand_basic_book", curand::ch5_curand_basic_book),
        ("ch5_curand_matches_the_book", curand::ch5_curand_matches_the_book),
        (
            "ch5_bs_european_mc_seeded_ordering",
            bs_european_mc::ch5_bs_european_mc_seeded_ordering,
        ),
    ];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
