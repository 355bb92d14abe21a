//! stream: STREAM's copy, scale, add and triad (PGI article "CUDA Fortran Device Kernels", with
//! McCalpin's STREAM loop and output), plus the article's four-elements-per-thread triad that
//! uncoalesces the accesses. By default as the article: `real*8` arrays of its N = 1,000,000
//! (`<<<1954, 512>>>`); `--precision f32` and `--size` change either. `--cpu` runs STREAM on
//! the host's cores instead, as the IT4I course's hands-on 0 (`cpu`).
pub mod cpu;

use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::nvcc::LoadOr;
use crate::reference;
use book_kernels::stream::{
    BinaryArgs, StreamAdd, StreamAddVec4, StreamCopy, StreamCopyVec4, StreamScale, StreamScaleVec4, StreamTriad,
    StreamTriadFourPerThread, StreamTriadVec4, UnaryArgs,
};
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_vec, try_with_capacity};
use ferrocuda::gpu::{
    Copy2d, DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, same_len,
};
use ferrocuda::measure::{Stats, gb_per_s};
use ferrocuda::verify::{Check, Tolerance};
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::Range;

/// Elements per array: the article's example, "N = one million" (1954 blocks of 512; its arrays
/// are "less than 32M"). Its three f64 arrays, 24 MB, fit in the L2 of GPUs from the A100 on;
/// the run says so, and `--size` beyond L2 measures the DRAM.
pub const N: usize = 1_000_000;
/// The article's block size, `<<<(N-1)/512+1, 512>>>`.
pub const THREADS_PER_BLOCK: u32 = 512;
/// STREAM's scalar is 3; 0.4 keeps the values bounded over any number of repetitions
/// (each round multiplies `a` by 0.96), so long runs verify as well as short ones.
pub const SCALAR: f64 = 0.4;

/// Elements verified at a time: the GPU's arrays are downloaded and checked this many elements
/// at a time against the CPU's loop started from the same initial values, so the host never
/// holds a whole array (at `--size 4294967296` an f32 array is 16 GiB).
pub const VERIFY_CHUNK: usize = 1 << 24;

/// stream, in precision `T` (registered in f32 and f64, f64 by default as the article's
/// `real*8`).
pub struct Stream<T>(PhantomData<T>);

/// stream's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct StreamOptions {
    /// STREAM on the host's cores (rayon) instead of the GPU, in McCalpin's table (IT4I course, hands-on 0)
    #[arg(long)]
    pub cpu: bool,
}

/// `--size`, else the article's N, or with `--cpu` the course's.
fn size(run: &Run<StreamOptions>, gpu: &Gpu) -> usize {
    match run.args.cpu && !run.size_given {
        true => gpu.pick(cpu::COURSE_N, cpu::SIMULATOR_N),
        false => run.size,
    }
}

impl<T: StreamReal> Example for Stream<T> {
    const ID: &'static str = "stream";
    const DESCRIPTION: &'static str =
        "STREAM copy, scale, add, triad with 512-thread blocks, f64 as the article's real*8 or f32 (PGI article)";
    const SIZE: Option<Size> = Some(Size::new(
        "elements per array (f64, or f32 with --precision f32) [default with --cpu: 250,000,000 on a GPU machine, 2^24 on the simulator]",
        N,
        N,
    ));
    const REPS: bool = true;
    type Args = StreamOptions;

    /// The run's peak: three device arrays (the anti-pattern's output reuses `a`), and on the
    /// host four chunks of [`VERIFY_CHUNK`] elements (three downloads and a reference, or a
    /// reference's three arrays and a download); `None` on overflow.
    /// With `--cpu`: the three arrays on the host, and a chunk of the reference's three.
    fn memory(run: &Run<StreamOptions>, gpu: &Gpu) -> Option<Footprint> {
        let n = size(run, gpu);
        let chunk = n.min(VERIFY_CHUNK);
        match run.args.cpu {
            false => Footprint::NONE.device::<T>(3, n)?.host::<T>(4, chunk),
            true => Footprint::NONE.host::<T>(3, n)?.host::<T>(3, chunk),
        }
    }

