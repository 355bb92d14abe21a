//! Radix sort of device buffers (CUB's `DeviceRadixSort`): keys alone ([`sort_keys`]) or keys
//! with `u32` values ([`sort_pairs`], for instance the indices that sort another array, an
//! argsort), ascending or descending, stable: equal keys keep their input order. Keys are `u32`,
//! `i32`, `f32`, `u64`, `i64` or `f64`; floats are ordered as `total_cmp` orders them (-NaN
//! first, then -inf .. -0, +0 .. +inf, +NaN last).
//!
//! Least significant digit first, 8 bits a pass (4 passes for 4-byte keys, 8 for 8-byte ones):
//! one read of the keys counts every pass's digits, then each pass reads and writes the keys once
//! in one launch, tiles chained by decoupled look-back (onesweep,
//! `ferrocuda_device::collective::grid::radix_pass_tiles`). A [`Plan`] holds the temporary
//! buffers (a second copy of the keys, and of the values, and the tiles' descriptors); the
//! functions without a plan make one per call.
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let keys = gpu.upload(&[3.5f32, -1.0, 2.0, -7.25])?;
//! let mut sorted = gpu.zeros::<f32>(4)?;
//! ferrocuda::sort::sort_keys(&gpu, &keys, &mut sorted)?;
//! assert_eq!(gpu.download(&sorted)?, [-7.25, -1.0, 2.0, 3.5]);
//!
//! // An argsort: the indices that order the keys.
//! let indices = gpu.upload(&[0u32, 1, 2, 3])?;
//! let mut order = gpu.zeros::<u32>(4)?;
//! ferrocuda::sort::sort_pairs(&gpu, &keys, &indices, &mut sorted, &mut order)?;
//! assert_eq!(gpu.download(&order)?, [3, 1, 2, 0]);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use ferrocuda_device::collective::grid::{
    MAX_SORT_LEN, RADIX_DIGITS, RadixHistogramArgs, RadixKey, RadixPassArgs, SORT_THREADS, SORT_TILE,
    radix_histogram_shared_bytes, radix_pass_shared_bytes,
};
use ferrocuda_device::global::{Slice, SliceMut};
use gpu_kernels::sort::{RadixHistogram, RadixInit, RadixInitArgs, RadixPass, RadixPassWide};

/// The order of a sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

/// A key type with the library's sort kernels: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`.
pub trait Sort: RadixKey {
    /// Launches the histogram of every pass's digits.
    fn launch_histogram(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: RadixHistogramArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches one pass.
    fn launch_pass(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: RadixPassArgs<'_, Self>,
    ) -> Result<()>;
}

macro_rules! sort {
    ($($t:ty => $pass:ident),*) => {$(
        impl Sort for $t {
            fn launch_histogram(
                kernels: &LoadedKernels,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: RadixHistogramArgs<'_, Self>,
            ) -> Result<()> {
                kernels.launch_maybe_on(stream, RadixHistogram, shape, args)
            }
            fn launch_pass(
                kernels: &LoadedKernels,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: RadixPassArgs<'_, Self>,
            ) -> Result<()> {
                kernels.launch_maybe_on(stream, $pass, shape, args)
            }
        }
    )*};
}
sort!(u32 => RadixPass, i32 => RadixPass, f32 => RadixPass, u64 => RadixPassWide, i64 => RadixPassWide, f64 => RadixPassWide);

/// Histogram blocks per SM: enough to hide the loads' latency, few enough that each block counts
/// many keys before it adds its counters to global memory.
const HISTOGRAM_BLOCKS_PER_SM: u32 = 4;

/// The temporary buffers of sorts of up to `capacity` keys (CUB's `d_temp_storage`); reuse one
/// for repeated sorts. A sort queued with it must finish before the next starts, which one stream
/// gives.
pub struct Plan<K> {
    capacity: usize,
    keys: DeviceBuffer<K>,
    /// Allocated by the first sort of pairs.
    values: Option<DeviceBuffer<u32>>,
    histograms: DeviceBuffer<u32>,
    tile_status: DeviceBuffer<u32>,
    tile_counter: DeviceBuffer<u32>,
    /// Tickets the blocks of the passes so far have taken: `tile_counter`'s value once they ran.
    tickets: u32,
}

/// Tiles of a pass over `n` keys.
fn tiles(n: usize) -> usize {
    n.div_ceil(SORT_TILE).max(1)
}

impl<K: Sort> Plan<K> {
    /// Buffers for sorts of up to `capacity` keys (at most [`MAX_SORT_LEN`], 2^30 - 1).
    pub fn new(gpu: &Gpu, capacity: usize) -> Result<Self> {
        if capacity > MAX_SORT_LEN {
            return Err(Error::InvalidArgument(format!(
                "a sort takes at most {MAX_SORT_LEN} keys (2^30 - 1), not {capacity}"
            )));
        }
        Ok(Self {
            capacity,
            keys: gpu.zeros(capacity)?,
            values: None,
            histograms: gpu.zeros(K::PASSES * RADIX_DIGITS)?,
            tile_status: gpu.zeros(tiles(capacity) * RADIX_DIGITS)?,
            tile_counter: gpu.zeros(1)?,
            tickets: 0,
        })
    }

