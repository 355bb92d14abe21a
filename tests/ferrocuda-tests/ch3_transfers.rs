//! Tests of the book's chapter 3 host-device transfer examples (§3.1): ch3-bandwidth-test,
//! ch3-batching and ch3-async. Round trips, sections and stream orderings are compared with
//! their CPU references at sizes that break assumptions; what only CUDA can show (the default
//! stream waiting for streams, host reads waiting for asynchronous copies) runs on a GPU only.
mod common;

use book_kernels::ch3::async_overlap::{AsyncArgs, Kernel as AsyncKernel};
use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::gpu::Copy2d;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Error, Gpu, KernelView, LaunchShape};
use ferrocuda_book::examples::ch3::async_overlap::{self, BLOCK_SIZE, Setup, TOLERANCE, Variant};
use ferrocuda_book::examples::ch3::{bandwidth_test, batching};
use ferrocuda_book::reference::ch3 as reference;

fn ch3_bandwidth_test_program(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "ch3-bandwidth-test",
        &["--size", "65536", "--reps", "1", "--max-mib", "1"],
    )
}

fn ch3_bandwidth_test_round_trips_awkward_sizes(gpu: &Gpu) -> TestResult {
    for n in awkward_sizes(256) {
        let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 3.0).collect();
        let (rates, checks) = bandwidth_test::round_trips(gpu, &floats, 1).map_err(fail)?;
        for check in &checks {
            ensure(check.passed(), || format!("f32, n = {n}: {check}"))?;
        }
        ensure(rates.bytes == 4 * n, || format!("bytes {} for {n} floats", rates.bytes))?;
        // Odd byte counts: transfers need not be whole words.
        let bytes: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        for check in bandwidth_test::round_trips(gpu, &bytes, 1).map_err(fail)?.1 {
            ensure(check.passed(), || format!("u8, n = {n}: {check}"))?;
        }
    }
    Ok(())
}

fn ch3_bandwidth_test_rejects_an_empty_sweep(gpu: &Gpu) -> TestResult {
    match common::run_args(gpu, "ch3-bandwidth-test", &["--max-mib", "0"]) {
        Err(Error::InvalidArgument(message)) => ensure(message.contains("--max-mib"), || message),
        other => Err(format!(
            "expected a refusal of --max-mib 0, got {:?}",
            other.map(|o| o.passed())
        )),
    }
}

fn ch3_batching_program(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "ch3-batching",
        &["--size", "100003", "--reps", "1", "--matrix", "67"],
    )
}

fn ch3_batching_parts_that_do_not_divide(gpu: &Gpu) -> TestResult {
    let n = 1000;
    let host: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    for transfers in [1, 3, 7, 33, 999, 1000, 2000] {
        let mut a_d = gpu.zeros::<f32>(n).map_err(fail)?;
        batching::upload_in_parts(gpu, &host, &mut a_d, transfers).map_err(fail)?;
        let check = Check::compare("a_d", &gpu.download(&a_d).map_err(fail)?, &host, Tolerance::EXACT);
        ensure(check.passed(), || format!("{transfers} transfers: {check}"))?;
    }
    Ok(())
}

