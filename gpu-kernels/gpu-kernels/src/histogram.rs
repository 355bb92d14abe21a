//! Histograms (CUB's `DeviceHistogram::HistogramEven`): [`histogram_bytes`], 256 bins of bytes,
//! and [`histogram_even`], `counts.len()` equal bins over `lower..upper` of 4-byte samples. The
//! host API is `ferrocuda::histogram`.
//!
//! Both count into copies of the bins in shared memory with shared atomics (several copies, so
//! that lanes of one warp with one bin wait on fewer others), then add each block's non-zero
//! totals to `counts` in global memory once.
use ferrocuda_device::math::byte_perm;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;
use ferrocuda_device::warp::WARP_SIZE;

/// Bins of a byte histogram: one per value.
pub const BYTE_BINS: usize = 256;
/// Shared copies of the byte bins per warp: lane `l` counts into copy `l % 4`.
pub const BYTE_COPIES_PER_WARP: usize = 4;
/// Words between two copies of the byte bins: one of padding, so that the copies' bins fall in
/// different banks.
const BYTE_COPY_STRIDE: usize = BYTE_BINS + 1;

/// Arguments of [`histogram_bytes`]: `counts[b]` gains the number of bytes `b` in `samples`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct HistogramBytesArgs<'a> {
    pub samples: Slice<'a, u8>,
    /// [`BYTE_BINS`] counters.
    pub counts: SliceMut<'a, u32>,
}

ferrocuda_device::shared_layout! {
    /// A byte-histogram block's copies of the bins: [`BYTE_COPIES_PER_WARP`] per warp.
    pub struct BytesShared(warps: usize) {
        pub copies: Tile1d<u32>[warps * BYTE_COPIES_PER_WARP * BYTE_COPY_STRIDE],
    }
}

