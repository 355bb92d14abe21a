//! Stream compaction over a device buffer (CUB's `DeviceSelect`): [`flagged`] keeps the elements
//! whose flag is not 0, [`within`] those in a range, and through a [`Plan`] either of them on a
//! stream, or a kernel of your own crate with your own predicate. The kept elements go to the
//! start of the output in their order; the count is returned (or left on the device by a plan).
//!
//! One pass with decoupled look-back over the tiles' counts: each element is read once and each
//! kept one written once, in one launch (`ferrocuda_device::collective::grid::select_tiles`).
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let x = gpu.upload(&[3i32, -1, 4, -1, 5, -9, 2])?;
//! let mut kept = gpu.zeros::<i32>(7)?;
//! let n = ferrocuda::select::within(&gpu, &x, 0, i32::MAX, &mut kept)?;
//! assert_eq!(gpu.download(&kept)?[..n], [3, 4, 5, 2]);
//! let flags = gpu.upload(&[1u8, 0, 0, 1, 1, 0, 0])?;
//! let n = ferrocuda::select::flagged(&gpu, &x, &flags, &mut kept)?;
//! assert_eq!(gpu.download(&kept)?[..n], [3, -1, 5]);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use crate::look_back::{TileStatus, tiles};
use ferrocuda_device::collective::grid::{
    Flagged, SelectArgs, SelectPredicate, TileDescriptor, Within, select_shared_bytes,
};
use ferrocuda_device::launch::{DeviceCopy, Kernel};
use gpu_kernels::select::{SelectFlagged, SelectWithin};

/// An element type with the library's selection kernels: `i32`, `u32`, `u64`, `f32`, `f64`.
pub trait Select: TileDescriptor + PartialOrd + Element {
    /// Launches the library's selection by flags.
    fn launch_flagged(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: SelectArgs<'_, Self, Flagged>,
    ) -> Result<()>;
    /// Launches the library's selection by range.
    fn launch_within(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: SelectArgs<'_, Self, Within<Self>>,
    ) -> Result<()>;
}

macro_rules! select {
    ($($t:ty),*) => {$(
        impl Select for $t {
            fn launch_flagged(
                kernels: &LoadedKernels,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: SelectArgs<'_, Self, Flagged>,
            ) -> Result<()> {
                kernels.launch_maybe_on(stream, SelectFlagged, shape, args)
            }
            fn launch_within(
                kernels: &LoadedKernels,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: SelectArgs<'_, Self, Within<Self>>,
            ) -> Result<()> {
                kernels.launch_maybe_on(stream, SelectWithin, shape, args)
            }
        }
    )*};
}
select!(i32, u32, f32, u64, f64);

/// Which elements a selection by flags keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Those whose flag is not 0.
    Flagged,
    /// Those whose flag is 0.
    Unflagged,
}

/// The temporary buffers of selections of up to `capacity` elements, and the device word that
/// receives each one's count. A selection queued with it must finish before the next starts,
/// which one stream gives.
pub struct Plan {
    capacity: usize,
    tiles: TileStatus,
    selected: DeviceBuffer<u32>,
}

impl Plan {
    /// Buffers for selections of up to `capacity` elements (fewer than 2^32).
    pub fn new(gpu: &Gpu, capacity: usize) -> Result<Self> {
        if u32::try_from(capacity).is_err() {
            return Err(Error::InvalidArgument(format!(
                "a selection counts in 32 bits: {capacity} elements are too many"
            )));
        }
        Ok(Self {
            capacity,
            tiles: TileStatus::new(gpu, capacity)?,
            selected: gpu.zeros(1)?,
        })
    }

    /// Device bytes a plan for `capacity` elements holds.
    pub fn temporary_bytes(capacity: usize) -> usize {
        tiles(capacity) * size_of::<u64>() + 2 * size_of::<u32>()
    }

    /// The most elements one selection with this plan takes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The count of the last selection, on the device (`[count]`), for a kernel that follows it
    /// on the same stream.
    pub fn count_on_device(&self) -> &DeviceBuffer<u32> {
        &self.selected
    }

    /// The count of the last selection: waits for it.
    pub fn count(&self, gpu: &Gpu) -> Result<usize> {
        Ok(gpu.download(&self.selected)?[0] as usize)
    }

    /// The launch shape of a selection of `n` elements of `T`.
    pub fn shape<T: Copy>(n: usize) -> Result<LaunchShape> {
        crate::look_back::shape(n, select_shared_bytes::<T>())
    }

