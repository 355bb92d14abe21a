//! The course's image and stencil kernels over the working set (a 16384-pixel-wide 8-bit image
//! of `--size-mib` MiB, 512 MiB by default, 10 times the H100's L2): the blurs and the 2-D
//! convolutions (the slide's 5 x 5 mask) against memcpy and their CUDA C twins
//! (`nvcc/course/{image_blur,convolution}.cu`), then the 1-D convolutions, the colour conversion
//! and the matrix sums.
//!
//! Bytes counted: each pixel read once and written once (2 per pixel), though the kernels read
//! their neighbours too (from L1 and L2); the colour conversion 3 + 1 per pixel; the 1-D
//! convolution 4 + 4 per value; the matrix sums read 4 per element.
use super::nvcc::Twins;
use super::{Measured, Row, Settings, measure, measure_twin};
use crate::examples::course::color_convert;
use crate::examples::course::convolution::{self, BASIC_1D_THREADS, BASIC_2D_BLOCK, ConstantMasks};
use crate::examples::course::image_blur::Variant as BlurVariant;
use crate::examples::course::matrix_sum::{self, Sums};
use crate::nvcc::LoadOr;
use book_kernels::course::color_convert::{CHANNELS, ColorConvert, ColorConvertArgs};
use book_kernels::course::convolution::{
    Convolution1dArgs, Convolution1dBasicKernel, Convolution1dTiledArgs, Convolution1dTiledKernel, Convolution2dArgs,
    Convolution2dBasicKernel, Convolution2dTiledArgs, Convolution2dTiledKernel, O_TILE_WIDTH,
};
use book_kernels::course::convolution_fast::Convolution2dFastM5;
use book_kernels::course::image_blur::{BlurArgs, BlurFast, BlurKernel, BlurStream};
use book_kernels::course::matrix_sum::{MatrixSumArgs, MatrixSumEachCol, MatrixSumEachRow};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, LoadedKernels, Result};

/// Width of the benchmark image, pixels.
pub const WIDTH: usize = 16384;
/// The course's mask width.
const MASK_WIDTH: usize = 5;
/// The 2-D tiled kernel's output tile: blocks of 32 x 32 threads with a 5-wide mask.
pub const O_TILE_2D: usize = 28;

/// Every row: the 8-bit image kernels first (with twins), then the others.
pub fn run(gpu: &Gpu, settings: &Settings, twins: Option<&Twins>) -> Result<Vec<Measured>> {
    let height = (settings.elements::<u8>()? / WIDTH).max(1);
    let (w, h) = (WIDTH, height);
    let in_d = gpu.upload(&convolution::image(w * h, 1234)?)?;
    let mut out_d = gpu.zeros::<u8>(w * h)?;
    let bytes = 2 * w * h;
    let mut rows = Vec::new();
    let twin = twins.map(|t| &t.image_blur);
    for variant in BlurVariant::ALL {
        let shape = variant.shape(w, h)?;
        let args = BlurArgs {
            in_image: in_d.view(),
            out_image: out_d.view_mut(),
            w,
            h,
        };
        let row = Row {
            name: format!("{} {w}x{h}", variant.kernel()),
            shape,
            bytes,
            launch: Box::new(move |m: Option<&LoadedKernels>| {
                let kernels = gpu.load_or(m, &crate::KERNELS)?;
                match variant {
                    BlurVariant::Course => kernels.launch(BlurKernel, shape, args),
                    BlurVariant::Fast => kernels.launch(BlurFast, shape, args),
                    BlurVariant::Stream => kernels.launch(BlurStream, shape, args),
                }
            }),
        };
        rows.push(measure_twin(gpu, row, twin, args.out_image.as_slice(), settings.reps)?);
    }
    rows.extend(convolutions_2d(
        gpu,
        settings,
        twins.map(|t| &t.convolution),
        (&in_d, &mut out_d),
        (w, h),
    )?);
    rows.extend(others(gpu, settings)?);
    Ok(rows)
}

