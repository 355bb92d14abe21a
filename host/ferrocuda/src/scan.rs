//! Device-wide scans over a device buffer (CUB's `DeviceScan`): [`inclusive_sum`],
//! [`exclusive_sum`], running [`inclusive_min`] and [`inclusive_max`], and through a [`Plan`] any
//! of them with an initial value, on a stream, or with a kernel of your own crate that scans with
//! your own associative operation.
//!
//! One pass with decoupled look-back: each element is read once and written once, in one launch
//! (`ferrocuda_device::collective::grid`). A [`Plan`] holds the temporary buffers (one 8-byte
//! descriptor and two values per tile of [`SCAN_TILE`] elements, and a counter); the functions
//! without a plan make one per call.
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let x = gpu.upload(&[3u32, 1, 4, 1, 5])?;
//! let mut sums = gpu.zeros::<u32>(5)?;
//! ferrocuda::scan::inclusive_sum(&gpu, &x, &mut sums)?;
//! assert_eq!(gpu.download(&sums)?, [3, 4, 8, 9, 14]);
//! ferrocuda::scan::exclusive_sum(&gpu, &x, &mut sums)?;
//! assert_eq!(gpu.download(&sums)?, [0, 3, 4, 8, 9]);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use crate::look_back::{TileStatus, tiles};
use ferrocuda_device::collective::Reducible;
use ferrocuda_device::collective::grid::{ScanArgs, TileDescriptor, scan_shared_bytes};
use ferrocuda_device::launch::Kernel;
use gpu_kernels::scan::{ScanMax, ScanMaxWide, ScanMin, ScanMinWide, ScanSum, ScanSumWide};

pub use ferrocuda_device::collective::grid::{SCAN_THREADS, SCAN_TILE};

/// Which elements an output element combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `output[i]` combines `initial` and `input[..=i]`.
    Inclusive,
    /// `output[i]` combines `initial` and `input[..i]`: `output[0] == initial`.
    Exclusive,
}

/// The library's scan operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Sum,
    /// The least so far (NaN-free input).
    Min,
    /// The greatest so far (NaN-free input).
    Max,
}

impl Op {
    /// The operation's identity: what a plain scan starts from.
    pub fn identity<T: Reducible>(self) -> T {
        match self {
            Op::Sum => T::ZERO,
            Op::Min => T::GREATEST,
            Op::Max => T::LEAST,
        }
    }
}

/// An element type with the library's scan kernels: `i32`, `u32`, `u64`, `f32`, `f64`.
pub trait Scan: TileDescriptor + Reducible + Element {
    /// Launches the `op` scan from `kernels`, on `stream` or the default one.
    fn launch(
        kernels: &LoadedKernels,
        op: Op,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: ScanArgs<'_, Self>,
    ) -> Result<()>;
}

macro_rules! scan {
    ($($t:ty => $sum:ident, $min:ident, $max:ident;)*) => {$(
        impl Scan for $t {
            fn launch(
                kernels: &LoadedKernels,
                op: Op,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: ScanArgs<'_, Self>,
            ) -> Result<()> {
                match op {
                    Op::Sum => kernels.launch_maybe_on(stream, $sum, shape, args),
                    Op::Min => kernels.launch_maybe_on(stream, $min, shape, args),
                    Op::Max => kernels.launch_maybe_on(stream, $max, shape, args),
                }
            }
        }
    )*};
}
scan! {
    i32 => ScanSum, ScanMin, ScanMax;
    u32 => ScanSum, ScanMin, ScanMax;
    f32 => ScanSum, ScanMin, ScanMax;
    u64 => ScanSumWide, ScanMinWide, ScanMaxWide;
    f64 => ScanSumWide, ScanMinWide, ScanMaxWide;
}

/// The temporary buffers of scans of up to `capacity` elements (CUB's `d_temp_storage`); reuse
/// one for repeated scans. A scan queued with it must finish before the next starts, which one
/// stream gives (the default stream, or the same [`Stream`] each time).
pub struct Plan<T> {
    capacity: usize,
    tiles: TileStatus,
    tile_values: DeviceBuffer<T>,
}

impl<T: TileDescriptor + Element> Plan<T> {
    /// Buffers for scans of up to `capacity` elements.
    pub fn new(gpu: &Gpu, capacity: usize) -> Result<Self> {
        Ok(Self {
            capacity,
            tiles: TileStatus::new(gpu, capacity)?,
            tile_values: gpu.zeros(2 * tiles(capacity))?,
        })
    }