    /// Keeps the elements of `input` whose flag in `flags` is not 0 (with [`Keep::Unflagged`],
    /// those whose flag is 0), on `stream` or the default stream.
    #[allow(clippy::too_many_arguments)]
    pub fn flagged<T: Select>(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        keep: Keep,
        input: &DeviceBuffer<T>,
        flags: &DeviceBuffer<u8>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let kernels = gpu.library()?;
        self.run(
            &kernels,
            stream,
            Flagged {
                unflagged: u32::from(keep == Keep::Unflagged),
            },
            input,
            Some(flags),
            output,
            |shape, args| T::launch_flagged(&kernels, stream, shape, args),
        )
    }

    /// Keeps the elements `x` of `input` with `low <= x <= high` (never a NaN), on `stream` or
    /// the default stream.
    #[allow(clippy::too_many_arguments)]
    pub fn within<T: Select>(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        low: T,
        high: T,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let kernels = gpu.library()?;
        self.run(
            &kernels,
            stream,
            Within { low, high },
            input,
            None,
            output,
            |shape, args| T::launch_within(&kernels, stream, shape, args),
        )
    }

    /// Keeps the elements of `input` that `predicate` accepts with `kernel`, a kernel that calls
    /// `ferrocuda_device::collective::grid::select_tiles` (one of your crate, with your own
    /// [`SelectPredicate`]); `flags` when the predicate reads them. On `stream` or the default
    /// stream.
    #[allow(clippy::too_many_arguments)]
    pub fn select_with<T, P, K>(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        kernel: K,
        predicate: P,
        input: &DeviceBuffer<T>,
        flags: Option<&DeviceBuffer<u8>>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()>
    where
        T: Element,
        P: SelectPredicate<T> + DeviceCopy,
        K: for<'a> Kernel<SelectArgs<'a, T, P>>,
    {
        self.run(kernels, stream, predicate, input, flags, output, |shape, args| {
            kernels.launch_maybe_on(stream, kernel, shape, args)
        })
    }

    /// Checks the buffers, then `launch`es the selection.
    #[allow(clippy::too_many_arguments)]
    fn run<T: Element, P: SelectPredicate<T>>(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        predicate: P,
        input: &DeviceBuffer<T>,
        flags: Option<&DeviceBuffer<u8>>,
        output: &mut DeviceBuffer<T>,
        launch: impl FnOnce(LaunchShape, SelectArgs<'_, T, P>) -> Result<()>,
    ) -> Result<()> {
        let n = input.len();
        if output.len() < n {
            return Err(Error::InvalidArgument(format!(
                "a selection from {n} elements needs an output of at least {n}, not {}",
                output.len()
            )));
        }
        if n > self.capacity {
            return Err(Error::InvalidArgument(format!(
                "a selection plan for {} elements cannot select from {n}",
                self.capacity
            )));
        }
        let flags = match (P::READS_FLAGS, flags) {
            (true, Some(flags)) if flags.len() == n => flags.view(),
            (true, Some(flags)) => {
                return Err(Error::InvalidArgument(format!(
                    "a selection from {n} elements needs {n} flags, not {}",
                    flags.len()
                )));
            }
            (true, None) => {
                return Err(Error::InvalidArgument(
                    "this selection's predicate reads flags, and none were given".into(),
                ));
            }
            (false, _) => ferrocuda_device::global::Slice::empty(),
        };
        let stamp = self.tiles.next(kernels, stream)?;
        let shape = Self::shape::<T>(n)?;
        let args = SelectArgs {
            input: input.view(),
            flags,
            output: output.view_mut(),
            selected: self.selected.view_mut(),
            tile_status: self.tiles.status.view_mut(),
            tile_counter: self.tiles.counter.view_mut(),
            predicate,
            epoch: stamp.epoch,
            ticket_base: stamp.ticket_base,
        };
        launch(shape, args)?;
        self.tiles.launched(shape.grid.0);
        Ok(())
    }
}

/// Keeps the elements of `input` whose flag is not 0 (`flags` as long as `input`), in order, at
/// the start of `output` (at least as long as `input`); returns how many.
pub fn flagged<T: Select>(
    gpu: &Gpu,
    input: &DeviceBuffer<T>,
    flags: &DeviceBuffer<u8>,
    output: &mut DeviceBuffer<T>,
) -> Result<usize> {
    let mut plan = Plan::new(gpu, input.len())?;
    plan.flagged(gpu, None, Keep::Flagged, input, flags, output)?;
    plan.count(gpu)
}

/// Keeps the elements `x` of `input` with `low <= x <= high`, in order, at the start of `output`
/// (at least as long as `input`); returns how many. A NaN is never kept.
pub fn within<T: Select>(
    gpu: &Gpu,
    input: &DeviceBuffer<T>,
    low: T,
    high: T,
    output: &mut DeviceBuffer<T>,
) -> Result<usize> {
    let mut plan = Plan::new(gpu, input.len())?;
    plan.within(gpu, None, low, high, input, output)?;
    plan.count(gpu)
}
