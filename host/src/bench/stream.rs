//! STREAM copy, scale, add and triad, f32 and f64, 512 threads per block (the article's shape).
use super::{Measured, Row, Settings, measure, twin_agrees};
use crate::examples::stream::{Op, StreamReal, THREADS_PER_BLOCK, initial};
use crate::gpu::{Error, Gpu, KernelView, LaunchShape, Module, Result};
use gpu_kernels::kernels::stream::{
    BinaryArgs, StreamAdd, StreamCopy, StreamScale, StreamTriad, UnaryArgs,
};
use gpu_kernels::launch::Kernel;

/// Measures the four kernels in both precisions.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&Module>) -> Result<Vec<Measured>> {
    let mut rows = typed::<f32>(gpu, settings, twin)?;
    rows.extend(typed::<f64>(gpu, settings, twin)?);
    Ok(rows)
}

fn typed<T: StreamReal>(
    gpu: &Gpu,
    settings: &Settings,
    twin: Option<&Module>,
) -> Result<Vec<Measured>>
where
    StreamCopy: Kernel<UnaryArgs<T>>,
    StreamScale: Kernel<UnaryArgs<T>>,
    StreamAdd: Kernel<BinaryArgs<T>>,
    StreamTriad: Kernel<BinaryArgs<T>>,
{
    let n = settings.elements::<T>()?;
    let [a, b, _] = initial::<T>(n);
    let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut c_d = gpu.zeros::<T>(n)?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    let scalar = T::from_f64(crate::examples::stream::SCALAR);
    let stream = gpu.stream().clone();
    let mut measured = Vec::new();
    for op in Op::ALL {
        let unary = UnaryArgs {
            input: a_d.view(),
            output: c_d.view_mut(),
            scalar,
        };
        let binary = BinaryArgs {
            a: a_d.view(),
            b: b_d.view(),
            c: c_d.view_mut(),
            scalar,
        };
        let stream = stream.clone();
        let launch: Box<dyn FnMut(&Module) -> Result<()>> = match op {
            Op::Copy => Box::new(move |m: &Module| m.launch(&stream, StreamCopy, shape, unary)),
            Op::Scale => Box::new(move |m: &Module| m.launch(&stream, StreamScale, shape, unary)),
            Op::Add => Box::new(move |m: &Module| m.launch(&stream, StreamAdd, shape, binary)),
            Op::Triad => Box::new(move |m: &Module| m.launch(&stream, StreamTriad, shape, binary)),
        };
        let mut row = Row {
            name: format!("stream_{}_{}", op.label().to_lowercase(), T::NAME),
            shape,
            bytes: op.arrays_moved() * n * size_of::<T>(),
            launch,
        };
        if let Some(twin) = twin {
            if !twin_agrees(gpu, &mut row, twin, &c_d)? {
                return Err(Error::Io(format!(
                    "the CUDA C twin of {} wrote different results",
                    row.name
                )));
            }
        }
        measured.push(measure(gpu, row, twin, settings.reps)?);
    }
    Ok(measured)
}
