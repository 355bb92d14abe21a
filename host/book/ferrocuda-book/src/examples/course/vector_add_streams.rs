//! course-vector-add-streams: the pipelined vector add of the IT4I course's lecture on streams.
//! The arrays are cut into `c` chunks ("phases"); phase `i` copies its pieces of A and B to the
//! GPU (`cudaMemcpyAsync`), adds them (`Kernel<<<b/c, t, 0, stream[i % ns]>>>`) and copies its
//! piece of C back, all on stream `i % ns`, so one phase's copies overlap another's kernel and
//! the two copy directions overlap each other. Compared with the non-pipelined program: copy all
//! of A and B in, add, copy all of C out. Host memory is pinned (asynchronous copies need it).
//!
//! The lecture gives no size: the course's vector add's 10,000,000 floats (A = 1 + i mod 97,
//! B = 2 + (i mod 89)/2, so a chunk at the wrong offset shows). The chunks are `n/c` elements
//! (the first `n mod c` one more), each kernel covers its chunk with blocks of 256 threads.
//! Timing: CUDA events in the legacy default stream before and after the whole program (the
//! streams are blocking streams, which that stream waits for), median of `--reps` runs.
use super::vector_add_common::{N, THREADS_PER_BLOCK, launch, range_of, varied};
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::course::vector_add::VecAddArgs;
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, PinnedBuffer, Result, Stream};
use ferrocuda::measure::Stats;
use ferrocuda::verify::{Check, Tolerance};
use std::ops::Range;

/// course-vector-add-streams.
pub struct CourseVectorAddStreams;

/// The pipeline's shape.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseVectorAddStreamsOptions {
    /// chunks (phases) of the pipeline, 1 to --size: either flag runs one pipeline (default 8 chunks over 4 streams) instead of the default five (2/2, 4/4, 8/4, 16/8, 32/8 chunks/streams; a default chunk count above --size is lowered to it)
    #[arg(long, value_name = "C")]
    pub chunks: Option<usize>,
    /// streams the chunks take turns on, 1 to 64 (default 4 with --chunks)
    #[arg(long, value_name = "NS")]
    pub streams: Option<usize>,
}

/// The pipelines run by default, `(chunks, streams)`: from two chunks on two streams to many
/// chunks on several streams.
pub const PIPELINES: [(usize, usize); 5] = [(2, 2), (4, 4), (8, 4), (16, 8), (32, 8)];
/// `--chunks` without `--streams` (and the other way round) takes the other from here.
pub const DEFAULT_PIPELINE: (usize, usize) = (8, 4);
/// Most streams a run creates.
pub const MAX_STREAMS: usize = 64;
/// Most chunks: each costs four queued operations.
pub const MAX_CHUNKS: usize = 1 << 16;

/// The arrays of one program, pinned on the host and on the device, and its streams.
pub struct Setup {
    pub n: usize,
    pub a: PinnedBuffer<f32>,
    pub b: PinnedBuffer<f32>,
    pub c: PinnedBuffer<f32>,
    pub a_d: DeviceBuffer<f32>,
    pub b_d: DeviceBuffer<f32>,
    pub c_d: DeviceBuffer<f32>,
    pub streams: Vec<Stream>,
}

impl Setup {
    /// `n` floats of each array with the inputs written, and `streams` streams.
    pub fn new(gpu: &Gpu, n: usize, streams: usize) -> Result<Self> {
        if streams == 0 || streams > MAX_STREAMS {
            return Err(Error::InvalidArgument(format!(
                "--streams is 1 to {MAX_STREAMS}, not {streams}"
            )));
        }
        let (a_values, b_values) = inputs(n)?;
        let (mut a, mut b) = (gpu.pinned(n)?, gpu.pinned(n)?);
        a.as_mut_slice()?.copy_from_slice(&a_values);
        b.as_mut_slice()?.copy_from_slice(&b_values);
        Ok(Self {
            n,
            a,
            b,
            c: gpu.pinned(n)?,
            a_d: gpu.zeros(n)?,
            b_d: gpu.zeros(n)?,
            c_d: gpu.zeros(n)?,
            streams: (0..streams).map(|_| gpu.new_stream()).collect::<Result<_>>()?,
        })
    }
}

/// A and B of `n` elements: values that differ along the array (allocated fallibly).
pub fn inputs(n: usize) -> Result<(Vec<f32>, Vec<f32>)> {
    Ok((try_from_fn(n, |i| varied(i).0)?, try_from_fn(n, |i| varied(i).1)?))
}

/// The elements of chunk `i` of `chunks` over `n`: `n / chunks` each, the first `n % chunks`
/// one more.
pub fn chunk(n: usize, chunks: usize, i: usize) -> Range<usize> {
    let (size, extra) = (n / chunks, n % chunks);
    let start = i * size + i.min(extra);
    start..start + size + usize::from(i < extra)
}

