//! Device-wide reductions over a device buffer (CUB's `DeviceReduce`): [`sum`], [`min`], [`max`],
//! [`count_nonzero`], the one-pass [`sum_atomic`] and the compensated [`sum_kahan`] and
//! [`sum_pairwise`].
//!
//! Two passes: the first launches `min(ceil(n / 1024), 8 x SMs)` blocks of 256 threads (enough to
//! fill every SM; each thread folds a grid-stride share of the input, 16 bytes per load), each
//! writing one partial; the second folds the partials in one block.
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let x = gpu.upload(&vec![7.0f32; 1 << 20])?;
//! assert_eq!(ferrocuda::reduce::sum(&gpu, &x)?, 7340032.0); // a tree: exact, where a loop is not
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Element, Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use ferrocuda_device::collective::Reducible;
use gpu_kernels::reduce::{
    CHUNKS_IN_FLIGHT, CountNonzero, ReduceArgs, ReduceMax, ReduceMin, ReduceSum, ReduceSumAtomic, ReduceSumKahan,
    shared_bytes,
};

/// Threads per block of every reduction launch.
pub const THREADS_PER_BLOCK: u32 = 256;
/// First-pass blocks per SM: 8 x 256 = 2048 threads, an H100 SM's maximum.
pub const BLOCKS_PER_SM: u32 = 8;

/// The reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sum,
    Min,
    Max,
    /// One pass, block totals added with `atomicAdd`.
    SumAtomic,
}

impl Kind {
    /// The kernel's name without its type suffix (`sum`, `min`, `max`, `sum_atomic`).
    pub fn kernel_stem(self) -> &'static str {
        match self {
            Kind::Sum => "sum",
            Kind::Min => "min",
            Kind::Max => "max",
            Kind::SumAtomic => "sum_atomic",
        }
    }
}

/// An element type with the reduction kernels (`i32`, `u32`, `u64`, `f32`, `f64`).
pub trait Reduce: Reducible + Element {
    /// `value`, exactly (callers pass values every element type holds).
    fn from_u32(value: u32) -> Self;
    /// The value as `f64` (exact below 2^53).
    fn to_f64(self) -> f64;
    /// Launches the `kind` kernel from `kernels`.
    fn launch(kernels: &LoadedKernels, kind: Kind, shape: LaunchShape, args: ReduceArgs<'_, Self, Self>) -> Result<()>;
}

macro_rules! reduce {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            fn from_u32(value: u32) -> Self {
                value as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn launch(kernels: &LoadedKernels, kind: Kind, shape: LaunchShape, args: ReduceArgs<'_, Self, Self>) -> Result<()> {
                match kind {
                    Kind::Sum => kernels.launch(ReduceSum, shape, args),
                    Kind::Min => kernels.launch(ReduceMin, shape, args),
                    Kind::Max => kernels.launch(ReduceMax, shape, args),
                    Kind::SumAtomic => kernels.launch(ReduceSumAtomic, shape, args),
                }
            }
        }
    )*};
}
reduce!(i32, u32, u64, f32, f64);

/// Buffers and shapes for reducing `n` elements repeatedly (what the benchmarks time).
pub struct Plan<T> {
    blocks: u32,
    threads: u32,
    partials: DeviceBuffer<T>,
    result: DeviceBuffer<T>,
}

impl<T: Reduce> Plan<T> {
    /// A plan for `n` elements with blocks of `threads` (1 to 1024).
    pub fn new(gpu: &Gpu, n: usize, threads: u32) -> Result<Self> {
        let fill = gpu.properties().multiprocessor_count * BLOCKS_PER_SM;
        let blocks = (n.div_ceil(4 * threads.max(1) as usize) as u32).clamp(1, fill.max(1));
        Ok(Self {
            blocks,
            threads,
            partials: gpu.zeros(blocks as usize)?,
            result: gpu.zeros(1)?,
        })
    }

    /// The first pass's shape.
    pub fn shape(&self) -> LaunchShape {
        LaunchShape::new((self.blocks, 1, 1), (self.threads, 1, 1)).with_shared_bytes(shared_bytes::<T>() as u32)
    }

    /// Queues the reduction of `input` with this library's kernels.
    pub fn launch(&mut self, gpu: &Gpu, kind: Kind, input: &DeviceBuffer<T>) -> Result<()> {
        self.launch_with(&gpu.library()?, kind, input)
    }

    /// [`Plan::launch`] with the kernels of `kernels`: a set whose PTX defines the reduction
    /// entry points under the library's names and argument layouts (PTX built from other
    /// sources and loaded with [`Gpu::load_ptx`], say).
    pub fn launch_with(&mut self, kernels: &LoadedKernels, kind: Kind, input: &DeviceBuffer<T>) -> Result<()> {
        let first = self.shape();
        if kind == Kind::SumAtomic {
            kernels.gpu().upload_into(&[T::ZERO], &mut self.result)?;
            return T::launch(
                kernels,
                kind,
                first,
                ReduceArgs {
                    input: input.view(),
                    partials: self.result.view_mut(),
                },
            );
        }
        T::launch(
            kernels,
            kind,
            first,
            ReduceArgs {
                input: input.view(),
                partials: self.partials.view_mut(),
            },
        )?;
        let second = LaunchShape {
            grid: (1, 1, 1),
            ..first
        };
        T::launch(
            kernels,
            kind,
            second,
            ReduceArgs {
                input: self.partials.view(),
                partials: self.result.view_mut(),
            },
        )
    }

    /// The result of the last reduction (waits for it).
    pub fn result(&self, gpu: &Gpu) -> Result<T> {
        Ok(gpu.download(&self.result)?[0])
    }
}

