//! course-equalise: histogram equalisation of a gray picture, the course's histogram (lecture
//! "Atomics") carried to the image task it serves. Three steps, each checked exactly against
//! rayon: the 256-bin histogram (`histogram_u8`: a shared layout, block-scope atomics in shared
//! memory, device-scope atomics into the global bins; and the library's, `ferrocuda::histogram::
//! bytes`, beside it), its inclusive prefix sum (`ferrocuda::scan::inclusive_sum`), and the map
//! `(cdf(v) - cdf_min) * 255 / (n - cdf_min)`, rounded to nearest (`equalise_map`).
//!
//! The picture is low-contrast: each pixel the sum of two seeded values of 0..32 plus 64, so
//! 63 values from 64 to 126 in a triangle; equalised, they spread from 0 to 255. Sizes: 8192 x
//! 8192 on a GPU, 333 x 250 on the simulator; `--size N` makes it N x N.
use super::image_shape::{pixels, shape};
use super::splitmix::par_fill;
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use book_kernels::course::equalise::{BINS, EqualiseArgs, EqualiseMap, HistogramArgs, HistogramShared, HistogramU8};
use ferrocuda::footprint::{self, Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use rayon::prelude::*;

/// course-equalise.
pub struct CourseEqualise;

/// Side of the GPU's picture: 8192^2 bytes, 64 MiB.
pub const SIDE: usize = 8192;
/// The simulator's picture.
pub const SIMULATOR_SIZE: (usize, usize) = (333, 250);
/// Seed of the picture.
pub const SEED: u64 = 11;
/// Threads per block of both kernels.
pub const THREADS: u32 = 256;
/// Blocks per SM of the histogram: enough to fill the SMs, few enough that each block's 256
/// global adds stay a small part of its work.
pub const HISTOGRAM_BLOCKS_PER_SM: u32 = 4;

/// The low-contrast picture: `64 + a + b`, `a` and `b` seeded values of `0..32`.
pub fn picture(n: usize) -> Result<Vec<u8>> {
    let mut values = try_vec(n, 0u8)?;
    par_fill(&mut values, SEED, |x| 64 + (x & 31) as u8 + ((x >> 32) & 31) as u8);
    Ok(values)
}

/// The histogram of `pixels_d` into `bins_d` (zeroed here), on `gpu`'s SMs.
pub fn histogram(gpu: &Gpu, pixels_d: &DeviceBuffer<u8>, bins_d: &mut DeviceBuffer<u32>) -> Result<()> {
    gpu.upload_into(&[0u32; BINS], bins_d)?;
    let fill = gpu.properties().multiprocessor_count * HISTOGRAM_BLOCKS_PER_SM;
    let blocks = (pixels_d.len().div_ceil(16 * THREADS as usize) as u32).clamp(1, fill.max(1));
    let shape = LaunchShape::new((blocks, 1, 1), (THREADS, 1, 1)).with_shared_bytes(HistogramShared::bytes() as u32);
    let args = HistogramArgs {
        pixels: pixels_d.view(),
        bins: bins_d.view_mut(),
    };
    crate::kernels(gpu)?.launch(HistogramU8, shape, args)
}

/// `equalised_d` = the equalisation of `pixels_d` through `cdf_d`, whose first non-zero value is
/// `cdf_min`.
pub fn equalise(
    gpu: &Gpu,
    pixels_d: &DeviceBuffer<u8>,
    cdf_d: &DeviceBuffer<u32>,
    cdf_min: u32,
    equalised_d: &mut DeviceBuffer<u8>,
) -> Result<()> {
    let args = EqualiseArgs {
        pixels: pixels_d.view(),
        equalised: equalised_d.view_mut(),
        cdf: cdf_d.view(),
        cdf_min,
    };
    crate::kernels(gpu)?.launch(EqualiseMap, LaunchShape::cover_1d(pixels_d.len(), THREADS)?, args)
}

/// The CPU's histogram, its running sum, and the equalised picture (in f64, rounded half up).
fn reference(picture: &[u8]) -> (Vec<u32>, Vec<u32>, Vec<u8>) {
    let bins = picture
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut bins = vec![0u32; BINS];
            chunk.iter().for_each(|&p| bins[p as usize] += 1);
            bins
        })
        .reduce(
            || vec![0u32; BINS],
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        );
    let cdf: Vec<u32> = bins
        .iter()
        .scan(0u32, |running, &count| {
            *running += count;
            Some(*running)
        })
        .collect();
    let cdf_min = cdf.iter().copied().find(|&c| c > 0).unwrap_or(0);
    let span = (picture.len() as u64 - u64::from(cdf_min)) as f64;
    let map = |v: u8| match span {
        0.0 => 0,
        _ => ((cdf[v as usize] - cdf_min) as f64 * 255.0 / span + 0.5).floor() as u8,
    };
    let equalised = picture.par_iter().map(|&v| map(v)).collect();
    (bins, cdf, equalised)
}

