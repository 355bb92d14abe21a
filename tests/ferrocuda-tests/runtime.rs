//! The host runtime: pinned buffers and streams, device selection, launch shapes, argument
//! checks.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail};
use ferrocuda::gpu::same_len;
use ferrocuda::{Error, Gpu, LaunchShape};
use ferrocuda_book::examples::stream::{self, Layout, Op};

fn runtime_pinned_round_trip(gpu: &Gpu) -> TestResult {
    let n = 1 << 20;
    let mut pinned = gpu.pinned::<f32>(n).map_err(fail)?;
    ensure(pinned.as_slice().map_err(fail)?.iter().all(|&v| v == 0.0), || {
        "pinned memory is not zeroed".into()
    })?;
    for (i, v) in pinned.as_mut_slice().map_err(fail)?.iter_mut().enumerate() {
        *v = i as f32 * 0.5;
    }
    let mut device = gpu.zeros::<f32>(n).map_err(fail)?;
    gpu.upload_pinned(&pinned, &mut device).map_err(fail)?;
    let mut doubled = gpu.zeros::<f32>(n).map_err(fail)?;
    stream::unary(gpu, Op::Scale, Layout::Vec4, &device, &mut doubled, 2.0, 256).map_err(fail)?;
    let mut back = gpu.pinned::<f32>(n).map_err(fail)?;
    gpu.download_pinned(&doubled, &mut back).map_err(fail)?;
    gpu.synchronize().map_err(fail)?;
    let ok = back
        .as_slice()
        .map_err(fail)?
        .iter()
        .enumerate()
        .all(|(i, &v)| v == i as f32);
    ensure(ok, || "pinned upload, scale and download disagree".into())
}

fn runtime_cuda_streams(gpu: &Gpu) -> TestResult {
    let s = gpu.cuda("a second stream").map_err(fail)?.new_stream().map_err(fail)?;
    let from = s.clone_htod(&[7u8; 4096]).map_err(|e| e.to_string())?;
    let to = s.clone_dtoh(&from).map_err(|e| e.to_string())?;
    s.synchronize().map_err(|e| e.to_string())?;
    ensure(to.iter().all(|&b| b == 7), || "copy on a second stream".into())
}

fn runtime_no_such_device() -> TestResult {
    // With a driver: "there is no device 999"; without one: the missing driver, in one sentence.
    match Gpu::new(999) {
        Err(e @ (Error::NoSuchDevice { .. } | Error::NoDriver | Error::NoDevice)) => {
            ensure(!e.to_string().contains('\n'), || format!("not one sentence: {e}"))
        }
        Err(e) => Err(format!("unexpected error: {e}")),
        Ok(_) => Err("device 999 opened".into()),
    }
}

fn runtime_mismatched_lengths_are_refused(gpu: &Gpu) -> TestResult {
    let a = gpu.zeros::<f32>(100).map_err(fail)?;
    let mut c = gpu.zeros::<f32>(99).map_err(fail)?;
    match stream::unary(gpu, Op::Copy, Layout::OnePerThread, &a, &mut c, 1.0, 128) {
        Err(Error::InvalidArgument(message)) => ensure(message.contains("[100, 99]"), || message),
        other => Err(format!("expected an invalid-argument error, got {other:?}")),
    }
}

fn runtime_launch_shapes() -> TestResult {
    let shape = LaunchShape::cover_1d(1000, 256).map_err(fail)?;
    ensure(
        shape.grid == (4, 1, 1) && shape.block == (256, 1, 1) && shape.to_string() == "grid 4x1x1, block 256x1x1",
        || shape.to_string(),
    )?;
    let shape = LaunchShape::cover_2d(33, 9, (32, 8))
        .map_err(fail)?
        .with_shared_bytes(128);
    ensure(
        shape.grid == (2, 2, 1) && shape.threads_per_block() == 256 && shape.to_string().ends_with("128 B shared"),
        || shape.to_string(),
    )?;
    ensure(LaunchShape::cover_1d(10, 0).is_err(), || {
        "a zero-thread block was accepted".into()
    })?;
    ensure(LaunchShape::cover_1d(usize::MAX, 1).is_err(), || {
        "a grid beyond u32 was accepted".into()
    })
}

fn runtime_same_len() -> TestResult {
    ensure(
        same_len("x", &[3, 3, 3]).ok() == Some(3) && same_len("x", &[3, 4]).is_err() && same_len("x", &[]).is_err(),
        || "same_len".into(),
    )
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("runtime_launch_shapes", runtime_launch_shapes),
        ("runtime_same_len", runtime_same_len),
        ("runtime_no_such_device", runtime_no_such_device),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("runtime_pinned_round_trip", runtime_pinned_round_trip),
        (
            "runtime_mismatched_lengths_are_refused",
            runtime_mismatched_lengths_are_refused,
        ),
    ];
    let cuda_tests: Vec<GpuTest> = vec![("runtime_cuda_streams", runtime_cuda_streams)];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
