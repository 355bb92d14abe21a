//! ch5-pi-cuf: pi by Monte Carlo (book §5.2, program `compute_pi`): `2N` uniforms from one
//! generator call (seed 1234), `x(i) = data(i)`, `y(i) = data(i + N)`, the points inside the
//! quarter circle counted on the GPU and on the CPU, `pi = 4 * inside / N` in the working
//! precision, and `Error = |pi - 2 asin(1)|`.
//!
//! The other pi examples (`pi_fma`, `pi_reduction_twopass`, `pi_reduction_atomiclock`) count the
//! same points and share this file's [`PiFloat`], [`points`] and output row.
//!
//! `--book` reproduces the book's convergence tables (N = 10^4 .. 10^8; single precision with
//! seed 1234, double with seeds 1234 and 1234567) from cuRAND's default generator, whose stream
//! is unchanged since the book.
use crate::examples::ch5::sum_accuracy::fortran_e_digits;
use crate::examples::{Example, Flag, Options, Outcome, Precision};
use crate::reference::ch5::pi::{self as reference, PiReference};
use book_kernels::ch5::pi_cuf::{PiCount, PiCountArgs, shared_bytes};
use book_kernels::ch5::pi_fma::{MismatchArgs, PiCountFma, PiFmaMismatches};
use book_kernels::ch5::pi_reduction_atomiclock::{LockedSumArgs, Sum as LockedSum};
use book_kernels::ch5::pi_reduction_twopass::{PartialSum, PartialSumArgs};
use ferrocuda::device::math::Rounded;
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::random::{Generator, RandomFloat};
use ferrocuda::reduce::{BLOCKS_PER_SM, THREADS_PER_BLOCK};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch5-pi-cuf",
    description: "pi from N random points in the unit square, counted on GPU and CPU; --book: the convergence tables (book 5.2)",
    flags: FLAGS,
    run,
};

/// The flags of every pi example.
pub const FLAGS: &[Flag] = &[
    Flag {
        name: "--generator",
        value: Some("curand|philox"),
        help: "cuRAND's default generator (the book's; the default on a GPU) or this library's Philox",
    },
    Flag {
        name: "--seed",
        value: Some("N"),
        help: "the generator's seed (default: the book's)",
    },
    Flag {
        name: "--book",
        value: None,
        help: "reproduce the book's table for N = 10^4 .. 10^8 (cuRAND)",
    },
];