/// Checks a pipeline's shape against `n` elements and the setup's streams.
pub fn check_pipeline(n: usize, chunks: usize, streams: usize, available: usize) -> Result<()> {
    if chunks == 0 || chunks > n.min(MAX_CHUNKS) {
        return Err(Error::InvalidArgument(format!(
            "--chunks is 1 to {} (at most one chunk per element), not {chunks}",
            n.min(MAX_CHUNKS)
        )));
    }
    if streams == 0 || streams > available {
        return Err(Error::InvalidArgument(format!(
            "the pipeline needs 1 to {available} streams, not {streams}"
        )));
    }
    Ok(())
}

/// `c_d[range] = a_d[range] + b_d[range]`, on `stream` or, for `None`, the `Gpu`'s stream:
/// the course's kernel on views of the chunk.
pub fn add_chunk(
    gpu: &Gpu,
    stream: Option<&Stream>,
    a_d: &DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    c_d: &mut DeviceBuffer<f32>,
    range: Range<usize>,
) -> Result<()> {
    let args = VecAddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    launch(gpu, stream, range_of(args, &range)?)
}

/// The non-pipelined program on the `Gpu`'s stream: copy A and B in, add, copy C out.
pub fn non_pipelined(gpu: &Gpu, s: &mut Setup) -> Result<()> {
    gpu.upload_pinned(&s.a, &mut s.a_d)?;
    gpu.upload_pinned(&s.b, &mut s.b_d)?;
    add_chunk(gpu, None, &s.a_d, &s.b_d, &mut s.c_d, 0..s.n)?;
    gpu.download_pinned(&s.c_d, &mut s.c)
}

/// The pipelined program: for each of `chunks` phases, on stream `i % streams`, copy its pieces
/// of A and B in, add them, copy its piece of C out; returns once all is queued.
pub fn pipelined(gpu: &Gpu, s: &mut Setup, chunks: usize, streams: usize) -> Result<()> {
    check_pipeline(s.n, chunks, streams, s.streams.len())?;
    for i in 0..chunks {
        let range = chunk(s.n, chunks, i);
        let stream = &s.streams[i % streams];
        gpu.upload_async(stream, &s.a, &mut s.a_d, range.clone())?;
        gpu.upload_async(stream, &s.b, &mut s.b_d, range.clone())?;
        add_chunk(gpu, Some(stream), &s.a_d, &s.b_d, &mut s.c_d, range.clone())?;
        gpu.download_async(stream, &s.c_d, &mut s.c, range)?;
    }
    Ok(())
}

/// One of the two programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    NonPipelined,
    /// `chunks` phases over `streams` streams.
    Pipelined {
        chunks: usize,
        streams: usize,
    },
}

impl Program {
    /// How the output names it.
    pub fn label(self) -> String {
        match self {
            Program::NonPipelined => "non-pipelined (copy A and B in, add, copy C out)".into(),
            Program::Pipelined { chunks, streams } => format!("{chunks} chunks over {streams} streams"),
        }
    }
}

/// Sets C to NaN (so a chunk never written shows), runs `program` timed with events on the
/// legacy default stream, and returns the time, ms, with the resulting C.
pub fn timed(gpu: &Gpu, s: &mut Setup, program: Program) -> Result<(f64, Vec<f32>)> {
    s.c.as_mut_slice()?.fill(f32::NAN);
    let start = gpu.record_event(None)?;
    match program {
        Program::NonPipelined => non_pipelined(gpu, s)?,
        Program::Pipelined { chunks, streams } => pipelined(gpu, s, chunks, streams)?,
    }
    let stop = gpu.record_event(None)?;
    let ms = start.elapsed_ms(&stop)?;
    gpu.synchronize()?;
    Ok((ms, s.c.as_slice()?.to_vec()))
}

/// The pipelines `--chunks` and `--streams` ask for over `n` elements: one, or the default
/// five. A chunk count the user did not give is lowered to `n` (one element per chunk), and
/// pipelines that then coincide are run once; a `--chunks` above `n` is refused later.
pub fn pipelines(options: &CourseVectorAddStreamsOptions, n: usize) -> Vec<(usize, usize)> {
    let mut pipelines: Vec<(usize, usize)> = match (options.chunks, options.streams) {
        (None, None) => PIPELINES.iter().map(|&(c, ns)| (c.min(n), ns)).collect(),
        (c, ns) => vec![(c.unwrap_or(DEFAULT_PIPELINE.0.min(n)), ns.unwrap_or(DEFAULT_PIPELINE.1))],
    };
    pipelines.dedup();
    pipelines
}

