//! course-convolution: the course's convolutions (lecture "Stencil", after PMPP chapter 7): 1-D
//! in f32 (`convolution_1D_basic_kernel`, then the tiled "design 2" with `O_TILE_WIDTH` 1020 and
//! the mask in constant memory) and 2-D on 8-bit images (the basic kernel with the slide's 5 x 5
//! mask, the tiled design 2 with a 2-D output tile, and our fast kernel, 4 pixels x 8 rows per
//! thread with `dp4a`), each checked exactly against rayon; then the lecture's tile reduction
//! ratios (L6) from their formulas, beside the measured times of basic and tiled kernels.
//!
//! Choices the course leaves open: the 2-D output is normalised by the weights of the in-image
//! taps, `floor(sum / weight)` (the slide stores `(unsigned char)pixVal`, which wraps); masks of
//! other widths extend the slide's (`1 2 3 2 1` in 1-D; `m[i][j] = a[i] + a[j] - 1` with
//! `a = 1 2 .. w/2+1 .. 2 1` in 2-D, which gives the slide's 5 x 5); inputs are seeded uniform
//! values (f32 in [-1, 1), 24 bits; bytes). Sizes: 2^26 f32 and 8192 x 8192 bytes on a GPU,
//! 100003 and 333 x 250 on the simulator; `--size N`: N x N pixels and N^2 values.
use super::image_shape::{grid_shape, pixels};
use super::splitmix;
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::course::convolution as reference;
use book_kernels::course::convolution::{
    Convolution1dArgs, Convolution1dBasicKernel, Convolution1dTiledArgs, Convolution1dTiledKernel, Convolution2dArgs,
    Convolution2dBasicKernel, Convolution2dTiledArgs, Convolution2dTiledKernel, MASK_1D_WORD, MASK_2D_PACKED_WORD,
    MASK_2D_WORD, MAX_MASK_1D, MAX_MASK_2D, O_TILE_WIDTH, PACKED_WORDS_PER_ROW, tiled_1d_shared_bytes,
    tiled_2d_shared_bytes,
};
use book_kernels::course::convolution_fast::{
    Convolution2dFastArgs, Convolution2dFastM1, Convolution2dFastM3, Convolution2dFastM5, Convolution2dFastM7,
    Convolution2dFastM9, FAST_CONVOLUTION_BLOCK,
};
use book_kernels::course::image_filter::{Reciprocal, fast_grid};
use ferrocuda::footprint::{self, Footprint, try_vec, try_with_capacity};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use std::sync::{Mutex, MutexGuard};

pub mod report;

/// course-convolution.
pub struct CourseConvolution;

/// course-convolution's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseConvolutionOptions {
    /// one mask width, odd, 1 to 9 [default: 5 and 9, the widths of the lecture's tables]
    #[arg(long, value_name = "1|3|5|7|9", value_parser = mask_option)]
    pub mask: Option<usize>,
}

/// A `--mask` value: an odd width up to [`MAX_MASK_2D`].
fn mask_option(value: &str) -> std::result::Result<usize, String> {
    match value.parse::<usize>() {
        Ok(width) if width % 2 == 1 && width <= MAX_MASK_2D => Ok(width),
        _ => Err(format!("a mask width is odd and at most {MAX_MASK_2D}, not {value}")),
    }
}

/// Values of the GPU's 1-D input: 2^26 f32, 256 MiB.
pub const WIDTH_1D: usize = 1 << 26;
/// Side of the GPU's 2-D image: 8192^2 bytes, 64 MiB.
pub const SIDE_2D: usize = 8192;
/// The simulator's 1-D input.
pub const SIMULATOR_WIDTH_1D: usize = 100_003;
/// The simulator's 2-D image, `(w, h)`.
pub const SIMULATOR_SIZE_2D: (usize, usize) = (333, 250);
/// Threads per block of the 1-D basic kernel (the course does not say).
pub const BASIC_1D_THREADS: u32 = 256;
/// Blocks of the 2-D basic kernel.
pub const BASIC_2D_BLOCK: (u32, u32) = (16, 16);
/// Most threads a block may hold.
const MAX_BLOCK_THREADS: usize = 1024;
/// Seed of the inputs.
pub const SEED: u64 = 7;

