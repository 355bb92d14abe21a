//! What the pi examples share (`ch5-pi-cuf`, `ch5-pi-fma`, `ch5-pi-reduction-twopass`,
//! `ch5-pi-reduction-atomiclock`, book §5.2-5.3): their options and sizes, the element types and
//! their kernels, the points (`2N` uniforms from one generator call, `x(i) = data(i)`, `y(i) =
//! data(i + N)`), the count of the points inside the quarter circle, the estimate of pi and the
//! book's output row.
use crate::examples::ch5::fortran::{fortran_e_digits, precision_name};
use crate::examples::ch5::generator::RandomOptions;
use crate::reference::ch5::pi::PiReference;
use book_kernels::ch5::pi_cuf::{PiCount, PiCountArgs, shared_bytes};
use book_kernels::ch5::pi_fma::{MismatchArgs, PiCountFma, PiFmaMismatches};
use book_kernels::ch5::pi_reduction_atomiclock::{LockedSumArgs, Sum as LockedSum};
use book_kernels::ch5::pi_reduction_twopass::{PartialSum, PartialSumArgs};
use ferrocuda::device::math::Rounded;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::random::{Generator, RandomFloat};
use ferrocuda::reduce::{BLOCKS_PER_SM, THREADS_PER_BLOCK};

/// The options of ch5-pi-cuf and ch5-pi-fma: `--generator`, `--seed`, `--book`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct PiOptions {
    #[command(flatten)]
    pub random: RandomOptions,
    /// reproduce the book's table for N = 10^4 .. 10^8 instead of one --size (cuRAND; a GPU)
    #[arg(long)]
    pub book: bool,
}

impl PiOptions {
    /// The generator and seed asked for (`default_seed` unless `--seed`). With `--book`, a
    /// `--size` (`given_size`) is refused, the book's table having its own sizes, and so is
    /// another generator than the book's.
    pub fn generator_and_seed(
        &self,
        gpu: &Gpu,
        given_size: Option<usize>,
        default_seed: u64,
    ) -> Result<(Generator, u64)> {
        let (generator, seed) = self.random.on(gpu, default_seed);
        if let (true, Some(n)) = (self.book, given_size) {
            return Err(Error::InvalidArgument(format!(
                "--book runs the book's sizes, 10^4 to 10^8 points: it takes no --size (given {n})"
            )));
        }
        if self.book && generator != Generator::Curand {
            return Err(Error::InvalidArgument(
                "--book reproduces the book's cuRAND streams: it needs a CUDA device and --generator curand".into(),
            ));
        }
        Ok((generator, seed))
    }
}

/// The listing's `N`.
pub const N: usize = 100_000;
/// The listing's seed.
pub const SEED: u64 = 1234;
/// The book's sample sizes, 10^4 .. 10^8.
pub const BOOK_SIZES: [usize; 5] = [10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// What one unit of `--size` counts in the pi examples.
pub const SIZE_UNIT: &str = "points (x, y pairs: 2N uniforms on the device, downloaded for the CPU count)";

/// The book's largest sample, the size `--book` needs memory for.
pub const BOOK_LARGEST: usize = BOOK_SIZES[BOOK_SIZES.len() - 1];

/// The peak bytes of one sample of `n` points in `T`: the `2n` uniforms on the device and their
/// downloaded copy, which the CPU counts (the count buffers are a few bytes); `None` when the
/// count overflows.
pub fn points_memory<T>(n: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<T>(1, n.checked_mul(2)?)
}

/// How the kernels round `x² + y²` (ch5-pi-fma's `--fma off|on`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Both squares rounded, then the sum: the CPU's result.
    #[value(name = "off")]
    Separate,
    /// `fma(y, y, x*x)`: the book's GPU with FMA (§5.2.1).
    #[value(name = "on")]
    Fma,
}

/// `f32` or `f64` in the pi examples: generated, counted on the GPU and on the CPU.
pub trait PiFloat: RandomFloat + Real + Rounded + PiReference + Element + Into<f64> {
    /// Launches `pi_count` or `pi_count_fma`.
    fn launch_count(gpu: &Gpu, rounding: Rounding, shape: LaunchShape, args: PiCountArgs<'_, Self>) -> Result<()>;
    /// Launches `pi_fma_mismatches`.
    fn launch_mismatches(gpu: &Gpu, shape: LaunchShape, args: MismatchArgs<'_, Self>) -> Result<()>;
    /// Launches the two-pass example's `partial_sum`.
    fn launch_partial_sum(gpu: &Gpu, shape: LaunchShape, args: PartialSumArgs<'_, Self>) -> Result<()>;
    /// Launches the atomic-lock example's `sum`.
    fn launch_locked_sum(gpu: &Gpu, shape: LaunchShape, args: LockedSumArgs<'_, Self>) -> Result<()>;
}

macro_rules! pi_float {
    ($($t:ty),*) => {$(
        impl PiFloat for $t {
            fn launch_count(gpu: &Gpu, rounding: Rounding, shape: LaunchShape, args: PiCountArgs<'_, Self>) -> Result<()> {
                match rounding {
                    Rounding::Separate => crate::kernels(gpu)?.launch(PiCount, shape, args),
                    Rounding::Fma => crate::kernels(gpu)?.launch(PiCountFma, shape, args),
                }
            }
            fn launch_mismatches(gpu: &Gpu, shape: LaunchShape, args: MismatchArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(PiFmaMismatches, shape, args)
            }
            fn launch_partial_sum(gpu: &Gpu, shape: LaunchShape, args: PartialSumArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(PartialSum, shape, args)
            }
            fn launch_locked_sum(gpu: &Gpu, shape: LaunchShape, args: LockedSumArgs<'_, Self>) -> Result<()> {
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
pub fn heading<T: PiFloat>() -> String {
    format!("Compute pi in {} precision", precision_name::<T>())
}

/// The largest distance of a pi estimate from pi that the example accepts: five standard
/// deviations of `4 * inside / n`, `4 sqrt(p (1 - p) / n)` with `p = pi/4`, which a correct
/// generator and count exceed with probability below 1e-6.
pub fn statistical_bound(n: usize) -> f64 {
    let p = std::f64::consts::FRAC_PI_4;
    5.0 * 4.0 * (p * (1.0 - p) / n as f64).sqrt()
}
