//! The course's vector add, 256 threads per block.
use super::{Measured, Row, Settings, measure, twin_agrees};
use crate::examples::course::vector_add::THREADS_PER_BLOCK;
use crate::gpu::{Error, Gpu, KernelView, LaunchShape, Module, Result};
use gpu_kernels::kernels::course::vector_add::{VecAddArgs, VecAddKernel};

/// Measures `vec_add_kernel`.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&Module>) -> Result<Vec<Measured>> {
    let n = settings.elements::<f32>()?;
    let a: Vec<f32> = (0..n).map(|i| (i % 1024) as f32).collect();
    let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&a)?);
    let mut c_d = gpu.zeros::<f32>(n)?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    let args = VecAddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    let mut row = Row {
        name: "vec_add_kernel".into(),
        shape,
        bytes: 3 * n * size_of::<f32>(),
        launch: Box::new(move |m: Option<&Module>| gpu.launch_from(m, VecAddKernel, shape, args)),
    };
    if let Some(twin) = twin
        && !twin_agrees(gpu, &mut row, twin, &c_d)?
    {
        return Err(Error::Io(
            "the CUDA C twin of vec_add_kernel wrote different results".into(),
        ));
    }
    Ok(vec![measure(gpu, row, twin, settings.reps)?])
}
