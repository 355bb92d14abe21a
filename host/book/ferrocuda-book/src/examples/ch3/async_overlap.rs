//! ch3-async: overlapping copies and kernels with streams (book §3.1.3, `program testAsync`).
//!
//! The array is cut into `nStreams` chunks; each chunk's copy in, kernel and copy out can run
//! while other chunks' do, because copies from pinned memory in non-default streams are
//! asynchronous and the GPU has separate engines for each copy direction and for kernels.
//! Variants, as the book's: sequential (one copy in, one kernel, one copy out, stream 0); V1 (per
//! stream: copy in, kernel, copy out); V2 (all copies in, then all kernels, then all copies out);
//! V3 (V2 with an event recorded after each kernel, which on Fermi let the copies out start
//! earlier).
//!
//! The file is `async_overlap.rs` because `async` is a Rust keyword.
//!
//! On an H100 the kernel at the book's size (16 MB) is much shorter than the copies, so only the
//! two copy directions overlap and the speedup is bounded by `2 / (1 + 1/nStreams)` (1.6 for 4
//! streams): the output prints this bound for the measured stage times. `--streams` raises it;
//! `--size` changes the size of everything (the ratio of kernel to copy time stays the same, the
//! fixed per-operation costs shrink relative to the data).
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::ch3::async_overlap::{AsyncArgs, Kernel as AsyncKernel};
use ferrocuda::footprint::{Footprint, try_vec, try_with_capacity};
use ferrocuda::gpu::{DeviceBuffer, Error, Event, Gpu, KernelView, LaunchShape, PinnedBuffer, Result, Stream};
use ferrocuda::measure::Stats;
use ferrocuda::verify::{Check, Tolerance};

/// The book's `blockSize` and `nStreams`.
pub const BLOCK_SIZE: usize = 256;
pub const N_STREAMS: usize = 4;
/// The book's `n = 4*1024*blockSize*nStreams` (4,194,304 floats, 16 MB).
pub const N: usize = 4 * 1024 * BLOCK_SIZE * N_STREAMS;
/// Floats on the simulator.
pub const SIMULATOR_N: usize = SIMULATOR_SIZE / 4;
/// Columns of the text timelines.
pub const TIMELINE_COLUMNS: usize = 64;

/// `sqrt(s^2 + c^2)` is 1 within a rounding or two, and the reference's `sin_cos` is the host's,
/// not the kernel's `libm` routine: they may differ in the last bit of `s` and `c`, which moves
/// the sum by about one ulp of 1. So GPU and CPU agree within 4 ulps of 1 (4.8e-7).
pub const TOLERANCE: Tolerance = Tolerance {
    abs: 4.0 * f32::EPSILON as f64,
    rel: 4.0 * f32::EPSILON as f64,
};

/// The orderings of copies and kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Sequential,
    V1,
    V2,
    V3,
}

impl Variant {
    pub const ALL: [Variant; 4] = [Variant::Sequential, Variant::V1, Variant::V2, Variant::V3];

    /// The book's label.
    pub fn label(self) -> &'static str {
        [
            "sequential transfer and execute",
            "asynchronous V1 transfer and execute",
            "asynchronous V2 transfer and execute",
            "asynchronous V3 transfer and execute",
        ][self as usize]
    }
}

/// An operation of the timeline, in the order of a chunk's passage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    HostToDevice,
    Kernel,
    DeviceToHost,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::HostToDevice, Op::Kernel, Op::DeviceToHost];

    /// Its letter in the timelines.
    fn symbol(self) -> char {
        ['H', 'K', 'D'][self as usize]
    }
}

/// One operation's place in time, ms from the variant's start: `ready` is when its stream reached
/// it (the event before it completed), `end` when it finished.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// 0 for stream 0 (sequential), 1.. for `stream(i)`.
    pub stream: usize,
    pub op: Op,
    pub ready_ms: f64,
    pub end_ms: f64,
}

/// The buffers and streams of one run.
pub struct Setup {
    pub n: usize,
    pub streams: Vec<Stream>,
    pub a: PinnedBuffer<f32>,
    pub a_d: DeviceBuffer<f32>,
}

impl Setup {
    /// `n` floats of pinned and device memory and `n_streams` streams; `n` must be a multiple of
    /// `BLOCK_SIZE * n_streams`, as the book's sizes are.
    pub fn new(gpu: &Gpu, n: usize, n_streams: usize) -> Result<Self> {
        if n_streams == 0 {
            return Err(Error::InvalidArgument("--streams must be at least 1".into()));
        }
        if n == 0 || !n.is_multiple_of(BLOCK_SIZE * n_streams) || u32::try_from(n).is_err() {
            return Err(Error::InvalidArgument(format!(
                "the array size must be a positive multiple of blockSize x nStreams = {}, below 2^32, not {n}",
                BLOCK_SIZE * n_streams
            )));
        }
        Ok(Self {
            n,
            streams: (0..n_streams).map(|_| gpu.new_stream()).collect::<Result<_>>()?,
            a: gpu.pinned(n)?,
            a_d: gpu.zeros(n)?,
        })
    }
}

