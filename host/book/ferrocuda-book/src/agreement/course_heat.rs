//! course-heat's kernels on both backends: a random field on an awkward grid (partial tiles on
//! both axes), both edge kinds, f32 and f64, the tiled kernel at one and at four steps per
//! launch. The update rounds explicitly (two `fma.rn`), so the outputs agree bit for bit.
use super::Comparison;
use crate::examples::course::heat::problem::{Edges, Grid};
use crate::examples::course::heat::solver::{self, HeatReal, Kernel, Solver};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// Adds one row per kernel, edge kind and steps per launch, in `T`.
pub(super) fn typed<T: HeatReal>(c: &mut Comparison) -> Result<()> {
    let (rows, cols, steps) = (45, 123, 9);
    for edges in [Edges::Dirichlet, Edges::Insulated] {
        let grid = Grid::new(rows, cols, edges, 0.9)?;
        let initial: Vec<T> = (0..grid.points())
            .map(|i| T::from_f64((i * 7919 % 1009) as f64 / 1009.0))
            .collect();
        for solver in [
            Solver::fastest(Kernel::Global),
            Solver::new(Kernel::Tiled, 1)?,
            Solver::fastest(Kernel::Tiled),
        ] {
            let name = format!(
                "{}_{} ({edges}, {} per launch)",
                solver.kernel.name(),
                T::NAME,
                solver.steps_per_launch
            );
            c.compare(&name, Tolerance::EXACT, |gpu| {
                solver::solve(gpu, solver, &grid, &initial, steps)
            })?;
        }
    }
    Ok(())
}
