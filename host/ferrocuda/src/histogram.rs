//! Histograms of device buffers (CUB's `DeviceHistogram::HistogramEven`): [`bytes`] counts each
//! byte value (256 bins), [`even`] counts `i32`, `u32` or `f32` samples into `counts.len()`
//! equal bins over `lower..upper` (samples outside, and NaNs, are not counted). The counts are
//! overwritten; the `_on` forms queue the same on a stream.
//!
//! Each block counts into copies of the bins in shared memory, then adds its totals to the
//! counts once (`gpu_kernels::histogram`); bins that do not fit in shared memory are counted
//! with global atomics.
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let text = gpu.upload(b"hello, world")?;
//! let mut counts = gpu.zeros::<u32>(256)?;
//! ferrocuda::histogram::bytes(&gpu, &text, &mut counts)?;
//! assert_eq!(gpu.download(&counts)?[b'l' as usize], 3);
//!
//! let samples = gpu.upload(&[0.5f32, 1.5, 1.7, 3.9, 4.0, -0.1])?;
//! let mut bins = gpu.zeros::<u32>(4)?; // [0, 1), [1, 2), [2, 3), [3, 4)
//! ferrocuda::histogram::even(&gpu, &samples, 0.0, 4.0, &mut bins)?;
//! assert_eq!(gpu.download(&bins)?, [1, 2, 0, 1]);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use gpu_kernels::histogram::{
    BYTE_BINS, BytesShared, EvenShared, HistogramBytes, HistogramBytesArgs, HistogramClear, HistogramClearArgs,
    HistogramEven, HistogramEvenArgs,
};

pub use gpu_kernels::histogram::EvenBins;

/// Threads per histogram block.
const THREADS: u32 = 256;
/// Warps per histogram block.
const WARPS: usize = THREADS as usize / 32;
/// The most blocks per SM of a histogram launch: as many as reside at once, up to this, so that
/// the grid runs in one wave.
const BLOCKS_PER_SM: u32 = 6;
/// Shared memory a block's copies of the bins may take, bytes: within the 48 KiB every launch
/// gets without opting in.
const SHARED_BUDGET: usize = 48 * 1024;

/// A sample type with the library's even-bin kernels: `i32`, `u32`, `f32`.
pub trait Even: EvenBins + Element + std::fmt::Debug {
    /// Launches the even-bin histogram of `Self`.
    fn launch(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: HistogramEvenArgs<'_, Self>,
    ) -> Result<()>;
    /// Blocks of the histograms' threads (256) with `shared` bytes that reside on an SM at once.
    fn resident(kernels: &LoadedKernels, shared: u32) -> Result<u32>;
}
macro_rules! even {
    ($($t:ty),*) => {$(
        impl Even for $t {
            fn launch(
                kernels: &LoadedKernels,
                stream: Option<&Stream>,
                shape: LaunchShape,
                args: HistogramEvenArgs<'_, Self>,
            ) -> Result<()> {
                kernels.launch_maybe_on(stream, HistogramEven, shape, args)
            }
            fn resident(kernels: &LoadedKernels, shared: u32) -> Result<u32> {
                kernels.max_active_blocks_per_multiprocessor::<_, HistogramEvenArgs<'_, Self>>(HistogramEven, THREADS, shared)
            }
        }
    )*};
}
even!(i32, u32, f32);

/// The grid of a histogram of `n` samples with `resident` blocks per SM at once: one wave over
/// the SMs, or fewer blocks for fewer samples (each thread counts at least 16).
fn grid(gpu: &Gpu, n: usize, resident: u32) -> u32 {
    let wanted = n.div_ceil(16 * THREADS as usize).max(1);
    let wave = gpu.properties().multiprocessor_count * resident.clamp(1, BLOCKS_PER_SM);
    wave.min(u32::try_from(wanted).unwrap_or(u32::MAX))
}

