//! stream: STREAM's copy, scale, add and triad (PGI article "CUDA Fortran Device Kernels", with
//! McCalpin's STREAM loop and output), in f32 or f64, plus the article's four-elements-per-thread
//! triad that uncoalesces the accesses.
use crate::examples::{Example, Options, Outcome, Precision};
use crate::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, Timer};
use crate::measure::{Stats, gb_per_s};
use crate::reference;
use crate::verify::{Check, Tolerance};
use gpu_kernels::kernels::stream::{
    BinaryArgs, StreamAdd, StreamCopy, StreamScale, StreamTriad, StreamTriadFourPerThread,
    UnaryArgs,
};
use gpu_kernels::launch::Kernel;
use gpu_kernels::real::Real;

pub const EXAMPLE: Example = Example {
    id: "stream",
    description: "STREAM copy, scale, add, triad with 512-thread blocks, in f32 or f64 (PGI article)",
    run,
};

/// Elements per array: 2^25 (128 MiB per f32 array, 256 MiB per f64 one), far beyond L2.
pub const N: usize = 1 << 25;
/// The article's block size, `<<<(N-1)/512+1, 512>>>`.
pub const THREADS_PER_BLOCK: u32 = 512;
/// STREAM's scalar is 3; 0.4 keeps the values bounded over any number of repetitions
/// (each round multiplies `a` by 0.96), so long runs verify as well as short ones.
pub const SCALAR: f64 = 0.4;

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
        match self {
            Op::Copy => "Copy",
            Op::Scale => "Scale",
            Op::Add => "Add",
            Op::Triad => "Triad",
        }
    }
}

/// An element type the drivers are generic over (`f32`, `f64`); each driver also names the
/// kernels it needs for it, which exist for exactly those two.
pub trait StreamReal:
    Real + Into<f64> + Send + Sync + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
}
impl<
    T: Real + Into<f64> + Send + Sync + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits,
> StreamReal for T
{
}