    /// STREAM with both layouts, then the article's strided anti-pattern; or with `--cpu` the
    /// course's CPU STREAM.
    fn run(gpu: &Gpu, run: &Run<StreamOptions>) -> Result<Outcome> {
        let (n, reps) = (size(run, gpu), run.reps);
        if run.args.cpu {
            return cpu::run::<T>(n, reps);
        }
        let bytes = n * size_of::<T>();
        println!("-------------------------------------------------------------");
        println!(
            " STREAM, {}, N = {n} ({:.0} MiB per array), {reps} timed rounds",
            T::NAME,
            bytes as f64 / (1 << 20) as f64
        );
        println!(
            " Verified on the CPU in chunks of {} elements per array",
            n.min(VERIFY_CHUNK)
        );
        let l2_bytes = gpu.properties().l2_cache_bytes as usize;
        if 3 * bytes <= l2_bytes {
            println!(
                " The three arrays ({:.0} MB) fit in this GPU's {:.0} MB L2: the rates are L2's; --size {} or more measures its memory",
                (3 * bytes) as f64 * 1e-6,
                l2_bytes as f64 * 1e-6,
                (8 * l2_bytes / (3 * size_of::<T>())).next_power_of_two()
            );
        }
        let mut checks = Vec::new();
        let mut last = None;
        for layout in Layout::ALL {
            // The previous layout's arrays are freed first: the device holds one set at a time.
            drop(last.take());
            let (arrays, layout_checks) = run_layout::<T>(gpu, layout, n, reps)?;
            checks.extend(layout_checks);
            last = Some(arrays);
        }
        let Some(Arrays { a: mut d, b, c }) = last else {
            return Ok(Outcome { checks });
        };

        // The article's anti-pattern, into `a` (verified already, so free), against the same
        // triad on the CPU.
        let scalar = T::from_f64(SCALAR);
        let (mut one, mut four) = (Vec::new(), Vec::new());
        for _ in 0..=reps {
            for (samples, layout) in [(&mut one, Layout::OnePerThread), (&mut four, Layout::FourPerThread)] {
                samples
                    .push(gpu.time_ms(|| binary(gpu, Op::Triad, layout, [&b, &c], &mut d, scalar, THREADS_PER_BLOCK))?);
            }
        }
        let (one, four) = (Stats::of(&mut one[1..]), Stats::of(&mut four[1..]));
        checks.push(verify_triad(gpu, [&b, &c, &d], scalar, "triad, 4 per thread strided")?);
        println!(
            " Triad, 4 elements per thread with scalar accesses (the article's anti-pattern): {:.1} GB/s, {:.0}% of the one-per-thread triad (article: 25% on a GTX 280)",
            gb_per_s(3 * bytes, four.min_ms),
            100.0 * one.min_ms / four.min_ms
        );
        println!("-------------------------------------------------------------");
        Ok(Outcome { checks })
    }
}

/// The four STREAM operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Copy,
    Scale,
    Add,
    Triad,
}

impl Op {
    /// All four, in STREAM's order.
    pub const ALL: [Op; 4] = [Op::Copy, Op::Scale, Op::Add, Op::Triad];

    /// Arrays read and written per element (2 for copy and scale, 3 for add and triad).
    pub fn arrays_moved(self) -> usize {
        match self {
            Op::Copy | Op::Scale => 2,
            Op::Add | Op::Triad => 3,
        }
    }

    /// STREAM's label.
    pub fn label(self) -> &'static str {
        ["Copy", "Scale", "Add", "Triad"][self as usize]
    }
}

/// How threads map to elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The article's kernels: one element per thread, `ceil(n / threads)` blocks.
    OnePerThread,
    /// Four consecutive elements per thread in 16-byte accesses, `ceil(n / 4)` threads.
    Vec4,
    /// The article's anti-pattern (triad only): four consecutive elements per thread in scalar
    /// accesses, `ceil(n / 4)` threads.
    FourPerThread,
}

impl Layout {
    /// STREAM's two, the article's first.
    pub const ALL: [Layout; 2] = [Layout::OnePerThread, Layout::Vec4];

    /// The launch covering `n` elements with blocks of `threads`.
    pub fn shape(self, n: usize, threads: u32) -> Result<LaunchShape> {
        match self {
            Layout::OnePerThread => LaunchShape::cover_1d(n, threads),
            Layout::Vec4 | Layout::FourPerThread => LaunchShape::cover_1d(n.div_ceil(4), threads),
        }
    }

