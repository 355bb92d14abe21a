//! The run-time side of `ferrocuda::guarantees` (the compile-time side is its `compile_fail`
//! doctests): a buffer may be dropped right after a launch that uses it, on the default stream,
//! on another stream, or with the launch on another device; a launch refuses two writable views
//! of overlapping memory; the simulator refuses views of memory it did not allocate. Run under
//! `compute-sanitizer --tool memcheck` on a GPU (`.gpu/gpu-run` does), the drop loops report no
//! error.
use ferrocuda_testing as common;

use common::{MultiGpuTest, TestResult, ensure, fail};
use ferrocuda::{Gpu, KernelView, LaunchShape, Slice, SliceMut};
use ferrocuda_testing::probe::{ProbeTriad, ProbeTwoOutputs, TriadArgs, TwoOutputsArgs};

/// Launches per drop loop: enough that the host queues launches far ahead of the GPU, so each
/// drop happens while launches using the buffer are still queued.
const ROUNDS: usize = 300;

/// Elements per buffer: 64 MiB of f32 on a GPU (a triad over them takes tens of microseconds,
/// far longer than queuing it), few on the simulator.
fn elements(gpu: &Gpu) -> usize {
    if gpu.is_simulator() { 4096 } else { 1 << 24 }
}

/// `ROUNDS` times: a fresh output buffer, a triad into it queued on the default stream or on a
/// second stream (alternately), the buffer dropped at once, and a new buffer allocated in the
/// memory just freed. An unrelated live buffer and the inputs must come out unchanged, and the
/// last new buffer zero (a kernel still writing freed memory would change them; memcheck would
/// name the access).
fn soundness_buffers_dropped_right_after_launches(gpu: &Gpu) -> TestResult {
    let n = elements(gpu);
    let kernels = common::probes(gpu)?;
    let shape = LaunchShape::cover_1d(n, 256).map_err(fail)?;
    let stream = gpu.new_stream().map_err(fail)?;
    let unrelated = gpu.upload(&vec![7.0f32; n]).map_err(fail)?;
    let (a_d, b_d) = (
        gpu.upload(&vec![1.0f32; n]).map_err(fail)?,
        gpu.upload(&vec![2.0f32; n]).map_err(fail)?,
    );
    let mut fresh = gpu.zeros::<f32>(n).map_err(fail)?;
    for round in 0..ROUNDS {
        let mut c_d = gpu.zeros::<f32>(n).map_err(fail)?;
        let args = TriadArgs {
            a: a_d.view(),
            b: b_d.view(),
            c: c_d.view_mut(),
            scalar: 3.0f32,
        };
        if round % 2 == 0 {
            kernels.launch(ProbeTriad, shape, args).map_err(fail)?;
        } else {
            kernels.launch_on(&stream, ProbeTriad, shape, args).map_err(fail)?;
        }
        drop(c_d);
        fresh = gpu.zeros::<f32>(n).map_err(fail)?;
    }
    gpu.synchronize_stream(&stream).map_err(fail)?;
    ensure(
        gpu.download(&unrelated).map_err(fail)?.iter().all(|&v| v == 7.0),
        || "a live buffer unrelated to the launches changed".into(),
    )?;
    ensure(gpu.download(&a_d).map_err(fail)? == vec![1.0; n], || {
        "an input changed".into()
    })?;
    ensure(gpu.download(&fresh).map_err(fail)?.iter().all(|&v| v == 0.0), || {
        "a buffer allocated after the drops was written by a launch".into()
    })
}

/// As above, with the launches on the second GPU reading and writing buffers of the first
/// (peer access), each output dropped on the first right after the launch is queued.
fn soundness_buffers_dropped_under_another_devices_launch(gpus: &[&Gpu]) -> TestResult {
    let (owner, runner) = (gpus[0], gpus[1]);
    // Without peer access the launch faults on the first address of `owner`'s memory.
    if !runner.enable_peer_access(owner).map_err(fail)? {
        return Ok(());
    }
    let n = elements(owner);
    let kernels = common::probes(runner)?;
    let shape = LaunchShape::cover_1d(n, 256).map_err(fail)?;
    let unrelated = owner.upload(&vec![7.0f32; n]).map_err(fail)?;
    let (a_d, b_d) = (
        owner.upload(&vec![1.0f32; n]).map_err(fail)?,
        owner.upload(&vec![2.0f32; n]).map_err(fail)?,
    );
    let mut fresh = owner.zeros::<f32>(n).map_err(fail)?;
    for _ in 0..ROUNDS / 3 {
        let mut c_d = owner.zeros::<f32>(n).map_err(fail)?;
        let args = TriadArgs {
            a: a_d.view(),
            b: b_d.view(),
            c: c_d.view_mut(),
            scalar: 3.0f32,
        };
        kernels.launch(ProbeTriad, shape, args).map_err(fail)?;
        drop(c_d);
        fresh = owner.zeros::<f32>(n).map_err(fail)?;
    }
    ensure(
        owner.download(&unrelated).map_err(fail)?.iter().all(|&v| v == 7.0),
        || "a live buffer unrelated to the launches changed".into(),
    )?;
    ensure(owner.download(&fresh).map_err(fail)?.iter().all(|&v| v == 0.0), || {
        "a buffer allocated after the drops was written by the other device's launch".into()
    })
}

