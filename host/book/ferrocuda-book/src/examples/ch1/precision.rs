//! ch1-precision: one kernel source in single and double precision (book §1.4.1.1).
use crate::example::{LegacyExample, LegacySize, Options, Outcome, Precision};
use crate::reference;
use book_kernels::ch1::precision::{PrecisionAxpy, PrecisionAxpyArgs};
use ferrocuda::device::launch::Kernel;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch1-precision",
    description: "y = a*x + y from one generic kernel source, in f32 or f64 (--precision) (book 1.4.1.1)",
    size: Some(LegacySize {
        unit: "elements of x and y",
        gpu: N,
        simulator: N,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: true,
    reps: false,
    flags: &[],
    run,
};

/// Elements.
pub const N: usize = 1 << 20;
/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;

/// The run's peak: `x` and `y` on the device; on the host `x`, `y` and the download, and in f32
/// also the exact f64 result and the download widened to f64; `None` on overflow.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    match options.precision {
        Precision::F32 => Footprint::NONE
            .device::<f32>(2, n)?
            .host::<f32>(3, n)?
            .host::<f64>(2, n),
        Precision::F64 => Footprint::NONE.device::<f64>(2, n)?.host::<f64>(3, n),
    }
}

/// `y_d = a * x_d + y_d` in precision `T`.
pub fn axpy<T: Real>(gpu: &Gpu, a: T, x_d: &DeviceBuffer<T>, y_d: &mut DeviceBuffer<T>) -> Result<()>
where
    PrecisionAxpy: for<'k> Kernel<PrecisionAxpyArgs<'k, T>>,
{
    let shape = LaunchShape::cover_1d(same_len("axpy", &[x_d.len(), y_d.len()])?, THREADS_PER_BLOCK)?;
    let args = PrecisionAxpyArgs {
        x: x_d.view(),
        y: y_d.view_mut(),
        a,
    };
    crate::kernels(gpu)?.launch(PrecisionAxpy, shape, args)
}

/// The inputs: `x[i] = 1/(i+1)`, `y[i] = i/3`, `a = 2/3`, each rounded to the precision, so
/// that nearly every operation rounds.
fn inputs<T: Real>(n: usize) -> Result<(T, Vec<T>, Vec<T>)> {
    let x = try_from_fn(n, |i| T::from_f64(1.0 / (i as f64 + 1.0)))?;
    let y = try_from_fn(n, |i| T::from_f64(i as f64 / 3.0))?;
    Ok((T::from_f64(2.0 / 3.0), x, y))
}

/// Runs the kernel in the chosen precision; reports its distance from the exact (f64) result,
/// which shows what the precision buys, and checks it bit for bit against the CPU.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    let (name, bytes, epsilon, check, rounding) = match options.precision {
        Precision::F32 => {
            let (a, x, mut y) = inputs::<f32>(n)?;
            let x_d = gpu.upload(&x)?;
            let mut y_d = gpu.upload(&y)?;
            axpy(gpu, a, &x_d, &mut y_d)?;
            let got = gpu.download(&y_d)?;
            let exact = try_from_fn(n, |i| a as f64 * x[i] as f64 + y[i] as f64)?;
            reference::ch1::precision::axpy_f32(a, &x, &mut y);
            let got64 = try_from_fn(n, |i| got[i] as f64)?;
            let rounding = Check::compare("vs exact", &got64, &exact, Tolerance::EXACT).max_rel_err;
            (
                "f32",
                4,
                f32::EPSILON as f64,
                Check::compare("y (f32)", &got, &y, Tolerance::EXACT),
                rounding,
            )
        }
        Precision::F64 => {
            let (a, x, mut y) = inputs::<f64>(n)?;
            let x_d = gpu.upload(&x)?;
            let mut y_d = gpu.upload(&y)?;
            axpy(gpu, a, &x_d, &mut y_d)?;
            let got = gpu.download(&y_d)?;
            reference::ch1::precision::axpy_f64(a, &x, &mut y);
            (
                "f64",
                8,
                f64::EPSILON,
                Check::compare("y (f64)", &got, &y, Tolerance::EXACT),
                0.0,
            )
        }
    };
    println!(" fp_kind: {name} ({bytes} bytes), machine epsilon {epsilon:e}");
    println!(" kernel: precision_axpy_{name}, {n} elements");
    if rounding > 0.0 {
        println!(" max relative distance from the f64 result: {rounding:e}");
    }
    Ok(Outcome { checks: vec![check] })
}
