//! tutorial-sum-reduction: global sums (Decyk's tutorial, D3a-D3e): `gpu_sum1` (`gsum1`: one
//! thread per block adds serially, then `atomicAdd`), `gpu_sum2` (`gsum2` with the tree `lsum2`:
//! one partial per block) and `gpu_sum3` (`gsum2` repeated until the partials fit one block, then
//! `gsum1`), timed against the CPU's `sum1`.
//!
//! The tutorial gives no sizes; its output `s,t = 4501500. 4501500.` fits `a(j) = j` with
//! nx = 3000, the default here. `mx` = 128 as in the copy example (`--mx`, a power of two, since
//! `lsum2` halves `blockDim`).
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::tutorial::sum_reduction as reference;
use book_kernels::tutorial::sum_reduction::{Gsum1, Gsum1Args, Gsum2, Gsum2Args, shared_bytes};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// The `nx` that fits the tutorial's `s,t = 4501500.` (3000 * 3001 / 2).
pub const NX: usize = 3000;
/// Threads per block `mx` (the tutorial's is not given; as the copy example).
pub const MX: u32 = 128;

/// tutorial-sum-reduction's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct TutorialSumReductionOptions {
    /// threads per block, a power of two up to 1024 (default 128)
    #[arg(
        long,
        value_name = "N",
        default_value_t = MX,
        hide_default_value = true,
        allow_negative_numbers = true,
        value_parser = block_size
    )]
    pub mx: u32,
}

/// A `--mx` value: a whole number (its parse error, else) that [`shape`] takes.
fn block_size(value: &str) -> std::result::Result<u32, String> {
    let mx = value.parse::<u32>().map_err(|e| e.to_string())?;
    shape(1, mx).map(|_| mx).map_err(|e| e.to_string())
}

/// The launch of both kernels over `n` values: `ceil(n/mx)` blocks of `mx`, one `f32` of shared
/// memory per thread; `mx` must be a power of two (the tree of `lsum2`) up to 1024.
pub fn shape(n: usize, mx: u32) -> Result<LaunchShape> {
    if !mx.is_power_of_two() || mx > 1024 {
        return Err(Error::InvalidArgument(format!(
            "mx must be a power of two from 1 to 1024 (lsum2 halves the block), not {mx}"
        )));
    }
    Ok(LaunchShape::cover_1d(n, mx)?.with_shared_bytes(shared_bytes(mx as usize) as u32))
}

/// D3b `gpu_sum1`: `sa_d[0] = sum(a_d)` with `gsum1`.
pub fn gpu_sum1(gpu: &Gpu, a_d: &DeviceBuffer<f32>, sa_d: &mut DeviceBuffer<f32>, mx: u32) -> Result<()> {
    if sa_d.is_empty() || a_d.is_empty() {
        return Err(Error::InvalidArgument(
            "gpu_sum1 needs values and a one-element result".into(),
        ));
    }
    let shape = shape(a_d.len(), mx)?;
    gpu.upload_into(&[0.0], sa_d)?;
    crate::kernels(gpu)?.launch(
        Gsum1,
        shape,
        Gsum1Args {
            a: a_d.view(),
            sa: sa_d.view_mut(),
        },
    )
}

/// D3d `gpu_sum2`: `d_d[jb]` = the sum of block `jb` of `a_d` with `gsum2`; `d_d` holds
/// `ceil(nx/mx)` values.
pub fn gpu_sum2(gpu: &Gpu, a_d: &DeviceBuffer<f32>, d_d: &mut DeviceBuffer<f32>, mx: u32) -> Result<()> {
    let shape = shape(a_d.len(), mx)?;
    if a_d.is_empty() || d_d.len() != shape.grid.0 as usize {
        return Err(Error::InvalidArgument(format!(
            "gpu_sum2 of {} values in blocks of {mx} needs {} partials, not {}",
            a_d.len(),
            shape.grid.0,
            d_d.len()
        )));
    }
    crate::kernels(gpu)?.launch(
        Gsum2,
        shape,
        Gsum2Args {
            a: a_d.view(),
            d: d_d.view_mut(),
        },
    )
}

/// The lengths of `gpu_sum3`'s partials over `nx` values: one per block of `mx`, again, until at
/// most `mx` are left. A block of one thread leaves as many partials as values: none, `gsum1`
/// does it all.
fn partials(nx: usize, mx: u32) -> impl Iterator<Item = usize> {
    let mx = mx as usize;
    std::iter::successors(Some(nx), move |&n| (mx > 1 && n > mx).then(|| n.div_ceil(mx))).skip(1)
}

/// D3e `gpu_sum3`: the buffers for `gsum2` passes until at most `mx` partials are left
/// ("if array is long, one can iterate gpu_sum2 several times"), then `gsum1` on one block.
pub struct Sum3 {
    mx: u32,
    partials: Vec<DeviceBuffer<f32>>,
    sa: DeviceBuffer<f32>,
}

impl Sum3 {
    /// Buffers for summing `nx` values in blocks of `mx` (`mx = 1`: no `gsum2` pass).
    pub fn new(gpu: &Gpu, nx: usize, mx: u32) -> Result<Self> {
        shape(nx.max(1), mx)?;
        let partials = partials(nx, mx).map(|n| gpu.zeros(n)).collect::<Result<_>>()?;
        Ok(Self {
            mx,
            partials,
            sa: gpu.zeros(1)?,
        })
    }

