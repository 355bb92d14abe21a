//! course-histogram: the IT4I course's text histogram ("Programming Massively Parallel
//! Processors" in 7 bins of 4 letters) with global atomics (`histo_kernel`) and with a privatized
//! shared histogram (`histo_privatized_kernel`), then both designs over 256 bins of bytes on a
//! large input, uniform or skewed, for the performance comparison.
//!
//! The course's kernel counts `a..=z` only; the phrase is lowercased first, as the PMPP book's
//! figure spells it, so its capitals count too.
use super::splitmix;
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::course::histogram as reference;
use book_kernels::course::histogram::{
    BYTE_BINS, Histo256Naive, Histo256Privatized, HistoArgs, HistoKernel, HistoPrivatizedKernel, LETTER_BINS,
    LETTER_SHARED_BYTES, histo256_shared_bytes,
};
use book_kernels::course::histogram_tuned::{Histo256Packed, histo256_packed_shared_bytes};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::kernels::histogram::{BytesShared, HistogramBytes, HistogramBytesArgs};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use rayon::prelude::*;
use std::ops::Range;

/// course-histogram.
pub struct CourseHistogram;

/// course-histogram's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseHistogramOptions {
    /// the 256-bin input: uniform bytes, 90% one byte, the phrase repeated, or each [default: uniform and skewed]
    #[arg(
        long,
        value_name = "uniform|skewed|text|all",
        value_enum,
        hide_possible_values = true
    )]
    pub data: Option<DataChoice>,
}

/// `--data`: one kind of 256-bin input, or all.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataChoice {
    Uniform,
    Skewed,
    Text,
    All,
}

/// The course's input.
pub const TEXT: &str = "Programming Massively Parallel Processors";
/// Bytes of the 256-bin input on a GPU: 2^28 (256 MiB, five times the H100's L2).
pub const N: usize = 1 << 28;
/// Bytes on the simulator.
pub const SIMULATOR_N: usize = 1 << 20;
/// The most bytes: every count must fit a bin's `u32` (skewed and text data put most bytes in
/// one bin), so an input of 2^32 bytes or more is refused rather than counted modulo 2^32.
pub const MAX_N: usize = u32::MAX as usize;
/// Threads per block of every histogram launch.
pub const THREADS_PER_BLOCK: u32 = 256;
/// Blocks per SM of the grid-stride launches: 8 x 256 = 2048 threads, an H100 SM's maximum
/// (8 x 8 KiB of private copies fit its shared memory).
pub const BLOCKS_PER_SM: u32 = 8;
/// The byte that skewed data repeats.
pub const SKEWED_BYTE: u8 = b'e';
/// Percent of skewed data that is [`SKEWED_BYTE`].
pub const SKEW_PERCENT: u64 = 90;

/// The 256-bin inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    /// Every byte value equally likely.
    Uniform,
    /// 90% one byte, the rest uniform.
    Skewed,
    /// The course's phrase, lowercased, repeated.
    Text,
}

impl Data {
    /// `n` bytes of this kind, the same for a given `seed`.
    pub fn generate(self, n: usize, seed: u64) -> Result<Vec<u8>> {
        let mut data = try_vec(n, 0u8)?;
        match self {
            Data::Text => {
                let phrase = format!("{} ", TEXT.to_lowercase()).into_bytes();
                data.par_iter_mut()
                    .enumerate()
                    .for_each(|(i, b)| *b = phrase[i % phrase.len()]);
            }
            Data::Uniform | Data::Skewed => splitmix::par_fill(&mut data, seed, |x| {
                if self == Data::Skewed && (x >> 32) % 100 < SKEW_PERCENT {
                    SKEWED_BYTE
                } else {
                    x as u8
                }
            }),
        }
        Ok(data)
    }

    fn label(self) -> &'static str {
        match self {
            Data::Uniform => "uniform",
            Data::Skewed => "skewed (90% one byte)",
            Data::Text => "text",
        }
    }
}

/// The histogram variants: which kernel counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `histo_kernel`, 7 letter bins, global atomics.
    Letters,
    /// `histo_privatized_kernel`, 7 letter bins, shared atomics.
    LettersPrivatized,
    /// `histo256_naive`, 256 byte bins, global atomics.
    Bytes,
    /// `histo256_privatized`, 256 byte bins, per-warp shared copies.
    BytesPrivatized,
    /// `histo256_packed`, 256 byte bins, per-thread 8-bit counters, no atomics while counting.
    BytesPacked,
    /// `histo256_warp_atomic`: the library's `histogram_bytes` (the course's design), 256 byte
    /// bins, four shared copies per warp, an atomic per byte.
    BytesWarpAtomic,
}

impl Variant {
    /// The 256-bin variants, the naive one first.
    pub const BYTES: [Variant; 4] = [
        Variant::Bytes,
        Variant::BytesPrivatized,
        Variant::BytesPacked,
        Variant::BytesWarpAtomic,
    ];