fn reduce<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>, kind: Kind) -> Result<T> {
    let mut plan = Plan::new(gpu, input.len(), THREADS_PER_BLOCK)?;
    plan.launch(gpu, kind, input)?;
    plan.result(gpu)
}

/// The sum of the elements (0 for none). For floats the order is a tree, close to pairwise.
pub fn sum<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    reduce(gpu, input, Kind::Sum)
}

/// The least element (the type's greatest value, `+inf` for floats, for none).
pub fn min<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    reduce(gpu, input, Kind::Min)
}

/// The greatest element (the type's least value, `-inf` for floats, for none).
pub fn max<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    reduce(gpu, input, Kind::Max)
}

/// The sum in one pass, block totals added atomically: for floats the last bits depend on the
/// order the blocks finish in.
pub fn sum_atomic<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    reduce(gpu, input, Kind::SumAtomic)
}

/// Element types `count_nonzero` takes.
pub trait CountNonzeroInput: Reducible + Element {
    /// Launches `count_nonzero` for this type.
    fn launch_count(gpu: &Gpu, shape: LaunchShape, args: ReduceArgs<'_, Self, u64>) -> Result<()>;
}

/// Float types `sum_kahan` takes.
pub trait KahanInput: Reduce {
    /// Launches `reduce_sum_kahan` for this type.
    fn launch_kahan(gpu: &Gpu, shape: LaunchShape, args: ReduceArgs<'_, Self, Self>) -> Result<()>;
}

macro_rules! count_input {
    ($($t:ty),*) => {$(
        impl CountNonzeroInput for $t {
            fn launch_count(gpu: &Gpu, shape: LaunchShape, args: ReduceArgs<'_, Self, u64>) -> Result<()> {
                gpu.library()?.launch(CountNonzero, shape, args)
            }
        }
    )*};
}
count_input!(i32, u32, f32, f64);

macro_rules! kahan_input {
    ($($t:ty),*) => {$(
        impl KahanInput for $t {
            fn launch_kahan(gpu: &Gpu, shape: LaunchShape, args: ReduceArgs<'_, Self, Self>) -> Result<()> {
                gpu.library()?.launch(ReduceSumKahan, shape, args)
            }
        }
    )*};
}
kahan_input!(f32, f64);

/// The number of non-zero elements.
pub fn count_nonzero<T: CountNonzeroInput>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<u64> {
    let mut plan = Plan::<u64>::new(gpu, input.len(), THREADS_PER_BLOCK)?;
    T::launch_count(
        gpu,
        plan.shape(),
        ReduceArgs {
            input: input.view(),
            partials: plan.partials.view_mut(),
        },
    )?;
    let second = LaunchShape {
        grid: (1, 1, 1),
        ..plan.shape()
    };
    let args = ReduceArgs {
        input: plan.partials.view(),
        partials: plan.result.view_mut(),
    };
    u64::launch(&gpu.library()?, Kind::Sum, second, args)?;
    plan.result(gpu)
}

/// Elements each thread of [`sum_pairwise`] folds: one round of [`CHUNKS_IN_FLIGHT`] 16-byte
/// loads.
pub const PAIRWISE_ELEMENTS_PER_THREAD: usize = 4 * CHUNKS_IN_FLIGHT;

/// The sum as a pairwise (cascade) summation: every pass gives each thread at most
/// [`PAIRWISE_ELEMENTS_PER_THREAD`] elements, folds them in the block's tree, and the passes
/// repeat over the partials until one remains. Each element meets O(log n) additions, so the
/// error bound is O(log n) ulps where a loop's is O(n) (and the grid-stride [`sum`]'s grows with
/// the elements per thread). Costs one extra pass over n / 4096 partials.
pub fn sum_pairwise<T: Reduce>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    let per_block = PAIRWISE_ELEMENTS_PER_THREAD * THREADS_PER_BLOCK as usize;
    let shape = |len: usize| -> Result<LaunchShape> {
        let blocks = u32::try_from(len.div_ceil(per_block).max(1))
            .map_err(|_| crate::gpu::Error::InvalidArgument(format!("{len} elements are too many to sum")))?;
        Ok(LaunchShape::new((blocks, 1, 1), (THREADS_PER_BLOCK, 1, 1)).with_shared_bytes(shared_bytes::<T>() as u32))
    };
    let first = shape(input.len())?;
    let mut partials = gpu.zeros::<T>(first.grid.0 as usize)?;
    let kernels = gpu.library()?;
    T::launch(
        &kernels,
        Kind::Sum,
        first,
        ReduceArgs {
            input: input.view(),
            partials: partials.view_mut(),
        },
    )?;
    while partials.len() > 1 {
        let pass = shape(partials.len())?;
        let mut next = gpu.zeros::<T>(pass.grid.0 as usize)?;
        T::launch(
            &kernels,
            Kind::Sum,
            pass,
            ReduceArgs {
                input: partials.view(),
                partials: next.view_mut(),
            },
        )?;
        partials = next;
    }
    Ok(gpu.download(&partials)?[0])
}

/// The sum with Kahan compensation inside each thread and a tree across threads.
pub fn sum_kahan<T: KahanInput>(gpu: &Gpu, input: &DeviceBuffer<T>) -> Result<T> {
    let mut plan = Plan::<T>::new(gpu, input.len(), THREADS_PER_BLOCK)?;
    T::launch_kahan(
        gpu,
        plan.shape(),
        ReduceArgs {
            input: input.view(),
            partials: plan.partials.view_mut(),
        },
    )?;
    let second = LaunchShape {
        grid: (1, 1, 1),
        ..plan.shape()
    };
    let args = ReduceArgs {
        input: plan.partials.view(),
        partials: plan.result.view_mut(),
    };
    T::launch(&gpu.library()?, Kind::Sum, second, args)?;
    plan.result(gpu)
}