/// The 1-D mask of odd `width`: `1 2 .. width/2+1 .. 2 1`.
pub fn mask_1d(width: usize) -> Vec<f32> {
    triangle(width).into_iter().map(|a| a as f32).collect()
}

/// The 2-D mask of odd `width`, row-major: `m[i][j] = a[i] + a[j] - 1`, `a` the 1-D mask; the
/// slide's `1 2 3 2 1 / 2 3 4 3 2 / 3 4 5 4 3 / 2 3 4 3 2 / 1 2 3 2 1` for 5.
pub fn mask_2d(width: usize) -> Vec<u8> {
    let a = triangle(width);
    a.iter()
        .flat_map(|&ai| a.iter().map(move |&aj| (ai + aj - 1) as u8))
        .collect()
}

fn triangle(width: usize) -> Vec<usize> {
    (0..width).map(|j| 1 + j.min(width - 1 - j)).collect()
}

/// Refuses a mask width that is even, 0, or above `max`.
fn check_mask_width(width: usize, max: usize) -> Result<()> {
    if width % 2 == 1 && width <= max {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "a mask width is odd and at most {max}, not {width}"
        )))
    }
}

/// The constant bank holds one set of masks per module: launches that read it hold this lock
/// from writing the masks to their last launch (stream order does the rest).
static CONSTANT_BANK: Mutex<()> = Mutex::new(());

/// The course's masks in the constant bank, owned while this lives (see `CONSTANT_BANK`).
pub struct ConstantMasks<'g> {
    gpu: &'g Gpu,
    _bank: MutexGuard<'static, ()>,
    mask_1d: Option<Vec<f32>>,
    /// The 2-D mask and its width.
    mask_2d: Option<(Vec<u8>, usize)>,
}

impl<'g> ConstantMasks<'g> {
    /// Takes the constant bank of `gpu` (waiting while another holds it), with no mask set.
    pub fn lock(gpu: &'g Gpu) -> Self {
        Self {
            gpu,
            _bank: CONSTANT_BANK.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
            mask_1d: None,
            mask_2d: None,
        }
    }

    /// Writes the 1-D mask (odd width up to [`MAX_MASK_1D`]) at [`MASK_1D_WORD`].
    pub fn set_1d(&mut self, mask: &[f32]) -> Result<()> {
        check_mask_width(mask.len(), MAX_MASK_1D)?;
        crate::kernels(self.gpu)?.write_constant(MASK_1D_WORD, mask)?;
        self.mask_1d = Some(mask.to_vec());
        Ok(())
    }

    /// Writes the 2-D mask (`width^2` bytes, row-major, odd width up to [`MAX_MASK_2D`]) one
    /// weight per word at [`MASK_2D_WORD`] and four per word at [`MASK_2D_PACKED_WORD`].
    pub fn set_2d(&mut self, mask: &[u8], width: usize) -> Result<()> {
        check_mask_width(width, MAX_MASK_2D)?;
        if mask.len() != width * width {
            return Err(Error::InvalidArgument(format!(
                "a {width} x {width} mask has {} weights, not {}",
                width * width,
                mask.len()
            )));
        }
        self.mask_2d = Some((mask.to_vec(), width));
        self.write_to(&crate::kernels(self.gpu)?)
    }

    /// Writes the masks set so far into `kernels`' constant bank too (a CUDA C twin's module).
    pub fn write_to(&self, kernels: &LoadedKernels) -> Result<()> {
        if let Some(mask) = &self.mask_1d {
            kernels.write_constant(MASK_1D_WORD, mask)?;
        }
        if let Some((mask, width)) = &self.mask_2d {
            let words: Vec<u32> = mask.iter().map(|&m| u32::from(m)).collect();
            kernels.write_constant(MASK_2D_WORD, &words)?;
            kernels.write_constant(MASK_2D_PACKED_WORD, &packed(mask, *width))?;
        }
        Ok(())
    }

    /// The 1-D mask's width; an error when none is set.
    fn width_1d(&self) -> Result<usize> {
        self.mask_1d
            .as_ref()
            .map(Vec::len)
            .ok_or_else(|| Error::InvalidArgument("no 1-D mask in the constant bank: call set_1d first".into()))
    }

