//! ch7-fft-convolution: the circular 2-D convolution of two series of complex planes by FFT
//! (book §7.3, program `fftOverlap`): per plane, forward FFT of A and B, `B = A B / (nx ny)`,
//! inverse FFT of B, copy to C; timed three ways (I/O only, one stream with synchronous
//! copies, four streams round robin with asynchronous copies, in the book's issue order
//! "A, FFT(A), B, FFT(B)" and in the fixed order "A, B, FFT, FFT"), with the book's model
//! `max(2/3 I/O, compute)` beside the measured time.
use super::{FftOption, engine_name};
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::ch7::convolution as reference;
use book_kernels::ch7::spectral::{ConvolvePlanes, ConvolvePlanesArgs};
use ferrocuda::fft::cpu::{self, C64};
use ferrocuda::fft::{Complex, Direction, Engine, Plan};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, PinnedBuffer, Result, Stream};
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// The book's plane side, `nx = ny` (`--size`).
pub const N: usize = 512;
/// The simulator's default side.
pub const SIMULATOR_N: usize = 128;
/// The smallest plane side.
pub const MIN_SIDE: usize = 2;
/// The largest plane side.
pub const MAX_SIDE: usize = 4096;
/// The book's planes per series, `nomega`.
pub const PLANES: usize = 196;
/// The simulator's default planes.
pub const SIMULATOR_PLANES: usize = 16;
/// The book's `num_streams`.
pub const STREAMS: usize = 4;
/// Planes of the random-data check against the CPU (its f64 reference costs CPU time).
pub const RANDOM_PLANES: usize = 8;
/// Threads per block of `convolve_planes`.
pub const THREADS_PER_BLOCK: u32 = 256;
/// The seed of the random planes.
pub const SEED: u64 = 2013;

/// The streamed loop's issue order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `cudaMemcpyAsync A`, FFT(A), `cudaMemcpyAsync B`, FFT(B): the book's listing, whose FFT
    /// blocks B's copy on a GPU without Hyper-Q (K10).
    Book,
    /// Both copies first, then both FFTs: the book's fix.
    Fixed,
}

/// One of the three timed loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Synchronous copies of A and B in and one plane out, nothing else.
    IoOnly,
    /// Everything in order on one stream, synchronous copies.
    SingleStream,
    /// Round robin over [`STREAMS`] streams, asynchronous copies, in this issue order.
    Streams(Order),
}

impl Mode {
    /// The book's label.
    pub fn label(self) -> &'static str {
        match self {
            Mode::IoOnly => "I/O only                       ",
            Mode::SingleStream => "Single stream loop             ",
            Mode::Streams(Order::Book) => "Do loop with multiple streams  ",
            Mode::Streams(Order::Fixed) => "Multiple streams, A,B,FFT,FFT  ",
        }
    }
}

// ch7-fft-convolution's own options (a plain comment: clap would print a doc comment in place of
// the example's description in its --help).
#[derive(clap::Args, Clone, Debug)]
pub struct Ch7FftConvolutionOptions {
    #[command(flatten)]
    pub fft: FftOption,
    /// complex planes per series, A, B and C each [default: 196, the book's, on a GPU; 16 on the simulator]
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub planes: Option<usize>,
    /// the streamed loop's issue order: A,FFT(A),B,FFT(B) (book), A,B,FFT,FFT (fixed), or both
    #[arg(long, value_name = "book|fixed|both", value_enum, default_value_t = Orders::Both, hide_possible_values = true)]
    pub order: Orders,
}

/// `--order`: the issue orders the streamed loop runs in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orders {
    Book,
    Fixed,
    Both,
}

impl Orders {
    /// The orders, the book's first.
    pub fn orders(self) -> Vec<Order> {
        match self {
            Orders::Book => vec![Order::Book],
            Orders::Fixed => vec![Order::Fixed],
            Orders::Both => vec![Order::Book, Order::Fixed],
        }
    }
}

/// The host series A, B and C, one pinned buffer per plane (the book's pinned `A, B, C(nx,ny,P)`).
pub struct Series {
    pub a: Vec<PinnedBuffer<Complex<f32>>>,
    pub b: Vec<PinnedBuffer<Complex<f32>>>,
    pub c: Vec<PinnedBuffer<Complex<f32>>>,
}

