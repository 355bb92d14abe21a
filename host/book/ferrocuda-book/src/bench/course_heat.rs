//! course-heat's FTCS steps (our own design for the course's "HeatFlow" capstone) on 4096^2 and
//! 16384^2 grids (64 MiB and 1 GiB a field in f32, both beyond the H100's 50 MB L2), f32 and
//! f64, each kernel against memcpy and its CUDA C twin (`host/book/ferrocuda-book/nvcc/course/heat.cu`). A
//! timed run is four steps: one launch of the tiled kernel, four of the global one. Bytes
//! counted: one read and one write of every point per step, so the tiled kernel, which reads
//! and writes the field once per four steps, may pass memcpy: its GB/s is the rate of the
//! untiled work it replaces.
use super::{Measured, Row, Settings, measure, twin_same};
use crate::examples::course::heat::problem::{Edges, Grid, Problem};
use crate::examples::course::heat::solver::{Fields, HeatReal, Kernel, Solver};
use crate::examples::course::heat::{CFL, N};
use book_kernels::course::heat::HALO;
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};

/// The grids' sides: the example's default, and one 16 times its size.
pub const SIDES: [usize; 2] = [N, 4 * N];
/// Steps per timed run.
pub const STEPS: usize = HALO;

/// Measures both kernels at both sides, in f32 and f64.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let mut rows = Vec::new();
    for side in SIDES {
        for kernel in Kernel::ALL {
            rows.push(typed::<f32>(gpu, settings, side, kernel, twin)?);
        }
    }
    for side in SIDES {
        for kernel in Kernel::ALL {
            rows.push(typed::<f64>(gpu, settings, side, kernel, twin)?);
        }
    }
    Ok(rows)
}

fn typed<T: HeatReal>(
    gpu: &Gpu,
    settings: &Settings,
    side: usize,
    kernel: Kernel,
    twin: Option<&LoadedKernels>,
) -> Result<Measured> {
    let grid = Grid::new(side, side, Edges::Dirichlet, CFL)?;
    let initial: Vec<T> = Problem::Hotspot.initial(&grid)?;
    let solver = Solver::fastest(kernel);
    if let Some(module) = twin {
        check_twin(gpu, solver, &grid, &initial, module)?;
    }
    let mut fields = Fields::upload(gpu, &grid, solver, &initial)?;
    let row = Row {
        name: format!("{}_{} {side}^2", kernel.name(), T::NAME),
        shape: solver.shape::<T>(&grid)?,
        bytes: STEPS * grid.bytes_per_step(size_of::<T>()),
        launch: Box::new(move |module: Option<&LoadedKernels>| fields.advance(gpu, module, None, STEPS, None)),
    };
    measure(gpu, row, twin, settings.reps)
}

/// [`STEPS`] steps of the twin give the Rust kernel's field, bit for bit (a twin whose argument
/// layout or rounding drifted would not).
fn check_twin<T: HeatReal>(gpu: &Gpu, solver: Solver, grid: &Grid, initial: &[T], twin: &LoadedKernels) -> Result<()> {
    let run = |module: Option<&LoadedKernels>| -> Result<Vec<T>> {
        let mut fields = Fields::upload(gpu, grid, solver, initial)?;
        fields.advance(gpu, module, None, STEPS, None)?;
        gpu.download(fields.current())
    };
    let kernel = format!("{}_{}", solver.kernel.name(), T::NAME);
    twin_same(run(None)? == run(Some(twin))?, &kernel)
}
