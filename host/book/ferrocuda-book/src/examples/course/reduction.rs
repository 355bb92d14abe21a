//! course-reduction: the naive (divergent, `t % stride == 0`) and improved (convergent,
//! `t < stride`) block sums of the IT4I course's reduction lecture, each block summing
//! `2*BLOCK_SIZE` inputs in shared `partialSum`, the host iterating the partials to one value.
//!
//! The course gives no size; the default is 2^24 values (2^20 on the simulator), each 0 or 1, so
//! every partial sum is an integer an f32 holds and both kernels must give the exact count.
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference::course::reduction as reference;
use book_kernels::course::reduction::{ReductionArgs, ReductionImproved, ReductionNaive, shared_bytes};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// Values on a GPU.
pub const N: usize = 1 << 24;
/// The lecture's block: 1024 threads, 2048 inputs ("block size limits n to <= 2,048").
pub const BLOCK_SIZE: u32 = 1024;

/// course-reduction.
pub struct CourseReduction;

/// course-reduction's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseReductionOptions {
    /// BLOCK_SIZE, threads per block: a power of two up to 1024 (default 1024)
    #[arg(long, value_name = "N", default_value_t = BLOCK_SIZE, hide_default_value = true)]
    pub block: u32,
}

/// The most blocks of a one-dimensional grid (`gridDim.x`).
pub const MAX_GRID_X: usize = (1 << 31) - 1;

/// The two kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `t % stride == 0`, interleaved pairs.
    Naive,
    /// `t < stride`, contiguous halves.
    Improved,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Naive, Variant::Improved];

    /// The kernel's name.
    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Naive => "reduction_naive",
            Variant::Improved => "reduction_improved",
        }
    }
}

/// The buffers of one host-iterated sum of `n` values: each pass leaves `ceil(len / (2*block))`
/// partials, until one is left.
pub struct Plan {
    block: u32,
    partials: Vec<DeviceBuffer<f32>>,
}

impl Plan {
    /// A plan for `n` values (at least one) with `block` threads per block (a power of two,
    /// since both trees halve or double a stride up to `blockDim`).
    pub fn new(gpu: &Gpu, n: usize, block: u32) -> Result<Self> {
        if !block.is_power_of_two() || block > 1024 {
            return Err(Error::InvalidArgument(format!(
                "the block size must be a power of two from 1 to 1024, not {block}"
            )));
        }
        if n == 0 {
            return Err(Error::InvalidArgument("a reduction needs at least one value".into()));
        }
        let blocks = n.div_ceil(2 * block as usize);
        if blocks > MAX_GRID_X {
            return Err(Error::InvalidArgument(format!(
                "{n} values need {blocks} blocks of 2*{block} values, past the grid's limit of {MAX_GRID_X}: raise --block or lower --size"
            )));
        }
        let mut partials = Vec::new();
        let mut len = n;
        loop {
            len = len.div_ceil(2 * block as usize);
            partials.push(gpu.zeros(len)?);
            if len == 1 {
                break;
            }
        }
        Ok(Self { block, partials })
    }

    /// Passes per sum.
    pub fn passes(&self) -> usize {
        self.partials.len()
    }

    /// The first pass's launch shape.
    pub fn shape(&self) -> LaunchShape {
        self.pass_shape(self.partials[0].len())
    }

    fn pass_shape(&self, blocks: usize) -> LaunchShape {
        LaunchShape::new((blocks as u32, 1, 1), (self.block, 1, 1))
            .with_shared_bytes(shared_bytes(self.block as usize) as u32)
    }