impl Series {
    /// `planes` planes of `plane` elements, A and B from `fill(series, plane, index)`, C zero.
    pub fn new(
        gpu: &Gpu,
        planes: usize,
        plane: usize,
        fill: impl Fn(usize, usize, usize) -> Complex<f32>,
    ) -> Result<Self> {
        let make = |series: usize| -> Result<Vec<PinnedBuffer<Complex<f32>>>> {
            (0..planes)
                .map(|p| {
                    let mut buffer = gpu.pinned::<Complex<f32>>(plane)?;
                    if series < 2 {
                        for (i, v) in buffer.as_mut_slice()?.iter_mut().enumerate() {
                            *v = fill(series, p, i);
                        }
                    }
                    Ok(buffer)
                })
                .collect()
        };
        Ok(Self {
            a: make(0)?,
            b: make(1)?,
            c: make(2)?,
        })
    }
}

/// Device planes and plans: one of each per stream (executions of one plan on several
/// streams would share its scratch memory).
pub struct Pipeline {
    streams: Vec<Stream>,
    plans: Vec<Plan<f32>>,
    a_d: Vec<DeviceBuffer<Complex<f32>>>,
    b_d: Vec<DeviceBuffer<Complex<f32>>>,
    side: usize,
}

impl Pipeline {
    /// Buffers and plans for planes of `side x side`.
    pub fn new(gpu: &Gpu, side: usize, engine: Engine) -> Result<Self> {
        let planes = || (0..STREAMS).map(|_| gpu.zeros(side * side)).collect::<Result<Vec<_>>>();
        Ok(Self {
            streams: (0..STREAMS).map(|_| gpu.new_stream()).collect::<Result<_>>()?,
            plans: (0..STREAMS)
                .map(|_| Plan::<f32>::c2c_2d(gpu, side, side, 1, engine))
                .collect::<Result<_>>()?,
            a_d: planes()?,
            b_d: planes()?,
            side,
        })
    }

    /// The engine the plans use.
    pub fn engine(&self) -> Engine {
        self.plans[0].engine()
    }

    fn multiply(&mut self, gpu: &Gpu, slot: usize, stream: Option<usize>) -> Result<()> {
        let shape = LaunchShape::cover_1d(self.side * self.side, THREADS_PER_BLOCK)?;
        let args = ConvolvePlanesArgs {
            a: self.a_d[slot].view(),
            b: self.b_d[slot].view_mut(),
            scale: 1.0 / (self.side * self.side) as f32,
        };
        match stream {
            Some(s) => crate::kernels(gpu)?.launch_on(&self.streams[s], ConvolvePlanes, shape, args),
            None => crate::kernels(gpu)?.launch(ConvolvePlanes, shape, args),
        }
    }

    /// Runs one timed loop over every plane of `series`; returns the wall-clock seconds (the
    /// book's SYSTEM_CLOCK), the device synchronized at both ends.
    pub fn run(&mut self, gpu: &Gpu, series: &mut Series, mode: Mode) -> Result<f64> {
        gpu.synchronize()?;
        let start = Instant::now();
        let planes = series.a.len();
        let plane = self.side * self.side;
        let bar = crate::progress::bar(mode.label().trim_end(), planes as u64);
        for ifr in 0..planes {
            bar.inc(1);
            match mode {
                Mode::IoOnly => {
                    gpu.upload_pinned(&series.a[ifr], &mut self.a_d[0])?;
                    gpu.upload_pinned(&series.b[ifr], &mut self.b_d[0])?;
                    gpu.download_pinned(&self.b_d[0], &mut series.c[ifr])?;
                }
                Mode::SingleStream => {
                    gpu.upload_pinned(&series.a[ifr], &mut self.a_d[0])?;
                    self.plans[0].c2c_in_place(gpu, &mut self.a_d[0], Direction::Forward)?;
                    gpu.upload_pinned(&series.b[ifr], &mut self.b_d[0])?;
                    self.plans[0].c2c_in_place(gpu, &mut self.b_d[0], Direction::Forward)?;
                    self.multiply(gpu, 0, None)?;
                    self.plans[0].c2c_in_place(gpu, &mut self.b_d[0], Direction::Inverse)?;
                    gpu.download_pinned(&self.b_d[0], &mut series.c[ifr])?;
                }
                Mode::Streams(order) => {
                    let s = ifr % STREAMS;
                    let stream = &self.streams[s];
                    gpu.upload_async(stream, &series.a[ifr], &mut self.a_d[s], 0..plane)?;
                    if order == Order::Book {
                        self.plans[s].c2c_in_place_on(gpu, stream, &mut self.a_d[s], Direction::Forward)?;
                        gpu.upload_async(stream, &series.b[ifr], &mut self.b_d[s], 0..plane)?;
                    } else {
                        gpu.upload_async(stream, &series.b[ifr], &mut self.b_d[s], 0..plane)?;
                        self.plans[s].c2c_in_place_on(gpu, stream, &mut self.a_d[s], Direction::Forward)?;
                    }
                    self.plans[s].c2c_in_place_on(gpu, stream, &mut self.b_d[s], Direction::Forward)?;
                    self.multiply(gpu, s, Some(s))?;
                    let stream = &self.streams[s];
                    self.plans[s].c2c_in_place_on(gpu, stream, &mut self.b_d[s], Direction::Inverse)?;
                    gpu.download_async(stream, &self.b_d[s], &mut series.c[ifr], 0..plane)?;
                }
            }
        }
        for stream in &self.streams {
            gpu.synchronize_stream(stream)?;
        }
        gpu.synchronize()?;
        let elapsed_s = start.elapsed().as_secs_f64();
        bar.finish_and_clear();
        Ok(elapsed_s)
    }
}

