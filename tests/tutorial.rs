//! GPU-vs-CPU tests of Decyk's tutorial examples.
mod common;

use common::{GpuTest, TestResult, ensure, example_passes, fail};
use ferrocuda::Gpu;
use ferrocuda::examples::Options;
use ferrocuda::examples::tutorial::vector_copy::{self, Variant};
use ferrocuda::verify::{Check, Tolerance};

fn tutorial_vector_copy_program(gpu: &Gpu) -> TestResult {
    example_passes(
        gpu,
        "tutorial-vector-copy",
        Options {
            size: Some(1000),
            reps: 2,
            ..Options::default()
        },
    )
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

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
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