/// Where an operation ran (0 for stream 0, `i + 1` for `stream(i)`), and the events around it.
type Mark = (usize, Op, Event, Event);

/// Queues one variant: the book's loops, verbatim in order. With `marks`, each operation is
/// bracketed by events (which changes V2 into something like V3: see `run`).
fn issue(gpu: &Gpu, setup: &mut Setup, variant: Variant, mut marks: Option<&mut Vec<Mark>>) -> Result<()> {
    let (n, count) = (setup.n, setup.streams.len());
    let size = n / count;
    let Setup { streams, a, a_d, .. } = setup;
    let streams: &[Stream] = streams;
    // Operation `op` of chunk `i` in `stream(i)`, or of the whole array in stream 0 (`None`).
    let mut run = |i: Option<usize>, op: Op| -> Result<()> {
        let stream = i.map(|i| &streams[i]);
        let range = i.map_or(0..n, |i| i * size..(i + 1) * size);
        let before = marks.as_ref().map(|_| gpu.record_event(stream)).transpose()?;
        match (op, stream) {
            (Op::HostToDevice, None) => gpu.upload_pinned(a, a_d)?,
            (Op::HostToDevice, Some(s)) => gpu.upload_async(s, a, a_d, range.clone())?,
            (Op::Kernel, _) => {
                let shape = LaunchShape::cover_1d(range.len(), BLOCK_SIZE as u32)?;
                let args = AsyncArgs {
                    a: a_d.view_mut(),
                    offset: range.start as u32,
                };
                match stream {
                    None => crate::kernels(gpu)?.launch(AsyncKernel, shape, args)?,
                    Some(s) => crate::kernels(gpu)?.launch_on(s, AsyncKernel, shape, args)?,
                }
            }
            (Op::DeviceToHost, None) => gpu.download_pinned(a_d, a)?,
            (Op::DeviceToHost, Some(s)) => gpu.download_async(s, a_d, a, range)?,
        }
        if let (Some(marks), Some(before)) = (marks.as_deref_mut(), before) {
            marks.push((i.map_or(0, |i| i + 1), op, before, gpu.record_event(stream)?));
        }
        Ok(())
    };
    match variant {
        Variant::Sequential => Op::ALL.into_iter().try_for_each(|op| run(None, op)),
        Variant::V1 => (0..count).try_for_each(|i| Op::ALL.into_iter().try_for_each(|op| run(Some(i), op))),
        Variant::V2 | Variant::V3 => Op::ALL.into_iter().try_for_each(|op| {
            (0..count).try_for_each(|i| {
                run(Some(i), op)?;
                if variant == Variant::V3 && op == Op::Kernel {
                    // The book's `cudaEventRecord(dummyEvent, stream(i))`.
                    gpu.record_event(Some(&streams[i]))?;
                }
                Ok(())
            })
        }),
    }
}

/// Sets `a = 0`, runs `variant` once timed with events in stream 0 (the book's `start` and
/// `stop`), and returns the time and the resulting `a`.
pub fn timed(gpu: &Gpu, setup: &mut Setup, variant: Variant) -> Result<(f64, Vec<f32>)> {
    setup.a.as_mut_slice()?.fill(0.0);
    let start = gpu.record_event(None)?;
    issue(gpu, setup, variant, None)?;
    let stop = gpu.record_event(None)?;
    let ms = start.elapsed_ms(&stop)?;
    gpu.synchronize()?;
    let mut a = try_with_capacity(setup.n)?;
    a.extend_from_slice(setup.a.as_slice()?);
    Ok((ms, a))
}

/// Runs `variant` once with events around every operation and returns the spans, ms from the
/// start.
pub fn timeline(gpu: &Gpu, setup: &mut Setup, variant: Variant) -> Result<Vec<Span>> {
    setup.a.as_mut_slice()?.fill(0.0);
    let start = gpu.record_event(None)?;
    let mut marks = Vec::new();
    issue(gpu, setup, variant, Some(&mut marks))?;
    gpu.synchronize()?;
    marks
        .iter()
        .map(|(stream, op, before, after)| {
            Ok(Span {
                stream: *stream,
                op: *op,
                ready_ms: start.elapsed_ms(before)?,
                end_ms: start.elapsed_ms(after)?,
            })
        })
        .collect()
}