impl Example for CourseEqualise {
    const ID: &'static str = "course-equalise";
    const DESCRIPTION: &'static str = "histogram equalisation of an 8192^2 gray picture: shared-memory histogram with scoped atomics (and ferrocuda::histogram's), ferrocuda::scan of its bins, the map; each step exact against rayon (IT4I course, atomics)";
    const SIZE: Option<Size> = Some(Size::new(
        "picture side in pixels, N x N (the simulator's default picture is 333 x 250)",
        SIDE,
        SIMULATOR_SIZE.0,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak for an `n x n` picture: the picture and its equalisation on the device; on
    /// the host the picture, the downloaded equalisation and the reference's.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let p = footprint::elements(&[run.size, run.size])?;
        Footprint::NONE.device::<u8>(2, p)?.host::<u8>(3, p)
    }

    /// Equalises the picture (`--size N`: N x N), times each step, and checks each exactly.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let (width, height) = shape(run, gpu.pick((SIDE, SIDE), SIMULATOR_SIZE));
        let n = pixels(width, height)?;
        let picture = picture(n)?;
        let pixels_d = gpu.upload(&picture)?;
        let (mut bins_d, mut cdf_d) = (gpu.zeros::<u32>(BINS)?, gpu.zeros::<u32>(BINS)?);
        let mut equalised_d = gpu.zeros::<u8>(n)?;
        let histogram_ms = time_reps(gpu, run.reps, || histogram(gpu, &pixels_d, &mut bins_d))?.median_ms;
        // The library's histogram of the same bytes, beside the course's kernel.
        let mut library_bins_d = gpu.zeros::<u32>(BINS)?;
        let library_ms = time_reps(gpu, run.reps, || {
            ferrocuda::histogram::bytes(gpu, &pixels_d, &mut library_bins_d)
        })?
        .median_ms;
        let scan_ms = time_reps(gpu, run.reps, || {
            ferrocuda::scan::inclusive_sum(gpu, &bins_d, &mut cdf_d)
        })?
        .median_ms;
        let cdf = gpu.download(&cdf_d)?;
        let cdf_min = cdf.iter().copied().find(|&c| c > 0).unwrap_or(0);
        let map_ms = time_reps(gpu, run.reps, || {
            equalise(gpu, &pixels_d, &cdf_d, cdf_min, &mut equalised_d)
        })?
        .median_ms;
        let (bins, equalised) = (gpu.download(&bins_d)?, gpu.download(&equalised_d)?);
        let used = |counts: &[u32]| counts.iter().filter(|&&c| c > 0).count();
        let range = |values: &[u8]| (values.iter().min().copied(), values.iter().max().copied());
        let (low, high) = range(&picture);
        let (new_low, new_high) = range(&equalised);
        println!(
            "histogram equalisation of {width} x {height} gray bytes ({})",
            gpu.timing_label()
        );
        println!(
            " picture: values {} to {}, {} of {BINS} bins used",
            low.unwrap_or(0),
            high.unwrap_or(0),
            used(&bins)
        );
        println!(
            " histogram_u8:  {histogram_ms:.4} ms, {:.1} GB/s read (shared bins, block-scope atomics)",
            gb_per_s(n, histogram_ms)
        );
        println!(
            " ferrocuda::histogram::bytes: {library_ms:.4} ms, {:.1} GB/s read",
            gb_per_s(n, library_ms)
        );
        println!(
            " scan of the bins: {:.2} us (ferrocuda::scan::inclusive_sum)",
            scan_ms * 1e3
        );
        println!(
            " equalise_map:  {map_ms:.4} ms, {:.1} GB/s (1 byte read + 1 written per pixel)",
            gb_per_s(2 * n, map_ms)
        );
        println!(
            " equalised: values {} to {}",
            new_low.unwrap_or(0),
            new_high.unwrap_or(0)
        );
        let (want_bins, want_cdf, want_equalised) = reference(&picture);
        let checks = vec![
            Check::compare("histogram", &bins, &want_bins, Tolerance::EXACT),
            Check::compare(
                "histogram (ferrocuda::histogram::bytes)",
                &gpu.download(&library_bins_d)?,
                &want_bins,
                Tolerance::EXACT,
            ),
            Check::compare("cumulative histogram (scan)", &cdf, &want_cdf, Tolerance::EXACT),
            Check::compare("equalised picture", &equalised, &want_equalised, Tolerance::EXACT),
            Check::condition(
                "the equalised picture spans 0 to 255 (or is one value)",
                low == high || (new_low, new_high) == (Some(0), Some(255)),
            ),
        ];
        Ok(Outcome { checks })
    }
}
