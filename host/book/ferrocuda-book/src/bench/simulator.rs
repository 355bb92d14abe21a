//! The CPU simulator's throughput: simulated threads per second for a barrier-free kernel (the
//! fast path: plain calls) and for kernels that meet at barriers and shuffles (coroutines).
use book_kernels::stream::{BinaryArgs, StreamTriad};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::Stats;
use ferrocuda_testing::probe::{OutArgs, ProbeSharedReverse, ProbeWarp, WARP_FIELDS, WarpArgs};

/// One measured kernel.
pub struct Throughput {
    pub kernel: &'static str,
    pub path: &'static str,
    pub threads: usize,
    pub ms: f64,
}

impl Throughput {
    /// Simulated threads per second.
    pub fn threads_per_s(&self) -> f64 {
        self.threads as f64 / (self.ms * 1e-3)
    }
}

/// Times each kernel `reps` times on the simulator and prints the table.
pub fn run(reps: usize) -> Result<Vec<Throughput>> {
    let sim = Gpu::simulator();
    let time = |work: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        work()?;
        let mut samples = (0..reps.max(1))
            .map(|_| sim.time_ms(&mut *work))
            .collect::<Result<Vec<_>>>()?;
        Ok(Stats::of(&mut samples).median_ms)
    };

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
    let mut data = sim.upload(&(0..(threads * blocks) as i32).collect::<Vec<_>>())?;
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

    let rows = vec![
        Throughput {
            kernel: "stream_triad_f32",
            path: "fast path (plain calls)",
            threads: n,
            ms: triad,
        },
        Throughput {
            kernel: "probe_shared_reverse",
            path: "coroutines, 1 barrier",
            threads: (threads * blocks) as usize,
            ms: reverse,
        },
        Throughput {
            kernel: "probe_warp",
            path: "coroutines, 10 warp ops",
            threads: warp_threads,
            ms: warp,
        },
    ];
    println!();
    println!(
        "CPU simulator throughput, {} (median of {reps}):",
        sim.properties().name
    );
    println!(
        "{:<24} {:<26} {:>10} {:>10} {:>16}",
        "kernel", "path", "threads", "ms", "threads/s"
    );
    for r in &rows {
        println!(
            "{:<24} {:<26} {:>10} {:>10.2} {:>16.3e}",
            r.kernel,
            r.path,
            r.threads,
            r.ms,
            r.threads_per_s()
        );
    }
    Ok(rows)
}