/// `output = input` (copy) or `output = scalar * input` (scale).
pub fn unary<T: StreamReal>(
    gpu: &Gpu,
    op: Op,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()>
where
    StreamCopy: Kernel<UnaryArgs<T>>,
    StreamScale: Kernel<UnaryArgs<T>>,
{
    let shape = LaunchShape::cover_1d(output.len(), threads)?;
    let args = UnaryArgs {
        input: input.view(),
        output: output.view_mut(),
        scalar,
    };
    match op {
        Op::Copy => gpu.launch(StreamCopy, shape, args),
        _ => gpu.launch(StreamScale, shape, args),
    }
}

/// `c = a + b` (add) or `c = a + b * scalar` (triad).
pub fn binary<T: StreamReal>(
    gpu: &Gpu,
    op: Op,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    c: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()>
where
    StreamAdd: Kernel<BinaryArgs<T>>,
    StreamTriad: Kernel<BinaryArgs<T>>,
{
    let shape = LaunchShape::cover_1d(c.len(), threads)?;
    let args = BinaryArgs {
        a: a.view(),
        b: b.view(),
        c: c.view_mut(),
        scalar,
    };
    match op {
        Op::Add => gpu.launch(StreamAdd, shape, args),
        _ => gpu.launch(StreamTriad, shape, args),
    }
}

/// The article's anti-pattern: `c = a + b * scalar` with four consecutive elements per thread.
pub fn triad_four_per_thread<T: StreamReal>(
    gpu: &Gpu,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    c: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()>
where
    StreamTriadFourPerThread: Kernel<BinaryArgs<T>>,
{
    let shape = LaunchShape::cover_1d(c.len().div_ceil(4), threads)?;
    gpu.launch(
        StreamTriadFourPerThread,
        shape,
        BinaryArgs {
            a: a.view(),
            b: b.view(),
            c: c.view_mut(),
            scalar,
        },
    )
}

/// The device arrays of the STREAM loop.
pub struct Arrays<T> {
    pub a: DeviceBuffer<T>,
    pub b: DeviceBuffer<T>,
    pub c: DeviceBuffer<T>,
}

impl<T: StreamReal> Arrays<T>
where
    StreamCopy: Kernel<UnaryArgs<T>>,
    StreamScale: Kernel<UnaryArgs<T>>,
    StreamAdd: Kernel<BinaryArgs<T>>,
    StreamTriad: Kernel<BinaryArgs<T>>,
{
    /// One step of STREAM's loop: `c = a; b = s*c; c = a + b; a = b + s*c`.
    pub fn step(&mut self, gpu: &Gpu, op: Op, scalar: T, threads: u32) -> Result<()> {
        let Arrays { a, b, c } = self;
        match op {
            Op::Copy => unary(gpu, op, a, c, scalar, threads),
            Op::Scale => unary(gpu, op, c, b, scalar, threads),
            Op::Add => binary(gpu, op, a, b, c, scalar, threads),
            Op::Triad => binary(gpu, op, b, c, a, scalar, threads),
        }
    }
}

/// The initial arrays: the article's `a = 2.0, b = 0.5, c = 0.0`, with `a` varied by element so
/// that a wrong index cannot go unseen.
pub fn initial<T: Real>(n: usize) -> [Vec<T>; 3] {
    [
        (0..n)
            .map(|i| T::from_f64(2.0 + (i % 1000) as f64 * 1e-3))
            .collect(),
        vec![T::from_f64(0.5); n],
        vec![T::from_f64(0.0); n],
    ]
}

/// Runs STREAM's loop `reps` times after one untimed round, times each kernel with events,
/// prints STREAM's table, and checks all three arrays against the CPU.
pub fn run_typed<T: StreamReal>(gpu: &Gpu, n: usize, reps: usize) -> Result<Outcome>
where
    StreamCopy: Kernel<UnaryArgs<T>>,
    StreamScale: Kernel<UnaryArgs<T>>,
    StreamAdd: Kernel<BinaryArgs<T>>,
    StreamTriad: Kernel<BinaryArgs<T>>,
    StreamTriadFourPerThread: Kernel<BinaryArgs<T>>,
{
    let scalar = T::from_f64(SCALAR);
    let [a0, b0, c0] = initial::<T>(n);
    let mut arrays = Arrays {
        a: gpu.upload(&a0)?,
        b: gpu.upload(&b0)?,
        c: gpu.upload(&c0)?,
    };
    let mut samples: [Vec<f64>; 4] = Default::default();
    for rep in 0..=reps {
        for (k, op) in Op::ALL.into_iter().enumerate() {
            let timer = Timer::start(gpu.stream())?;
            arrays.step(gpu, op, scalar, THREADS_PER_BLOCK)?;
            let ms = timer.stop_ms()?;
            if rep > 0 {
                samples[k].push(ms);
            }
        }
    }
    let word = size_of::<T>();
    println!("-------------------------------------------------------------");
    println!(
        " STREAM, {}, N = {n} ({:.0} MiB per array), <<<{}, {THREADS_PER_BLOCK}>>>, {reps} timed rounds",
        T::NAME,
        (n * word) as f64 / (1 << 20) as f64,
        n.div_ceil(THREADS_PER_BLOCK as usize)
    );
    println!(
        " {:<10} {:>15} {:>12} {:>12} {:>12}",
        "Function", "Best Rate GB/s", "Avg time s", "Min time s", "Max time s"
    );
    for (k, op) in Op::ALL.into_iter().enumerate() {
        let stats = Stats::of(&mut samples[k]);
        let bytes = op.arrays_moved() * word * n;
        println!(
            " {:<10} {:>15.1} {:>12.6} {:>12.6} {:>12.6}",
            format!("{}:", op.label()),
            gb_per_s(bytes, stats.min_ms),
            stats.mean_ms * 1e-3,
            stats.min_ms * 1e-3,
            stats.max_ms * 1e-3
        );
    }
    let [ea, eb, ec] = reference::stream::sequence(&a0, &b0, &c0, scalar, reps + 1);
    let mut checks = vec![
        Check::compare("a", &gpu.download(&arrays.a)?, &ea, Tolerance::EXACT),
        Check::compare("b", &gpu.download(&arrays.b)?, &eb, Tolerance::EXACT),
        Check::compare("c", &gpu.download(&arrays.c)?, &ec, Tolerance::EXACT),
    ];

    // The article's anti-pattern, into a scratch array, against the same triad on the CPU.
    let mut d = gpu.zeros::<T>(n)?;
    let mut four = Vec::new();
    let mut one = Vec::new();
    for _ in 0..=reps {
        one.push(gpu.time_ms(|| {
            binary(
                gpu,
                Op::Triad,
                &arrays.b,
                &arrays.c,
                &mut d,
                scalar,
                THREADS_PER_BLOCK,
            )
        })?);
        four.push(gpu.time_ms(|| {
            triad_four_per_thread(gpu, &arrays.b, &arrays.c, &mut d, scalar, THREADS_PER_BLOCK)
        })?);
    }
    let (one, four) = (
        Stats::of(&mut one[1..].to_vec()),
        Stats::of(&mut four[1..].to_vec()),
    );
    let expected = reference::stream::triad(&eb, &ec, scalar);
    checks.push(Check::compare(
        "triad, 4 per thread",
        &gpu.download(&d)?,
        &expected,
        Tolerance::EXACT,
    ));
    println!(
        " Triad with 4 elements per thread: {:.1} GB/s, {:.0}% of the one-per-thread triad (article: 25% on a GTX 280)",
        gb_per_s(3 * word * n, four.min_ms),
        100.0 * one.min_ms / four.min_ms
    );
    println!("-------------------------------------------------------------");
    Ok(Outcome { checks })
}

/// `stream` with `--precision` and `--size`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, n, options.reps),
        Precision::F64 => run_typed::<f64>(gpu, n, options.reps),
    }
}