fn ch3_batching_sections_with_different_pitches(gpu: &Gpu) -> TestResult {
    // A 13 x 11 section from row 3, column 5 of a 37 x 29 array, into row 2, column 7 of a
    // 20 x 41 one: pitches, offsets and extents all differ and none is a multiple of another.
    let copy = Copy2d {
        src_offset: 3 * 29 + 5,
        src_pitch: 29,
        dst_offset: 2 * 41 + 7,
        dst_pitch: 41,
        width: 13,
        height: 11,
    };
    let src: Vec<f32> = (0..37 * 29).map(|i| i as f32).collect();
    let mut expected = vec![-1.0f32; 20 * 41];
    reference::batching::copy_section(&src, &mut expected, copy).map_err(fail)?;
    let mut a_d = gpu.upload(&vec![-1.0f32; 20 * 41]).map_err(fail)?;
    gpu.upload_2d(&src, &mut a_d, copy).map_err(fail)?;
    let check = Check::compare(
        "upload_2d",
        &gpu.download(&a_d).map_err(fail)?,
        &expected,
        Tolerance::EXACT,
    );
    ensure(check.passed(), || check.to_string())?;

    // Back again: the section of the device array, into a host array laid out as the source.
    let back_copy = Copy2d {
        src_offset: copy.dst_offset,
        src_pitch: copy.dst_pitch,
        dst_offset: copy.src_offset,
        dst_pitch: copy.src_pitch,
        ..copy
    };
    let mut back = vec![-2.0f32; 37 * 29];
    gpu.download_2d(&a_d, &mut back, back_copy).map_err(fail)?;
    let mut expected_back = vec![-2.0f32; 37 * 29];
    reference::batching::copy_section(&expected, &mut expected_back, back_copy).map_err(fail)?;
    let check = Check::compare("download_2d", &back, &expected_back, Tolerance::EXACT);
    ensure(check.passed(), || check.to_string())?;

    for (what, bad) in [
        ("width beyond the pitch", Copy2d { width: 30, ..copy }),
        ("rows beyond the source", Copy2d { height: 40, ..copy }),
        ("zero height", Copy2d { height: 0, ..copy }),
    ] {
        ensure(
            matches!(gpu.upload_2d(&src, &mut a_d, bad), Err(Error::InvalidArgument(_))),
            || format!("{what} was accepted"),
        )?;
    }
    // The CPU reference refuses a section that leaves either array, rather than panicking.
    for (what, bad) in [
        ("rows beyond the source", Copy2d { height: 40, ..copy }),
        (
            "an offset beyond the destination",
            Copy2d {
                dst_offset: 20 * 41,
                ..copy
            },
        ),
        (
            "a pitch overflowing",
            Copy2d {
                src_pitch: usize::MAX,
                ..copy
            },
        ),
    ] {
        ensure(
            matches!(
                reference::batching::copy_section(&src, &mut expected, bad),
                Err(Error::InvalidArgument(_))
            ),
            || format!("the reference accepted {what}"),
        )?;
    }
    ensure(
        matches!(gpu.upload_range(&src, &mut a_d, 0), Err(Error::InvalidArgument(_))),
        || "a range copy past the device buffer was accepted".into(),
    )
}

fn ch3_async_program(gpu: &Gpu) -> TestResult {
    let size = (BLOCK_SIZE * 4 * 8).to_string();
    passes_with(gpu, "ch3-async", &["--size", &size, "--reps", "1"])
}

fn ch3_async_variants_match_cpu_for_stream_counts(gpu: &Gpu) -> TestResult {
    for (streams, blocks_per_stream) in [(1, 3), (3, 1), (4, 5), (7, 2)] {
        let n = BLOCK_SIZE * streams * blocks_per_stream;
        let mut setup = Setup::new(gpu, n, streams).map_err(fail)?;
        let mut expected = vec![0.0f32; n];
        reference::async_overlap::kernel(&mut expected);
        for variant in Variant::ALL {
            // Twice: each run must start again from a = 0 (a second increment would show as 2).
            for run in 0..2 {
                let (ms, a) = async_overlap::timed(gpu, &mut setup, variant).map_err(fail)?;
                let check = Check::compare(variant.label(), &a, &expected, TOLERANCE);
                ensure(check.passed() && ms >= 0.0, || {
                    format!("{streams} streams, n = {n}, run {run}: {check} ({ms} ms)")
                })?;
            }
            let spans = async_overlap::timeline(gpu, &mut setup, variant).map_err(fail)?;
            let operations = if variant == Variant::Sequential { 3 } else { 3 * streams };
            ensure(
                spans.len() == operations && spans.iter().all(|s| s.end_ms >= s.ready_ms && s.ready_ms >= 0.0),
                || format!("{variant:?} with {streams} streams: timeline {spans:?}"),
            )?;
        }
    }
    Ok(())
}

