//! course-heat's convergence study: the (1, 1) Fourier mode in f64 on grids whose spacing
//! halves from one to the next, all to the same time with dt ~ h^2, so the error against the
//! exact solution falls as O(h^2).
use super::problem::{self, Edges, Grid, Problem};
use super::solver::{self, Kernel, Solver};
use crate::defaults::Pick;
use crate::examples::convergence::{GridError, second_order_table};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;

/// The convergence study's fraction of the stability limit (as [`super::CFL`]).
pub const STUDY_CFL: f64 = 0.8;
/// The study runs to `lambda t` of about this: the mode decays to about 0.6.
pub const STUDY_DECAY: f64 = 0.5;
/// Sides of the study with Dirichlet edges on a GPU (h halves from one to the next) and on the
/// simulator; with insulated edges one less (cell-centred: h = 1 / side).
pub const STUDY_SIDES: [usize; 5] = [17, 33, 65, 129, 257];
pub const SIMULATOR_STUDY_SIDES: [usize; 3] = [9, 17, 33];

/// The (1, 1) mode in f64 with the tiled kernel on each of `sides` (Dirichlet sides; insulated
/// grids take one point less, so h halves alike), to the same time: the coarsest grid's step
/// count times 4 per halving of h (dt ~ h^2), so every grid ends at exactly the same t.
pub fn convergence(gpu: &Gpu, edges: Edges, sides: &[usize]) -> Result<Vec<GridError>> {
    let problem = Problem::Mode { k: 1, l: 1 };
    let side = |n: usize| match edges {
        Edges::Dirichlet => n,
        Edges::Insulated => n - 1,
    };
    let coarsest = Grid::new(side(sides[0]), side(sides[0]), edges, STUDY_CFL)?;
    let rate = 2.0 * std::f64::consts::PI.powi(2) * problem::ALPHA;
    let first_steps = (STUDY_DECAY / (rate * coarsest.dt::<f64>())).ceil() as usize;
    sides
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let grid = Grid::new(side(n), side(n), edges, STUDY_CFL)?;
            let steps = first_steps * 4usize.pow(k as u32);
            let initial: Vec<f64> = problem.initial(&grid)?;
            let field = solver::solve(gpu, Solver::fastest(Kernel::Tiled), &grid, &initial, steps)?;
            Ok(GridError {
                side: grid.cols,
                h: grid.h,
                work: steps,
                max_error: problem
                    .max_error(&grid, &field, steps as f64 * grid.dt::<f64>())
                    .unwrap_or(f64::NAN),
            })
        })
        .collect()
}

/// Prints the study and checks the O(h^2) rate: each halving of h divides the error by 4 (3.5
/// to 4.5 allowed; the leading term dominates from the first grids on, within 2%).
pub fn convergence_study(gpu: &Gpu, edges: Edges) -> Result<Vec<Check>> {
    let sides = gpu.pick(&STUDY_SIDES[..], &SIMULATOR_STUDY_SIDES[..]);
    let grids = convergence(gpu, edges, sides)?;
    println!(" O(h^2): the (1, 1) mode, {edges} edges, f64, cfl {STUDY_CFL}, tiled kernel, to the same t:");
    Ok(second_order_table("steps", &grids))
}