    /// Device bytes a plan for `capacity` elements holds.
    pub fn temporary_bytes(capacity: usize) -> usize {
        tiles(capacity) * (size_of::<u64>() + 2 * size_of::<T>()) + size_of::<u32>()
    }

    /// The most elements one scan with this plan takes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The scan's launch shape for `n` elements: a block of [`SCAN_THREADS`] per tile.
    pub fn shape(n: usize) -> Result<LaunchShape> {
        crate::look_back::shape(n, scan_shared_bytes::<T>())
    }

    /// Scans `input` into `output` with `kernel`, a kernel that calls
    /// `ferrocuda_device::collective::grid::scan_tiles` (one of your crate, with your own
    /// operation), after `initial`; on `stream`, or the default stream. An error when the lengths
    /// differ or pass the plan's capacity; nothing is launched for empty buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn scan_with<K>(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        kernel: K,
        mode: Mode,
        initial: T,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()>
    where
        K: for<'a> Kernel<ScanArgs<'a, T>>,
    {
        self.run(kernels, stream, mode, initial, input, output, |shape, args| {
            kernels.launch_maybe_on(stream, kernel, shape, args)
        })
    }

    /// Zeroes the descriptors, then `launch`es the scan.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        mode: Mode,
        initial: T,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        launch: impl FnOnce(LaunchShape, ScanArgs<'_, T>) -> Result<()>,
    ) -> Result<()> {
        let n = input.len();
        if output.len() != n {
            return Err(Error::InvalidArgument(format!(
                "a scan of {n} elements needs an output of {n}, not {}",
                output.len()
            )));
        }
        if n > self.capacity {
            return Err(Error::InvalidArgument(format!(
                "a scan plan for {} elements cannot scan {n}",
                self.capacity
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let stamp = self.tiles.next(kernels, stream)?;
        let shape = Self::shape(n)?;
        let args = ScanArgs {
            input: input.view(),
            output: output.view_mut(),
            tile_status: self.tiles.status.view_mut(),
            tile_values: self.tile_values.view_mut(),
            tile_counter: self.tiles.counter.view_mut(),
            initial,
            exclusive: u32::from(mode == Mode::Exclusive),
            epoch: stamp.epoch,
            ticket_base: stamp.ticket_base,
        };
        launch(shape, args)?;
        self.tiles.launched(shape.grid.0);
        Ok(())
    }

    /// Zeroes the descriptors and the counter on `stream` (`scan_init`) and starts the epochs
    /// again, as the plan does itself once every [`MAX_EPOCH`](ferrocuda_device::collective::grid::MAX_EPOCH) scans, when they run out.
    /// `kernels` is any set loaded on the plan's GPU.
    pub fn restart(&mut self, kernels: &LoadedKernels, stream: Option<&Stream>) -> Result<()> {
        self.tiles.restart(kernels, stream)
    }
}

impl<T: Scan> Plan<T> {
    /// Scans `input` into `output` with the library's `op`, after `initial` (`op.identity()` for
    /// a plain scan), on `stream` or the default stream.
    #[allow(clippy::too_many_arguments)]
    pub fn scan(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        op: Op,
        mode: Mode,
        initial: T,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let kernels = gpu.library()?;
        self.run(&kernels, stream, mode, initial, input, output, |shape, args| {
            T::launch(&kernels, op, stream, shape, args)
        })
    }
}

/// One scan with a plan of its own, on the default stream.
fn scan_once<T: Scan>(
    gpu: &Gpu,
    op: Op,
    mode: Mode,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
) -> Result<()> {
    Plan::new(gpu, input.len())?.scan(gpu, None, op, mode, op.identity(), input, output)
}

/// `output[i] = input[0] + .. + input[i]`. For floats the order of the additions is a tree
/// within each thread's and block's share, then left to right across tiles.
pub fn inclusive_sum<T: Scan>(gpu: &Gpu, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
    scan_once(gpu, Op::Sum, Mode::Inclusive, input, output)
}

/// `output[i] = input[0] + .. + input[i - 1]`, `output[0] = 0`.
pub fn exclusive_sum<T: Scan>(gpu: &Gpu, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
    scan_once(gpu, Op::Sum, Mode::Exclusive, input, output)
}

/// `output[i]` = the least of `input[..=i]`.
pub fn inclusive_min<T: Scan>(gpu: &Gpu, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
    scan_once(gpu, Op::Min, Mode::Inclusive, input, output)
}

/// `output[i]` = the greatest of `input[..=i]`.
pub fn inclusive_max<T: Scan>(gpu: &Gpu, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
    scan_once(gpu, Op::Max, Mode::Inclusive, input, output)
}
