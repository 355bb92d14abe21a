//! ch5-pi-reduction-atomiclock: the pi count in one kernel, each block adding its count to
//! `partial[0]` under a global lock taken with `atomicCAS` and released after `__threadfence`
//! (book §5.3.1): `partial(1) = 0`, `sum<<<64, 256, 256*4>>>`, `inside = partial(1)`.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch5::generator::RandomOptions;
use crate::examples::ch5::pi::{PiFloat, points_memory};
use crate::examples::ch5::pi_reduction::{SIZE, check_points, reduction_points, report, tree_shape};
use book_kernels::ch5::pi_reduction_atomiclock::LockedSumArgs;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use std::marker::PhantomData;

/// ch5-pi-reduction-atomiclock, in precision `T`.
pub struct Ch5PiReductionAtomiclock<T>(PhantomData<T>);

/// The options of ch5-pi-reduction-atomiclock.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Ch5PiReductionAtomiclockOptions {
    #[command(flatten)]
    pub random: RandomOptions,
    /// blocks of sum [default: 64, the book's]
    #[arg(long, value_name = "N", default_value_t = BOOK_SHAPE.0, hide_default_value = true)]
    pub blocks: u32,
    /// threads per block of sum, a power of two up to 1024 [default: 256, the book's]
    #[arg(long, value_name = "N", default_value_t = BOOK_SHAPE.1, hide_default_value = true)]
    pub threads: u32,
}

impl<T: PiFloat> Example for Ch5PiReductionAtomiclock<T> {
    const ID: &'static str = "ch5-pi-reduction-atomiclock";
    const DESCRIPTION: &'static str =
        "pi count in one kernel, block counts added under an atomicCAS lock with threadfence (book 5.3.1)";
    const SIZE: Option<Size> = Some(SIZE);
    const REPS: bool = true;
    type Args = Ch5PiReductionAtomiclockOptions;

    /// The points on the device and their download for the CPU count.
    fn memory(run: &Run<Self::Args>, _gpu: &Gpu) -> Option<Footprint> {
        points_memory::<T>(run.size)
    }

    /// The book's kernel over `--size` points (the listing's N).
    fn run(gpu: &Gpu, run: &Run<Self::Args>) -> Result<Outcome> {
        let args = &run.args;
        let mut locked = LockedSum::new(gpu, args.blocks, args.threads)?;
        let xy_d = reduction_points::<T>(gpu, run.size, &args.random)?;
        let ms = time_reps(gpu, run.reps, || locked.launch(gpu, &xy_d))?.median_ms;
        report(
            gpu,
            &xy_d,
            ("lock-guarded total", locked.total(gpu)?),
            &locked.describe(),
            ms,
        )
    }
}

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

    /// The launches, as the book writes them.
    pub fn describe(&self) -> String {
        let s = &self.shape;
        format!(
            "sum<<<{},{},{}>>> (atomicCAS lock)",
            s.grid.0, s.block.0, s.shared_bytes
        )
    }
}
