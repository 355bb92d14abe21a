//! GPU-vs-CPU tests of the IT4I course examples.
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, example_passes, fail};
use ferrocuda::Gpu;
use ferrocuda::examples::Options;
use ferrocuda::examples::course::vector_add;
use ferrocuda::reference::course as reference;
use ferrocuda::verify::{Check, Tolerance};

fn course_vector_add_program(gpu: &Gpu) -> TestResult {
    example_passes(
        gpu,
        "course-vector-add",
        Options {
            reps: 2,
            ..Options::default()
        },
    )
}

fn course_vector_add_sizes(gpu: &Gpu) -> TestResult {
    for n in awkward_sizes(vector_add::THREADS_PER_BLOCK as usize) {
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32 - 3.0).collect();
        let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
        let mut c_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
        vector_add::vector_add(gpu, &a_d, &b_d, &mut c_d).map_err(fail)?;
        let check = Check::compare(
            "c",
            &gpu.download(&c_d).map_err(fail)?,
            &reference::vector_add::vector_add(&a, &b),
            Tolerance::EXACT,
        );
        ensure(check.passed(), || format!("n = {n}: {check}"))?;
    }
    Ok(())
}

fn course_vector_add_reference() -> TestResult {
    ensure(
        reference::vector_add::vector_add(&[1.0, 2.0], &[2.0, 0.5]) == vec![3.0, 2.5],
        || "CPU vector add".into(),
    )
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("course_vector_add_program", course_vector_add_program),
        ("course_vector_add_sizes", course_vector_add_sizes),
    ];
    common::main(
        vec![("course_vector_add_reference", course_vector_add_reference)],
        gpu_tests,
    )
}