    /// `gsum2` passes, then `gsum1`, on `a_d`; the result lands in [`Sum3::result`].
    pub fn launch(&mut self, gpu: &Gpu, a_d: &DeviceBuffer<f32>) -> Result<()> {
        let mut input = a_d;
        for d_d in &mut self.partials {
            gpu_sum2(gpu, input, d_d, self.mx)?;
            input = d_d;
        }
        gpu_sum1(gpu, input, &mut self.sa, self.mx)
    }

    /// The `gsum2` passes before the final `gsum1`.
    pub fn passes(&self) -> usize {
        self.partials.len()
    }

    /// The sum of the last launch (waits for it).
    pub fn result(&self, gpu: &Gpu) -> Result<f32> {
        Ok(gpu.download(&self.sa)?[0])
    }
}

/// The check of a GPU sum of `a` against the f64 sum: exact while the total stays at or below
/// 2^24 (integer values, so every partial sum is an integer an f32 holds); beyond, the first-order
/// bound of a blocked sum, `(mx + blocks) * eps` relative (each value goes through at most `mx`
/// additions in its block and `blocks` into the total).
pub fn tolerance(total: f64, n: usize, mx: u32) -> Tolerance {
    if total.abs() <= f64::from(1u32 << 24) {
        Tolerance::EXACT
    } else {
        let adds = mx as f64 + n.div_ceil(mx as usize) as f64;
        Tolerance {
            abs: 0.0,
            rel: adds * f64::from(f32::EPSILON),
        }
    }
}

/// Fortran's list-directed real: `4501500.` for a whole number.
fn fortran_real(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}.")
    } else {
        format!("{v}")
    }
}

/// tutorial-sum-reduction.
pub struct TutorialSumReduction;

impl Example for TutorialSumReduction {
    const ID: &'static str = "tutorial-sum-reduction";
    const DESCRIPTION: &'static str = "gsum1 (serial per block + atomicAdd), gsum2/lsum2 (tree per block), gpu_sum3; a(j) = j, nx = 3000 (Decyk tutorial)";
    const SIZE: Option<Size> = Some(Size::new("values summed, a(j) = j", NX, NX));
    const REPS: bool = true;
    type Args = TutorialSumReductionOptions;

    /// The run's peak: the values on the device with `gpu_sum3`'s partials (each pass divides by
    /// `--mx`) and two one-value results; the values on the host; `None` on overflow.
    fn memory(run: &Run<TutorialSumReductionOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let nx = run.size;
        let device = partials(nx, run.args.mx).try_fold(nx.checked_add(2)?, usize::checked_add)?;
        Footprint::NONE.device::<f32>(1, device)?.host::<f32>(1, nx)
    }

    /// The tutorial's output: empty kernel, CPU and GPU sum times (seconds), maximum difference, `s,t`.
    fn run(gpu: &Gpu, run: &Run<TutorialSumReductionOptions>) -> Result<Outcome> {
        let (nx, mx) = (run.size, run.args.mx);
        shape(nx, mx)?;
        let a = try_from_fn(nx, |j| (j + 1) as f32)?;
        crate::examples::empty_kernel::print_empty_kernel_time(gpu, run.reps)?;
        let start = Instant::now();
        let t = reference::sum1(&a, mx as usize);
        let cpu_s = start.elapsed().as_secs_f64();
        println!("CPU 1d sum time= {cpu_s:.7E} (sum1, blocks of {mx})");

        let exact = reference::sum_f64(&a);
        let tolerance = tolerance(exact, nx, mx);
        let a_d = gpu.upload(&a)?;
        let mut sa_d = gpu.zeros::<f32>(1)?;
        let sum1 = time_reps(gpu, run.reps, || gpu_sum1(gpu, &a_d, &mut sa_d, mx))?;
        let s1 = gpu.download(&sa_d)?[0];
        let mut sum3 = Sum3::new(gpu, nx, mx)?;
        let stats3 = time_reps(gpu, run.reps, || sum3.launch(gpu, &a_d))?;
        let s3 = sum3.result(gpu)?;
        println!(
            "GPU 1d sum time= {:.7E} (gpu_sum1: {} blocks of {mx}, serial per block, atomicAdd)",
            sum1.median_ms * 1e-3,
            nx.div_ceil(mx as usize)
        );
        println!(
            "GPU 1d sum time= {:.7E} (gpu_sum3: {} gsum2 pass(es), then gsum1)",
            stats3.median_ms * 1e-3,
            sum3.passes()
        );
        let (s, t) = (f64::from(s3), f64::from(t));
        println!("1d sum maximum difference = {:.6}", (s - t).abs());
        println!("s,t = {} {}", fortran_real(s), fortran_real(t));
        Ok(Outcome {
            checks: vec![
                Check::compare("gpu_sum1 vs the f64 sum", &[f64::from(s1)], &[exact], tolerance),
                Check::compare("gpu_sum3 vs the f64 sum", &[s], &[exact], tolerance),
                Check::compare("CPU sum1 vs the f64 sum", &[t], &[exact], tolerance),
            ],
        })
    }
}