    /// The 2-D mask's width and weight sum; an error when none is set.
    fn width_and_sum_2d(&self) -> Result<(usize, u32)> {
        self.mask_2d
            .as_ref()
            .map(|(mask, width)| (*width, mask.iter().map(|&m| u32::from(m)).sum()))
            .ok_or_else(|| Error::InvalidArgument("no 2-D mask in the constant bank: call set_2d first".into()))
    }
}

/// The 2-D mask packed for `dp4a`: row `i`, bytes `4q .. 4q+4` in word `3i + q`, zeros past
/// the width.
pub fn packed(mask: &[u8], width: usize) -> Vec<u32> {
    (0..width)
        .flat_map(|i| {
            (0..PACKED_WORDS_PER_ROW).map(move |q| {
                (0..4).fold(0u32, |word, k| {
                    let j = 4 * q + k;
                    let weight = if j < width { mask[i * width + j] } else { 0 };
                    word | u32::from(weight) << (8 * k)
                })
            })
        })
        .collect()
}

/// Refuses views of other lengths than `expected`.
fn check_lengths(what: &str, expected: usize, lengths: &[usize]) -> Result<()> {
    match lengths.iter().find(|&&len| len != expected) {
        None => Ok(()),
        Some(len) => Err(Error::InvalidArgument(format!(
            "{what} needs {expected} elements in and out, not {len}"
        ))),
    }
}

/// Refuses images of other lengths than `w * h`, in or out.
fn check_image((w, h): (usize, usize), in_d: &DeviceBuffer<u8>, out_d: &DeviceBuffer<u8>) -> Result<()> {
    check_lengths(
        &format!("a {w} x {h} convolution"),
        pixels(w, h)?,
        &[in_d.len(), out_d.len()],
    )
}

/// `p_d = n_d * m_d` (1-D, ghost cells 0) by the basic kernel, blocks of [`BASIC_1D_THREADS`].
pub fn convolution_1d_basic(
    gpu: &Gpu,
    n_d: &DeviceBuffer<f32>,
    m_d: &DeviceBuffer<f32>,
    p_d: &mut DeviceBuffer<f32>,
) -> Result<()> {
    check_mask_width(m_d.len(), MAX_MASK_1D)?;
    check_lengths("a 1-D convolution", n_d.len(), &[p_d.len()])?;
    let args = Convolution1dArgs {
        n: n_d.view(),
        m: m_d.view(),
        p: p_d.view_mut(),
        mask_width: m_d.len(),
        width: n_d.len(),
    };
    let shape = LaunchShape::cover_1d(n_d.len(), BASIC_1D_THREADS)?;
    crate::kernels(gpu)?.launch(Convolution1dBasicKernel, shape, args)
}

/// The tiled 1-D launch: blocks of `o_tile_width + mask_width - 1` threads (at most 1024).
pub fn shape_1d_tiled(width: usize, mask_width: usize, o_tile_width: usize) -> Result<LaunchShape> {
    let block = o_tile_width.saturating_add(mask_width.saturating_sub(1));
    if o_tile_width == 0 || block > MAX_BLOCK_THREADS {
        return Err(Error::InvalidArgument(format!(
            "O_TILE_WIDTH {o_tile_width} with a mask of {mask_width} makes blocks of {block} threads: 1 to {MAX_BLOCK_THREADS} output threads and halo fit"
        )));
    }
    let grid = u32::try_from((width.max(1) - 1) / o_tile_width + 1)
        .map_err(|_| Error::InvalidArgument(format!("{width} values need more blocks than a grid holds")))?;
    Ok(LaunchShape::new((grid, 1, 1), (block as u32, 1, 1)).with_shared_bytes(tiled_1d_shared_bytes(block) as u32))
}

/// `p_d = n_d * M` (1-D) by the tiled kernel, `M` the constant bank's 1-D mask.
pub fn convolution_1d_tiled(
    gpu: &Gpu,
    masks: &ConstantMasks,
    o_tile_width: usize,
    n_d: &DeviceBuffer<f32>,
    p_d: &mut DeviceBuffer<f32>,
) -> Result<()> {
    let mask_width = masks.width_1d()?;
    check_lengths("a 1-D convolution", n_d.len(), &[p_d.len()])?;
    let shape = shape_1d_tiled(n_d.len(), mask_width, o_tile_width)?;
    let args = Convolution1dTiledArgs {
        n: n_d.view(),
        p: p_d.view_mut(),
        mask_width,
        width: n_d.len(),
        o_tile_width,
    };
    crate::kernels(gpu)?.launch(Convolution1dTiledKernel, shape, args)
}

