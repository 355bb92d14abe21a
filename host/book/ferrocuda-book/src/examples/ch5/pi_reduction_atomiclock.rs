//! ch5-pi-reduction-atomiclock: the pi count in one kernel, each block adding its count to
//! `partial[0]` under a global lock taken with `atomicCAS` and released after `__threadfence`
//! (book §5.3.1): `partial(1) = 0`, `sum<<<64, 256, 256*4>>>`, `inside = partial(1)`.
use crate::example::{Flag, LegacyExample, Options, Outcome, Precision};
use crate::examples::ch5::generator::{self, generator_and_seed};
use crate::examples::ch5::pi::{N, PiFloat, SEED, estimate, heading, points, row};
use crate::examples::ch5::pi_reduction::{SIZE, check_points, reduction_checks, shape_flags, tree_shape};
use book_kernels::ch5::pi_reduction_atomiclock::LockedSumArgs;
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch5-pi-reduction-atomiclock",
    description: "pi count in one kernel, block counts added under an atomicCAS lock with threadfence (book 5.3.1)",
    size: Some(SIZE),
    f64: true,
    reps: true,
    flags: &[
        generator::GENERATOR_FLAG,
        generator::SEED_FLAG,
        Flag::value("--blocks", "N", "blocks of sum [default: 64, the book's]"),
        Flag::value(
            "--threads",
            "N",
            "threads per block of sum, a power of two up to 1024 [default: 256, the book's]",
        ),
    ],
    run,
};

/// The book's `sum<<<64, 256, 256*4>>>`.
pub const BOOK_SHAPE: (u32, u32) = (64, 256);

/// The lock-guarded count's buffers and shape.
pub struct LockedSum {
    shape: LaunchShape,
    partial: DeviceBuffer<i32>,
    lock: DeviceBuffer<u32>,
}

impl LockedSum {
    /// `sum` on `blocks` of `threads` (a power of two).
    pub fn new(gpu: &Gpu, blocks: u32, threads: u32) -> Result<Self> {
        Ok(Self {
            shape: tree_shape(blocks, threads)?,
            partial: gpu.zeros(1)?,
            lock: gpu.zeros(1)?,
        })
    }

    /// Zeroes the total and the lock, then queues `sum` over the points `xy_d`.
    pub fn launch<T: PiFloat>(&mut self, gpu: &Gpu, xy_d: &DeviceBuffer<T>) -> Result<()> {
        check_points(xy_d.len() / 2)?;
        gpu.upload_into(&[0], &mut self.partial)?;
        gpu.upload_into(&[0], &mut self.lock)?;
        let args = LockedSumArgs {
            input: xy_d.view(),
            partial: self.partial.view_mut(),
            lock: self.lock.view_mut(),
        };
        T::launch_locked_sum(gpu, self.shape, args)
    }

    /// The count of the last launch (waits for it).
    pub fn total(&self, gpu: &Gpu) -> Result<u64> {
        Ok(gpu.download(&self.partial)?[0] as u64)
    }
}

fn run_in<T: PiFloat>(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let (generator, seed) = generator_and_seed(gpu, options, SEED)?;
    let (blocks, threads) = shape_flags(options, BOOK_SHAPE)?;
    let n = options.size_or(N)?;
    check_points(n)?;
    let mut locked = LockedSum::new(gpu, blocks, threads)?;
    println!(
        "{} ({} generator, seed {seed})",
        heading(options.precision),
        generator.name()
    );
    let xy_d = points::<T>(gpu, generator, seed, n)?;
    let stats = time_reps(gpu, options.reps, || locked.launch(gpu, &xy_d))?;
    let total = locked.total(gpu)?;
    let (pi, error) = estimate::<T>(total, n);
    println!("{}", row(n, pi, error));
    println!(
        " sum<<<{blocks},{threads},{}>>> (atomicCAS lock): {:.4} ms ({})",
        locked.shape.shared_bytes,
        stats.median_ms,
        gpu.timing_label()
    );
    Ok(Outcome {
        checks: reduction_checks(gpu, "lock-guarded total", &xy_d, total)?,
    })
}

/// The book's kernel over `--size` points (the listing's N).
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    match options.precision {
        Precision::F32 => run_in::<f32>(gpu, options),
        Precision::F64 => run_in::<f64>(gpu, options),
    }
}
