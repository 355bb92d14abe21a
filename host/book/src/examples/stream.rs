//! stream: STREAM's copy, scale, add and triad (PGI article "CUDA Fortran Device Kernels", with
//! McCalpin's STREAM loop and output), in f32 or f64, plus the article's four-elements-per-thread
//! triad that uncoalesces the accesses.
use crate::examples::{Example, Options, Outcome, Precision, SIMULATOR_SIZE};
use crate::reference;
use book_kernels::stream::{
    BinaryArgs, StreamAdd, StreamAddVec4, StreamCopy, StreamCopyVec4, StreamScale, StreamScaleVec4, StreamTriad,
    StreamTriadFourPerThread, StreamTriadVec4, UnaryArgs,
};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Element, Gpu, KernelView, Kernels, LaunchShape, Result, same_len};
use ferrocuda::measure::{Stats, gb_per_s};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "stream",
    description: "STREAM copy, scale, add, triad with 512-thread blocks, in f32 or f64 (PGI article)",
    size: crate::examples::SIZE_TO_PLAN,
    f64: true,
    reps: true,
    flags: &[],
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

/// How threads map to elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The article's kernels: one element per thread, `ceil(n / threads)` blocks.
    OnePerThread,
    /// Four consecutive elements per thread in 16-byte accesses, `ceil(n / 4)` threads.
    Vec4,
}

impl Layout {
    /// Both, the article's first.
    pub const ALL: [Layout; 2] = [Layout::OnePerThread, Layout::Vec4];

    /// The launch covering `n` elements with blocks of `threads`.
    pub fn shape(self, n: usize, threads: u32) -> Result<LaunchShape> {
        match self {
            Layout::OnePerThread => LaunchShape::cover_1d(n, threads),
            Layout::Vec4 => LaunchShape::cover_1d(n.div_ceil(4), threads),
        }
    }

    /// The kernel-name suffix.
    pub fn label(self) -> &'static str {
        match self {
            Layout::OnePerThread => "",
            Layout::Vec4 => "_vec4",
        }
    }
}

/// An element type of the STREAM kernels (`f32`, `f64`): it knows its kernels, so the drivers
/// need no other bound.
pub trait StreamReal: Real + Into<f64> + Element {
    /// Launches the unary kernel of `op` (copy: `output = input`; scale: `output = scalar *
    /// input`) from `module` (this library's, or a CUDA C twin's).
    fn launch_unary(
        gpu: &Gpu,
        module: Option<&Kernels>,
        op: Op,
        layout: Layout,
        shape: LaunchShape,
        args: UnaryArgs<Self>,
    ) -> Result<()>;
    /// Launches the binary kernel of `op` (add: `c = a + b`; triad: `c = a + b * scalar`).
    fn launch_binary(
        gpu: &Gpu,
        module: Option<&Kernels>,
        op: Op,
        layout: Layout,
        shape: LaunchShape,
        args: BinaryArgs<Self>,
    ) -> Result<()>;
    /// Launches the article's four-elements-per-thread triad.
    fn launch_triad_four_per_thread(
        gpu: &Gpu,
        module: Option<&Kernels>,
        shape: LaunchShape,
        args: BinaryArgs<Self>,
    ) -> Result<()>;
}

