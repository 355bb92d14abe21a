//! The device-wide sums (`ferrocuda::reduce`) of 1 GiB, twice the working set, against their
//! CUDA C twin: the input is read once and nothing is written, so GB/s counts bytes read and
//! compares with memcpy's read-plus-write rate (both stream the same bytes per second through
//! HBM when the kernel keeps enough loads in flight).
use super::{Measured, Row, Settings, measure};
use ferrocuda::gpu::{Error, Gpu, LoadedKernels, Result};
use ferrocuda::reduce::{Kind, Plan, Reduce, THREADS_PER_BLOCK};

/// Measures `reduce_sum_f32` (two passes, against the twin), the one-pass atomic f32 sum and the
/// f64 sum over `2 x settings.working_set_mib` MiB.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let doubled = Settings {
        working_set_mib: 2 * settings.working_set_mib,
        ..settings.clone()
    };
    Ok(vec![
        sum_row::<f32>(gpu, &doubled, Kind::Sum, twin)?,
        sum_row::<f32>(gpu, &doubled, Kind::SumAtomic, None)?,
        sum_row::<f64>(gpu, &doubled, Kind::Sum, None)?,
    ])
}

fn sum_row<T: Reduce>(gpu: &Gpu, settings: &Settings, kind: Kind, twin: Option<&LoadedKernels>) -> Result<Measured> {
    let n = settings.elements::<T>()?;
    let input = gpu.upload(&(0..n).map(|i| T::from_u32((i % 1024) as u32)).collect::<Vec<_>>())?;
    let mut plan = Plan::<T>::new(gpu, n, THREADS_PER_BLOCK)?;
    let shape = plan.shape();
    if let Some(twin) = twin {
        plan.launch(gpu, kind, &input)?;
        let rust = plan.result(gpu)?;
        plan.launch_with(twin, kind, &input)?;
        let nvcc = plan.result(gpu)?;
        // Every partial sum of these integers is exact: both must give the same total.
        if rust.to_f64() != nvcc.to_f64() {
            return Err(Error::Io(format!(
                "the CUDA C twin of the {} sum gave {}, the Rust kernel {}",
                std::any::type_name::<T>(),
                nvcc.to_f64(),
                rust.to_f64()
            )));
        }
    }
    let passes = if kind == Kind::SumAtomic { "1 pass" } else { "2 passes" };
    let row = Row {
        name: format!(
            "reduce_{}_{} ({passes})",
            kind.kernel_stem(),
            std::any::type_name::<T>()
        ),
        shape,
        bytes: n * size_of::<T>(),
        launch: Box::new(move |m: Option<&LoadedKernels>| match m {
            Some(twin) => plan.launch_with(twin, kind, &input),
            None => plan.launch(gpu, kind, &input),
        }),
    };
    measure(gpu, row, twin, settings.reps)
}
