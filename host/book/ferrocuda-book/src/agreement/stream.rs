//! The STREAM kernels (copy, scale, add, triad in each layout, and the triad at four elements a
//! thread) on both backends, exact: one rounding per element, the same on both.
use super::{Comparison, ramp_real};
use crate::examples::stream::{self, Layout, Op, StreamReal};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

pub(super) fn stream_kernels<T: StreamReal>(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    for layout in Layout::ALL {
        for op in Op::ALL {
            let kernel = format!("stream_{}{}_{}", op.label().to_lowercase(), layout.label(), T::NAME);
            c.compare(&kernel, Tolerance::EXACT, |gpu| {
                let (a, b) = (
                    gpu.upload(&ramp_real::<T>(n, 10.0))?,
                    gpu.upload(&ramp_real::<T>(n, 3.0))?,
                );
                let mut out = gpu.zeros::<T>(n)?;
                let scalar = T::from_f64(0.4);
                match op {
                    Op::Copy | Op::Scale => stream::unary(gpu, op, layout, &a, &mut out, scalar, 512)?,
                    Op::Add | Op::Triad => stream::binary(gpu, op, layout, [&a, &b], &mut out, scalar, 512)?,
                }
                gpu.download(&out)
            })?;
        }
    }
    c.compare(
        &format!("stream_triad_four_per_thread_{}", T::NAME),
        Tolerance::EXACT,
        |gpu| {
            let (a, b) = (
                gpu.upload(&ramp_real::<T>(n, 10.0))?,
                gpu.upload(&ramp_real::<T>(n, 3.0))?,
            );
            let mut out = gpu.zeros::<T>(n)?;
            stream::triad_four_per_thread(gpu, &a, &b, &mut out, T::from_f64(0.4), 512)?;
            gpu.download(&out)
        },
    )
}
