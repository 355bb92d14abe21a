//! STREAM copy, scale, add and triad, f32 and f64, 512 threads per block: the article's
//! one-element-per-thread kernels and the 16-byte, four-per-thread ones.
use super::{Measured, Row, Settings, measure_twin};
use crate::examples::stream::{Arrays, Layout, Op, SCALAR, StreamReal, THREADS_PER_BLOCK, upload_initial};
use book_kernels::stream::{BinaryArgs, UnaryArgs};
use ferrocuda::gpu::{Gpu, KernelView, LoadedKernels, Result};

/// Measures the four kernels in both precisions and both layouts.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let mut rows = Vec::new();
    for layout in Layout::ALL {
        rows.extend(typed::<f32>(gpu, settings, layout, twin)?);
        rows.extend(typed::<f64>(gpu, settings, layout, twin)?);
    }
    Ok(rows)
}

fn typed<T: StreamReal>(
    gpu: &Gpu,
    settings: &Settings,
    layout: Layout,
    twin: Option<&LoadedKernels>,
) -> Result<Vec<Measured>> {
    let n = settings.elements::<T>()?;
    let Arrays {
        a: a_d,
        b: b_d,
        c: mut c_d,
    } = upload_initial::<T>(gpu, n)?;
    let shape = layout.shape(n, THREADS_PER_BLOCK)?;
    let scalar = T::from_f64(SCALAR);
    let mut measured = Vec::new();
    for op in Op::ALL {
        // One writable view of `c_d` in both argument structs: each launch uses one of them.
        let c = c_d.view_mut();
        let unary = UnaryArgs {
            input: a_d.view(),
            output: c,
            scalar,
        };
        let binary = BinaryArgs {
            a: a_d.view(),
            b: b_d.view(),
            c,
            scalar,
        };
        let row = Row {
            name: format!("stream_{}{}_{}", op.label().to_lowercase(), layout.label(), T::NAME),
            shape,
            bytes: op.arrays_moved() * n * size_of::<T>(),
            launch: Box::new(move |m: Option<&LoadedKernels>| match op {
                Op::Copy | Op::Scale => T::launch_unary(gpu, m, op, layout, shape, unary),
                Op::Add | Op::Triad => T::launch_binary(gpu, m, op, layout, shape, binary),
            }),
        };
        measured.push(measure_twin(gpu, row, twin, c.as_slice(), settings.reps)?);
    }
    Ok(measured)
}