/// The spans as text bars, one row per stream, `columns` wide over `[0, total]`. Each operation
/// gets at least one column, and starts no earlier than the one before it in its row ends, so
/// a short copy stays visible beside a long kernel.
pub fn timeline_text(spans: &[Span], columns: usize) -> Vec<String> {
    let total = spans.iter().map(|s| s.end_ms).fold(0.0, f64::max).max(1e-9);
    let column = |ms: f64| (((ms / total) * columns as f64) as usize).min(columns);
    let mut streams: Vec<usize> = spans.iter().map(|s| s.stream).collect();
    streams.sort_unstable();
    streams.dedup();
    streams
        .iter()
        .map(|&stream| {
            let mut row = vec![' '; columns];
            let mut cursor = 0;
            for s in spans.iter().filter(|s| s.stream == stream) {
                let start = column(s.ready_ms).max(cursor).min(columns.saturating_sub(1));
                let end = column(s.end_ms).max(start + 1).min(columns);
                row[start..end].fill(s.op.symbol());
                cursor = end;
            }
            format!(
                "   {:>9} |{}|",
                format!("stream {stream}"),
                row.into_iter().collect::<String>()
            )
        })
        .chain(std::iter::once(format!(
            "   {:>9}  0 ms{:>width$}",
            "",
            format!("{total:.3} ms"),
            width = columns.saturating_sub(4)
        )))
        .collect()
}

/// The time of each stage in the sequential timeline, ms: `[copy in, kernel, copy out]`.
fn stage_ms(spans: &[Span]) -> [f64; 3] {
    let mut stages = [0.0; 3];
    let mut previous_end = 0.0;
    for s in spans {
        stages[s.op as usize] += s.end_ms - s.ready_ms.max(previous_end);
        previous_end = s.end_ms;
    }
    stages
}

/// The shortest time `chunks` chunks can take through three engines (copy in, kernel, copy
/// out) working in parallel, each stage `stages[k] / chunks` per chunk: the first chunk passes
/// all three, the rest follow at the pace of the slowest.
pub fn pipeline_bound_ms(stages: [f64; 3], chunks: usize) -> f64 {
    let per_chunk = stages.map(|s| s / chunks.max(1) as f64);
    per_chunk.iter().sum::<f64>() + (chunks.max(1) - 1) as f64 * per_chunk.iter().copied().fold(0.0, f64::max)
}

/// ch3-async.
pub struct Ch3Async;

/// The options of ch3-async.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3AsyncOptions {
    /// number of streams (chunks), default 4 as the book; --size must be a multiple of 256 x N
    #[arg(long, value_name = "N", default_value_t = N_STREAMS, hide_default_value = true)]
    pub streams: usize,
}

impl Example for Ch3Async {
    const ID: &'static str = "ch3-async";
    const DESCRIPTION: &'static str = "sequential copy-kernel-copy vs three stream orderings (V1, V2, V3) with 4 streams, and their timelines (book 3.1.3)";
    const SIZE: Option<Size> = Some(
        Size::new(
            "floats, a multiple of 256 x --streams (1024 with the default 4 streams)",
            N,
            SIMULATOR_N,
        )
        .at_least(BLOCK_SIZE * N_STREAMS)
        .at_most(u32::MAX as usize),
    );
    const REPS: bool = true;
    type Args = Ch3AsyncOptions;

