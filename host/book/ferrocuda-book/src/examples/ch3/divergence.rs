//! ch3-divergence: a branch that splits every warp against the same work split by warp (book
//! §3.6.3). Each side is a loop of 256 dependent operations, different on the two sides, so a
//! warp that takes both runs both loops one after the other.
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::ch3::divergence::{DivergenceArgs, Divergent, WarpUniform};
use ferrocuda::device::warp::WARP_SIZE;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

pub const N: usize = 1 << 24;
pub const THREADS_PER_BLOCK: u32 = 256;
/// Elements on the simulator, which runs both 256-step loops of every thread one after the
/// other.
pub const SIMULATOR_N: usize = SIMULATOR_SIZE / 16;

/// The two branches, as the table prints them.
const BRANCHES: [&str; 2] = [
    "if mod(i, 2) == 0          (divergent)",
    "if mod(i / warpsize, 2) == 0 (warp-uniform)",
];

/// ch3-divergence.
pub struct Ch3Divergence;

impl Example for Ch3Divergence {
    const ID: &'static str = "ch3-divergence";
    const DESCRIPTION: &'static str =
        "if mod(i,2) (every warp diverges) vs if mod(i/warpsize,2) (warp-uniform): times (book 3.6.3)";
    const SIZE: Option<Size> = Some(Size::new("elements (threads)", N, SIMULATOR_N));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: `x` on the device; on the host the CPU's result and a download (or the
    /// NaN poison, never with both); `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(1, run.size)?.host::<f32>(2, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let mut x_d = gpu.zeros::<f32>(n)?;
        let (mut checks, mut times) = (Vec::new(), Vec::new());
        for variant in Variant::ALL {
            gpu.upload_into(&try_vec(n, f32::NAN)?, &mut x_d)?;
            let stats = time_reps(gpu, run.reps, || launch(gpu, variant, &mut x_d, THREADS_PER_BLOCK))?;
            times.push(stats.median_ms);
            let expected = reference::ch3::divergence::divergence(n, |i| variant.first_side(i))?;
            // Explicitly rounded operations on both sides: bit-identical.
            let got = gpu.download(&x_d)?;
            checks.push(Check::compare(variant.kernel(), &got, &expected, Tolerance::EXACT));
        }
        println!(
            " {n} elements, {THREADS_PER_BLOCK} threads per block, median of {} runs ({}):",
            run.reps,
            gpu.timing_label()
        );
        println!("   {:<44} {:>10}", "branch", "time (ms)");
        for (branch, ms) in BRANCHES.iter().zip(&times) {
            println!("   {branch:<44} {ms:>10.4}");
        }
        println!("   divergent / warp-uniform: {:.2}x the time", times[0] / times[1]);
        Ok(Outcome { checks })
    }
}

/// The two kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Divergent,
    WarpUniform,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Divergent, Variant::WarpUniform];

    pub fn kernel(self) -> &'static str {
        ["divergent", "warp_uniform"][self as usize]
    }

    /// The condition under which element `i` takes the first side.
    pub fn first_side(self, i: usize) -> bool {
        match self {
            Variant::Divergent => i.is_multiple_of(2),
            Variant::WarpUniform => (i / WARP_SIZE).is_multiple_of(2),
        }
    }
}

/// Runs `variant` over `x_d`.
pub fn launch(gpu: &Gpu, variant: Variant, x_d: &mut DeviceBuffer<f32>, threads: u32) -> Result<()> {
    let shape = LaunchShape::cover_1d(x_d.len(), threads)?;
    let args = DivergenceArgs { x: x_d.view_mut() };
    match variant {
        Variant::Divergent => crate::kernels(gpu)?.launch(Divergent, shape, args),
        Variant::WarpUniform => crate::kernels(gpu)?.launch(WarpUniform, shape, args),
    }
}
