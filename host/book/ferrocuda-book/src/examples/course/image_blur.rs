//! course-image-blur: the course's hands-on 4 (`04_image_blur`): a 5 x 5 box blur
//! (`BLUR_SIZE = 2`) of an 8-bit grayscale image, the integer average over the box's in-image
//! pixels, 16 x 16 blocks on a `((w-1)/16+1, (h-1)/16+1)` grid; then the same blur with 4 pixels
//! by 8 rows per thread (`blur_fast`, ours), written to run at memory bandwidth, and with 4 pixels
//! by 32 rows per thread and a running column sum (`blur_stream`, ours, the performance pass).
//!
//! "No actual image, just some pattern which is easy to check for correctness": here
//! `pixel(r, c) = 2 (r mod 64) + 2 (c mod 64)` (0 to 252). Its rows and columns add up
//! separately, so the blur has a closed form from one sum per row and one per column:
//! `floor((|J| S_rows + |I| S_cols) / (|I| |J|))`, `I` and `J` the box's in-image rows and
//! columns, `S_rows = sum over I of 2 (r mod 64)`, `S_cols` likewise; where the box stays inside
//! the image and inside one period of 64, that is the pixel itself. Both kernels are checked
//! exactly against the rayon reference and against the closed form; "Everything seems OK" when
//! all agree. 4096 x 4096 on a GPU, 333 x 250 (multiples of neither 16 nor 4) on the simulator.
use super::image_shape::{grid_shape, pixels, shape};
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::course::image_blur as reference;
use book_kernels::course::image_blur::{
    BLOCK, BLUR_SIZE, BlurArgs, BlurFast, BlurKernel, BlurStream, FAST_BLUR_BLOCK, STREAM_BLUR_BLOCK, STREAM_ROWS,
};
use book_kernels::course::image_filter::PIXELS_PER_THREAD;
use book_kernels::course::image_filter::fast_grid;
use ferrocuda::footprint::{self, Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use rayon::prelude::*;

/// course-image-blur.
pub struct CourseImageBlur;

/// Side of the GPU's image (`--size N`: N x N).
pub const SIDE: usize = 4096;
/// The simulator's image, `(w, h)`.
pub const SIMULATOR_SIZE: (usize, usize) = (333, 250);

/// Period of the pattern, rows and columns.
pub const PERIOD: usize = 64;

/// The blur kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `blur_kernel`: the course's, one thread per pixel, 16 x 16 blocks.
    Course,
    /// `blur_fast`: 4 pixels x 8 rows per thread, 32 x 8 blocks.
    Fast,
    /// `blur_stream`: 4 pixels x 32 rows per thread with a running column sum, 32 x 8 blocks.
    Stream,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Course, Variant::Fast, Variant::Stream];

    /// Its kernel's name.
    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Course => "blur_kernel",
            Variant::Fast => "blur_fast",
            Variant::Stream => "blur_stream",
        }
    }

    /// Its launch over a `w x h` image.
    pub fn shape(self, w: usize, h: usize) -> Result<LaunchShape> {
        let (grid, block) = match self {
            Variant::Course => return LaunchShape::cover_2d(w, h, BLOCK),
            Variant::Fast => (fast_grid(w, h), FAST_BLUR_BLOCK),
            // One thread per 4 pixels of STREAM_ROWS rows.
            Variant::Stream => (
                (
                    w.div_ceil(PIXELS_PER_THREAD).div_ceil(STREAM_BLUR_BLOCK.0 as usize),
                    h.div_ceil(STREAM_ROWS).div_ceil(STREAM_BLUR_BLOCK.1 as usize),
                ),
                STREAM_BLUR_BLOCK,
            ),
        };
        grid_shape((w, h), grid, block)
    }
}

/// `out_d` = the blur of the `w x h` image `in_d`, by `variant`.
pub fn blur(
    gpu: &Gpu,
    variant: Variant,
    in_d: &DeviceBuffer<u8>,
    out_d: &mut DeviceBuffer<u8>,
    w: usize,
    h: usize,
) -> Result<()> {
    let n = pixels(w, h)?;
    if in_d.len() != n || out_d.len() != n {
        return Err(Error::InvalidArgument(format!(
            "a {w} x {h} blur needs {n} pixels in and out, not {} and {}",
            in_d.len(),
            out_d.len()
        )));
    }
    let args = BlurArgs {
        in_image: in_d.view(),
        out_image: out_d.view_mut(),
        w,
        h,
    };
    let shape = variant.shape(w, h)?;
    match variant {
        Variant::Course => crate::kernels(gpu)?.launch(BlurKernel, shape, args),
        Variant::Fast => crate::kernels(gpu)?.launch(BlurFast, shape, args),
        Variant::Stream => crate::kernels(gpu)?.launch(BlurStream, shape, args),
    }
}

/// The pattern at row `r`, column `c`: `2 (r mod 64) + 2 (c mod 64)`.
pub fn pattern_at(r: usize, c: usize) -> u8 {
    (2 * (r % PERIOD) + 2 * (c % PERIOD)) as u8
}

/// The `w x h` pattern image, row-major.
pub fn pattern(w: usize, h: usize) -> Result<Vec<u8>> {
    let mut image = try_vec(pixels(w, h)?, 0u8)?;
    image
        .par_chunks_mut(w)
        .enumerate()
        .for_each(|(r, row)| row.iter_mut().enumerate().for_each(|(c, p)| *p = pattern_at(r, c)));
    Ok(image)
}

