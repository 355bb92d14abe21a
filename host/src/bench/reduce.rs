//! The f32 sum (`ferrocuda::reduce`, two passes) of the whole working set, against its CUDA C
//! twin: bytes read once, so GB/s compares with the read half of memcpy's traffic.
use super::{Measured, Row, Settings, measure};
use crate::gpu::{Error, Gpu, Module, Result};
use crate::reduce::{Kind, Plan, THREADS_PER_BLOCK};

/// Measures `reduce_sum_f32` over `settings.working_set_mib` MiB.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&Module>) -> Result<Vec<Measured>> {
    let n = settings.elements::<f32>()?;
    let input = gpu.upload(&(0..n).map(|i| (i % 1024) as f32).collect::<Vec<_>>())?;
    let mut plan = Plan::<f32>::new(gpu, n, THREADS_PER_BLOCK)?;
    let shape = plan.shape();
    if let Some(twin) = twin {
        plan.launch(gpu, None, Kind::Sum, &input)?;
        let rust = plan.result(gpu)?;
        plan.launch(gpu, Some(twin), Kind::Sum, &input)?;
        let nvcc = plan.result(gpu)?;
        // Every partial sum of these integers is exact: both must give the same total.
        if rust != nvcc {
            return Err(Error::Io(format!(
                "the CUDA C twin of reduce_sum_f32 gave {nvcc}, the Rust kernel {rust}"
            )));
        }
    }
    let row = Row {
        name: "reduce_sum_f32 (2 passes)".into(),
        shape,
        bytes: n * size_of::<f32>(),
        launch: Box::new(move |m: Option<&Module>| plan.launch(gpu, m, Kind::Sum, &input)),
    };
    Ok(vec![measure(gpu, row, twin, settings.reps)?])
}