/// Counts the bytes of `samples` into `counts` (the course's `histo256_warp_atomic` design, as a
/// library kernel): 16 bytes a load, each byte's bin extracted by `prmt`, one shared atomic per
/// byte.
///
/// Launch: blocks of whole warps, any grid (one that fills the SMs is fastest),
/// `BytesShared::bytes(warps per block)` of shared memory.
#[kernel(max_threads = 1024)]
pub fn histogram_bytes(args: HistogramBytesArgs<'_>) {
    let (t, threads) = (thread_idx_x(), block_dim().x);
    let BytesShared { copies } = BytesShared::carve(threads.div_ceil(WARP_SIZE));
    zero(&copies);
    let copy = (t / WARP_SIZE * BYTE_COPIES_PER_WARP + t % BYTE_COPIES_PER_WARP) * BYTE_COPY_STRIDE;
    if copy + BYTE_BINS > copies.len() {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: every call passes a byte (`& 0xff`, a zero-extending `prmt` or a `u8`), below 256,
    // and the copy's 256 bins lie inside `copies` (tested above).
    let count = |byte: u32| unsafe { copies.atomic_add_shared_unchecked(copy + byte as usize, 1) };
    let count_word = |w: u32| {
        count(w & 0xff);
        count(byte_perm(w, 0, 0x4441));
        count(byte_perm(w, 0, 0x4442));
        count(byte_perm(w, 0, 0x4443));
    };
    let mut counted = 0;
    if let Some(words) = args.samples.words()
        && words.is_aligned16()
    {
        // Two chunks a step, as in `histogram_even`.
        let (chunks, stride) = (words.len() / 4, grid_size_x());
        let mut chunk = global_idx_x();
        while chunk + stride < chunks {
            let (a, b) = (words.get4(chunk), words.get4(chunk + stride));
            a.into_iter().chain(b).for_each(count_word);
            chunk += 2 * stride;
        }
        if chunk < chunks {
            words.get4(chunk).into_iter().for_each(count_word);
        }
        counted = 16 * chunks;
    }
    for i in (counted + global_idx_x()..args.samples.len()).step_by(grid_size_x()) {
        count(u32::from(args.samples.get(i)));
    }
    sync_threads();
    add_copies(&copies, BYTE_BINS, BYTE_COPY_STRIDE, &args.counts);
}

/// A sample type [`histogram_even`] bins: `i32`, `u32`, `f32`.
pub trait EvenBins: Element4 + PartialOrd {
    /// What [`EvenBins::bin_prepared`] needs: the bounds, and the division prepared once.
    type Binner: Copy;
    /// The bin of `self` among `bins` equal bins over `lower..upper`, or `None` outside (and for a
    /// NaN). Floats: `((x - lower) * (bins / (upper - lower))) as u32` in the sample's precision,
    /// at most `bins - 1`; integers: `(x - lower) * bins / (upper - lower)` rounded down, exact.
    /// The definition the tests check the kernel against.
    fn bin(self, lower: Self, upper: Self, bins: u32) -> Option<u32>;
    /// Prepares [`EvenBins::bin_prepared`] for `bins` bins over `lower..upper`.
    fn binner(lower: Self, upper: Self, bins: u32) -> Self::Binner;
    /// [`EvenBins::bin`], the same result, with the division prepared by `binner` once per
    /// thread rather than per sample.
    fn bin_prepared(self, binner: &Self::Binner) -> Option<u32>;
}

/// [`EvenBins::Binner`] of `f32`: the bounds, `bins / (upper - lower)` and the last bin.
#[derive(Clone, Copy, Debug)]
pub struct FloatBinner {
    lower: f32,
    upper: f32,
    scale: f32,
    last: u32,
}

impl EvenBins for f32 {
    type Binner = FloatBinner;
    #[inline(always)]
    fn bin(self, lower: f32, upper: f32, bins: u32) -> Option<u32> {
        (lower <= self && self < upper).then(|| {
            let scale = bins as f32 / (upper - lower);
            (((self - lower) * scale) as u32).min(bins.saturating_sub(1))
        })
    }
    #[inline(always)]
    fn binner(lower: f32, upper: f32, bins: u32) -> FloatBinner {
        FloatBinner {
            lower,
            upper,
            scale: bins as f32 / (upper - lower),
            last: bins.saturating_sub(1),
        }
    }
    #[inline(always)]
    fn bin_prepared(self, b: &FloatBinner) -> Option<u32> {
        (b.lower <= self && self < b.upper).then(|| math::f32_to_u32_rz((self - b.lower) * b.scale).min(b.last))
    }
}

/// [`EvenBins::Binner`] of the integers: the bounds, the bins, the range `upper - lower`, and
/// whether `range * bins` fits in 32 bits, where `multiplier = ceil(2^64 / range)` divides any
/// `a < 2^32` as `floor(multiplier * a / 2^64)` (Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation", 2019): two 32-bit multiplies a sample where a 64-bit division costs a
/// subroutine.
#[derive(Clone, Copy, Debug)]
pub struct IntegerBinner<T> {
    lower: T,
    upper: T,
    bins: u32,
    range: u64,
    narrow: bool,
    multiplier: u64,
}

/// `floor(a / range)` by `multiplier = ceil(2^64 / range)`, for `a < 2^32`, `range >= 2` (and
/// `a = 0` for `range = 1`, whose multiplier wraps to 0).
#[inline(always)]
fn divide_by_multiplier(a: u32, multiplier: u64) -> u32 {
    let a = u64::from(a);
    // The top 64 bits of the 96-bit `multiplier * a`, less its low 32 bits.
    let upper = (multiplier >> 32) * a + (((multiplier & 0xffff_ffff) * a) >> 32);
    (upper >> 32) as u32
}

macro_rules! integer_bins {
    ($($t:ty => $wide:ty),*) => {$(
        impl EvenBins for $t {
            type Binner = IntegerBinner<$t>;
            #[inline(always)]
            fn bin(self, lower: $t, upper: $t, bins: u32) -> Option<u32> {
                (lower <= self && self < upper).then(|| {
                    let offset = (self as $wide - lower as $wide) as u64;
                    let range = (upper as $wide - lower as $wide) as u64;
                    // `range > 0`: `lower <= self < upper`.
                    (offset * u64::from(bins)).checked_div(range).unwrap_or(0) as u32
                })
            }
            #[inline(always)]
            fn binner(lower: $t, upper: $t, bins: u32) -> IntegerBinner<$t> {
                let range = (upper as $wide).wrapping_sub(lower as $wide) as u64;
                IntegerBinner {
                    lower,
                    upper,
                    bins,
                    range,
                    narrow: range.checked_mul(u64::from(bins)).is_some_and(|r| r <= 1 << 32),
                    multiplier: (u64::MAX.checked_div(range).unwrap_or(0)).wrapping_add(1),
                }
            }
            #[inline(always)]
            fn bin_prepared(self, b: &IntegerBinner<$t>) -> Option<u32> {
                (b.lower <= self && self < b.upper).then(|| {
                    let offset = (self as $wide - b.lower as $wide) as u64;
                    if b.narrow {
                        // `offset * bins < range * bins <= 2^32`.
                        divide_by_multiplier(offset as u32 * b.bins, b.multiplier)
                    } else {
                        (offset * u64::from(b.bins)).checked_div(b.range).unwrap_or(0) as u32
                    }
                })
            }
        }
    )*};
}
integer_bins!(i32 => i64, u32 => u64);

/// Arguments of [`histogram_even`]: `counts[b]` gains the number of `samples` in bin `b` of
/// `counts.len()` equal bins over `lower..upper` (see [`EvenBins::bin`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct HistogramEvenArgs<'a, T> {
    pub samples: Slice<'a, T>,
    pub counts: SliceMut<'a, u32>,
    pub lower: T,
    pub upper: T,
    /// Shared copies of the bins per block: 0 counts straight into `counts` (bins that do not
    /// fit in shared memory).
    pub copies: u32,
}

