//! The thesis's red-black SOR: two red-black iterations of a 16384 x 16384 grid with each kernel,
//! against memcpy and, for the split layout, its CUDA C twin. Bytes counted: each half-sweep
//! reads the points of both colours and writes its own, so an iteration moves at least
//! `3 x points x element size` (`sor::state::bytes_per_iteration`). The tiled kernel, which runs
//! both iterations in one launch from shared memory, moves less than that count says: its
//! GB/s is the rate of the untiled work it replaces.
use super::{Measured, Row, Settings, measure, twin_same};
use crate::nvcc::LoadOr;
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};
use ferrocuda::sor::state::bytes_per_iteration;
use ferrocuda::sor::{DeviceGrid, Problem, SorReal, Variant};

/// The goal's side: 16384^2 f32 is 1 GiB, far beyond L2.
pub const N: usize = 16384;
/// The thesis's relaxation factor in practice.
const OMEGA: f64 = 1.9;

/// Measures every kernel in f32, and the split and tiled kernels in f64.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let mut rows = Vec::new();
    for variant in Variant::ALL {
        rows.push(typed::<f32>(gpu, settings, variant, twin)?);
    }
    rows.push(typed::<f64>(gpu, settings, Variant::Split, twin)?);
    rows.push(typed::<f64>(gpu, settings, Variant::Tiled, twin)?);
    Ok(rows)
}

fn typed<T: SorReal>(
    gpu: &Gpu,
    settings: &Settings,
    variant: Variant,
    twin: Option<&LoadedKernels>,
) -> Result<Measured> {
    let initial: Vec<T> = Problem::Harmonic.initial(N, N)?;
    let omega = T::from_f64(OMEGA);
    let twin = twin.filter(|_| variant == Variant::Split);
    if let Some(module) = twin {
        check_twin(gpu, &initial, module)?;
    }
    let mut grid = DeviceGrid::upload(gpu, variant, &initial, N, N, 0)?;
    let region = grid.interior();
    let shape = grid.shape(region)?;
    // Two red-black iterations per timed run: the tiled kernel's one launch.
    let iterations = 2;
    let row = Row {
        name: format!("sor_{variant}_2_iterations_{}", T::NAME),
        shape,
        bytes: iterations * bytes_per_iteration(region.rows() * region.cols(), size_of::<T>()),
        launch: Box::new(move |module: Option<&LoadedKernels>| match module {
            Some(twin) => {
                (0..2 * iterations).try_for_each(|h| grid.half_sweep_with(twin, None, region, (h % 2) as u32, omega))
            }
            None => grid.iterations(gpu, None, region, omega, iterations),
        }),
    };
    measure(gpu, row, twin, settings.reps)
}

/// Three iterations of the twin give the Rust kernel's grid, bit for bit (a twin whose argument
/// layout drifted would not).
fn check_twin<T: SorReal>(gpu: &Gpu, initial: &[T], twin: &LoadedKernels) -> Result<()> {
    let run = |module: Option<&LoadedKernels>| -> Result<Vec<T>> {
        let mut grid = DeviceGrid::upload(gpu, Variant::Split, initial, N, N, 0)?;
        let region = grid.interior();
        let kernels = gpu.load_or(module, &ferrocuda::ptx::LIBRARY)?;
        for color in [0, 1, 0, 1, 0, 1] {
            grid.half_sweep_with(&kernels, None, region, color, T::from_f64(OMEGA))?;
        }
        grid.download(gpu)
    };
    twin_same(run(None)? == run(Some(twin))?, &format!("sor_split_{}", T::NAME))
}
