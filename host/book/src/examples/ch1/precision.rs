//! ch1-precision: one kernel source in single and double precision (book §1.4.1.1).
use crate::examples::{Example, Options, Outcome, Precision};
use crate::reference;
use book_kernels::ch1::precision::{PrecisionAxpy, PrecisionAxpyArgs};
use ferrocuda::device::launch::Kernel;
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch1-precision",
    description: "y = a*x + y from one generic kernel source, in f32 or f64 (--precision) (book 1.4.1.1)",
    size: crate::examples::SIZE_TO_PLAN,
    f64: true,
    reps: false,
    flags: &[],
    run,
};

/// Elements.
pub const N: usize = 1 << 20;
/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;

/// `y_d = a * x_d + y_d` in precision `T`.
pub fn axpy<T: Real>(gpu: &Gpu, a: T, x_d: &DeviceBuffer<T>, y_d: &mut DeviceBuffer<T>) -> Result<()>
where
    PrecisionAxpy: Kernel<PrecisionAxpyArgs<T>>,
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
fn inputs<T: Real>(n: usize) -> (T, Vec<T>, Vec<T>) {
    let x = (0..n).map(|i| T::from_f64(1.0 / (i as f64 + 1.0))).collect();
    let y = (0..n).map(|i| T::from_f64(i as f64 / 3.0)).collect();
    (T::from_f64(2.0 / 3.0), x, y)
}

/// Runs the kernel in the chosen precision; reports its distance from the exact (f64) result,
/// which shows what the precision buys, and checks it bit for bit against the CPU.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    let (name, bytes, epsilon, check, rounding) = match options.precision {
        Precision::F32 => {
            let (a, x, mut y) = inputs::<f32>(n);
            let x_d = gpu.upload(&x)?;
            let mut y_d = gpu.upload(&y)?;
            axpy(gpu, a, &x_d, &mut y_d)?;
            let got = gpu.download(&y_d)?;
            let exact: Vec<f64> = x
                .iter()
                .zip(&y)
                .map(|(&x, &y)| a as f64 * x as f64 + y as f64)
                .collect();
            reference::ch1::precision::axpy_f32(a, &x, &mut y);
            let got64: Vec<f64> = got.iter().map(|&v| v as f64).collect();
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
            let (a, x, mut y) = inputs::<f64>(n);
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