/// `out_d = in_d * mask_d` (2-D, `w x h`, normalised) by the basic kernel, 16 x 16 blocks.
pub fn convolution_2d_basic(
    gpu: &Gpu,
    in_d: &DeviceBuffer<u8>,
    mask_d: &DeviceBuffer<u8>,
    out_d: &mut DeviceBuffer<u8>,
    mask_width: usize,
    (w, h): (usize, usize),
) -> Result<()> {
    check_mask_width(mask_width, MAX_MASK_2D)?;
    check_lengths("a 2-D mask", mask_width * mask_width, &[mask_d.len()])?;
    check_image((w, h), in_d, out_d)?;
    let args = Convolution2dArgs {
        in_image: in_d.view(),
        mask: mask_d.view(),
        out_image: out_d.view_mut(),
        mask_width,
        w,
        h,
    };
    crate::kernels(gpu)?.launch(
        Convolution2dBasicKernel,
        LaunchShape::cover_2d(w, h, BASIC_2D_BLOCK)?,
        args,
    )
}

/// The tiled 2-D launch: square blocks of `o_tile_width + mask_width - 1` (at most 32) a side.
pub fn shape_2d_tiled(w: usize, h: usize, mask_width: usize, o_tile_width: usize) -> Result<LaunchShape> {
    let side = o_tile_width.saturating_add(mask_width.saturating_sub(1));
    if o_tile_width == 0 || side.saturating_mul(side) > MAX_BLOCK_THREADS {
        return Err(Error::InvalidArgument(format!(
            "O_TILE_WIDTH {o_tile_width} with a {mask_width} x {mask_width} mask makes blocks of {side} x {side} threads: at most 32 x 32 fit"
        )));
    }
    let blocks = |len: usize| (len.max(1) - 1) / o_tile_width + 1;
    let shape = grid_shape((w, h), (blocks(w), blocks(h)), (side as u32, side as u32))?;
    Ok(shape.with_shared_bytes(tiled_2d_shared_bytes(side) as u32))
}

/// `out_d = in_d * M` (2-D, normalised) by the tiled kernel, `M` the constant bank's 2-D mask.
pub fn convolution_2d_tiled(
    gpu: &Gpu,
    masks: &ConstantMasks,
    o_tile_width: usize,
    in_d: &DeviceBuffer<u8>,
    out_d: &mut DeviceBuffer<u8>,
    (w, h): (usize, usize),
) -> Result<()> {
    let (mask_width, mask_sum) = masks.width_and_sum_2d()?;
    check_image((w, h), in_d, out_d)?;
    let shape = shape_2d_tiled(w, h, mask_width, o_tile_width)?;
    let args = Convolution2dTiledArgs {
        in_image: in_d.view(),
        out_image: out_d.view_mut(),
        mask_width,
        w,
        h,
        o_tile_width,
        mask_sum,
    };
    crate::kernels(gpu)?.launch(Convolution2dTiledKernel, shape, args)
}

/// The fast 2-D launch: [`FAST_CONVOLUTION_BLOCK`] blocks, a thread per 4 pixels of 8 rows.
pub fn shape_2d_fast(w: usize, h: usize) -> Result<LaunchShape> {
    grid_shape((w, h), fast_grid(w, h), FAST_CONVOLUTION_BLOCK)
}

/// The fast kernel's arguments for the constant bank's 2-D mask.
pub fn fast_args<'a>(
    masks: &ConstantMasks,
    in_d: &'a DeviceBuffer<u8>,
    out_d: &'a mut DeviceBuffer<u8>,
    (w, h): (usize, usize),
) -> Result<(usize, Convolution2dFastArgs<'a>)> {
    let (mask_width, mask_sum) = masks.width_and_sum_2d()?;
    check_image((w, h), in_d, out_d)?;
    // Sums reach 255 times the mask's sum; an all-zero mask gives zeros everywhere.
    let by_mask_sum = Reciprocal::new(mask_sum, 255 * mask_sum).unwrap_or(Reciprocal {
        multiplier: 0,
        pre_shift: 0,
        post_shift: 0,
    });
    let args = Convolution2dFastArgs {
        in_image: in_d.view(),
        out_image: out_d.view_mut(),
        w,
        h,
        by_mask_sum,
    };
    Ok((mask_width, args))
}

