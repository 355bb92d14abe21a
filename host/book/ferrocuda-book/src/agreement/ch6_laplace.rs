//! Simulator against GPU for the kernels of ch6-laplace2d (book §6.2): each sweep kernel, the
//! tiled kernel (four sweeps and their residuals) and the residual fold, in f32 and f64, on a
//! mesh that is a multiple of none of their tiles. Every kernel rounds as the CPU does (no
//! contracted multiply-add), so the rows are exact.
use super::Comparison;
use crate::examples::ch6::laplace2d_solver::{DeviceField, LaplaceGpu, Variant};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// A mesh 4 blocks and a column wide, 4 strips of blocks and 6 rows high.
const NX: usize = 4 * 32 + 5;
const NY: usize = 4 * 16 + 6;

/// A field with a different value at every point (a wrong neighbour shows), and the book's
/// boundary values.
fn field<T: LaplaceGpu>() -> Result<Vec<T>> {
    let mut a: Vec<T> = crate::reference::ch6::laplace2d::initial(NX, NY)?;
    for j in 1..NY - 1 {
        for i in 1..NX - 1 {
            a[j * NX + i] = T::from_f64(((j * NX + i) * 7919 % 1009) as f64 / 1009.0 - 0.25);
        }
    }
    Ok(a)
}

/// Every kernel of ch6-laplace2d in `T`.
pub(super) fn compare<T: LaplaceGpu>(c: &mut Comparison) -> Result<()> {
    let initial = field::<T>()?;
    for variant in [Variant::Global, Variant::Shared, Variant::Texture, Variant::Strip] {
        c.compare(&format!("{}_{}", variant.kernel(), T::NAME), Tolerance::EXACT, |gpu| {
            let mut field = DeviceField::upload(gpu, &initial, NX, NY, 1)?;
            field.sweep_from(gpu, None, variant)?;
            gpu.download(&field.a_new_d)
        })?;
    }
    c.compare(&format!("jacobi_tiled_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut field = DeviceField::upload(gpu, &initial, NX, NY, 4)?;
        field.tiled_sweeps(gpu, 0, 4)?;
        let mut out = gpu.download(&field.a_new_d)?;
        out.extend(field.residuals(gpu, 0, 4)?);
        Ok(out)
    })?;
    c.compare(&format!("max_residual_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut field = DeviceField::upload(gpu, &initial, NX, NY, 1)?;
        field.sweep_from(gpu, None, Variant::Global)?;
        field.fold_residual(gpu, 0)?;
        field.residuals(gpu, 0, 1)
    })
}