/// The listing's `N`.
pub const N: usize = 100_000;
/// The listing's seed.
pub const SEED: u64 = 1234;
/// The book's sample sizes, 10^4 .. 10^8.
pub const BOOK_SIZES: [usize; 5] = [10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// One of the book's convergence tables: the `Pi=` column as printed (`None`: not in the
/// sources we have).
#[derive(Clone, Copy, Debug)]
pub struct BookTable {
    pub precision: Precision,
    pub seed: u64,
    pub pi: [Option<&'static str>; 5],
}

/// The book's §5.2 tables (the conversion garbled the Samples column; the rows are N = 10^4 ..
/// 10^8). The stand-alone run's `3.13631988` for N = 10^5 differs from the table's `3.13632011`
/// in how PGI evaluated `4*real/real`; the table's value is the f32 quotient.
pub const BOOK_TABLES: [BookTable; 3] = [
    BookTable {
        precision: Precision::F32,
        seed: 1234,
        pi: [
            Some("3.11120009"),
            Some("3.13632011"),
            Some("3.14056396"),
            Some("3.14092445"),
            None,
        ],
    },
    BookTable {
        precision: Precision::F64,
        seed: 1234,
        pi: [
            Some("3.13440000"),
            Some("3.13716000"),
            Some("3.14028800"),
            Some("3.14155360"),
            None,
        ],
    },
    BookTable {
        precision: Precision::F64,
        seed: 1234567,
        pi: [
            Some("3.12880000"),
            Some("3.14676000"),
            Some("3.14274000"),
            Some("3.14062480"),
            Some("3.14148248"),
        ],
    },
];

/// The inside counts of the book's single-precision table (seed 1234), from the spec's rerun of
/// cuRAND: the integers behind its `Pi=` column.
pub const SP_SEED_1234_COUNTS: [u64; 5] = [7778, 78408, 785141, 7852311, 78539520];

/// How the kernels round `x² + y²`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Both squares rounded, then the sum: the CPU's result.
    Separate,
    /// `fma(y, y, x*x)`: the book's GPU with FMA (§5.2.1).
    Fma,
}

/// `f32` or `f64` in the pi examples: generated, counted on the GPU and on the CPU.
pub trait PiFloat: RandomFloat + Real + Rounded + PiReference + Element + Into<f64> {
    /// Launches `pi_count` or `pi_count_fma`.
    fn launch_count(gpu: &Gpu, rounding: Rounding, shape: LaunchShape, args: PiCountArgs<Self>) -> Result<()>;
    /// Launches `pi_fma_mismatches`.
    fn launch_mismatches(gpu: &Gpu, shape: LaunchShape, args: MismatchArgs<Self>) -> Result<()>;
    /// Launches the two-pass example's `partial_sum`.
    fn launch_partial_sum(gpu: &Gpu, shape: LaunchShape, args: PartialSumArgs<Self>) -> Result<()>;
    /// Launches the atomic-lock example's `sum`.
    fn launch_locked_sum(gpu: &Gpu, shape: LaunchShape, args: LockedSumArgs<Self>) -> Result<()>;
}

macro_rules! pi_float {
    ($($t:ty),*) => {$(
        impl PiFloat for $t {
            fn launch_count(gpu: &Gpu, rounding: Rounding, shape: LaunchShape, args: PiCountArgs<Self>) -> Result<()> {
                match rounding {
                    Rounding::Separate => crate::kernels(gpu)?.launch(PiCount, shape, args),
                    Rounding::Fma => crate::kernels(gpu)?.launch(PiCountFma, shape, args),
                }
            }
            fn launch_mismatches(gpu: &Gpu, shape: LaunchShape, args: MismatchArgs<Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(PiFmaMismatches, shape, args)
            }
            fn launch_partial_sum(gpu: &Gpu, shape: LaunchShape, args: PartialSumArgs<Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(PartialSum, shape, args)
            }
            fn launch_locked_sum(gpu: &Gpu, shape: LaunchShape, args: LockedSumArgs<Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(LockedSum, shape, args)
            }
        }
    )*};
}
pi_float!(f32, f64);

/// `2n` uniforms from `generator` seeded with `seed`, in one call (the book's `twoN`).
pub fn points<T: PiFloat>(gpu: &Gpu, generator: Generator, seed: u64, n: usize) -> Result<DeviceBuffer<T>> {
    let twice = n
        .checked_mul(2)
        .ok_or_else(|| Error::InvalidArgument(format!("{n} points are too many")))?;
    let mut xy_d = gpu.zeros::<T>(twice)?;
    generator.fill_uniform(gpu, seed, &mut xy_d)?;
    Ok(xy_d)
}

/// The launch of the counting kernels over `n` points: blocks of 256 threads, enough to fill the
/// device (`8 x SMs`) but no more than one point per thread, as the reduction library's.
pub fn count_shape(gpu: &Gpu, n: usize) -> LaunchShape {
    let fill = gpu.properties().multiprocessor_count.max(1) * BLOCKS_PER_SM;
    let blocks = (n.div_ceil(THREADS_PER_BLOCK as usize) as u32).clamp(1, fill);
    LaunchShape::new((blocks, 1, 1), (THREADS_PER_BLOCK, 1, 1)).with_shared_bytes(shared_bytes() as u32)
}

/// Counts the points of `xy_d` inside the circle into `inside_d[0]`, queued.
pub fn count_into<T: PiFloat>(
    gpu: &Gpu,
    rounding: Rounding,
    xy_d: &DeviceBuffer<T>,
    inside_d: &mut DeviceBuffer<u64>,
) -> Result<()> {
    gpu.upload_into(&[0], inside_d)?;
    let args = PiCountArgs {
        xy: xy_d.view(),
        inside: inside_d.view_mut(),
    };
    T::launch_count(gpu, rounding, count_shape(gpu, xy_d.len() / 2), args)
}

/// The number of points of `xy_d` inside the circle, counted on the GPU.
pub fn count<T: PiFloat>(gpu: &Gpu, rounding: Rounding, xy_d: &DeviceBuffer<T>) -> Result<u64> {
    let mut inside_d = gpu.zeros::<u64>(1)?;
    count_into(gpu, rounding, xy_d, &mut inside_d)?;
    Ok(gpu.download(&inside_d)?[0])
}

/// The book's `pival = 4*real(inside, fp_kind)/real(N, fp_kind)` and `abs(pival - 2*asin(1))`,
/// both in the working precision `T`, widened.
pub fn estimate<T: PiFloat>(inside: u64, n: usize) -> (f64, f64) {
    let pi = T::from_f64(4.0) * T::from_f64(inside as f64) / T::from_f64(n as f64);
    let reference = T::from_f64(2.0) * T::from_f64(1f64.asin());
    let error = if pi > reference { pi - reference } else { reference - pi };
    (pi.to_f64(), error.to_f64())
}

/// The book's row, format `(t3,a,i10,a,f10.8,a,e11.4)`.
pub fn row(n: usize, pi: f64, error: f64) -> String {
    format!("  Samples={n:>10}  Pi={pi:.8} Error={:>11}", fortran_e_digits(error, 4))
}

/// The book's heading.
pub fn heading(precision: Precision) -> String {
    let name = match precision {
        Precision::F32 => "single",
        Precision::F64 => "double",
    };
    format!("Compute pi in {name} precision")
}

/// The largest distance of a pi estimate from pi that the example accepts: five standard
/// deviations of `4 * inside / n`, `4 sqrt(p (1 - p) / n)` with `p = pi/4`, which a correct
/// generator and count exceed with probability below 1e-6.
pub fn statistical_bound(n: usize) -> f64 {
    let p = std::f64::consts::FRAC_PI_4;
    5.0 * 4.0 * (p * (1.0 - p) / n as f64).sqrt()
}

/// The generator and seed the flags ask for.
pub fn generator_and_seed(gpu: &Gpu, options: &Options, default_seed: u64) -> Result<(Generator, u64)> {
    let generator = options
        .parsed::<Generator>("--generator")?
        .unwrap_or_else(|| Generator::default_for(gpu));
    Ok((generator, options.parsed::<u64>("--seed")?.unwrap_or(default_seed)))
}

/// `--book` needs the book's generator.
pub fn require_curand(generator: Generator) -> Result<()> {
    if generator == Generator::Curand {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "--book reproduces the book's cuRAND streams: it needs a CUDA device and --generator curand".into(),
        ))
    }
}