macro_rules! stream_real {
    ($($t:ty),*) => {$(
        impl StreamReal for $t {
            fn launch_unary(gpu: &Gpu,
        module: Option<&Kernels>, op: Op, layout: Layout, shape: LaunchShape, args: UnaryArgs<Self>) -> Result<()> {
                match (op, layout) {
                    (Op::Copy, Layout::OnePerThread) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamCopy, shape, args),
                    (Op::Copy, Layout::Vec4) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamCopyVec4, shape, args),
                    (_, Layout::OnePerThread) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamScale, shape, args),
                    (_, Layout::Vec4) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamScaleVec4, shape, args),
                }
            }
            fn launch_binary(gpu: &Gpu,
        module: Option<&Kernels>, op: Op, layout: Layout, shape: LaunchShape, args: BinaryArgs<Self>) -> Result<()> {
                match (op, layout) {
                    (Op::Add, Layout::OnePerThread) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamAdd, shape, args),
                    (Op::Add, Layout::Vec4) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamAddVec4, shape, args),
                    (_, Layout::OnePerThread) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamTriad, shape, args),
                    (_, Layout::Vec4) => gpu.load_or(module, &crate::KERNELS)?.launch(StreamTriadVec4, shape, args),
                }
            }
            fn launch_triad_four_per_thread(gpu: &Gpu,
        module: Option<&Kernels>, shape: LaunchShape, args: BinaryArgs<Self>) -> Result<()> {
                gpu.load_or(module, &crate::KERNELS)?.launch(StreamTriadFourPerThread, shape, args)
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

/// The article's anti-pattern: `c = a + b * scalar` with four consecutive elements per thread.
pub fn triad_four_per_thread<T: StreamReal>(
    gpu: &Gpu,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    c: &mut DeviceBuffer<T>,
    scalar: T,
    threads: u32,
) -> Result<()> {
    let n = same_len("triad", &[a.len(), b.len(), c.len()])?;
    let shape = LaunchShape::cover_1d(n.div_ceil(4), threads)?;
    T::launch_triad_four_per_thread(
        gpu,
        None,
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

/// The initial arrays: the article's `a = 2.0, b = 0.5, c = 0.0`, with `a` varied by element so
/// that a wrong index cannot go unseen.
pub fn initial<T: Real>(n: usize) -> [Vec<T>; 3] {
    [
        (0..n).map(|i| T::from_f64(2.0 + (i % 1000) as f64 * 1e-3)).collect(),
        vec![T::from_f64(0.5); n],
        vec![T::from_f64(0.0); n],
    ]
}

/// Runs STREAM's loop `reps` times after one untimed round with the kernels of `layout`, times
/// each kernel with events, prints STREAM's table, and checks the three arrays against the CPU.
pub fn run_layout<T: StreamReal>(gpu: &Gpu, layout: Layout, n: usize, reps: usize) -> Result<(Arrays<T>, Vec<Check>)> {
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
            let timer = gpu.timer()?;
            arrays.step(gpu, op, layout, scalar)?;
            let ms = timer.stop_ms()?;
            if rep > 0 {
                samples[k].push(ms);
            }
        }
    }
    let word = size_of::<T>();
    let shape = layout.shape(n, THREADS_PER_BLOCK)?;
    println!(
        " {} kernels, <<<{}, {THREADS_PER_BLOCK}>>>:",
        match layout {
            Layout::OnePerThread => "The article's one-element-per-thread",
            Layout::Vec4 => "Four-elements-per-thread, 16-byte access",
        },
        shape.grid.0
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
    let [ea, eb, ec] = reference::stream::sequence(&a0, &b0, &c0, scalar, reps + 1)?;
    let what = |name: &str| format!("{name}{}", layout.label());
    let checks = vec![
        Check::compare(&what("a"), &gpu.download(&arrays.a)?, &ea, Tolerance::EXACT),
        Check::compare(&what("b"), &gpu.download(&arrays.b)?, &eb, Tolerance::EXACT),
        Check::compare(&what("c"), &gpu.download(&arrays.c)?, &ec, Tolerance::EXACT),
    ];
    Ok((arrays, checks))
}

/// STREAM in precision `T` with both layouts, then the article's strided anti-pattern.
pub fn run_typed<T: StreamReal>(gpu: &Gpu, n: usize, reps: usize) -> Result<Outcome> {
    println!("-------------------------------------------------------------");
    println!(
        " STREAM, {}, N = {n} ({:.0} MiB per array), {reps} timed rounds",
        T::NAME,
        (n * size_of::<T>()) as f64 / (1 << 20) as f64
    );
    let mut checks = Vec::new();
    let mut last = None;
    for layout in Layout::ALL {
        let (arrays, layout_checks) = run_layout::<T>(gpu, layout, n, reps)?;
        checks.extend(layout_checks);
        last = Some(arrays);
    }
    let Some(arrays) = last else {
        return Ok(Outcome { checks });
    };

    // The article's anti-pattern, into a scratch array, against the same triad on the CPU.
    let scalar = T::from_f64(SCALAR);
    let mut d = gpu.zeros::<T>(n)?;
    let (mut one, mut four) = (Vec::new(), Vec::new());
    for _ in 0..=reps {
        one.push(gpu.time_ms(|| {
            binary(
                gpu,
                Op::Triad,
                Layout::OnePerThread,
                [&arrays.b, &arrays.c],
                &mut d,
                scalar,
                THREADS_PER_BLOCK,
            )
        })?);
        four.push(gpu.time_ms(|| triad_four_per_thread(gpu, &arrays.b, &arrays.c, &mut d, scalar, THREADS_PER_BLOCK))?);
    }
    let (one, four) = (Stats::of(&mut one[1..]), Stats::of(&mut four[1..]));
    let expected = reference::stream::triad(&gpu.download(&arrays.b)?, &gpu.download(&arrays.c)?, scalar);
    checks.push(Check::compare(
        "triad, 4 per thread strided",
        &gpu.download(&d)?,
        &expected,
        Tolerance::EXACT,
    ));
    println!(
        " Triad, 4 elements per thread with scalar accesses (the article's anti-pattern): {:.1} GB/s, {:.0}% of the one-per-thread triad (article: 25% on a GTX 280)",
        gb_per_s(3 * size_of::<T>() * n, four.min_ms),
        100.0 * one.min_ms / four.min_ms
    );
    println!("-------------------------------------------------------------");
    Ok(Outcome { checks })
}

/// `stream` with `--precision` and `--size`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_SIZE))?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, n, options.reps),
        Precision::F64 => run_typed::<f64>(gpu, n, options.reps),
    }
}