    /// Device bytes a plan for `capacity` keys holds, with the values' copy when `pairs`.
    pub fn temporary_bytes(capacity: usize, pairs: bool) -> usize {
        let values = if pairs { capacity * size_of::<u32>() } else { 0 };
        capacity * size_of::<K>()
            + values
            + (K::PASSES * RADIX_DIGITS + tiles(capacity) * RADIX_DIGITS + 1) * size_of::<u32>()
    }

    /// The most keys one sort with this plan takes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Sorts `keys_in` into `keys_out` in `order`, on `stream` or the default stream.
    pub fn sort_keys(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        order: Order,
        keys_in: &DeviceBuffer<K>,
        keys_out: &mut DeviceBuffer<K>,
    ) -> Result<()> {
        self.run(gpu, stream, order, keys_in, keys_out, None)
    }

    /// Sorts `keys_in` into `keys_out` in `order` and moves `values_in` alongside into
    /// `values_out`, on `stream` or the default stream.
    #[allow(clippy::too_many_arguments)]
    pub fn sort_pairs(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        order: Order,
        keys_in: &DeviceBuffer<K>,
        values_in: &DeviceBuffer<u32>,
        keys_out: &mut DeviceBuffer<K>,
        values_out: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let n = keys_in.len();
        if values_in.len() != n || values_out.len() != n {
            return Err(Error::InvalidArgument(format!(
                "a sort of {n} keys moves {n} values, not {} into {}",
                values_in.len(),
                values_out.len()
            )));
        }
        if self.values.is_none() {
            self.values = Some(gpu.zeros(self.capacity)?);
        }
        self.run(gpu, stream, order, keys_in, keys_out, Some((values_in, values_out)))
    }

