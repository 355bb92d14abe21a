//! ch3-cuf-increment, ch3-cuf-streams, ch3-cuf-ilp: the book's CUF kernel loop over a 1-D array
//! (book §3.7, `program incrementTest`, `!$cuf kernel do <<<*,tPB>>>`), three ways of writing
//! its chevrons:
//! - `<<<*, tPB>>>` (ch3-cuf-increment): `ceil(n / tPB)` blocks of tPB = 256, one element per
//!   thread; the book's profiler shows gridsize [4096, 1], threadblocksize [256, 1, 1] for
//!   n = 1024 x 1024;
//! - `<<<*, *, 0, streamID>>>` (ch3-cuf-streams): grid and block chosen, on a stream of its own;
//! - `<<<1024, tPB>>>` (ch3-cuf-ilp, the book's `program ilp`): a fixed grid, so each thread
//!   strides over `n / (1024 x 256)` = 4 elements.
//!
//! The loop body is the book kernel `cuf_increment` (a grid-stride loop); `ferrocuda::cuf`
//! chooses the shape. The book sets `a = 1`; here `a` is a ramp, so that an element missed,
//! doubled or moved shows against the CPU's `a + b`.
use crate::example::{Example, NoOptions, Outcome, Run, Size, print_kernel_time};
use crate::reference;
use book_kernels::ch3::cuf_increment::{CufIncrement, CufIncrementArgs};
use ferrocuda::cuf::{Dim, KernelLoop};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, Result, Stream};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// The book's `n = 1024*1024`, `tPB = 256`, `b = 3`, and the ILP program's fixed grid.
pub const N: usize = 1024 * 1024;
pub const TPB: u32 = 256;
pub const B: i32 = 3;
pub const ILP_GRID: u32 = 1024;

/// The three ids: one type each, the same run with its own chevrons.
macro_rules! cuf_example {
    ($(#[$doc:meta])* $name:ident, $id:literal, $chevrons:expr, $description:literal) => {
        $(#[$doc])*
        pub struct $name;

        impl Example for $name {
            const ID: &'static str = $id;
            const DESCRIPTION: &'static str = $description;
            const SIZE: Option<Size> = Some(Size::new("elements of the int array", N, N));
            const REPS: bool = true;
            type Args = NoOptions;

            /// The run's peak: `a_d` on the device; `a`, its reference and a download on the
            /// host; `None` on overflow.
            fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
                Footprint::NONE.device::<i32>(1, run.size)?.host::<i32>(3, run.size)
            }

            fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
                run_with(gpu, run, $chevrons)
            }
        }
    };
}

cuf_example!(
    /// ch3-cuf-increment: `<<<*, 256>>>`.
    Ch3CufIncrement,
    "ch3-cuf-increment",
    Chevrons::Increment,
    "!$cuf kernel do <<<*,256>>>: a_d(i) = a_d(i) + b over 1024^2 ints, the grid chosen as CUF does (book 3.7)"
);
cuf_example!(
    /// ch3-cuf-streams: `<<<*, *, 0, streamID>>>`.
    Ch3CufStreams,
    "ch3-cuf-streams",
    Chevrons::Streams,
    "!$cuf kernel do <<<*,*,0,streamID>>>: the CUF increment with grid and block chosen, on a non-default stream (book 3.7)"
);
cuf_example!(
    /// ch3-cuf-ilp: `<<<1024, 256>>>`.
    Ch3CufIlp,
    "ch3-cuf-ilp",
    Chevrons::Ilp,
    "!$cuf kernel do <<<1024,256>>>: a fixed grid, each thread strides over 4 of 1024^2 elements (book 3.7, program ilp)"
);

/// Which chevrons: `<<<*, tPB>>>`, `<<<*, *, 0, stream>>>` or `<<<1024, tPB>>>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chevrons {
    Increment,
    Streams,
    Ilp,
}

impl Chevrons {
    pub const ALL: [Chevrons; 3] = [Chevrons::Increment, Chevrons::Streams, Chevrons::Ilp];

    /// The grid and block as written in the directive.
    pub fn dims(self) -> (Dim, Dim) {
        match self {
            Chevrons::Increment => (Dim::Auto, Dim::Fixed(TPB)),
            Chevrons::Streams => (Dim::Auto, Dim::Auto),
            Chevrons::Ilp => (Dim::Fixed(ILP_GRID), Dim::Fixed(TPB)),
        }
    }

    /// The loop over `n` elements these chevrons launch.
    pub fn kernel_loop(self, n: usize) -> Result<KernelLoop> {
        let (grid, block) = self.dims();
        KernelLoop::new_1d(n, grid, block)
    }

    /// The directive, as the book writes it.
    pub fn directive(self) -> String {
        let (grid, block) = self.dims();
        let stream = if self == Chevrons::Streams { ",0,streamID" } else { "" };
        format!("!$cuf kernel do <<<{grid},{block}{stream}>>>")
    }
}

/// `a_d(i) = a_d(i) + b` for every element, launched as `cuf_loop` (on `stream`, if given).
pub fn increment(
    gpu: &Gpu,
    cuf_loop: &KernelLoop,
    stream: Option<&Stream>,
    a_d: &mut DeviceBuffer<i32>,
    b: i32,
) -> Result<()> {
    if cuf_loop.extent() != (a_d.len(), 1) {
        return Err(Error::InvalidArgument(format!(
            "the CUF loop runs over {:?} elements, the array holds {}",
            cuf_loop.extent(),
            a_d.len()
        )));
    }
    let kernels = crate::kernels(gpu)?;
    let args = CufIncrementArgs { a: a_d.view_mut(), b };
    match stream {
        Some(stream) => cuf_loop.launch_on(stream, &kernels, CufIncrement, args),
        None => cuf_loop.launch(&kernels, CufIncrement, args),
    }
}

/// The input: a ramp (the book's `a = 1` cannot show a moved element).
pub fn input(n: usize) -> Result<Vec<i32>> {
    try_from_fn(n, |i| (i % 1000) as i32)
}

/// The program with `chevrons`: the shape chosen, one checked launch, then the launch timed.
fn run_with(gpu: &Gpu, run: &Run<NoOptions>, chevrons: Chevrons) -> Result<Outcome> {
    let n = run.size;
    let cuf_loop = chevrons.kernel_loop(n)?;
    let stream = (chevrons == Chevrons::Streams).then(|| gpu.new_stream()).transpose()?;
    let stream = stream.as_ref();
    let a = input(n)?;
    let expected = reference::ch3::cuf::increment(&a, B);
    let mut a_d = gpu.upload(&a)?;
    increment(gpu, &cuf_loop, stream, &mut a_d, B)?;
    if let Some(stream) = stream {
        gpu.synchronize_stream(stream)?;
    }
    let check = Check::compare("a", &gpu.download(&a_d)?, &expected, Tolerance::EXACT);
    println!(" {} over n = {n}", chevrons.directive());
    let on_stream = stream.map_or("", |_| ", on a non-default stream");
    let per_thread = cuf_loop.elements_per_thread();
    println!("   {cuf_loop}, {per_thread} element(s) per thread{on_stream}");
    match check.passed() {
        true => println!(" Program Passed"),
        false => println!(" **** Program Failed ****"),
    }
    // The profiler's gputime: the kernel alone, median of `reps` (the buffer is incremented
    // again each time; it was checked above).
    let stats = time_reps(gpu, run.reps, || increment(gpu, &cuf_loop, stream, &mut a_d, B))?;
    print_kernel_time(gpu, "cuf_increment", stats.median_ms, 2 * n * size_of::<i32>());
    Ok(Outcome { checks: vec![check] })
}