impl Example for CourseVectorAddStreams {
    const ID: &'static str = "course-vector-add-streams";
    const DESCRIPTION: &'static str = "pipelined vector add: c chunks over ns streams (copy in, add, copy out per chunk) vs copy all, add, copy back (IT4I course, streams)";
    const SIZE: Option<Size> = Some(Size::new("elements per array", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = CourseVectorAddStreamsOptions;

    /// The run's peak at `n` elements: A, B and C on the device; on the host the pinned A, B
    /// and C, the expected C and the inputs it is made from (alive while the pinned arrays are
    /// written), and one program's downloaded C.
    fn memory(run: &Run<CourseVectorAddStreamsOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(3, run.size)?.host::<f32>(6, run.size)
    }

    /// The non-pipelined program and each pipeline: a warm-up of each, then the medians of
    /// `--reps` rounds; prints the times and the speedups.
    fn run(gpu: &Gpu, run: &Run<CourseVectorAddStreamsOptions>) -> Result<Outcome> {
        let n = run.size;
        let pipelines = pipelines(&run.args, n);
        // The expected C first, so that its inputs are gone before the pinned arrays are made.
        let expected = {
            let (a, b) = inputs(n)?;
            reference::course::vector_add::vector_add(&a, &b)?
        };
        let most_streams = pipelines.iter().map(|&(_, ns)| ns).max().unwrap_or(1);
        let mut setup = Setup::new(gpu, n, most_streams)?;
        for &(chunks, streams) in &pipelines {
            check_pipeline(n, chunks, streams, most_streams)?;
        }
        let programs: Vec<Program> = std::iter::once(Program::NonPipelined)
            .chain(
                pipelines
                    .iter()
                    .map(|&(chunks, streams)| Program::Pipelined { chunks, streams }),
            )
            .collect();

        for &program in &programs {
            timed(gpu, &mut setup, program)?;
        }
        let mut samples = vec![Vec::new(); programs.len()];
        // Each program's last C, checked as soon as it is back (one downloaded C alive at a time).
        let mut results = vec![None; programs.len()];
        let reps = run.reps;
        for rep in 0..reps {
            for (k, &program) in programs.iter().enumerate() {
                let (ms, c) = timed(gpu, &mut setup, program)?;
                samples[k].push(ms);
                if rep + 1 == reps {
                    results[k] = Some(Check::compare(&program.label(), &c, &expected, Tolerance::EXACT));
                }
            }
        }
        let p = gpu.properties();
        println!(
            "Vector addition of {n} floats ({:.1} MB per array) from pinned host memory, blocks of {THREADS_PER_BLOCK} threads",
            (n * size_of::<f32>()) as f64 / 1e6
        );
        println!(
            " {}: {} copy engines, concurrent kernels {}; medians of {} runs ({})",
            p.name,
            p.async_engine_count,
            if p.concurrent_kernels { "yes" } else { "no" },
            run.reps,
            gpu.timing_label()
        );
        let mut checks = Vec::new();
        let mut sequential_ms = f64::NAN;
        for ((program, samples), check) in programs.iter().zip(&mut samples).zip(results) {
            let ms = Stats::of(samples).median_ms;
            match program {
                Program::NonPipelined => {
                    sequential_ms = ms;
                    println!(" {}: {ms:.4} ms", program.label());
                }
                Program::Pipelined { .. } => println!(
                    " {}: {ms:.4} ms, {:.2}x the non-pipelined speed",
                    program.label(),
                    sequential_ms / ms
                ),
            }
            checks.extend(check);
        }
        if gpu.is_simulator() {
            println!(
                " (The simulator has no streams that overlap: it runs each copy and kernel to completion when issued, so every pipeline takes the sequential time; the results are checked all the same.)"
            );
        }
        Ok(Outcome { checks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_tile_the_array() {
        for (n, chunks) in [(10, 3), (10, 10), (7, 1), (1, 1), (257, 16), (10_000_000, 32)] {
            let ranges: Vec<_> = (0..chunks).map(|i| chunk(n, chunks, i)).collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[chunks - 1].end, n);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let (min, max) = (
                ranges.iter().map(Range::len).min().unwrap_or(0),
                ranges.iter().map(Range::len).max().unwrap_or(0),
            );
            assert!(min >= 1 && max - min <= 1, "n {n}, {chunks} chunks: {min}..{max}");
        }
    }

    #[test]
    fn pipelines_beyond_the_limits_are_refused() {
        assert!(check_pipeline(100, 8, 4, 4).is_ok());
        assert!(check_pipeline(100, 0, 4, 4).is_err());
        assert!(check_pipeline(100, 101, 4, 4).is_err());
        assert!(check_pipeline(100, 8, 0, 4).is_err());
        assert!(check_pipeline(100, 8, 5, 4).is_err());
    }
}