    /// The run's peak: the array on the device; on the host the pinned array, the CPU's result,
    /// the four variants' results and the copy of the next one; `None` on overflow.
    fn memory(run: &Run<Ch3AsyncOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(1, run.size)?.host::<f32>(7, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<Ch3AsyncOptions>) -> Result<Outcome> {
        let (n, n_streams) = (run.size, run.args.streams);
        let mut setup = Setup::new(gpu, n, n_streams)?;
        let p = gpu.properties();
        println!();
        println!(" Device : {}", p.name);
        // The book's `deviceOverlap` check: overlap needs at least one copy engine beside the SMs.
        println!(
            " Concurrent copy and execution: {} ({} copy engines, concurrent kernels {})",
            if p.async_engine_count > 0 { "yes" } else { "no" },
            p.async_engine_count,
            if p.concurrent_kernels { "yes" } else { "no" }
        );
        println!(
            " Time for {} floats ({} MB), {n_streams} streams, blocks of {BLOCK_SIZE} threads ({}):",
            n,
            n as f64 * 4.0 / (1 << 20) as f64,
            gpu.timing_label()
        );

        let mut expected = try_vec(n, 0.0f32)?;
        reference::ch3::async_overlap::kernel(&mut expected);

        // A warm-up of every variant (module load, first use of each stream and engine), then the
        // medians of `reps` timed runs, each variant once per round so drift hits all alike.
        for variant in Variant::ALL {
            timed(gpu, &mut setup, variant)?;
        }
        let mut samples = vec![Vec::new(); Variant::ALL.len()];
        let mut results = vec![Vec::new(); Variant::ALL.len()];
        for _ in 0..run.reps.max(1) {
            for (k, variant) in Variant::ALL.into_iter().enumerate() {
                let (ms, a) = timed(gpu, &mut setup, variant)?;
                samples[k].push(ms);
                results[k] = a;
            }
        }
        let mut checks = Vec::new();
        let mut medians = Vec::new();
        for ((variant, samples), a) in Variant::ALL.into_iter().zip(&mut samples).zip(&results) {
            let ms = Stats::of(samples).median_ms;
            medians.push(ms);
            let max_error = a.iter().map(|&x| (x - 1.0).abs()).fold(0.0f32, f32::max);
            println!(" Time for {} (ms): {ms:12.6}", variant.label());
            println!("   max error: {max_error:e}");
            checks.push(Check::compare(variant.label(), a, &expected, TOLERANCE));
        }

        let sequential = medians[0];
        let (best, best_ms) = (1..Variant::ALL.len())
            .map(|k| (Variant::ALL[k], medians[k]))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .expect("three asynchronous variants");
        println!();
        println!(" Timelines, one run of each with an event before and after every operation");
        println!(" (H = copy host to device, K = kernel, D = copy device to host; a bar runs from when");
        println!("  its stream reached the operation to when it finished, so it includes any wait for a");
        println!("  copy engine; the extra events make V2 behave like V3):");
        let mut sequential_spans = Vec::new();
        for variant in Variant::ALL {
            let spans = timeline(gpu, &mut setup, variant)?;
            println!("  {}:", variant.label());
            for line in timeline_text(&spans, TIMELINE_COLUMNS) {
                println!("{line}");
            }
            if variant == Variant::Sequential {
                sequential_spans = spans;
            }
        }
        println!();
        if gpu.is_simulator() {
            println!(" Overlap: not available on the simulator (it runs each operation to completion when issued,");
            println!(" so every variant takes the sequential time; the results are checked all the same).");
        } else {
            let stages = stage_ms(&sequential_spans);
            let bound = pipeline_bound_ms(stages, n_streams);
            println!(
                " Stages in the sequential run: copy in {:.4} ms, kernel {:.4} ms, copy out {:.4} ms",
                stages[0], stages[1], stages[2]
            );
            println!(
                " Pipeline bound with {n_streams} streams (copy in, kernel and copy out each on its own engine): {bound:.4} ms, {:.2}x sequential",
                sequential / bound
            );
            println!(
                " Best asynchronous variant: {best:?} at {best_ms:.4} ms, {:.2}x faster than sequential",
                sequential / best_ms
            );
        }
        Ok(Outcome { checks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_bound_of_equal_stages_and_of_copy_bound_work() {
        // Three equal stages of 3 ms in 3 chunks: 3 + 2 = 5 chunk-times of 1 ms.
        assert!((pipeline_bound_ms([3.0, 3.0, 3.0], 3) - 5.0).abs() < 1e-12);
        // A negligible kernel and 4 chunks: T/4 * 2 + 3 * T/4 = 1.25 T for equal copies.
        let t = pipeline_bound_ms([4.0, 0.0, 4.0], 4);
        assert!((t - 5.0).abs() < 1e-12, "{t}");
        assert!((pipeline_bound_ms([2.0, 1.0, 2.0], 1) - 5.0).abs() < 1e-12);
    }

    fn span(stream: usize, op: Op, ready_ms: f64, end_ms: f64) -> Span {
        Span {
            stream,
            op,
            ready_ms,
            end_ms,
        }
    }

    #[test]
    fn timeline_rows_place_the_operations() {
        let spans = [
            span(1, Op::HostToDevice, 0.0, 1.0),
            span(1, Op::Kernel, 1.0, 2.0),
            span(2, Op::DeviceToHost, 3.0, 4.0),
        ];
        let rows = timeline_text(&spans, 8);
        assert_eq!(rows[0], "    stream 1 |HHKK    |");
        assert_eq!(rows[1], "    stream 2 |      DD|");
        assert!(rows[2].ends_with("4.000 ms"));
    }

    #[test]
    fn stages_skip_the_gap_before_each_operation() {
        let spans = [
            span(0, Op::HostToDevice, 0.0, 2.0),
            span(0, Op::Kernel, 2.0, 2.5),
            span(0, Op::DeviceToHost, 2.5, 4.5),
        ];
        assert_eq!(stage_ms(&spans), [2.0, 0.5, 2.0]);
    }
}