/// The 2-D convolutions with the slide's mask: basic (16 x 16), tiled (O_TILE_WIDTH 28, blocks
/// of 32 x 32), fast.
fn convolutions_2d(
    gpu: &Gpu,
    settings: &Settings,
    twin: Option<&LoadedKernels>,
    (in_d, out_d): (&DeviceBuffer<u8>, &mut DeviceBuffer<u8>),
    (w, h): (usize, usize),
) -> Result<Vec<Measured>> {
    let mask = convolution::mask_2d(MASK_WIDTH);
    let mask_d = gpu.upload(&mask)?;
    let mut masks = ConstantMasks::lock(gpu);
    masks.set_2d(&mask, MASK_WIDTH)?;
    if let Some(twin) = twin {
        masks.write_to(twin)?;
    }
    let mask_sum: u32 = mask.iter().map(|&m| u32::from(m)).sum();
    let bytes = 2 * w * h;
    let mut rows = Vec::new();

    let shape = LaunchShape::cover_2d(w, h, BASIC_2D_BLOCK)?;
    let args = Convolution2dArgs {
        in_image: in_d.view(),
        mask: mask_d.view(),
        out_image: out_d.view_mut(),
        mask_width: MASK_WIDTH,
        w,
        h,
    };
    let name = format!("convolution_2d_basic_kernel m{MASK_WIDTH}");
    let row = Row::kernel(gpu, name, shape, bytes, Convolution2dBasicKernel, args);
    rows.push(measure_twin(gpu, row, twin, args.out_image.as_slice(), settings.reps)?);

    let shape = convolution::shape_2d_tiled(w, h, MASK_WIDTH, O_TILE_2D)?;
    let args = Convolution2dTiledArgs {
        in_image: in_d.view(),
        out_image: out_d.view_mut(),
        mask_width: MASK_WIDTH,
        w,
        h,
        o_tile_width: O_TILE_2D,
        mask_sum,
    };
    let name = format!("convolution_2d_tiled_kernel m{MASK_WIDTH} o{O_TILE_2D}");
    let row = Row::kernel(gpu, name, shape, bytes, Convolution2dTiledKernel, args);
    rows.push(measure_twin(gpu, row, twin, args.out_image.as_slice(), settings.reps)?);

    let shape = convolution::shape_2d_fast(w, h)?;
    let (_, args) = convolution::fast_args(&masks, in_d, out_d, (w, h))?;
    let name = format!("convolution_2d_fast_m{MASK_WIDTH}");
    let row = Row::kernel(gpu, name, shape, bytes, Convolution2dFastM5, args);
    rows.push(measure_twin(gpu, row, twin, args.out_image.as_slice(), settings.reps)?);
    Ok(rows)
}

/// The 1-D convolutions (basic, tiled with the course's O_TILE_WIDTH), the colour conversion
/// and the matrix sums, without twins.
fn others(gpu: &Gpu, settings: &Settings) -> Result<Vec<Measured>> {
    let mut rows = Vec::new();
    let n = settings.elements::<f32>()?;
    let (n_d, m_d) = (
        gpu.upload(&convolution::signal(n, 1)?)?,
        gpu.upload(&convolution::mask_1d(MASK_WIDTH))?,
    );
    let mut p_d = gpu.zeros::<f32>(n)?;
    let mut masks = ConstantMasks::lock(gpu);
    masks.set_1d(&convolution::mask_1d(MASK_WIDTH))?;
    let bytes = 2 * n * size_of::<f32>();
    let shape = LaunchShape::cover_1d(n, BASIC_1D_THREADS)?;
    let args = Convolution1dArgs {
        n: n_d.view(),
        m: m_d.view(),
        p: p_d.view_mut(),
        mask_width: MASK_WIDTH,
        width: n,
    };
    let name = format!("convolution_1d_basic_kernel m{MASK_WIDTH}");
    let row = Row::kernel(gpu, name, shape, bytes, Convolution1dBasicKernel, args);
    rows.push(measure(gpu, row, None, settings.reps)?);
    let shape = convolution::shape_1d_tiled(n, MASK_WIDTH, O_TILE_WIDTH)?;
    let args = Convolution1dTiledArgs {
        n: n_d.view(),
        p: p_d.view_mut(),
        mask_width: MASK_WIDTH,
        width: n,
        o_tile_width: O_TILE_WIDTH,
    };
    let name = format!("convolution_1d_tiled_kernel m{MASK_WIDTH}");
    let row = Row::kernel(gpu, name, shape, bytes, Convolution1dTiledKernel, args);
    rows.push(measure(gpu, row, None, settings.reps)?);
    drop(masks);

    // The colour conversion over a picture of 4 bytes a pixel in and out: 1/4 of the working
    // set in gray pixels.
    let pixels = (settings.elements::<u8>()? / (CHANNELS + 1)).max(1);
    let (pw, ph) = (WIDTH.min(pixels), (pixels / WIDTH).max(1));
    let rgb_d = gpu.upload(&color_convert::picture(pw, ph)?)?;
    let mut gray_d = gpu.zeros::<u8>(pw * ph)?;
    let shape = LaunchShape::cover_2d(pw, ph, color_convert::BLOCK)?;
    let args = ColorConvertArgs {
        gray_image: gray_d.view_mut(),
        rgb_image: rgb_d.view(),
        width: pw,
        height: ph,
    };
    let (name, bytes) = (format!("color_convert {pw}x{ph}"), (CHANNELS + 1) * pw * ph);
    let row = Row::kernel(gpu, name, shape, bytes, ColorConvert, args);
    rows.push(measure(gpu, row, None, settings.reps)?);

    let side = (settings.elements::<f32>()? as f64).sqrt() as usize;
    let a_d = gpu.upload(&matrix_sum::matrix(side, side, 1)?)?;
    for which in [Sums::EachRow, Sums::EachCol] {
        let mut sums_d = gpu.zeros::<f32>(side)?;
        let shape = LaunchShape::cover_1d(side, matrix_sum::THREADS_PER_BLOCK)?;
        let args = MatrixSumArgs {
            a: a_d.view(),
            sums: sums_d.view_mut(),
            rows: side,
            cols: side,
        };
        let (name, bytes) = (format!("{} {side}^2", which.kernel()), side * side * size_of::<f32>());
        let row = match which {
            Sums::EachRow => Row::kernel(gpu, name, shape, bytes, MatrixSumEachRow, args),
            Sums::EachCol => Row::kernel(gpu, name, shape, bytes, MatrixSumEachCol, args),
        };
        rows.push(measure(gpu, row, None, settings.reps)?);
    }
    Ok(rows)
}