/// SplitMix64, for seeded portable inputs.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A value uniform in [-1, 1) for `(series, plane, index)`, the same for a given seed.
fn random_value(series: usize, plane: usize, index: usize) -> f32 {
    let mut state = SEED ^ ((series * 1_000_003 + plane) as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ (index as u64);
    let bits = splitmix64(&mut state) >> 40;
    (bits as f64 / (1u64 << 23) as f64 - 1.0) as f32
}

/// The relative L2 error allowed for the random-data check: three f32 transforms of
/// `log2(nx ny)` stages each, a small multiple (4) of `log2(nx ny) eps` apiece.
pub fn random_tolerance(plane: usize) -> f64 {
    12.0 * (plane as f64).log2() * f32::EPSILON as f64
}

/// One check over every plane of `planes`: `part` of each value against `want`, compared plane
/// by plane (no copy of the whole series) and merged as one comparison.
fn planes_check(
    what: &str,
    planes: &[PinnedBuffer<Complex<f32>>],
    part: fn(&Complex<f32>) -> f32,
    want: f64,
    tolerance: Tolerance,
) -> Result<Check> {
    let mut merged = Check::compare(what, &[0.0f64; 0], &[], tolerance);
    let (mut values, mut expected) = (Vec::new(), Vec::new());
    for plane in planes {
        values.clear();
        values.extend(plane.as_slice()?.iter().map(|v| f64::from(part(v))));
        expected.resize(values.len(), want);
        let start = merged.len;
        merged.absorb(Check::compare(what, &values, &expected, tolerance), start);
    }
    Ok(merged)
}

/// ch7-fft-convolution.
pub struct Ch7FftConvolution;

impl Example for Ch7FftConvolution {
    const ID: &'static str = "ch7-fft-convolution";
    const DESCRIPTION: &'static str = "FFT convolution of 196 pinned 512^2 complex planes: I/O only, one stream, four streams in both issue orders, against max(2/3 I/O, compute) (book 7.3)";
    const SIZE: Option<Size> = Some(
        Size::new(
            "plane side nx = ny, a power of two (--planes sets the planes per series)",
            N,
            SIMULATOR_N,
        )
        .at_least(MIN_SIDE)
        .at_most(MAX_SIDE),
    );
    type Args = Ch7FftConvolutionOptions;

    /// The peak bytes of a run on planes of `side x side` (with `--planes`; without it, the
    /// GPU's default of [`PLANES`], which is more than the simulator's: the plan cannot tell the
    /// backend): on the device each stream's A and B plane and its plan's work area (a plane);
    /// on the host first the pinned series A, B and C with one plane's f64 check arrays, then
    /// the random series and the f64 CPU convolution (A and B widened and transformed).
    ///
    /// A side is counted as the next power of two (the sides the example takes), so that the
    /// largest size that fits, which the runner names, is one it takes.
    fn memory(run: &Run<Ch7FftConvolutionOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let side = run.size.checked_next_power_of_two()?;
        let plane = footprint::elements(&[side, side])?;
        let planes = run.args.planes.unwrap_or(PLANES);
        let random_values = footprint::elements(&[planes.min(RANDOM_PLANES), plane])?;
        let constant = Footprint::NONE
            .host::<Complex<f32>>(3, footprint::elements(&[planes, plane])?)?
            .host::<f64>(2, plane)?;
        let random = Footprint::NONE
            .host::<Complex<f32>>(3, random_values)?
            .host::<C64>(4, random_values)?;
        Footprint::NONE
            .device::<Complex<f32>>(3 * STREAMS, plane)?
            .plus(constant.max(random))
    }

    /// Runs the three loops on constant data, checks C == (0, 2 nx ny), then a random-data run
    /// against the CPU.
    fn run(gpu: &Gpu, run: &Run<Ch7FftConvolutionOptions>) -> Result<Outcome> {
        let side = run.size;
        if side < MIN_SIDE || !side.is_power_of_two() || side > MAX_SIDE {
            return Err(Error::InvalidArgument(format!(
                "the convolution's planes are square with a power-of-two side from {MIN_SIDE} to {MAX_SIDE}, not {side}"
            )));
        }
        let planes = run.args.planes.unwrap_or(gpu.pick(PLANES, SIMULATOR_PLANES));
        if planes == 0 {
            return Err(Error::InvalidArgument("--planes must be at least 1".into()));
        }
        let orders = run.args.order.orders();
        let plane = side * side;
        let mut pipeline = Pipeline::new(gpu, side, run.args.fft.engine(gpu)?)?;
        println!(
            " {planes} planes of {side} x {side} complex f32 per series, {STREAMS} streams ({}), wall clock",
            engine_name(pipeline.engine())
        );
        let mut series = Series::new(gpu, planes, plane, |_, _, _| Complex::new(1.0, 1.0))?;
        let io_s = pipeline.run(gpu, &mut series, Mode::IoOnly)?;
        let single_s = pipeline.run(gpu, &mut series, Mode::SingleStream)?;
        println!("{} Elapsed time : {io_s:.7}", Mode::IoOnly.label());
        println!("{} Elapsed time : {single_s:.7}", Mode::SingleStream.label());
        let compute_s = (single_s - io_s).max(0.0);
        let model_s = (2.0 / 3.0 * io_s).max(compute_s);
        let mut checks = Vec::new();
        let want = 2.0 * plane as f64;
        for &order in &orders {
            for c in &mut series.c {
                c.as_mut_slice()?.fill(Complex::zero());
            }
            let streams_s = pipeline.run(gpu, &mut series, Mode::Streams(order))?;
            println!("{} Elapsed time : {streams_s:.7}", Mode::Streams(order).label());
            // Constant planes transform exactly (sums of ones), so only rounding of the final
            // scaling could differ: allow 4 f32 epsilons of the value.
            let tolerance = Tolerance {
                abs: 4.0 * f32::EPSILON as f64 * want,
                rel: 0.0,
            };
            let first = series.c[0].as_slice()?[0];
            println!(
                "  C(1,1,1) = ({}, {}), expected (0, {want})",
                f64::from(first.re),
                f64::from(first.im)
            );
            for (what, part, value) in [
                ("real part == 0".into(), (|v| v.re) as fn(&Complex<f32>) -> f32, 0.0),
                (format!("imaginary part == 2 nx ny = {want}"), |v| v.im, want),
            ] {
                let what = format!("C {what} ({order:?} order)");
                checks.push(planes_check(&what, &series.c, part, value, tolerance)?);
            }
        }
        println!(
            " model: max(2/3 x I/O = {:.7}, compute = single - I/O = {compute_s:.7}) = {model_s:.7} s",
            2.0 / 3.0 * io_s
        );
        if gpu.is_simulator() {
            println!(" (simulator: copies and kernels run one after another, so the streams cannot overlap)");
        }
        // Random data through the streamed loop, against rustfft in f64 (the constant series are
        // no longer needed).
        drop(series);
        let random_planes = planes.min(RANDOM_PLANES);
        let mut random = Series::new(gpu, random_planes, plane, |s, p, i| {
            Complex::new(random_value(s, p, 2 * i), random_value(s, p, 2 * i + 1))
        })?;
        pipeline.run(gpu, &mut random, Mode::Streams(orders[0]))?;
        let widen = |planes: &[PinnedBuffer<Complex<f32>>]| -> Result<Vec<C64>> {
            let mut all = footprint::try_with_capacity(random_planes * plane)?;
            for p in planes {
                all.extend(cpu::to_c64(p.as_slice()?));
            }
            Ok(all)
        };
        let (a, b) = (widen(&random.a)?, widen(&random.b)?);
        let want_random = crate::progress::spinner("CPU reference convolution (rustfft, f64)")
            .in_scope(|| reference::convolve(&a, &b, side, side, random_planes))?;
        drop((a, b));
        let error = cpu::relative_l2_error(&widen(&random.c)?, &want_random);
        let bound = random_tolerance(plane);
        checks.push(Check::condition(
            &format!(
                "random planes ({random_planes}) vs CPU convolution: relative L2 error {error:.3e} <= {bound:.3e}"
            ),
            error <= bound,
        ));
        Ok(Outcome { checks })
    }
}
