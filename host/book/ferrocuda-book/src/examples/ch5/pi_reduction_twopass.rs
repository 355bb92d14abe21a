//! ch5-pi-reduction-twopass: the pi count with the reduction written out (book §5.3):
//! `partial_sum<<<256, 512, 512*4>>>` leaves one count per block, `final_sum<<<1, 256, 256*4>>>`
//! adds them (the first kernel's blocks must equal the second's threads). The total must equal
//! the CPU's count and the CUF-style count of `ch5-pi-cuf`.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch5::generator::RandomOptions;
use crate::examples::ch5::pi::{PiFloat, points_memory};
use crate::examples::ch5::pi_reduction::{SIZE, check_points, reduction_points, report, tree_shape};
use book_kernels::ch5::pi_reduction_twopass::{FinalSum, FinalSumArgs, PartialSumArgs};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use std::marker::PhantomData;

/// ch5-pi-reduction-twopass, in precision `T`.
pub struct Ch5PiReductionTwopass<T>(PhantomData<T>);

/// The options of ch5-pi-reduction-twopass.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Ch5PiReductionTwopassOptions {
    #[command(flatten)]
    pub random: RandomOptions,
    /// blocks of partial_sum, at most 1024 (final_sum adds one per thread) [default: 256, the book's]
    #[arg(long, value_name = "N", default_value_t = BOOK_SHAPE.0, hide_default_value = true)]
    pub blocks: u32,
    /// threads per block of partial_sum, a power of two up to 1024 [default: 512, the book's]
    #[arg(long, value_name = "N", default_value_t = BOOK_SHAPE.1, hide_default_value = true)]
    pub threads: u32,
}

impl<T: PiFloat> Example for Ch5PiReductionTwopass<T> {
    const ID: &'static str = "ch5-pi-reduction-twopass";
    const DESCRIPTION: &'static str =
        "pi count by partial_sum<<<256,512>>> (shared-memory tree per block) then final_sum<<<1,256>>> (book 5.3)";
    const SIZE: Option<Size> = Some(SIZE);
    const REPS: bool = true;
    type Args = Ch5PiReductionTwopassOptions;

    /// The points on the device and their download for the CPU count (the partial counts are at
    /// most 1024 integers).
    fn memory(run: &Run<Self::Args>, _gpu: &Gpu) -> Option<Footprint> {
        points_memory::<T>(run.size)
    }

    /// The book's two kernels over `--size` points (the listing's N).
    fn run(gpu: &Gpu, run: &Run<Self::Args>) -> Result<Outcome> {
        let args = &run.args;
        let mut two_pass = TwoPass::new(gpu, args.blocks, args.threads)?;
        let xy_d = reduction_points::<T>(gpu, run.size, &args.random)?;
        let ms = time_reps(gpu, run.reps, || two_pass.launch(gpu, &xy_d))?.median_ms;
        report(
            gpu,
            &xy_d,
            ("two-pass total", two_pass.total(gpu)?),
            &two_pass.describe(),
            ms,
        )
    }
}

/// The book's `partial_sum<<<256, 512, 512*4>>>`.
pub const BOOK_SHAPE: (u32, u32) = (256, 512);

/// The two-pass count's buffers and shapes.
pub struct TwoPass {
    first: LaunchShape,
    second: LaunchShape,
    partial: DeviceBuffer<i32>,
    total: DeviceBuffer<i32>,
}

impl TwoPass {
    /// `partial_sum` on `blocks` of `threads`, then `final_sum` on one block of
    /// `blocks.next_power_of_two()` threads (at most 1024).
    pub fn new(gpu: &Gpu, blocks: u32, threads: u32) -> Result<Self> {
        let first = tree_shape(blocks, threads)?;
        if blocks > 1024 {
            return Err(Error::InvalidArgument(format!(
                "final_sum adds one partial per thread of one block: at most 1024 blocks, not {blocks}"
            )));
        }
        Ok(Self {
            first,
            second: tree_shape(1, blocks.next_power_of_two())?,
            partial: gpu.zeros(blocks as usize)?,
            total: gpu.zeros(1)?,
        })
    }

    /// Queues both kernels over the points `xy_d`.
    pub fn launch<T: PiFloat>(&mut self, gpu: &Gpu, xy_d: &DeviceBuffer<T>) -> Result<()> {
        check_points(xy_d.len() / 2)?;
        let args = PartialSumArgs {
            input: xy_d.view(),
            partial: self.partial.view_mut(),
        };
        T::launch_partial_sum(gpu, self.first, args)?;
        let args = FinalSumArgs {
            partial: self.partial.view(),
            total: self.total.view_mut(),
        };
        crate::kernels(gpu)?.launch(FinalSum, self.second, args)
    }

    /// The count of the last launch (waits for it).
    pub fn total(&self, gpu: &Gpu) -> Result<u64> {
        Ok(gpu.download(&self.total)?[0] as u64)
    }

    /// The two launches, as the book writes them.
    pub fn describe(&self) -> String {
        format!(
            "partial_sum<<<{},{},{}>>> + final_sum<<<1,{},{}>>>",
            self.first.grid.0,
            self.first.block.0,
            self.first.shared_bytes,
            self.second.block.0,
            self.second.shared_bytes
        )
    }
}
