//! The STREAM kernels (copy, scale, add, triad in each layout, and the triad at four elements a
//! thread) on both backends, exact: one rounding per element, the same on both.
use super::{Comparison, ramp_real};
use crate::examples::stream::{self, Layout, Op, StreamReal};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

pub(super) fn stream_kernels<T: StreamReal>(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    // Every op in both layouts, then the triad at four elements a thread.
    let mut cases = Layout::ALL.map(|layout| Op::ALL.map(|op| (layout, op))).concat();
    cases.push((Layout::FourPerThread, Op::Triad));
    for (layout, op) in cases {
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
    Ok(())
}
