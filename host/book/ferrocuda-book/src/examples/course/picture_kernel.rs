//! course-picture-kernel: the course's `PictureKernel` (after PMPP §3.2) doubles a 76 x 62
//! picture (`n = 76` columns, `m = 62` rows, f32) with 16 x 16 blocks on a 5 x 4 grid, and the
//! slide's point: the blocks take "4 different paths" through the `Row < m && Col < n` test,
//! depending on whether they overhang the right edge, the bottom edge, both, or neither.
//!
//! The path counts are computed from the grid's arithmetic and checked against asking every
//! thread (the CPU reference); the doubled picture is checked exactly.
use super::image_shape::{pixels, shape};
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::course::picture_kernel as reference;
use book_kernels::course::picture_kernel::{PictureArgs, PictureKernel};
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// course-picture-kernel.
pub struct CoursePictureKernel;

/// The course's picture: `n = 76` pixels wide.
pub const N: usize = 76;
/// `m = 62` pixels high.
pub const M: usize = 62;
/// The course's blocks.
pub const BLOCK: (u32, u32) = (16, 16);

/// `pout = 2 pin` over an `n x m` picture with `block`-sized blocks on the course's grid.
pub fn picture(
    gpu: &Gpu,
    pin_d: &DeviceBuffer<f32>,
    pout_d: &mut DeviceBuffer<f32>,
    n: usize,
    m: usize,
    block: (u32, u32),
) -> Result<()> {
    let p = pixels(n, m)?;
    if pin_d.len() != p || pout_d.len() != p {
        return Err(Error::InvalidArgument(format!(
            "an {n} x {m} picture needs {p} pixels in and out, not {} and {}",
            pin_d.len(),
            pout_d.len()
        )));
    }
    let shape = LaunchShape::cover_2d(n, m, block)?;
    let args = PictureArgs {
        pin: pin_d.view(),
        pout: pout_d.view_mut(),
        n,
        m,
    };
    crate::kernels(gpu)?.launch(PictureKernel, shape, args)
}

/// One of the four paths through `if ((Row < m) && (Col < n))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    /// What the block overhangs.
    pub label: &'static str,
    /// Blocks taking it.
    pub blocks: usize,
    /// Threads of each such block that pass the test.
    pub working_threads: usize,
}

/// The four paths of a grid of `block`s over an `n x m` picture: blocks wholly inside, those
/// overhanging the right edge only, the bottom edge only, and both.
pub fn paths(n: usize, m: usize, block: (usize, usize)) -> [Path; 4] {
    let (full_x, full_y) = (n / block.0, m / block.1);
    let (last_x, last_y) = (n % block.0, m % block.1);
    let (edge_x, edge_y) = (usize::from(last_x > 0), usize::from(last_y > 0));
    [
        ("inside: every thread works", full_x * full_y, block.0 * block.1),
        ("right edge: Col >= n for some", edge_x * full_y, last_x * block.1),
        ("bottom edge: Row >= m for some", full_x * edge_y, block.0 * last_y),
        ("corner: both", edge_x * edge_y, last_x * last_y),
    ]
    .map(|(label, blocks, working_threads)| Path {
        label,
        blocks,
        working_threads,
    })
}

impl Example for CoursePictureKernel {
    const ID: &'static str = "course-picture-kernel";
    const DESCRIPTION: &'static str = "PictureKernel: double a 76 x 62 f32 picture with 16 x 16 blocks; the 4 paths of divergence (IT4I course, PMPP)";
    const SIZE: Option<Size> = Some(Size::new(
        "picture side in pixels, N x N (the default picture is the course's 76 x 62)",
        N,
        N,
    ));
    type Args = NoOptions;

    /// The run's peak for an `n x n` picture: Pin and Pout on the device; on the host Pin, the
    /// downloaded Pout and the reference's (the NaN fill of Pout is gone by then), and the per-block
    /// thread counts, two f64 and one usize per 16 x 16 block.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let n = run.size;
        let p = footprint::elements(&[n, n])?;
        let blocks = footprint::elements(&[n.div_ceil(BLOCK.0 as usize), n.div_ceil(BLOCK.1 as usize)])?;
        Footprint::NONE
            .device::<f32>(2, p)?
            .host::<f32>(3, p)?
            .host::<f64>(3, blocks)
    }

    /// The course's 76 x 62 picture (or `--size N`: N x N), doubled and checked; the paths printed.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let (n, m) = shape(run, (N, M));
        let p = pixels(n, m)?;
        let pin = try_from_fn(p, |i| (i % 4099) as f32 * 0.25 - 300.0)?;
        let pin_d = gpu.upload(&pin)?;
        let mut pout_d = gpu.upload(&try_vec(p, f32::NAN)?)?;
        picture(gpu, &pin_d, &mut pout_d, n, m, BLOCK)?;
        let shape = LaunchShape::cover_2d(n, m, BLOCK)?;
        println!(
            "PictureKernel: {n} x {m} picture (n columns x m rows), f32, blocks of {} x {}, grid {} x {} = {} blocks",
            BLOCK.0,
            BLOCK.1,
            shape.grid.0,
            shape.grid.1,
            shape.grid.0 * shape.grid.1
        );
        let block = (BLOCK.0 as usize, BLOCK.1 as usize);
        let paths = paths(n, m, block);
        println!(" {:<34} {:>7} {:>24}", "path", "blocks", "threads working / block");
        for path in &paths {
            println!(" {:<34} {:>7} {:>24}", path.label, path.blocks, path.working_threads);
        }
        let taken = paths.iter().filter(|p| p.blocks > 0).count();
        println!(" {taken} different paths taken");
        // Each block's working threads, from the paths, in the grid's row-major order.
        let (gx, gy) = (shape.grid.0 as usize, shape.grid.1 as usize);
        let from_paths: Vec<f64> = (0..gx * gy)
            .map(|b| {
                let (right, bottom) = (b % gx + 1 == gx && n % block.0 > 0, b / gx + 1 == gy && m % block.1 > 0);
                paths[usize::from(right) + 2 * usize::from(bottom)].working_threads as f64
            })
            .collect();
        let by_thread: Vec<f64> = reference::working_threads_per_block(n, m, block)
            .into_iter()
            .map(|t| t as f64)
            .collect();
        let checks = vec![
            Check::compare(
                "Pout = 2.0 * Pin",
                &gpu.download(&pout_d)?,
                &reference::picture(&pin)?,
                Tolerance::EXACT,
            ),
            Check::compare(
                "working threads per block: paths vs every thread's test",
                &from_paths,
                &by_thread,
                Tolerance::EXACT,
            ),
        ];
        Ok(Outcome { checks })
    }
}
