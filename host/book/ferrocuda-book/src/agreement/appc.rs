//! Appendix C's Rust kernel on both backends: `zero`, the twin of the CUDA C `zero.cu`.
use super::Comparison;
use crate::examples::appc::fcallingc;
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// Every Appendix C kernel.
pub(super) fn appc(c: &mut Comparison) -> Result<()> {
    c.compare("zero", Tolerance::EXACT, |gpu| {
        let a = fcallingc::zero_through(gpu, &crate::kernels(gpu)?)?;
        Ok(a.into_iter().map(f64::from).collect())
    })
}