    /// The kernel-name suffix.
    pub fn label(self) -> &'static str {
        ["", "_vec4", "_four_per_thread"][self as usize]
    }
}

/// An element type of the STREAM kernels (`f32`, `f64`): it knows its kernels, so the drivers
/// need no other bound.
pub trait StreamReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches the unary kernel of `op` (copy: `output = input`; scale: `output = scalar *
    /// input`) from `module` (this library's, or a CUDA C twin's).
    fn launch_unary(
        gpu: &Gpu,
        module: Option<&LoadedKernels>,
        op: Op,
        layout: Layout,
        shape: LaunchShape,
        args: UnaryArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches the binary kernel of `op` (add: `c = a + b`; triad: `c = a + b * scalar`).
    fn launch_binary(
        gpu: &Gpu,
        module: Option<&LoadedKernels>,
        op: Op,
        layout: Layout,
        shape: LaunchShape,
        args: BinaryArgs<'_, Self>,
    ) -> Result<()>;
}

/// The refusal of `op` four elements per thread, a layout only the triad has.
fn triad_only(op: Op) -> Error {
    Error::InvalidArgument(format!(
        "{} has no four-elements-per-thread kernel; the triad has",
        op.label()
    ))
}

macro_rules! stream_real {
    ($($t:ty),*) => {$(
        impl StreamReal for $t {
            fn launch_unary(
                gpu: &Gpu, module: Option<&LoadedKernels>, op: Op, layout: Layout, shape: LaunchShape,
                args: UnaryArgs<'_, Self>,
            ) -> Result<()> {
                let kernels = gpu.load_or(module, &crate::KERNELS)?;
                match (op, layout) {
                    (_, Layout::FourPerThread) => Err(triad_only(op)),
                    (Op::Copy, Layout::OnePerThread) => kernels.launch(StreamCopy, shape, args),
                    (Op::Copy, Layout::Vec4) => kernels.launch(StreamCopyVec4, shape, args),
                    (_, Layout::OnePerThread) => kernels.launch(StreamScale, shape, args),
                    (_, Layout::Vec4) => kernels.launch(StreamScaleVec4, shape, args),
                }
            }
            fn launch_binary(
                gpu: &Gpu, module: Option<&LoadedKernels>, op: Op, layout: Layout, shape: LaunchShape,
                args: BinaryArgs<'_, Self>,
            ) -> Result<()> {
                let kernels = gpu.load_or(module, &crate::KERNELS)?;
                match (op, layout) {
                    (Op::Add, Layout::OnePerThread) => kernels.launch(StreamAdd, shape, args),
                    (Op::Add, Layout::Vec4) => kernels.launch(StreamAddVec4, shape, args),
                    (Op::Add, Layout::FourPerThread) => Err(triad_only(op)),
                    (_, Layout::OnePerThread) => kernels.launch(StreamTriad, shape, args),
                    (_, Layout::Vec4) => kernels.launch(StreamTriadVec4, shape, args),
                    (_, Layout::FourPerThread) => kernels.launch(StreamTriadFourPerThread, shape, args),
                }
            }
        }
    )*};
}
stream_real!(f32, f64);

