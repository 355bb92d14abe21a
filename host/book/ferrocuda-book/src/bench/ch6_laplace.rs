//! ch6-laplace2d's sweeps (book §6.2): one Jacobi sweep per launch with each kernel, in f32 at
//! the book's 4096^2 (64 MiB arrays, 1.3x the H100's L2 for the pair) and at 16384^2 (1 GiB
//! arrays), and the strip and tiled kernels in f64 at 16384^2; the strip kernel against its CUDA
//! C twin. Bytes counted as the book counts them: each point read once and written once per
//! sweep. The tiled kernel's launch makes 4 sweeps and reads and writes the grid once, so its
//! GB/s is the rate of the untiled work it replaces (4 sweeps' bytes over one launch's time).
use super::{Measured, Row, Settings, measure, twin_same};
use crate::examples::ch6::laplace2d_solver::{DeviceField, LaplaceGpu, Variant};
use crate::reference::ch6::laplace2d::initial;
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};

/// The book's mesh side.
pub const BOOK_N: usize = 4096;
/// A mesh far beyond L2: 16384^2 f32 is 1 GiB per array.
pub const DRAM_N: usize = 16384;

/// Measures every kernel in f32 at both sizes, the strip and tiled kernels in f64.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let mut rows = Vec::new();
    for n in [BOOK_N, DRAM_N] {
        for variant in Variant::ALL {
            rows.push(typed::<f32>(gpu, settings, n, variant, twin)?);
        }
    }
    for variant in [Variant::Strip, Variant::Tiled] {
        rows.push(typed::<f64>(gpu, settings, DRAM_N, variant, twin)?);
    }
    Ok(rows)
}

fn typed<T: LaplaceGpu>(
    gpu: &Gpu,
    settings: &Settings,
    n: usize,
    variant: Variant,
    twin: Option<&LoadedKernels>,
) -> Result<Measured> {
    let mut field = DeviceField::upload(gpu, &initial::<T>(n, n)?, n, n, variant.sweeps_per_launch())?;
    let twin = twin.filter(|_| variant == Variant::Strip);
    if let Some(module) = twin {
        check_twin(gpu, &mut field, module)?;
    }
    let sweeps = variant.sweeps_per_launch();
    let row = Row {
        name: format!("{}_{} {n}^2", variant.kernel(), T::NAME),
        shape: variant.shape::<T>(n, n)?,
        bytes: sweeps * field.bytes_per_sweep(),
        launch: Box::new(move |module: Option<&LoadedKernels>| match variant {
            Variant::Tiled => field.tiled_sweeps(gpu, 0, sweeps),
            _ => field.sweep_from(gpu, module, variant),
        }),
    };
    measure(gpu, row, twin, settings.reps)
}

/// One sweep of the twin writes the Rust kernel's field, bit for bit (a twin whose argument
/// layout or arithmetic drifted would not).
fn check_twin<T: LaplaceGpu>(gpu: &Gpu, field: &mut DeviceField<T>, twin: &LoadedKernels) -> Result<()> {
    let mut sweep = |module: Option<&LoadedKernels>| -> Result<Vec<T>> {
        field.sweep_from(gpu, module, Variant::Strip)?;
        gpu.download(&field.a_new_d)
    };
    let rust = sweep(None)?;
    let bits = |v: &[T]| v.iter().map(|&x| Into::<f64>::into(x).to_bits()).collect::<Vec<_>>();
    let same = bits(&sweep(Some(twin))?) == bits(&rust);
    twin_same(same, &format!("jacobi_strip_{}", T::NAME))
}
