//! ch5-pi-reduction-twopass: the pi count with the reduction written out (book §5.3):
//! `partial_sum<<<256, 512, 512*4>>>` leaves one count per block, `final_sum<<<1, 256, 256*4>>>`
//! adds them (the first kernel's blocks must equal the second's threads). The total must equal
//! the CPU's count and the CUF-style count of `ch5-pi-cuf`.
use crate::example::{Flag, LegacyExample, Options, Outcome, Precision};
use crate::examples::ch5::generator::{self, generator_and_seed};
use crate::examples::ch5::pi::{N, PiFloat, SEED, estimate, heading, points, row};
use crate::examples::ch5::pi_reduction::{SIZE, check_points, reduction_checks, shape_flags, tree_shape};
use book_kernels::ch5::pi_reduction_twopass::{FinalSum, FinalSumArgs, PartialSumArgs};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch5-pi-reduction-twopass",
    description: "pi count by partial_sum<<<256,512>>> (shared-memory tree per block) then final_sum<<<1,256>>> (book 5.3)",
    size: Some(SIZE),
    f64: true,
    reps: true,
    flags: &[
        generator::GENERATOR_FLAG,
        generator::SEED_FLAG,
        Flag::value(
            "--blocks",
            "N",
            "blocks of partial_sum, at most 1024 (final_sum adds one per thread) [default: 256, the book's]",
        ),
        Flag::value(
            "--threads",
            "N",
            "threads per block of partial_sum, a power of two up to 1024 [default: 512, the book's]",
        ),
    ],
    run,
};

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

fn run_in<T: PiFloat>(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let (generator, seed) = generator_and_seed(gpu, options, SEED)?;
    let (blocks, threads) = shape_flags(options, BOOK_SHAPE)?;
    let n = options.size_or(N)?;
    check_points(n)?;
    let mut two_pass = TwoPass::new(gpu, blocks, threads)?;
    println!(
        "{} ({} generator, seed {seed})",
        heading(options.precision),
        generator.name()
    );
    let xy_d = points::<T>(gpu, generator, seed, n)?;
    let stats = time_reps(gpu, options.reps, || two_pass.launch(gpu, &xy_d))?;
    let total = two_pass.total(gpu)?;
    let (pi, error) = estimate::<T>(total, n);
    println!("{}", row(n, pi, error));
    println!(
        " {}: {:.4} ms ({})",
        two_pass.describe(),
        stats.median_ms,
        gpu.timing_label()
    );
    Ok(Outcome {
        checks: reduction_checks(gpu, "two-pass total", &xy_d, total)?,
    })
}

/// The book's two kernels over `--size` points (the listing's N).
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    match options.precision {
        Precision::F32 => run_in::<f32>(gpu, options),
        Precision::F64 => run_in::<f64>(gpu, options),
    }
}
