//! ch6-deriv's kernels (book §6.1) on both backends: every derivative, the one-barrier,
//! memory-only and math-only variants and the stretched-grid kernels, in f32 and f64, on seeded
//! noise at non-cubic extents. Exact: the stencil's multiply-adds are fused explicitly, so both
//! backends round alike.
use super::Comparison;
use crate::examples::ch6::deriv_launch::{DerivReal, Problem, Variant};
use crate::reference::ch6::deriv::Extents;
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// Every kernel in `T`: mx, my multiples of 32 and lines of 16 points in z (two per thread of
/// the 32-wide z kernel), small enough for the simulator.
pub(super) fn typed<T: DerivReal>(c: &mut Comparison) -> Result<()> {
    let extents = Extents { mx: 64, my: 32, mz: 16 };
    let n = extents.points()?;
    let input: Vec<T> = (0..n)
        .map(|i| T::from_f64(((i * 7919 % 2003) as f64 / 1001.0 - 1.0) * 3.0))
        .collect();
    for variant in Variant::every() {
        c.compare(&format!("{}_{}", variant.kernel(), T::NAME), Tolerance::EXACT, |gpu| {
            let problem = Problem::<T>::new(gpu, variant.coefficients.grid(), extents)?;
            let f_d = gpu.upload(&input)?;
            let mut df_d = gpu.upload(&vec![T::from_f64(-7.0); n])?;
            problem.run(gpu, variant, &f_d, &mut df_d)?;
            gpu.download(&df_d)
        })?;
    }
    Ok(())
}
