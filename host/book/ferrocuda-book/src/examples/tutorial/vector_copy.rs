//! tutorial-vector-copy: segmented copies in 1-D and 2-D (Decyk's tutorial: `gpu_copy1`,
//! `gpu_copy2a`, `gpu_copy2b`, `gpu_copy3`), timed against the CPU copy.
//!
//! The tutorial gives no sizes ("vary blocksize mx and data lengths nx, ny"); the defaults here
//! are nx = 2^24 for 1-D, 4096 x 4096 for 2-D (2^20 and 1024 x 1024 on the simulator), mx = 128,
//! and mx x my = 32 x 8 for `gcopy3`.
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::tutorial::vector_copy::{CopyArgs, Gcopy1, Gcopy2a, Gcopy2b, Gcopy3};
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// 1-D length.
pub const NX_1D: usize = 1 << 24;
/// 2-D extents (`--size` sets both).
pub const NX_2D: usize = 4096;
/// The tutorial's 1-D block size `mx`.
pub const MX: u32 = 128;
/// `gcopy3`'s `mx x my` block.
pub const BLOCK_2D: (u32, u32) = (32, 8);
/// The 2-D side on the simulator.
pub const SIMULATOR_NX_2D: usize = 1024;
/// The largest side: `gcopy2a` runs one row of blocks per row, and a grid has at most 65535
/// rows of blocks.
pub const MAX_GRID_Y: usize = 65535;

/// The copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `gcopy1`: blocks of `mx` along the array.
    OneD,
    /// `gcopy2a`: a row of blocks per array row, grid `(ceil(nx/mx), ny)`.
    RowOfBlocks,
    /// `gcopy2b`: one block per array row, striding along it.
    BlockPerRow,
    /// `gcopy3`: `mx x my` blocks on a 2-D grid.
    Tiled,
}

/// `a_d = b_d` (`nx * ny` elements) with the chosen variant.
pub fn copy(
    gpu: &Gpu,
    variant: Variant,
    a_d: &mut DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    nx: usize,
    ny: usize,
) -> Result<()> {
    if nx.checked_mul(ny) != Some(a_d.len()) || a_d.len() != b_d.len() {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} copy needs two buffers of nx * ny elements, not {} and {}",
            a_d.len(),
            b_d.len()
        )));
    }
    let extent = |v: usize| u32::try_from(v).map_err(|_| Error::InvalidArgument(format!("extent {v} exceeds u32")));
    let args = CopyArgs {
        a: a_d.view_mut(),
        b: b_d.view(),
        nx: extent(nx)?,
        ny: extent(ny)?,
    };
    let kernels = crate::kernels(gpu)?;
    match variant {
        Variant::OneD => {
            let args = CopyArgs {
                nx: extent(nx * ny)?,
                ny: 1,
                ..args
            };
            kernels.launch(Gcopy1, LaunchShape::cover_1d(nx * ny, MX)?, args)
        }
        Variant::RowOfBlocks => {
            let shape = LaunchShape::new((nx.div_ceil(MX as usize) as u32, extent(ny)?, 1), (MX, 1, 1));
            kernels.launch(Gcopy2a, shape, args)
        }
        Variant::BlockPerRow => kernels.launch(Gcopy2b, LaunchShape::new((extent(ny)?, 1, 1), (MX, 1, 1)), args),
        Variant::Tiled => kernels.launch(Gcopy3, LaunchShape::cover_2d(nx, ny, BLOCK_2D)?, args),
    }
}

/// tutorial-vector-copy.
pub struct TutorialVectorCopy;

impl Example for TutorialVectorCopy {
    const ID: &'static str = "tutorial-vector-copy";
    const DESCRIPTION: &'static str =
        "1-D and three 2-D segmented copies against the CPU copy, with the empty-kernel time (Decyk tutorial)";
    const SIZE: Option<Size> = Some(Size::new("the 2-D copies' side N (N x N floats); given, also the 1-D copy's length (else 2^24, 2^20 on the simulator)", NX_2D, SIMULATOR_NX_2D).at_most(MAX_GRID_Y));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak at side `n`, one copy at a time, the largest being the `n x n` ones (the
    /// 1-D default, `NX_1D`, is `NX_2D^2`): source and destination on the device; on the host
    /// the source, the CPU's copy and a download (or the NaN preset); `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let elements = footprint::elements(&[run.size, run.size])?;
        Footprint::NONE.device::<f32>(2, elements)?.host::<f32>(3, elements)
    }

    /// The tutorial's output: empty kernel time, CPU and GPU copy times (seconds), maximum difference.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        crate::examples::empty_kernel::print_empty_kernel_time(gpu, run.reps)?;
        let n2 = run.size;
        let n1 = match run.size_given {
            true => run.size,
            false => gpu.pick(NX_1D, SIMULATOR_SIZE),
        };
        let mut checks = Vec::new();
        for (label, variant, nx, ny) in [
            ("1d copy", Variant::OneD, n1, 1),
            ("2d copy (gcopy2a)", Variant::RowOfBlocks, n2, n2),
            ("2d copy (gcopy2b)", Variant::BlockPerRow, n2, n2),
            ("2d copy (gcopy3)", Variant::Tiled, n2, n2),
        ] {
            // The side is at most MAX_GRID_Y, and the 1-D copy has one row: no overflow.
            let elements = nx * ny;
            let b = try_from_fn(elements, |j| j as f32)?;
            let mut a = try_vec(elements, 0.0)?;
            let t = Instant::now();
            reference::tutorial::vector_copy::copy(&mut a, &b);
            let cpu_s = t.elapsed().as_secs_f64();
            let b_d = gpu.upload(&b)?;
            let mut a_d = gpu.upload(&try_vec(elements, f32::NAN)?)?;
            let stats = time_reps(gpu, run.reps, || copy(gpu, variant, &mut a_d, &b_d, nx, ny))?;
            let check = Check::compare(label, &gpu.download(&a_d)?, &a, Tolerance::EXACT);
            println!("CPU {label} time= {cpu_s:.7E}");
            println!("GPU {label} time= {:.7E}", stats.median_ms * 1e-3);
            println!("{label} maximum difference = {:.6}", check.max_abs_err);
            checks.push(check);
        }
        Ok(Outcome { checks })
    }
}