/// One sample size: the GPU count against the CPU's, the row, and the count kernel's time.
struct Sample {
    n: usize,
    inside_gpu: u64,
    inside_cpu: u64,
    pi: f64,
    error: f64,
    /// Median time of the count kernel over `reps` runs, ms (none for `reps == 0`).
    count_ms: Option<f64>,
}

fn sample<T: PiFloat>(gpu: &Gpu, generator: Generator, seed: u64, n: usize, reps: usize) -> Result<Sample> {
    let xy_d = points::<T>(gpu, generator, seed, n)?;
    let mut inside_d = gpu.zeros::<u64>(1)?;
    count_into(gpu, Rounding::Separate, &xy_d, &mut inside_d)?;
    let inside_gpu = gpu.download(&inside_d)?[0];
    let inside_cpu = reference::count_inside(&gpu.download(&xy_d)?, T::norm2_separate);
    if inside_gpu != inside_cpu {
        println!("Mismatch between CPU/GPU {inside_cpu} {inside_gpu}");
    }
    let (pi, error) = estimate::<T>(inside_gpu, n);
    println!("{}", row(n, pi, error));
    let count_ms = match reps {
        0 => None,
        reps => Some(time_reps(gpu, reps, || count_into(gpu, Rounding::Separate, &xy_d, &mut inside_d))?.median_ms),
    };
    Ok(Sample {
        n,
        inside_gpu,
        inside_cpu,
        pi,
        error,
        count_ms,
    })
}