ferrocuda_device::shared_layout! {
    /// An even-bin histogram block's copies of the bins.
    pub struct EvenShared(copies: usize, bins: usize) {
        pub copies: Tile1d<u32>[copies * bins],
    }
}

/// Counts `samples` into equal bins; warp `w` counts into copy `w % copies`.
///
/// Launch: any grid of one-dimensional blocks, `EvenShared::bytes(copies, bins)` of shared
/// memory.
#[kernel(i32, u32, f32, max_threads = 1024)]
pub fn histogram_even<T: EvenBins>(args: HistogramEvenArgs<'_, T>) {
    let bins = args.counts.len();
    if bins == 0 {
        // No bin to count into (and the unchecked count below needs one).
        return;
    }
    let copies = args.copies as usize;
    let EvenShared { copies: shared } = EvenShared::carve(copies, bins);
    if copies > 0 {
        zero(&shared);
    }
    let base = if copies > 0 {
        thread_idx_x() / WARP_SIZE % copies * bins
    } else {
        0
    };
    let binner = T::binner(args.lower, args.upper, bins as u32);
    let count = |x: T| {
        if let Some(bin) = x.bin_prepared(&binner) {
            if copies > 0 {
                // SAFETY: `bin < bins` (a bin is below the bin count), so `base + bin <
                // copies * bins`, the tile's length.
                unsafe { shared.atomic_add_shared_unchecked(base + bin as usize, 1) };
            } else {
                args.counts.atomic_add_no_return(bin as usize, 1);
            }
        }
    };
    let n = args.samples.len();
    let mut counted = 0;
    if args.samples.is_aligned16() {
        // Two chunks a step, both loads issued before either is counted: twice the bytes in
        // flight per thread.
        let (chunks, stride) = (n / 4, grid_size_x());
        let mut chunk = global_idx_x();
        while chunk + stride < chunks {
            let (a, b) = (args.samples.get4(chunk), args.samples.get4(chunk + stride));
            a.into_iter().chain(b).for_each(count);
            chunk += 2 * stride;
        }
        if chunk < chunks {
            args.samples.get4(chunk).into_iter().for_each(count);
        }
        counted = chunks * 4;
    }
    for i in (counted + global_idx_x()..n).step_by(grid_size_x()) {
        count(args.samples.get(i));
    }
    if copies > 0 {
        sync_threads();
        add_copies(&shared, bins, bins, &args.counts);
    }
}