/// Zeroes `counts` on `stream`.
fn clear(kernels: &LoadedKernels, stream: Option<&Stream>, counts: &mut DeviceBuffer<u32>) -> Result<()> {
    let shape = LaunchShape::cover_1d(counts.len(), 256)?;
    kernels.launch_maybe_on(
        stream,
        HistogramClear,
        shape,
        HistogramClearArgs {
            counts: counts.view_mut(),
        },
    )
}

/// Counts each byte value of `samples` into `counts` (256 of them), on `stream` or the default
/// stream.
pub fn bytes_on(
    gpu: &Gpu,
    stream: Option<&Stream>,
    samples: &DeviceBuffer<u8>,
    counts: &mut DeviceBuffer<u32>,
) -> Result<()> {
    if counts.len() != BYTE_BINS {
        return Err(Error::InvalidArgument(format!(
            "a byte histogram has {BYTE_BINS} counts, not {}",
            counts.len()
        )));
    }
    let kernels = gpu.library()?;
    clear(&kernels, stream, counts)?;
    let shared = BytesShared::bytes(WARPS) as u32;
    let resident =
        kernels.max_active_blocks_per_multiprocessor::<_, HistogramBytesArgs<'_>>(HistogramBytes, THREADS, shared)?;
    let shape = LaunchShape::new((grid(gpu, samples.len(), resident), 1, 1), (THREADS, 1, 1)).with_shared_bytes(shared);
    let args = HistogramBytesArgs {
        samples: samples.view(),
        counts: counts.view_mut(),
    };
    kernels.launch_maybe_on(stream, HistogramBytes, shape, args)
}

/// Counts each byte value of `samples` into `counts` (256 of them).
pub fn bytes(gpu: &Gpu, samples: &DeviceBuffer<u8>, counts: &mut DeviceBuffer<u32>) -> Result<()> {
    bytes_on(gpu, None, samples, counts)
}

/// Counts `samples` into `counts.len()` equal bins over `lower..upper`, on `stream` or the
/// default stream (see [`EvenBins::bin`] for the rounding).
pub fn even_on<T: Even>(
    gpu: &Gpu,
    stream: Option<&Stream>,
    samples: &DeviceBuffer<T>,
    lower: T,
    upper: T,
    counts: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let bins = counts.len();
    if bins == 0 || u32::try_from(bins).is_err() {
        return Err(Error::InvalidArgument(format!(
            "a histogram has from 1 to 2^32 - 1 bins, not {bins}"
        )));
    }
    // A NaN bound is unordered: refused too.
    if lower.partial_cmp(&upper) != Some(std::cmp::Ordering::Less) {
        return Err(Error::InvalidArgument(format!(
            "a histogram's lower bound must be below its upper one: {lower:?} .. {upper:?}"
        )));
    }
    let kernels = gpu.library()?;
    clear(&kernels, stream, counts)?;
    // As many copies as the budget holds, up to one per warp; none for bins that do not fit.
    let copies = (SHARED_BUDGET / (bins * size_of::<u32>())).min(WARPS);
    let shared = EvenShared::bytes(copies, bins) as u32;
    let resident = T::resident(&kernels, shared)?;
    let shape = LaunchShape::new((grid(gpu, samples.len(), resident), 1, 1), (THREADS, 1, 1)).with_shared_bytes(shared);
    let args = HistogramEvenArgs {
        samples: samples.view(),
        counts: counts.view_mut(),
        lower,
        upper,
        copies: copies as u32,
    };
    T::launch(&kernels, stream, shape, args)
}

/// Counts `samples` into `counts.len()` equal bins over `lower..upper`.
pub fn even<T: Even>(
    gpu: &Gpu,
    samples: &DeviceBuffer<T>,
    lower: T,
    upper: T,
    counts: &mut DeviceBuffer<u32>,
) -> Result<()> {
    even_on(gpu, None, samples, lower, upper, counts)
}