/// For each index `i < len`: the in-range box positions around it and the sum of
/// `2 (position mod 64)` over them.
fn box_sums_1d(len: usize) -> Vec<(u64, u64)> {
    (0..len)
        .map(|i| {
            let (first, last) = (i.saturating_sub(BLUR_SIZE), (i + BLUR_SIZE).min(len - 1));
            let sum = (first..=last).map(|k| 2 * (k % PERIOD) as u64).sum();
            ((last - first + 1) as u64, sum)
        })
        .collect()
}

/// The blur of the pattern from its row and column sums: the closed form above.
pub fn pattern_blur_closed_form(w: usize, h: usize) -> Result<Vec<u8>> {
    let mut image = try_vec(pixels(w, h)?, 0u8)?;
    let (rows, cols) = (box_sums_1d(h), box_sums_1d(w));
    image.par_chunks_mut(w).zip(&rows).for_each(|(out, &(ni, si))| {
        for (p, &(nj, sj)) in out.iter_mut().zip(&cols) {
            *p = ((nj * si + ni * sj) / (ni * nj)) as u8;
        }
    });
    Ok(image)
}

/// True when the box around index `i` of `len` lies inside the image and one period.
fn inside(i: usize, len: usize) -> bool {
    i >= BLUR_SIZE && i + BLUR_SIZE < len && i % PERIOD >= BLUR_SIZE && i % PERIOD + BLUR_SIZE < PERIOD
}

/// Pixels whose box stays inside the image and inside one period, where the blur of the
/// pattern must be the pattern itself: `(index, value)`.
pub fn unchanged_pixels(w: usize, h: usize) -> Vec<(usize, u8)> {
    (0..h)
        .filter(|&r| inside(r, h))
        .flat_map(|r| {
            (0..w)
                .filter(move |&c| inside(c, w))
                .map(move |c| (r * w + c, pattern_at(r, c)))
        })
        .collect()
}

/// How many pixels of `out` (a `w x h` blur of the pattern) whose box lies inside the image and
/// one period keep the pattern's value, of how many such pixels: [`unchanged_pixels`] counted
/// without listing them.
pub fn unchanged_kept(out: &[u8], w: usize, h: usize) -> (usize, usize) {
    (0..h)
        .into_par_iter()
        .filter(|&r| inside(r, h))
        .map(|r| {
            (0..w).filter(|&c| inside(c, w)).fold((0, 0), |(kept, all), c| {
                (kept + usize::from(out[r * w + c] == pattern_at(r, c)), all + 1)
            })
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

impl Example for CourseImageBlur {
    const ID: &'static str = "course-image-blur";
    const DESCRIPTION: &'static str = "5 x 5 box blur of a u8 pattern image, 16 x 16 blocks, 4-pixel x 8-row and 4-pixel x 32-row streaming versions; exact (IT4I course)";
    const SIZE: Option<Size> = Some(Size::new(
        "image side in pixels, N x N (the simulator's default image is 333 x 250)",
        SIDE,
        SIMULATOR_SIZE.0,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak for an `n x n` image: the image and the blur on the device; on the host the
    /// image, the reference's blur, the closed form's and one downloaded blur (the poisoned fill is
    /// dropped before the download), and the per-row and per-column box sums.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let n = run.size;
        let p = footprint::elements(&[n, n])?;
        Footprint::NONE
            .device::<u8>(2, p)?
            .host::<u8>(4, p)?
            .host::<(u64, u64)>(2, n)
    }

    /// Blurs the pattern with every kernel (`--size N`: N x N), times them, and checks them.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let (w, h) = shape(run, gpu.pick((SIDE, SIDE), SIMULATOR_SIZE));
        let image = pattern(w, h)?;
        let expected = reference::blur(&image, w, h)?;
        let closed_form = pattern_blur_closed_form(w, h)?;
        let in_d = gpu.upload(&image)?;
        let mut out_d = gpu.zeros::<u8>(w * h)?;
        println!("Blur of a {w} x {h} u8 image, pattern 2 (row mod 64) + 2 (col mod 64), BLUR_SIZE = {BLUR_SIZE}");
        let mut checks = vec![Check::compare(
            "CPU reference vs the pattern's closed form",
            &expected,
            &closed_form,
            Tolerance::EXACT,
        )];
        for variant in Variant::ALL {
            // A poisoned output, so a pixel the kernel skips fails.
            gpu.upload_into(&try_vec(w * h, 0xa5)?, &mut out_d)?;
            let stats = time_reps(gpu, run.reps, || blur(gpu, variant, &in_d, &mut out_d, w, h))?;
            println!(
                " {:<12} {:<44} {:>9.4} ms ({}), {:>7.1} GB/s (1 byte read + 1 written per pixel)",
                variant.kernel(),
                variant.shape(w, h)?.to_string(),
                stats.median_ms,
                gpu.timing_label(),
                gb_per_s(2 * w * h, stats.median_ms)
            );
            let out = gpu.download(&out_d)?;
            checks.push(Check::compare(
                &format!("{} vs CPU", variant.kernel()),
                &out,
                &expected,
                Tolerance::EXACT,
            ));
            checks.push(Check::compare(
                &format!("{} vs closed form", variant.kernel()),
                &out,
                &closed_form,
                Tolerance::EXACT,
            ));
            let (kept, unchanged) = unchanged_kept(&out, w, h);
            checks.push(Check::condition(
                &format!(
                    "{}: the {unchanged} pixels whose box lies in one period keep their value",
                    variant.kernel(),
                ),
                kept == unchanged,
            ));
        }
        if checks.iter().all(Check::passed) {
            println!("Everything seems OK");
        }
        Ok(Outcome { checks })
    }
}