/// `output = input` (copy) or `output = scalar * input` (scale).
pub fn unary<T: StreamReal>(
    gpu: &Gpu,
    op: Op,
    layout: Layout,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()> {
    let shape = layout.shape(same_len(op.label(), &[input.len(), output.len()])?, threads)?;
    let args = UnaryArgs {
        input: input.view(),
        output: output.view_mut(),
        scalar,
    };
    T::launch_unary(gpu, None, op, layout, shape, args)
}

/// `c = a + b` (add) or `c = a + b * scalar` (triad).
pub fn binary<T: StreamReal>(
    gpu: &Gpu,
    op: Op,
    layout: Layout,
    [a, b]: [&DeviceBuffer<T>; 2],
    c: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()> {
    let shape = layout.shape(same_len(op.label(), &[a.len(), b.len(), c.len()])?, threads)?;
    let args = BinaryArgs {
        a: a.view(),
        b: b.view(),
        c: c.view_mut(),
        scalar,
    };
    T::launch_binary(gpu, None, op, layout, shape, args)
}

/// The device arrays of the STREAM loop.
pub struct Arrays<T> {
    pub a: DeviceBuffer<T>,
    pub b: DeviceBuffer<T>,
    pub c: DeviceBuffer<T>,
}

impl<T: StreamReal> Arrays<T> {
    /// One step of STREAM's loop: `c = a; b = s*c; c = a + b; a = b + s*c`.
    pub fn step(&mut self, gpu: &Gpu, op: Op, layout: Layout, scalar: T) -> Result<()> {
        let Arrays { a, b, c } = self;
        match op {
            Op::Copy => unary(gpu, op, layout, a, c, scalar, THREADS_PER_BLOCK),
            Op::Scale => unary(gpu, op, layout, c, b, scalar, THREADS_PER_BLOCK),
            Op::Add => binary(gpu, op, layout, [a, b], c, scalar, THREADS_PER_BLOCK),
            Op::Triad => binary(gpu, op, layout, [b, c], a, scalar, THREADS_PER_BLOCK),
        }
    }
}

/// Element `i` of the initial arrays `(a, b, c)`: the article's `a = 2.0, b = 0.5, c = 0.0`,
/// with `a` varied by element so that a wrong index cannot go unseen.
pub fn initial<T: Real>(i: usize) -> (T, T, T) {
    (
        T::from_f64(2.0 + (i % 1000) as f64 * 1e-3),
        T::from_f64(0.5),
        T::from_f64(0.0),
    )
}

/// Elements `range` of the initial array `k` (0 for `a`, 1 for `b`, 2 for `c`), filled in
/// parallel.
pub fn initial_range<T: StreamReal>(k: usize, range: Range<usize>) -> Result<Vec<T>> {
    let mut values = try_with_capacity(range.len())?;
    values.par_extend(range.into_par_iter().map(|i| {
        let (a, b, c) = initial::<T>(i);
        [a, b, c][k]
    }));
    Ok(values)
}

/// The chunks `start..start + len` of `0..n`, [`VERIFY_CHUNK`] elements each but the last.
fn chunks(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n)
        .step_by(VERIFY_CHUNK)
        .map(move |start| (start, VERIFY_CHUNK.min(n - start)))
}

/// New device arrays holding the initial values, uploaded a chunk at a time.
pub fn upload_initial<T: StreamReal>(gpu: &Gpu, n: usize) -> Result<Arrays<T>> {
    let mut arrays = Arrays {
        a: gpu.zeros(n)?,
        b: gpu.zeros(n)?,
        c: gpu.zeros(n)?,
    };
    for (start, len) in chunks(n) {
        for (k, array) in [&mut arrays.a, &mut arrays.b, &mut arrays.c].into_iter().enumerate() {
            gpu.upload_range(&initial_range::<T>(k, start..start + len)?, array, start)?;
        }
    }
    Ok(arrays)
}

/// Copies elements `start..start + host.len()` of `device` into `host` (a one-row
/// `cudaMemcpy2D`).
pub fn download_range<T: Element>(gpu: &Gpu, device: &DeviceBuffer<T>, start: usize, host: &mut [T]) -> Result<()> {
    let width = host.len();
    let copy = Copy2d {
        src_offset: start,
        src_pitch: width,
        dst_offset: 0,
        dst_pitch: width,
        width,
        height: 1,
    };
    gpu.download_2d(device, host, copy)
}

/// Each operation's times (ms) over `reps` rounds of STREAM's loop, after one untimed round:
/// `round` runs one and returns the four times.
fn timed_rounds(reps: usize, mut round: impl FnMut() -> Result<[f64; 4]>) -> Result<[Stats; 4]> {
    let mut samples: [Vec<f64>; 4] = Default::default();
    round()?;
    for _ in 0..reps {
        for (samples, ms) in samples.iter_mut().zip(round()?) {
            samples.push(ms);
        }
    }
    Ok(samples.map(|mut samples| Stats::of(&mut samples)))
}

/// Checks the three arrays `a`, `b` and `c` (named with `suffix`) after `iterations` rounds of
/// the loop with `triad`'s rounding against the CPU's, a chunk at a time: `compare(k, start,
/// expected)` checks array `k`'s elements from `start` against `expected`.
fn verify_rounds<T: StreamReal>(
    n: usize,
    iterations: usize,
    suffix: &str,
    triad: fn(T, T, T) -> T,
    mut compare: impl FnMut(usize, usize, &[T]) -> Result<Check>,
) -> Result<Vec<Check>> {
    let mut checks =
        ["a", "b", "c"].map(|name| Check::compare::<T>(&format!("{name}{suffix}"), &[], &[], Tolerance::EXACT));
    let scalar = T::from_f64(SCALAR);
    for (start, len) in chunks(n) {
        let range = start..start + len;
        let expected = reference::stream::sequence_range(range, initial::<T>, scalar, iterations, triad)?;
        for (k, check) in checks.iter_mut().enumerate() {
            check.absorb(compare(k, start, &expected[k])?, start);
        }
    }
    Ok(checks.into())
}

/// Checks `d = b + c * scalar` on the device against the CPU, a chunk at a time.
fn verify_triad<T: StreamReal>(gpu: &Gpu, [b, c, d]: [&DeviceBuffer<T>; 3], scalar: T, what: &str) -> Result<Check> {
    let n = same_len("triad", &[b.len(), c.len(), d.len()])?;
    let mut check = Check::compare::<T>(what, &[], &[], Tolerance::EXACT);
    let chunk = try_vec(n.min(VERIFY_CHUNK), T::from_f64(0.0))?;
    let (mut hb, mut hc, mut hd) = (chunk.clone(), chunk.clone(), chunk);
    for (start, len) in chunks(n) {
        download_range(gpu, b, start, &mut hb[..len])?;
        download_range(gpu, c, start, &mut hc[..len])?;
        download_range(gpu, d, start, &mut hd[..len])?;
        let expected = reference::stream::triad(&hb[..len], &hc[..len], scalar)?;
        check.absorb(Check::compare("", &hd[..len], &expected, Tolerance::EXACT), start);
    }
    Ok(check)
}

/// Runs STREAM's loop `reps` times after one untimed round with the kernels of `layout`, times
/// each kernel with events, prints STREAM's table, and checks the three arrays against the CPU.
pub fn run_layout<T: StreamReal>(gpu: &Gpu, layout: Layout, n: usize, reps: usize) -> Result<(Arrays<T>, Vec<Check>)> {
    let scalar = T::from_f64(SCALAR);
    let mut arrays = upload_initial::<T>(gpu, n)?;
    let stats = timed_rounds(reps, || {
        let mut ms = [0.0; 4];
        for (k, op) in Op::ALL.into_iter().enumerate() {
            let timer = gpu.timer()?;
            arrays.step(gpu, op, layout, scalar)?;
            ms[k] = timer.stop_ms()?;
        }
        Ok(ms)
    })?;
    let kernels = [
        "The article's one-element-per-thread",
        "Four-elements-per-thread, 16-byte access",
        "The article's four-elements-per-thread, scalar access",
    ][layout as usize];
    let blocks = layout.shape(n, THREADS_PER_BLOCK)?.grid.0;
    println!(" {kernels} kernels, <<<{blocks}, {THREADS_PER_BLOCK}>>>:");
    println!(
        " {:<10} {:>15} {:>12} {:>12} {:>12}",
        "Function", "Best Rate GB/s", "Avg time s", "Min time s", "Max time s"
    );
    for (op, stats) in Op::ALL.into_iter().zip(stats) {
        println!(
            " {:<10} {:>15.1} {:>12.6} {:>12.6} {:>12.6}",
            format!("{}:", op.label()),
            gb_per_s(op.arrays_moved() * size_of::<T>() * n, stats.min_ms),
            stats.mean_ms * 1e-3,
            stats.min_ms * 1e-3,
            stats.max_ms * 1e-3
        );
    }
    let mut got = try_vec(n.min(VERIFY_CHUNK), T::from_f64(0.0))?;
    let triad = reference::stream::triad_element;
    let checks = verify_rounds(n, reps + 1, layout.label(), triad, |k, start, expected| {
        let got = &mut got[..expected.len()];
        download_range(gpu, [&arrays.a, &arrays.b, &arrays.c][k], start, got)?;
        Ok(Check::compare("", got, expected, Tolerance::EXACT))
    })?;
    Ok((arrays, checks))
}
