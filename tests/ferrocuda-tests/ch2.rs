//! GPU-vs-CPU tests of the book's chapter 2 examples.
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::measure::{Stats, gb_per_s};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::examples::ch2::limiting_factor::{self, ACCURATE_SIN, FAST_SIN, Variant};
use ferrocuda_book::reference::ch2 as reference;

fn ch2_limiting_factor_kernels_match_cpu(gpu: &Gpu) -> TestResult {
    for n in awkward_sizes(256) {
        let b: Vec<f32> = (0..n)
            .map(|i| ((i * 37 % 1001) as f32 / 1000.0 * 2.0 - 1.0) * std::f32::consts::PI)
            .collect();
        let b_d = gpu.upload(&b).map_err(fail)?;
        let mut sin = vec![0.0; n];
        reference::limiting_factor::base(&mut sin, &b);
        for (variant, fast, expected, tolerance) in [
            (Variant::Base, false, &sin, ACCURATE_SIN),
            (Variant::Base, true, &sin, FAST_SIN),
            (Variant::Memory, false, &b, Tolerance::EXACT),
        ] {
            let mut a_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            limiting_factor::launch(gpu, variant, fast, &mut a_d, &b_d, 1.0).map_err(fail)?;
            let check = Check::compare("a", &gpu.download(&a_d).map_err(fail)?, expected, tolerance);
            ensure(check.passed(), || format!("{variant:?}, fast {fast}, n = {n}: {check}"))?;
        }
        for fast in [false, true] {
            let mut a_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            limiting_factor::launch(gpu, Variant::Math, fast, &mut a_d, &b_d, 1.0).map_err(fail)?;
            let untouched = gpu.download(&a_d).map_err(fail)?.iter().all(|v| v.is_nan());
            ensure(untouched, || format!("math kernel (fast {fast}) stored, n = {n}"))?;
        }
    }
    Ok(())
}

fn ch2_limiting_factor_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch2-limiting-factor", &["--size", "1048576", "--reps", "2"])
}

/// The book's `increment<<<1,n>>>` at its n = 256, and at one-block sizes that break
/// assumptions about warps.
fn ch2_timing_program(gpu: &Gpu) -> TestResult {
    for size in [&[][..], &["--size", "1"], &["--size", "33"], &["--size", "1024"]] {
        passes_with(gpu, "ch2-timing", &[size, &["--reps", "3"]].concat()).map_err(|e| format!("{size:?}: {e}"))?;
    }
    Ok(())
}

/// `--launch multiblock` times the multi-block increment at sizes past one block.
fn ch2_timing_multiblock(gpu: &Gpu) -> TestResult {
    for n in ["1001", "100003"] {
        passes_with(
            gpu,
            "ch2-timing",
            &["--size", n, "--reps", "2", "--launch", "multiblock"],
        )
        .map_err(|e| format!("n = {n}: {e}"))?;
    }
    Ok(())
}

/// One block cannot cover more threads than a block holds: refused in one sentence that names
/// the option that can.
fn ch2_timing_one_block_refuses_more(gpu: &Gpu) -> TestResult {
    match common::run_args(gpu, "ch2-timing", &["--size", "1025", "--reps", "1"]) {
        Err(e) => ensure(e.to_string().contains("--launch multiblock"), || {
            format!("the error does not name --launch multiblock: {e}")
        }),
        Ok(_) => Err("one block of 1025 threads was timed".into()),
    }
}

fn ch2_effective_bandwidth_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch2-effective-bandwidth", &["--size", "1048576", "--reps", "2"])
}

fn ch2_peak_bandwidth_formula(gpu: &Gpu) -> TestResult {
    let p = gpu.properties();
    let expected = 2.0 * p.memory_clock_rate_khz as f64 * p.memory_bus_width_bits as f64 / 8.0 / 1e6;
    ensure((p.peak_bandwidth_gb_per_s() - expected).abs() < 1e-9, || {
        "peak bandwidth formula".into()
    })
}

fn ch2_stats_and_bandwidth() -> TestResult {
    let stats = Stats::of(&mut [4.0, 1.0, 3.0, 2.0]);
    ensure(
        stats.min_ms == 1.0 && stats.max_ms == 4.0 && stats.median_ms == 2.5 && stats.mean_ms == 2.5,
        || format!("{stats:?}"),
    )?;
    // The book's worked example: 8*1024^2 floats read and written in 0.635 ms is 106 GB/s.
    let bw = gb_per_s(8 * 1024 * 1024 * 4 * 2, 0.635);
    ensure((bw - 105.7).abs() < 0.1, || format!("{bw}"))
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        (
            "ch2_limiting_factor_kernels_match_cpu",
            ch2_limiting_factor_kernels_match_cpu,
        ),
        ("ch2_limiting_factor_program", ch2_limiting_factor_program),
        ("ch2_timing_program", ch2_timing_program),
        ("ch2_timing_multiblock", ch2_timing_multiblock),
        ("ch2_timing_one_block_refuses_more", ch2_timing_one_block_refuses_more),
        ("ch2_effective_bandwidth_program", ch2_effective_bandwidth_program),
        ("ch2_peak_bandwidth_formula", ch2_peak_bandwidth_formula),
    ];
    common::main(vec![("ch2_stats_and_bandwidth", ch2_stats_and_bandwidth)], gpu_tests)
}