/// `out_d = in_d * M` (2-D, normalised) by the fast kernel of the mask's width.
pub fn convolution_2d_fast(
    gpu: &Gpu,
    masks: &ConstantMasks,
    in_d: &DeviceBuffer<u8>,
    out_d: &mut DeviceBuffer<u8>,
    (w, h): (usize, usize),
) -> Result<()> {
    let (mask_width, args) = fast_args(masks, in_d, out_d, (w, h))?;
    let shape = shape_2d_fast(w, h)?;
    let kernels = crate::kernels(gpu)?;
    match mask_width {
        1 => kernels.launch(Convolution2dFastM1, shape, args),
        3 => kernels.launch(Convolution2dFastM3, shape, args),
        5 => kernels.launch(Convolution2dFastM5, shape, args),
        7 => kernels.launch(Convolution2dFastM7, shape, args),
        _ => kernels.launch(Convolution2dFastM9, shape, args),
    }
}

/// `n` values, uniform in [-1, 1) with 24 bits, the same for a given `seed`.
pub fn signal(n: usize, seed: u64) -> Result<Vec<f32>> {
    let mut values = try_with_capacity(n)?;
    values.extend(bits(n, seed).map(|z| (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0));
    Ok(values)
}

/// `n` uniform bytes, the same for a given `seed`.
pub fn image(n: usize, seed: u64) -> Result<Vec<u8>> {
    let mut bytes = try_with_capacity(n)?;
    bytes.extend(bits(n, seed).map(|z| (z >> 56) as u8));
    Ok(bytes)
}

/// SplitMix64 from `seed`.
fn bits(n: usize, seed: u64) -> impl Iterator<Item = u64> {
    let mut state = seed;
    (0..n).map(move |_| splitmix::next(&mut state))
}

/// The timed launches of one convolution into `out_d`, each checked against `expected`.
struct Timed<'g, T> {
    gpu: &'g Gpu,
    reps: usize,
    out_d: DeviceBuffer<T>,
    /// What `out_d` holds before each launch, so that an element not written shows.
    poison: T,
    expected: Vec<T>,
    checks: Vec<Check>,
}

impl<T: ferrocuda::gpu::Element + Copy + Into<f64>> Timed<'_, T> {
    /// Times `launch` (median of `reps`, after a warm-up), checks what it wrote as `what`, and
    /// returns the time, ms.
    fn time(&mut self, what: &str, mut launch: impl FnMut(&mut DeviceBuffer<T>) -> Result<()>) -> Result<f64> {
        let (gpu, out_d) = (self.gpu, &mut self.out_d);
        gpu.upload_into(&try_vec(out_d.len(), self.poison)?, out_d)?;
        let ms = time_reps(gpu, self.reps, || launch(out_d))?.median_ms;
        let got = gpu.download(out_d)?;
        self.checks
            .push(Check::compare(what, &got, &self.expected, Tolerance::EXACT));
        Ok(ms)
    }
}

/// The 1-D convolution with a `mask_width` mask: basic, then tiled at each measured tile.
fn one_d(gpu: &Gpu, reps: usize, width: usize, mask_width: usize) -> Result<Vec<Check>> {
    let (n, m) = (signal(width, SEED)?, mask_1d(mask_width));
    let mut timed = Timed {
        gpu,
        reps,
        out_d: gpu.zeros::<f32>(width)?,
        poison: f32::NAN,
        expected: reference::convolution_1d(&n, &m)?,
        checks: Vec::new(),
    };
    let (n_d, m_d) = (gpu.upload(&n)?, gpu.upload(&m)?);
    let mut masks = ConstantMasks::lock(gpu);
    masks.set_1d(&m)?;
    let basic_ms = timed.time(&format!("1-D basic, mask {mask_width}"), |p| {
        convolution_1d_basic(gpu, &n_d, &m_d, p)
    })?;
    let mut measured = Vec::new();
    for o_tile in report::measured_tiles_1d(mask_width) {
        let what = format!("1-D tiled, mask {mask_width}, O_TILE_WIDTH {o_tile}");
        let ms = timed.time(&what, |p| convolution_1d_tiled(gpu, &masks, o_tile, &n_d, p))?;
        measured.push((o_tile, ms));
    }
    let bytes = 2 * width * size_of::<f32>();
    report::print_1d(gpu, width, &m, (basic_ms, gb_per_s(bytes, basic_ms)), &measured);
    Ok(timed.checks)
}