    /// Queues every pass of `variant` over `input`; the sum lands in [`Plan::result`].
    pub fn launch(&mut self, gpu: &Gpu, variant: Variant, input: &DeviceBuffer<f32>) -> Result<()> {
        let first = 2 * self.block as usize;
        if input.len().div_ceil(first) != self.partials[0].len() {
            return Err(Error::InvalidArgument(format!(
                "this plan sums {} blocks of {first} values, not {} values",
                self.partials[0].len(),
                input.len()
            )));
        }
        for pass in 0..self.partials.len() {
            let shape = self.pass_shape(self.partials[pass].len());
            let (done, rest) = self.partials.split_at_mut(pass);
            let output = &mut rest[0];
            let args = ReductionArgs {
                input: done.last().map_or(input.view(), KernelView::view),
                output: output.view_mut(),
            };
            match variant {
                Variant::Naive => crate::kernels(gpu)?.launch(ReductionNaive, shape, args)?,
                Variant::Improved => crate::kernels(gpu)?.launch(ReductionImproved, shape, args)?,
            }
        }
        Ok(())
    }

    /// The sum of the last launch (waits for it).
    pub fn result(&self, gpu: &Gpu) -> Result<f32> {
        let last = self
            .partials
            .last()
            .ok_or_else(|| Error::InvalidArgument("empty plan".into()))?;
        Ok(gpu.download(last)?[0])
    }
}

/// Values 0 or 1, by a multiplicative hash of the index (deterministic, about half ones).
pub fn bits(n: usize) -> Result<Vec<f32>> {
    try_from_fn(n, |i| ((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63) as f32)
}

/// The check of a tree sum of `n` values: exact while `n <= 2^24` (0/1 values: every partial
/// is an integer an f32 holds); beyond, `ceil(log2 n)` roundings of `eps/2` each, relative.
pub fn tolerance(n: usize) -> Tolerance {
    if n <= 1 << 24 {
        Tolerance::EXACT
    } else {
        Tolerance {
            abs: 0.0,
            rel: f64::from(n.next_power_of_two().trailing_zeros()) * f64::from(f32::EPSILON),
        }
    }
}

impl Example for CourseReduction {
    const ID: &'static str = "course-reduction";
    const DESCRIPTION: &'static str =
        "naive (t % stride) vs improved (t < stride) shared-memory block sums, host-iterated (IT4I course)";
    const SIZE: Option<Size> = Some(Size::new("values summed", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = CourseReductionOptions;

    /// The run's peak at `n` values: the input and every pass's partials on the device (for
    /// the `--block` given, else the lecture's), the input on the host.
    fn memory(run: &Run<CourseReductionOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let (n, per_block) = (run.size, 2 * run.args.block.max(1) as usize);
        let (mut partials, mut len) = (0usize, n);
        while len > 1 {
            len = len.div_ceil(per_block);
            partials = partials.checked_add(len)?;
        }
        Footprint::NONE
            .device::<f32>(1, n.checked_add(partials.max(1))?)?
            .host::<f32>(1, n)
    }

    /// Both kernels timed over the same input, checked against the CPU, with the speedup.
    fn run(gpu: &Gpu, run: &Run<CourseReductionOptions>) -> Result<Outcome> {
        let (n, block) = (run.size, run.args.block);
        let input = bits(n)?;
        let exact = reference::sum(&input);
        let input_d = gpu.upload(&input)?;
        let mut plan = Plan::new(gpu, n, block)?;
        println!(
            "Sum of {n} floats: {} passes of blocks of {block} threads over 2*{block} inputs ({})",
            plan.passes(),
            plan.shape()
        );
        let mut checks = Vec::new();
        let mut medians = Vec::new();
        for variant in Variant::ALL {
            let stats = time_reps(gpu, run.reps, || plan.launch(gpu, variant, &input_d))?;
            let sum = plan.result(gpu)?;
            println!(
                " {}: sum {sum}, {:.4} ms ({}), {:.1} GB/s read",
                variant.kernel(),
                stats.median_ms,
                gpu.timing_label(),
                gb_per_s(n * size_of::<f32>(), stats.median_ms)
            );
            checks.push(Check::compare(
                variant.kernel(),
                &[f64::from(sum)],
                &[exact],
                tolerance(n),
            ));
            medians.push(stats.median_ms);
        }
        println!(" speedup of the improved kernel: {:.2}x", medians[0] / medians[1]);
        Ok(Outcome { checks })
    }
}