    /// Checks the buffers, then queues the zeroing, the histogram and the passes.
    fn run(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        order: Order,
        keys_in: &DeviceBuffer<K>,
        keys_out: &mut DeviceBuffer<K>,
        values: Option<(&DeviceBuffer<u32>, &mut DeviceBuffer<u32>)>,
    ) -> Result<()> {
        let n = keys_in.len();
        if keys_out.len() != n {
            return Err(Error::InvalidArgument(format!(
                "a sort of {n} keys needs an output of {n}, not {}",
                keys_out.len()
            )));
        }
        if n > self.capacity {
            return Err(Error::InvalidArgument(format!(
                "a sort plan for {} keys cannot sort {n}",
                self.capacity
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let kernels = gpu.library()?;
        let descending = u32::from(order == Order::Descending);
        let tiles = u32::try_from(tiles(n)).map_err(|_| Error::InvalidArgument(format!("{n} keys are too many")))?;
        let status_len = tiles as usize * RADIX_DIGITS;
        let Plan {
            keys: keys_tmp,
            values: values_tmp,
            histograms,
            tile_status,
            tile_counter,
            tickets,
            ..
        } = self;
        zero(&kernels, stream, tile_status, status_len, Some(histograms))?;
        let blocks = tiles.min(gpu.properties().multiprocessor_count * HISTOGRAM_BLOCKS_PER_SM);
        let histogram_shape = LaunchShape::new((blocks, 1, 1), (SORT_THREADS as u32, 1, 1))
            .with_shared_bytes(radix_histogram_shared_bytes() as u32);
        let histogram = RadixHistogramArgs {
            keys: keys_in.view(),
            histograms: histograms.view_mut(),
            descending,
        };
        K::launch_histogram(&kernels, stream, histogram_shape, histogram)?;
        let pass_shape = LaunchShape::new((tiles, 1, 1), (SORT_THREADS as u32, 1, 1))
            .with_shared_bytes(radix_pass_shared_bytes::<K>() as u32);
        let mut values = values.zip(values_tmp.as_mut());
        for pass in 0..K::PASSES {
            if pass > 0 {
                zero(&kernels, stream, tile_status, status_len, None)?;
            }
            let (keys_from, keys_to) = pass_views(pass, keys_in, keys_out, keys_tmp, n)?;
            let (values_from, values_to) = match &mut values {
                Some(((values_in, values_out), values_tmp)) => pass_views(pass, values_in, values_out, values_tmp, n)?,
                None => (Slice::empty(), SliceMut::empty()),
            };
            let args = RadixPassArgs {
                keys_in: keys_from,
                keys_out: keys_to,
                values_in: values_from,
                values_out: values_to,
                histograms: histograms.view(),
                tile_status: tile_status.view_mut().subview(0..status_len).ok_or_else(short)?,
                tile_counter: tile_counter.view_mut(),
                pass: pass as u32,
                descending,
                ticket_base: *tickets,
            };
            K::launch_pass(&kernels, stream, pass_shape, args)?;
            *tickets = tickets.wrapping_add(tiles);
        }
        Ok(())
    }
}

/// Zeroes the first `status_len` descriptors, and `histograms` when given.
fn zero(
    kernels: &LoadedKernels,
    stream: Option<&Stream>,
    tile_status: &mut DeviceBuffer<u32>,
    status_len: usize,
    histograms: Option<&mut DeviceBuffer<u32>>,
) -> Result<()> {
    let args = RadixInitArgs {
        tile_status: tile_status.view_mut().subview(0..status_len).ok_or_else(short)?,
        histograms: histograms.map_or(SliceMut::empty(), |h| h.view_mut()),
    };
    kernels.launch_maybe_on(stream, RadixInit, LaunchShape::cover_1d(status_len, 256)?, args)
}

/// What pass `pass` of a sort of `n` elements reads and writes: pass 0 reads the input into the
/// plan's copy, then the passes alternate between the copy and the output (an even number of
/// them, so the last writes the output).
fn pass_views<'b, T: Element>(
    pass: usize,
    input: &'b DeviceBuffer<T>,
    output: &'b mut DeviceBuffer<T>,
    copy: &'b mut DeviceBuffer<T>,
    n: usize,
) -> Result<(Slice<'b, T>, SliceMut<'b, T>)> {
    // The copy holds the plan's capacity; the sort takes its first `n` elements.
    Ok(match pass {
        0 => (input.view(), copy.view_mut().subview(0..n).ok_or_else(short)?),
        _ if pass % 2 == 1 => (copy.view().subview(0..n).ok_or_else(short)?, output.view_mut()),
        _ => (output.view(), copy.view_mut().subview(0..n).ok_or_else(short)?),
    })
}

/// The error of a plan's buffer shorter than the sort: never, as `run` checks the capacity.
fn short() -> Error {
    Error::InvalidArgument("a sort plan's buffer is shorter than the sort".into())
}

/// Sorts `keys_in` into `keys_out`, ascending, with a plan of its own.
pub fn sort_keys<K: Sort>(gpu: &Gpu, keys_in: &DeviceBuffer<K>, keys_out: &mut DeviceBuffer<K>) -> Result<()> {
    Plan::new(gpu, keys_in.len())?.sort_keys(gpu, None, Order::Ascending, keys_in, keys_out)
}

/// Sorts `keys_in` into `keys_out`, descending (equal keys keep their order), with a plan of its
/// own.
pub fn sort_keys_descending<K: Sort>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    keys_out: &mut DeviceBuffer<K>,
) -> Result<()> {
    Plan::new(gpu, keys_in.len())?.sort_keys(gpu, None, Order::Descending, keys_in, keys_out)
}

/// Sorts `keys_in` into `keys_out`, ascending, and `values_in` alongside into `values_out`, with
/// a plan of its own.
pub fn sort_pairs<K: Sort>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    values_in: &DeviceBuffer<u32>,
    keys_out: &mut DeviceBuffer<K>,
    values_out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    Plan::new(gpu, keys_in.len())?.sort_pairs(gpu, None, Order::Ascending, keys_in, values_in, keys_out, values_out)
}