fn sample_in(
    gpu: &Gpu,
    precision: Precision,
    generator: Generator,
    seed: u64,
    n: usize,
    reps: usize,
) -> Result<Sample> {
    match precision {
        Precision::F32 => sample::<f32>(gpu, generator, seed, n, reps),
        Precision::F64 => sample::<f64>(gpu, generator, seed, n, reps),
    }
}

/// The GPU counts against the CPU's, exactly.
fn counts_agree(samples: &[Sample], what: &str) -> Check {
    let gpu: Vec<f64> = samples.iter().map(|s| s.inside_gpu as f64).collect();
    let cpu: Vec<f64> = samples.iter().map(|s| s.inside_cpu as f64).collect();
    Check::compare(what, &gpu, &cpu, Tolerance::EXACT)
}

/// The book's three tables, each row checked against the printed `Pi=` to its 8 decimals.
fn book(gpu: &Gpu) -> Result<Outcome> {
    let mut checks = Vec::new();
    for table in BOOK_TABLES {
        println!("{} (seed={})", heading(table.precision), table.seed);
        let samples = BOOK_SIZES
            .iter()
            .map(|&n| sample_in(gpu, table.precision, Generator::Curand, table.seed, n, 0))
            .collect::<Result<Vec<_>>>()?;
        checks.push(counts_agree(
            &samples,
            &format!("{} seed {}: GPU counts vs CPU counts", table.precision, table.seed),
        ));
        for (s, book) in samples.iter().zip(table.pi) {
            let printed = format!("{:.8}", s.pi);
            match book {
                Some(book) => checks.push(Check::condition(
                    &format!(
                        "{} seed {} N={}: Pi={printed}, the book prints {book}",
                        table.precision, table.seed, s.n
                    ),
                    printed == book,
                )),
                None => println!("  (N={}: the book's value is not in our sources)", s.n),
            }
        }
        if table.precision == Precision::F32 && table.seed == 1234 {
            let counts: Vec<f64> = samples.iter().map(|s| s.inside_gpu as f64).collect();
            let expected = SP_SEED_1234_COUNTS.map(|c| c as f64);
            checks.push(Check::compare(
                "f32 seed 1234: counts behind the book's Pi column",
                &counts,
                &expected,
                Tolerance::EXACT,
            ));
        }
        println!();
    }
    Ok(Outcome { checks })
}

/// One sample at `--size` (the listing's N), or the book's tables with `--book`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let (generator, seed) = generator_and_seed(gpu, options, SEED)?;
    if options.switch("--book") {
        require_curand(generator)?;
        return book(gpu);
    }
    let n = options.size_or(N)?;
    println!(
        "{} ({} generator, seed {seed})",
        heading(options.precision),
        generator.name()
    );
    let s = sample_in(gpu, options.precision, generator, seed, n, options.reps)?;
    if let Some(ms) = s.count_ms {
        println!(
            " pi_count_{}: {ms:.4} ms for {n} points ({})",
            options.precision,
            gpu.timing_label()
        );
    }
    let bound = statistical_bound(n);
    Ok(Outcome {
        checks: vec![
            counts_agree(std::slice::from_ref(&s), "GPU count vs CPU count"),
            Check::condition(
                &format!("|Pi - pi| = {:.3e} within 5 standard deviations ({bound:.3e})", s.error),
                s.error <= bound,
            ),
        ],
    })
}
