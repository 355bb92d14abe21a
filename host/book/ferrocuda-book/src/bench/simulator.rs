//! The CPU simulator's throughput: simulated threads per second for a barrier-free kernel (the
//! fast path: plain calls) and for kernels that meet at barriers and shuffles (coroutines).
use book_kernels::stream::{BinaryArgs, StreamTriad};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda_testing::probe::{OutArgs, ProbeSharedReverse, ProbeWarp, WARP_FIELDS, WarpArgs};

/// Times each kernel `reps` times on the simulator and prints the table.
pub fn run(reps: usize) -> Result<()> {
    let sim = Gpu::simulator();
    let time = |work: &mut dyn FnMut() -> Result<()>| time_reps(&sim, reps, work).map(|s| s.median_ms);

    let probes = sim.load(&ferrocuda_testing::PROBES)?;
    let n = 1 << 22;
    let (a, b) = (sim.upload(&vec![1.0f32; n])?, sim.upload(&vec![2.0f32; n])?);
    let mut c = sim.zeros::<f32>(n)?;
    let args = BinaryArgs {
        a: a.view(),
        b: b.view(),
        c: c.view_mut(),
        scalar: 3.0,
    };
    let shape = LaunchShape::cover_1d(n, 256)?;
    let triad = time(&mut || crate::kernels(&sim)?.launch(StreamTriad, shape, args))?;

    let threads = 256u32;
    let blocks = 1024u32;
    let reverse_threads = (threads * blocks) as usize;
    let mut data = sim.upload(&(0..reverse_threads as i32).collect::<Vec<_>>())?;
    let shape = LaunchShape::new((blocks, 1, 1), (threads, 1, 1))
        .with_shared_bytes(Tile1d::<i32>::bytes(threads as usize) as u32);
    let out = OutArgs { out: data.view_mut() };
    let reverse = time(&mut || probes.launch(ProbeSharedReverse, shape, out))?;

    let warp_threads = 1 << 17;
    let input = sim.upload(&vec![1i32; warp_threads])?;
    let mut warp_out = sim.zeros::<i32>(WARP_FIELDS * warp_threads)?;
    let warp_args = WarpArgs {
        input: input.view(),
        out: warp_out.view_mut(),
    };
    let shape = LaunchShape::cover_1d(warp_threads, 256)?;
    let warp = time(&mut || probes.launch(ProbeWarp, shape, warp_args))?;

    println!();
    println!(
        "CPU simulator throughput, {} (median of {reps}):",
        sim.properties().name
    );
    println!(
        "{:<24} {:<26} {:>10} {:>10} {:>16}",
        "kernel", "path", "threads", "ms", "threads/s"
    );
    for (kernel, path, threads, ms) in [
        ("stream_triad_f32", "fast path (plain calls)", n, triad),
        (
            "probe_shared_reverse",
            "coroutines, 1 barrier",
            reverse_threads,
            reverse,
        ),
        ("probe_warp", "coroutines, 10 warp ops", warp_threads, warp),
    ] {
        // Simulated threads per second.
        let per_s = threads as f64 / (ms * 1e-3);
        println!("{kernel:<24} {path:<26} {threads:>10} {ms:>10.2} {per_s:>16.3e}");
    }
    Ok(())
}