/// One writable view in two fields, or two overlapping subviews, is refused with the fields'
/// names; subviews that do not overlap, and a read-only twin of the output, are not.
fn soundness_overlapping_writable_views_refused(gpu: &Gpu) -> TestResult {
    let n = 1024;
    let kernels = common::probes(gpu)?;
    let shape = LaunchShape::cover_1d(n / 2, 256).map_err(fail)?;
    let a_d = gpu.upload(&vec![1.0f32; n]).map_err(fail)?;
    let mut c_d = gpu.upload(&vec![0.0f32; n]).map_err(fail)?;
    let c = c_d.view_mut();
    // Half `k` of the `n` elements of `view`.
    fn half(view: SliceMut<'_, f32>, n: usize, k: usize) -> Result<SliceMut<'_, f32>, String> {
        view.subview(k * n / 2..(k + 1) * n / 2).ok_or_else(|| "subview".into())
    }
    // The triad over the first half, writing `c` and reading `a` and `b`.
    let a_low = a_d.view().subview(0..n / 2).ok_or("subview")?;
    let refused = kernels.launch(
        ProbeTriad,
        shape,
        TriadArgs {
            a: a_low,
            b: a_low,
            c: half(c, n, 0)?,
            scalar: 1.0f32,
        },
    );
    ensure(refused.is_ok(), || format!("a plain launch was refused: {refused:?}"))?;
    let overlapping = c.subview(n / 4..3 * n / 4).ok_or("subview")?;
    for (what, first, second) in [
        ("one view twice", half(c, n, 0)?, half(c, n, 0)?),
        ("overlapping subviews", half(c, n, 0)?, overlapping),
    ] {
        // A read-only twin of a writable view is allowed (in-place kernels).
        let error = kernels
            .launch(
                ProbeTriad,
                shape,
                TriadArgs {
                    a: second.as_slice(),
                    b: second.as_slice(),
                    c: first,
                    scalar: 1.0f32,
                },
            )
            .err();
        ensure(error.is_none(), || {
            format!("{what}: a read-only twin was refused: {error:?}")
        })?;
        let error = common::probes(gpu)?
            .launch(ProbeTwoOutputs, shape, TwoOutputsArgs { first, second })
            .expect_err("overlapping writable views were accepted")
            .to_string();
        ensure(
            error.contains("`first` and `second` are writable views of overlapping memory"),
            || format!("{what}: {error}"),
        )?;
    }
    common::probes(gpu)?
        .launch(
            ProbeTwoOutputs,
            shape,
            TwoOutputsArgs {
                first: half(c, n, 0)?,
                second: half(c, n, 1)?,
            },
        )
        .map_err(fail)?;
    let out = gpu.download(&c_d).map_err(fail)?;
    ensure(out.iter().all(|&v| v == 5.0), || {
        format!("disjoint halves: {:?}", &out[..4])
    })
}

/// A view of memory the simulator did not allocate (here, a host array) is refused by a
/// simulator launch and by `download_view`, rather than dereferenced.
fn soundness_simulator_refuses_foreign_views(gpu: &Gpu) -> TestResult {
    if !gpu.is_simulator() {
        return Ok(());
    }
    let host = [0.0f32; 64];
    // SAFETY: the view addresses `host`, which outlives it; the library must refuse to use it.
    let foreign: Slice<'_, f32> = unsafe { Slice::from_raw_parts(host.as_ptr(), host.len()) };
    let mut c_d = gpu.zeros::<f32>(64).map_err(fail)?;
    let shape = LaunchShape::cover_1d(64, 64).map_err(fail)?;
    let error = common::probes(gpu)?
        .launch(
            ProbeTriad,
            shape,
            TriadArgs {
                a: foreign,
                b: foreign,
                c: c_d.view_mut(),
                scalar: 1.0f32,
            },
        )
        .expect_err("a view of host memory was launched on the simulator")
        .to_string();
    ensure(error.contains("`a` is not a view of the simulator's memory"), || {
        error.clone()
    })?;
    ensure(gpu.download_view(foreign).is_err(), || {
        "download_view read a foreign view".into()
    })
}

/// Copies through views: what a launcher holding a buffer's view reads and writes.
fn soundness_copies_through_views(gpu: &Gpu) -> TestResult {
    let mut c_d = gpu.zeros::<f32>(100).map_err(fail)?;
    let c = c_d.view_mut();
    let values: Vec<f32> = (0..100).map(|i| i as f32).collect();
    gpu.upload_view(&values, c).map_err(fail)?;
    ensure(gpu.download_view(c.as_slice()).map_err(fail)? == values, || {
        "round trip".into()
    })?;
    ensure(gpu.upload_view(&values[..99], c).is_err(), || {
        "a short copy was accepted".into()
    })?;
    let tail = c.subview(90..100).ok_or("subview")?;
    ensure(
        gpu.download_view(tail.as_slice()).map_err(fail)? == values[90..],
        || "subview".into(),
    )
}

fn main() {
    let multi: Vec<MultiGpuTest> = vec![(
        "soundness_buffers_dropped_under_another_devices_launch",
        2,
        soundness_buffers_dropped_under_another_devices_launch,
    )];
    common::main_with_multi_gpu(
        vec![],
        vec![
            (
                "soundness_buffers_dropped_right_after_launches",
                soundness_buffers_dropped_right_after_launches,
            ),
            (
                "soundness_overlapping_writable_views_refused",
                soundness_overlapping_writable_views_refused,
            ),
            (
                "soundness_simulator_refuses_foreign_views",
                soundness_simulator_refuses_foreign_views,
            ),
            ("soundness_copies_through_views", soundness_copies_through_views),
        ],
        vec![],
        multi,
    )
}