fn ch3_async_rejects_sizes_that_do_not_split(gpu: &Gpu) -> TestResult {
    for (n, streams) in [(BLOCK_SIZE * 4 + 1, 4), (BLOCK_SIZE * 3, 4), (0, 4), (BLOCK_SIZE, 0)] {
        ensure(
            matches!(Setup::new(gpu, n, streams), Err(Error::InvalidArgument(_))),
            || format!("n = {n} with {streams} streams was accepted"),
        )?;
    }
    // An asynchronous copy past either buffer's end is refused before anything is queued.
    let stream = gpu.new_stream().map_err(fail)?;
    let pinned = gpu.pinned::<f32>(100).map_err(fail)?;
    let mut a_d = gpu.zeros::<f32>(100).map_err(fail)?;
    ensure(
        matches!(
            gpu.upload_async(&stream, &pinned, &mut a_d, 50..101),
            Err(Error::InvalidArgument(_))
        ),
        || "a copy of elements 50..101 of 100 was accepted".into(),
    )
}

/// Streams made by `new_stream` are blocking, as `cudaStreamCreate`'s: a copy on the default
/// stream issued right after a long kernel on a stream must wait for it.
fn ch3_async_default_stream_waits_for_streams(gpu: &Gpu) -> TestResult {
    let n = 1 << 24;
    let stream = gpu.new_stream().map_err(fail)?;
    let mut a_d = gpu.zeros::<f32>(n).map_err(fail)?;
    let args = AsyncArgs {
        a: a_d.view_mut(),
        offset: 0,
    };
    let shape = LaunchShape::cover_1d(n, BLOCK_SIZE as u32).map_err(fail)?;
    common::book(gpu)?
        .launch_on(&stream, AsyncKernel, shape, args)
        .map_err(fail)?;
    let a = gpu.download(&a_d).map_err(fail)?;
    let mut expected = vec![0.0f32; n];
    reference::async_overlap::kernel(&mut expected);
    let check = Check::compare("a", &a, &expected, TOLERANCE);
    ensure(check.passed(), || check.to_string())
}

/// A pinned buffer's host access waits for the asynchronous copies queued into it.
fn ch3_async_pinned_reads_wait_for_copies(gpu: &Gpu) -> TestResult {
    let n = 1 << 24;
    let streams = [gpu.new_stream().map_err(fail)?, gpu.new_stream().map_err(fail)?];
    let values: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let a_d = gpu.upload(&values).map_err(fail)?;
    gpu.synchronize().map_err(fail)?;
    let mut back = gpu.pinned::<f32>(n).map_err(fail)?;
    gpu.download_async(&streams[0], &a_d, &mut back, 0..n / 2)
        .map_err(fail)?;
    gpu.download_async(&streams[1], &a_d, &mut back, n / 2..n)
        .map_err(fail)?;
    let check = Check::compare("back", back.as_slice().map_err(fail)?, &values, Tolerance::EXACT);
    ensure(check.passed(), || check.to_string())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch3_bandwidth_test_program", ch3_bandwidth_test_program),
        (
            "ch3_bandwidth_test_round_trips_awkward_sizes",
            ch3_bandwidth_test_round_trips_awkward_sizes,
        ),
        (
            "ch3_bandwidth_test_rejects_an_empty_sweep",
            ch3_bandwidth_test_rejects_an_empty_sweep,
        ),
        ("ch3_batching_program", ch3_batching_program),
        (
            "ch3_batching_parts_that_do_not_divide",
            ch3_batching_parts_that_do_not_divide,
        ),
        (
            "ch3_batching_sections_with_different_pitches",
            ch3_batching_sections_with_different_pitches,
        ),
        ("ch3_async_program", ch3_async_program),
        (
            "ch3_async_variants_match_cpu_for_stream_counts",
            ch3_async_variants_match_cpu_for_stream_counts,
        ),
        (
            "ch3_async_rejects_sizes_that_do_not_split",
            ch3_async_rejects_sizes_that_do_not_split,
        ),
    ];
    let cuda_tests: Vec<GpuTest> = vec![
        (
            "ch3_async_default_stream_waits_for_streams",
            ch3_async_default_stream_waits_for_streams,
        ),
        (
            "ch3_async_pinned_reads_wait_for_copies",
            ch3_async_pinned_reads_wait_for_copies,
        ),
    ];
    common::main_with_cuda_only(vec![], gpu_tests, cuda_tests)
}