/// Zeroes a block's copies; ends with a barrier.
///
/// Call from: every thread of the block.
#[inline(always)]
fn zero(copies: &Tile1d<u32>) {
    let mut at = thread_idx_x();
    while at < copies.len() {
        copies.set(at, 0);
        at += block_dim().x;
    }
    // Every thread has zeroed its share before any counts.
    sync_threads();
}

/// Adds the block's copies (`stride` words apart) of each of `bins` bins to `counts`, once per
/// non-zero bin.
///
/// Call from: every thread of the block, after a barrier that ends the counting.
#[inline(always)]
fn add_copies(copies: &Tile1d<u32>, bins: usize, stride: usize, counts: &SliceMut<'_, u32>) {
    // (`stride` is 0 for a launch with no counts.)
    let n = copies.len().checked_div(stride).unwrap_or(0);
    let mut bin = thread_idx_x();
    while bin < bins {
        let mut total = 0;
        for copy in 0..n {
            total += copies.get(copy * stride + bin);
        }
        if total > 0 {
            counts.atomic_add_no_return(bin, total);
        }
        bin += block_dim().x;
    }
}

/// Arguments of [`histogram_clear`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct HistogramClearArgs<'a> {
    pub counts: SliceMut<'a, u32>,
}

/// Zeroes the counts before a histogram, on its stream.
#[kernel]
pub fn histogram_clear(args: HistogramClearArgs<'_>) {
    for i in grid_stride_range(args.counts.len()) {
        args.counts.set(i, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bin_prepared` (the kernel's) against `bin` (the definition), on both sides of the
    /// 32-bit bound `range * bins <= 2^32` where the multiplier takes over from the division.
    #[test]
    fn prepared_integer_bins_are_the_definition() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 32) as u32
        };
        for _ in 0..20_000 {
            let (a, b) = (next() as i32, next() as i32);
            let (lower, upper) = (a.min(b), a.max(b).max(a.min(b).saturating_add(1)));
            let range = (i64::from(upper) - i64::from(lower)) as u64;
            let bins = match next() % 3 {
                0 => next() % 300 + 1,
                // At the bound: `range * bins` just under, at and just over 2^32.
                1 => ((1u64 << 32) / range).clamp(1, u64::from(u32::MAX)) as u32 + next() % 2,
                _ => next() % 100_000 + 1,
            };
            let binner = i32::binner(lower, upper, bins);
            for x in [
                lower,
                upper - 1,
                upper,
                lower.saturating_sub(1),
                next() as i32,
                lower.wrapping_add((next() as u64 % range) as i32),
            ] {
                assert_eq!(
                    x.bin_prepared(&binner),
                    x.bin(lower, upper, bins),
                    "{x} in {bins} bins over {lower}..{upper}"
                );
                let (x, lower, upper) = (
                    x as u32,
                    lower as u32,
                    (upper as u32).max((lower as u32).saturating_add(1)),
                );
                let binner = u32::binner(lower, upper, bins);
                assert_eq!(
                    x.bin_prepared(&binner),
                    x.bin(lower, upper, bins),
                    "{x} in {bins} bins over {lower}..{upper}"
                );
            }
        }
    }

    #[test]
    fn prepared_float_bins_are_the_definition() {
        let binner = f32::binner(-50.0, 900.5, 7);
        for x in [
            -50.0,
            -49.9,
            0.0,
            135.8,
            899.0,
            900.4,
            900.5,
            -51.0,
            f32::NAN,
            f32::INFINITY,
        ] {
            assert_eq!(x.bin_prepared(&binner), x.bin(-50.0, 900.5, 7), "{x}");
        }
    }
}