/// The 2-D convolution with a `mask_width` mask: basic, tiled at each measured tile, fast.
fn two_d(gpu: &Gpu, reps: usize, (w, h): (usize, usize), mask_width: usize) -> Result<Vec<Check>> {
    let (input, mask) = (image(pixels(w, h)?, SEED)?, mask_2d(mask_width));
    let mut timed = Timed {
        gpu,
        reps,
        out_d: gpu.zeros::<u8>(w * h)?,
        poison: 0xa5,
        expected: reference::convolution_2d(&input, w, h, &mask, mask_width)?,
        checks: Vec::new(),
    };
    let (in_d, mask_d) = (gpu.upload(&input)?, gpu.upload(&mask)?);
    let mut masks = ConstantMasks::lock(gpu);
    masks.set_2d(&mask, mask_width)?;
    let basic_ms = timed.time(&format!("2-D basic, mask {mask_width}"), |out| {
        convolution_2d_basic(gpu, &in_d, &mask_d, out, mask_width, (w, h))
    })?;
    let mut measured = Vec::new();
    for o_tile in report::measured_tiles_2d(mask_width) {
        let what = format!("2-D tiled, mask {mask_width}, O_TILE_WIDTH {o_tile}");
        let ms = timed.time(&what, |out| {
            convolution_2d_tiled(gpu, &masks, o_tile, &in_d, out, (w, h))
        })?;
        measured.push((o_tile, ms));
    }
    let fast_ms = timed.time(&format!("2-D fast, mask {mask_width}"), |out| {
        convolution_2d_fast(gpu, &masks, &in_d, out, (w, h))
    })?;
    report::print_2d(gpu, (w, h), mask_width, basic_ms, &measured, fast_ms);
    Ok(timed.checks)
}

impl Example for CourseConvolution {
    const ID: &'static str = "course-convolution";
    const DESCRIPTION: &'static str = "1-D and 2-D convolution: basic, tiled design 2 with a constant-memory mask, fast dp4a 2-D; L6 tile ratios (IT4I course, PMPP)";
    const SIZE: Option<Size> = Some(Size::new(
        "image side: N x N bytes in 2-D and N^2 f32 values in 1-D (the simulator's defaults are 333 x 250 and 100003)",
        SIDE_2D,
        SIMULATOR_SIZE_2D.0,
    ));
    const REPS: bool = true;
    type Args = CourseConvolutionOptions;

    /// The run's peak at `--size n`: the 1-D phase's N^2 f32 input and output on the device, and
    /// on the host the input, the reference's output and one downloaded output (the poisoned fill
    /// is dropped before the download); the 2-D phase needs as many bytes as the 1-D needs f32s.
    fn memory(run: &Run<CourseConvolutionOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let values = footprint::elements(&[run.size, run.size])?;
        Footprint::NONE.device::<f32>(2, values)?.host::<f32>(3, values)
    }

    /// Both convolutions at mask widths 5 and 9 (or `--mask`), with the L6 tables.
    fn run(gpu: &Gpu, run: &Run<CourseConvolutionOptions>) -> Result<Outcome> {
        let widths = match run.args.mask {
            Some(width) => vec![width],
            None => vec![5, 9],
        };
        let (width_1d, size_2d) = match run.size_given {
            true => (pixels(run.size, run.size)?, (run.size, run.size)),
            false => gpu.pick((WIDTH_1D, (SIDE_2D, SIDE_2D)), (SIMULATOR_WIDTH_1D, SIMULATOR_SIZE_2D)),
        };
        println!(
            "Convolution (median of {} launches, {}); the course's O_TILE_WIDTH for 1-D is {O_TILE_WIDTH} (blocks of 1024 with a 5-wide mask)",
            run.reps,
            gpu.timing_label()
        );
        let mut checks = Vec::new();
        for &mask_width in &widths {
            println!();
            checks.extend(one_d(gpu, run.reps, width_1d, mask_width)?);
        }
        for &mask_width in &widths {
            println!();
            checks.extend(two_d(gpu, run.reps, size_2d, mask_width)?);
        }
        println!();
        report::print_ratio_tables();
        Ok(Outcome { checks })
    }
}
