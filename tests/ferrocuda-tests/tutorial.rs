//! GPU-vs-CPU tests of Decyk's tutorial examples.
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::examples::tutorial::sum_reduction::{self, Sum3};
use ferrocuda_book::examples::tutorial::vector_copy::{self, Variant};
use ferrocuda_book::reference::tutorial::sum_reduction as sum_reference;

fn tutorial_vector_copy_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "tutorial-vector-copy", &["--size", "1000", "--reps", "2"])
}

fn tutorial_vector_copy_variants_non_multiple_extents(gpu: &Gpu) -> TestResult {
    for variant in [
        Variant::OneD,
        Variant::RowOfBlocks,
        Variant::BlockPerRow,
        Variant::Tiled,
    ] {
        for (nx, ny) in [(1, 1), (127, 3), (129, 130), (1000, 33), (33, 1)] {
            let b: Vec<f32> = (0..nx * ny).map(|j| j as f32 + 0.5).collect();
            let b_d = gpu.upload(&b).map_err(fail)?;
            let mut a_d = gpu.upload(&vec![f32::NAN; nx * ny]).map_err(fail)?;
            vector_copy::copy(gpu, variant, &mut a_d, &b_d, nx, ny).map_err(fail)?;
            let check = Check::compare("a", &gpu.download(&a_d).map_err(fail)?, &b, Tolerance::EXACT);
            ensure(check.passed(), || format!("{variant:?} {nx} x {ny}: {check}"))?;
        }
    }
    Ok(())
}

fn tutorial_vector_copy_rejects_mismatched_extents(gpu: &Gpu) -> TestResult {
    let b_d = gpu.upload(&[0.0f32; 12]).map_err(fail)?;
    let mut a_d = gpu.upload(&[0.0f32; 12]).map_err(fail)?;
    ensure(
        vector_copy::copy(gpu, Variant::Tiled, &mut a_d, &b_d, 5, 3).is_err(),
        || "5 x 3 accepted for 12 elements".into(),
    )
}

fn tutorial_check_reports_nan_and_length() -> TestResult {
    let nan = Check::compare("x", &[1.0f32, f32::NAN], &[1.0, 2.0], Tolerance::EXACT);
    let short = Check::compare("x", &[1.0f32], &[1.0, 2.0], Tolerance::EXACT);
    ensure(!nan.passed() && !short.passed(), || {
        "a NaN or a missing element passed".into()
    })
}

fn tutorial_sum_reduction_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "tutorial-sum-reduction", &["--reps", "2"])
}

/// Integers 1..=7: every total here stays below 2^24, so each GPU sum must be exact whatever the
/// order of its atomics.
fn sevens_ramp(n: usize) -> Vec<f32> {
    (0..n).map(|j| (j % 7 + 1) as f32).collect()
}

/// `gpu_sum1`, `gpu_sum2` and `gpu_sum3` at sizes that break each block size, including one block
/// of one thread and `gpu_sum3` iterating `gsum2` three times (100003 values in blocks of 32).
fn tutorial_sum_reduction_sizes(gpu: &Gpu) -> TestResult {
    for mx in [1u32, 2, 32, 128, 1024] {
        let mut sizes: Vec<usize> = awkward_sizes(mx as usize + 1).into_iter().filter(|&n| n > 0).collect();
        if mx == 1 {
            sizes.retain(|&n| n < 1000);
        }
        for nx in sizes {
            let a = sevens_ramp(nx);
            let exact = sum_reference::sum_f64(&a) as f32;
            let a_d = gpu.upload(&a).map_err(fail)?;
            let mut sa_d = gpu.zeros::<f32>(1).map_err(fail)?;
            sum_reduction::gpu_sum1(gpu, &a_d, &mut sa_d, mx).map_err(fail)?;
            let s1 = gpu.download(&sa_d).map_err(fail)?[0];
            let mut d_d = gpu.zeros::<f32>(nx.div_ceil(mx as usize)).map_err(fail)?;
            sum_reduction::gpu_sum2(gpu, &a_d, &mut d_d, mx).map_err(fail)?;
            let partials = gpu.download(&d_d).map_err(fail)?;
            let blocks: Vec<f32> = a.chunks(mx as usize).map(|c| c.iter().sum()).collect();
            let mut sum3 = Sum3::new(gpu, nx, mx).map_err(fail)?;
            sum3.launch(gpu, &a_d).map_err(fail)?;
            let s3 = sum3.result(gpu).map_err(fail)?;
            ensure(s1 == exact && s3 == exact && partials == blocks, || {
                format!(
                    "mx = {mx}, nx = {nx}: gpu_sum1 {s1}, gpu_sum3 {s3}, exact {exact}; partials equal: {}",
                    partials == blocks
                )
            })?;
        }
    }
    let sum3 = Sum3::new(gpu, 100_003, 32).map_err(fail)?;
    ensure(sum3.passes() == 3, || {
        format!("{} gsum2 passes for 100003 / 32", sum3.passes())
    })
}

/// `lsum2` halves `blockDim`: a block size that is not a power of two, or none, is refused.
fn tutorial_sum_reduction_rejects_bad_block_sizes(gpu: &Gpu) -> TestResult {
    let a_d = gpu.upload(&sevens_ramp(100)).map_err(fail)?;
    let mut sa_d = gpu.zeros::<f32>(1).map_err(fail)?;
    for mx in [0u32, 3, 96, 2048] {
        ensure(sum_reduction::gpu_sum1(gpu, &a_d, &mut sa_d, mx).is_err(), || {
            format!("mx = {mx} accepted")
        })?;
    }
    let mut wrong = gpu.zeros::<f32>(2).map_err(fail)?;
    ensure(sum_reduction::gpu_sum2(gpu, &a_d, &mut wrong, 32).is_err(), || {
        "4 blocks written into 2 partials".into()
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("tutorial_sum_reduction_program", tutorial_sum_reduction_program),
        ("tutorial_sum_reduction_sizes", tutorial_sum_reduction_sizes),
        (
            "tutorial_sum_reduction_rejects_bad_block_sizes",
            tutorial_sum_reduction_rejects_bad_block_sizes,
        ),
        ("tutorial_vector_copy_program", tutorial_vector_copy_program),
        (
            "tutorial_vector_copy_variants_non_multiple_extents",
            tutorial_vector_copy_variants_non_multiple_extents,
        ),
        (
            "tutorial_vector_copy_rejects_mismatched_extents",
            tutorial_vector_copy_rejects_mismatched_extents,
        ),
    ];
    common::main(
        vec![(
            "tutorial_check_reports_nan_and_length",
            tutorial_check_reports_nan_and_length,
        )],
        gpu_tests,
    )
}
