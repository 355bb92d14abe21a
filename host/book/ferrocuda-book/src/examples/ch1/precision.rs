//! ch1-precision: one kernel source in single and double precision (book §1.4.1.1).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::HostFloat;
use crate::reference::ch1::precision::axpy as reference_axpy;
use book_kernels::ch1::precision::{PrecisionAxpy, PrecisionAxpyArgs};
use ferrocuda::device::launch::Kernel;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;

/// ch1-precision, in precision `T`.
pub struct Ch1Precision<T>(PhantomData<T>);

impl<T: HostFloat> Example for Ch1Precision<T>
where
    PrecisionAxpy: for<'k> Kernel<PrecisionAxpyArgs<'k, T>>,
{
    const ID: &'static str = "ch1-precision";
    const DESCRIPTION: &'static str =
        "y = a*x + y from one generic kernel source, in f32 or f64 (--precision) (book 1.4.1.1)";
    const SIZE: Option<Size> = Some(Size::new("elements of x and y", 1 << 20, 1 << 20));
    type Args = NoOptions;

    /// The run's peak: `x` and `y` on the device; on the host `x`, `y` and the download, and in
    /// f32 also the exact f64 result and the download widened to f64; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let n = run.size;
        let widened = if T::NAME == "f32" { 2 } else { 0 };
        Footprint::NONE
            .device::<T>(2, n)?
            .host::<T>(3, n)?
            .host::<f64>(widened, n)
    }

    /// Runs the kernel in precision `T`; reports its distance from the exact (f64) result, which
    /// shows what the precision buys, and checks it bit for bit against the CPU.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        // `x[i] = 1/(i+1)`, `y[i] = i/3`, `a = 2/3`, each rounded to the precision, so that
        // nearly every operation rounds.
        let a = T::from_f64(2.0 / 3.0);
        let x = try_from_fn(n, |i| T::from_f64(1.0 / (i as f64 + 1.0)))?;
        let mut y = try_from_fn(n, |i| T::from_f64(i as f64 / 3.0))?;
        let x_d = gpu.upload(&x)?;
        let mut y_d = gpu.upload(&y)?;
        axpy(gpu, a, &x_d, &mut y_d)?;
        let got = gpu.download(&y_d)?;
        // In f64 the result is its own exact reference.
        let rounding = match T::NAME {
            "f32" => {
                let exact = try_from_fn(n, |i| a.to_f64() * x[i].to_f64() + y[i].to_f64())?;
                let got64 = try_from_fn(n, |i| got[i].to_f64())?;
                Check::compare("vs exact", &got64, &exact, Tolerance::EXACT).max_rel_err
            }
            _ => 0.0,
        };
        reference_axpy(a, &x, &mut y);
        let (name, bytes, epsilon) = (T::NAME, size_of::<T>(), T::MACHINE_EPSILON);
        println!(" fp_kind: {name} ({bytes} bytes), machine epsilon {epsilon:e}");
        println!(" kernel: precision_axpy_{name}, {n} elements");
        if rounding > 0.0 {
            println!(" max relative distance from the f64 result: {rounding:e}");
        }
        let check = Check::compare(&format!("y ({name})"), &got, &y, Tolerance::EXACT);
        Ok(Outcome { checks: vec![check] })
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