    /// Its kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Letters => "histo_kernel",
            Variant::LettersPrivatized => "histo_privatized_kernel",
            Variant::Bytes => "histo256_naive",
            Variant::BytesPrivatized => "histo256_privatized",
            Variant::BytesPacked => "histo256_packed",
            Variant::BytesWarpAtomic => "histo256_warp_atomic",
        }
    }

    /// Counters of its histogram.
    pub fn bins(self) -> usize {
        match self {
            Variant::Letters | Variant::LettersPrivatized => LETTER_BINS,
            Variant::Bytes | Variant::BytesPrivatized | Variant::BytesPacked | Variant::BytesWarpAtomic => BYTE_BINS,
        }
    }

    /// Its launch over `n` bytes: blocks of `threads` (`histo256_packed` rounds them up to whole
    /// warps), no more blocks than one 16-byte chunk per thread needs, and at most
    /// [`BLOCKS_PER_SM`] per SM; the two tuned kernels, whose shared memory and registers hold
    /// fewer, get as many per SM as reside at once, so the grid runs in one wave.
    pub fn shape(self, gpu: &Gpu, n: usize, threads: u32) -> Result<LaunchShape> {
        if threads == 0 || threads > 1024 {
            return Err(Error::InvalidArgument(format!(
                "a histogram block has 1 to 1024 threads, not {threads}"
            )));
        }
        let threads = match self {
            Variant::BytesPacked => threads.next_multiple_of(32),
            _ => threads,
        };
        let shared = match self {
            Variant::Letters | Variant::Bytes => 0,
            Variant::LettersPrivatized => LETTER_SHARED_BYTES,
            Variant::BytesPrivatized => histo256_shared_bytes(threads as usize),
            Variant::BytesPacked => histo256_packed_shared_bytes(threads as usize),
            Variant::BytesWarpAtomic => BytesShared::bytes(threads.div_ceil(32) as usize),
        } as u32;
        let kernels = || crate::kernels(gpu);
        let per_sm = match self {
            // The driver's count (shared memory and registers), after the opt-in above 48 KiB.
            Variant::BytesPacked => {
                kernels()?.allow_shared_bytes(Histo256Packed, shared)?;
                kernels()?.max_active_blocks_per_multiprocessor::<_, HistoArgs<'_>>(Histo256Packed, threads, shared)?
            }
            Variant::BytesWarpAtomic => gpu
                .load(&ferrocuda::ptx::LIBRARY)?
                .max_active_blocks_per_multiprocessor::<_, HistogramBytesArgs<'_>>(HistogramBytes, threads, shared)?,
            _ => BLOCKS_PER_SM,
        }
        .clamp(1, BLOCKS_PER_SM);
        let fill = gpu.properties().multiprocessor_count * per_sm;
        let blocks = (n.div_ceil(16 * threads as usize) as u32).clamp(1, fill.max(1));
        Ok(LaunchShape::new((blocks, 1, 1), (threads, 1, 1)).with_shared_bytes(shared))
    }
}

/// Zeroes `histo_d` ([`Variant::bins`] counters) and counts `buffer_d` into it with `variant`.
///
/// The zeroing is a copy of at most 1 KiB, so the timings of the 256 MiB inputs include it at
/// a few microseconds.
pub fn histogram(
    gpu: &Gpu,
    variant: Variant,
    buffer_d: &DeviceBuffer<u8>,
    histo_d: &mut DeviceBuffer<u32>,
    threads: u32,
) -> Result<()> {
    histogram_range(gpu, variant, buffer_d, 0..buffer_d.len(), histo_d, threads)
}

/// [`histogram`] of bytes `range` of `buffer_d`: a view that may start at any byte, so the
/// kernels' paths for views not aligned to 16 bytes run too.
pub fn histogram_range(
    gpu: &Gpu,
    variant: Variant,
    buffer_d: &DeviceBuffer<u8>,
    range: Range<usize>,
    histo_d: &mut DeviceBuffer<u32>,
    threads: u32,
) -> Result<()> {
    if histo_d.len() != variant.bins() {
        return Err(Error::InvalidArgument(format!(
            "{} counts into {} bins, not {}",
            variant.name(),
            variant.bins(),
            histo_d.len()
        )));
    }
    let what = format!("bytes {range:?} of a buffer of {}", buffer_d.len());
    let buffer = buffer_d
        .view()
        .subview(range)
        .ok_or_else(|| Error::InvalidArgument(format!("{what}: not inside it")))?;
    let shape = variant.shape(gpu, buffer.len(), threads)?;
    gpu.upload_into(&vec![0; variant.bins()], histo_d)?;
    let args = HistoArgs {
        buffer,
        histo: histo_d.view_mut(),
    };
    match variant {
        Variant::Letters => crate::kernels(gpu)?.launch(HistoKernel, shape, args),
        Variant::LettersPrivatized => crate::kernels(gpu)?.launch(HistoPrivatizedKernel, shape, args),
        Variant::Bytes => crate::kernels(gpu)?.launch(Histo256Naive, shape, args),
        Variant::BytesPrivatized => crate::kernels(gpu)?.launch(Histo256Privatized, shape, args),
        Variant::BytesPacked => crate::kernels(gpu)?.launch(Histo256Packed, shape, args),
        // The library's kernel: the course's design, as `ferrocuda::histogram::bytes` launches it.
        Variant::BytesWarpAtomic => gpu.load(&ferrocuda::ptx::LIBRARY)?.launch(
            HistogramBytes,
            shape,
            HistogramBytesArgs {
                samples: args.buffer,
                counts: args.histo,
            },
        ),
    }
}

/// The course's phrase in 7 bins, by both kernels.
fn text_histogram(gpu: &Gpu) -> Result<Vec<Check>> {
    let text = TEXT.to_lowercase().into_bytes();
    let expected = reference::letters(&text);
    let buffer_d = gpu.upload(&text)?;
    let mut histo_d = gpu.zeros::<u32>(LETTER_BINS)?;
    println!("\"{TEXT}\" (lowercased), {} bytes, 7 bins of 4 letters:", text.len());
    let labels = ["a-d", "e-h", "i-l", "m-p", "q-t", "u-x", "y-z"];
    let mut checks = Vec::new();
    for variant in [Variant::Letters, Variant::LettersPrivatized] {
        histogram(gpu, variant, &buffer_d, &mut histo_d, THREADS_PER_BLOCK)?;
        let histo = gpu.download(&histo_d)?;
        let bins: Vec<String> = labels.iter().zip(&histo).map(|(l, c)| format!("{l}: {c}")).collect();
        println!(" {:<24} {}", variant.name(), bins.join("  "));
        checks.push(Check::compare(variant.name(), &histo, &expected, Tolerance::EXACT));
    }
    Ok(checks)
}

/// The 256-bin kernels on `n` bytes of `data`: GB/s of input read and each kernel's speed-up
/// over the naive one.
fn byte_histograms(gpu: &Gpu, data: Data, n: usize, reps: usize) -> Result<Vec<Check>> {
    let input = data.generate(n, 1234)?;
    let expected = reference::bytes(&input);
    let buffer_d = gpu.upload(&input)?;
    let mut histo_d = gpu.zeros::<u32>(BYTE_BINS)?;
    println!("{n} bytes, {}, 256 bins:", data.label());
    let mut checks = Vec::new();
    let mut naive_rate = None;
    for variant in Variant::BYTES {
        let stats = time_reps(gpu, reps, || {
            histogram(gpu, variant, &buffer_d, &mut histo_d, THREADS_PER_BLOCK)
        })?;
        let rate = gb_per_s(n, stats.median_ms);
        let naive = *naive_rate.get_or_insert(rate);
        println!(
            " {:<20} {}: {:.4} ms ({}), {rate:.1} GB/s read, {:.2}x naive",
            variant.name(),
            variant.shape(gpu, n, THREADS_PER_BLOCK)?,
            stats.median_ms,
            gpu.timing_label(),
            rate / naive
        );
        checks.push(Check::compare(
            &format!("{} ({})", variant.name(), data.label()),
            &gpu.download(&histo_d)?,
            &expected,
            Tolerance::EXACT,
        ));
    }
    Ok(checks)
}

impl Example for CourseHistogram {
    const ID: &'static str = "course-histogram";
    const DESCRIPTION: &'static str = "text histogram in 7 letter bins, then 256-bin byte histograms: global atomics vs privatized shared, packed per-thread counters, per-warp copies (IT4I course)";
    const SIZE: Option<Size> = Some(Size::new("bytes of the 256-bin input", N, SIMULATOR_N).at_most(MAX_N));
    const REPS: bool = true;
    type Args = CourseHistogramOptions;

    /// The run's peak at `n` bytes: the input on the device and on the host (one kind of data at a
    /// time), and the phrase and the bins, under a KiB.
    fn memory(run: &Run<CourseHistogramOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let small = TEXT.len() + (BYTE_BINS + LETTER_BINS) * size_of::<u32>();
        Footprint::NONE.mirrored::<u8>(1, run.size.checked_add(small)?)
    }

    /// The text histogram, then the 256-bin comparison on `--data` (uniform and skewed by default).
    fn run(gpu: &Gpu, run: &Run<CourseHistogramOptions>) -> Result<Outcome> {
        let mut checks = text_histogram(gpu)?;
        let kinds: &[Data] = match run.args.data {
            None => &[Data::Uniform, Data::Skewed],
            Some(DataChoice::Uniform) => &[Data::Uniform],
            Some(DataChoice::Skewed) => &[Data::Skewed],
            Some(DataChoice::Text) => &[Data::Text],
            Some(DataChoice::All) => &[Data::Uniform, Data::Skewed, Data::Text],
        };
        for &data in kinds {
            println!();
            checks.extend(byte_histograms(gpu, data, run.size, run.reps)?);
        }
        Ok(Outcome { checks })
    }
}
