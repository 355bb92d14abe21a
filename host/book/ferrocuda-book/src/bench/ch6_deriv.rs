//! ch6-deriv's derivatives (book §6.1) from DRAM: the uniform-grid kernels at 512^3 f32 (512
//! MiB per array, 10x the H100's L2; the book's 64^3 sits in L2), one per tile shape that can
//! be the best in its direction (x: 4 and 32 lines; y and z: 32-wide tiles, whose warps load 128
//! contiguous bytes; and the marching y and z kernels, no tile), against memcpy and their CUDA C twins (`host/book/ferrocuda-book/nvcc/ch6/deriv.cu`).
//! Bytes counted as the book: one read and one write per point. Each twin's output is compared
//! bit for bit with the Rust kernel's before timing (a twin that differs is reported and left
//! out of its row).
use super::{Measured, Row, Settings, measure, twin_agrees};
use crate::examples::ch6::deriv_launch::{Coefficients, Pencils, Problem, Variant};
use crate::nvcc::LoadOr;
use crate::reference::ch6::deriv::{Direction, Extents, Grid, line_function};
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};

/// The kernels measured.
pub const VARIANTS: [Variant; 6] = [
    Variant::new(Direction::X, Pencils::Small, Coefficients::Uniform),
    Variant::new(Direction::X, Pencils::Large, Coefficients::Uniform),
    Variant::new(Direction::Y, Pencils::Large, Coefficients::Uniform),
    Variant::new(Direction::Z, Pencils::Large, Coefficients::Uniform),
    // The marching kernels (no tile, 8 loads in flight per thread): the performance pass's y and z.
    Variant::new(Direction::Y, Pencils::March, Coefficients::Uniform),
    Variant::new(Direction::Z, Pencils::March, Coefficients::Uniform),
];

/// The cube side whose f32 array fills `settings`' working set: 512 for the default 512 MiB, a
/// multiple of 32, at least 32.
pub fn side(settings: &Settings) -> Result<usize> {
    let points = settings.elements::<f32>()?;
    let mut m = 32;
    while (m + 32) * (m + 32) * (m + 32) <= points {
        m += 32;
    }
    Ok(m)
}

/// Measures [`VARIANTS`] in f32 on a `side(settings)`^3 cube.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let m = side(settings)?;
    let extents = Extents::cube(m);
    let n = extents.points()?;
    let problem = Problem::<f32>::new(gpu, Grid::Uniform, extents)?;
    let (line, _) = line_function::<f32>(Grid::Uniform, m);
    let f_d = gpu.upload(
        &(0..n)
            .map(|p| line[p % m] + line[(p / m) % m] * line[p / (m * m)])
            .collect::<Vec<_>>(),
    )?;
    let mut df_d = gpu.zeros::<f32>(n)?;
    let book = crate::kernels(gpu)?;
    // The uniform coefficients (every row's) stay in each module's bank for the timed launches.
    // A twin whose bank cannot be written is left out of these rows, with a note, rather than
    // ending the whole bench.
    let twin = twin.and_then(|twin| match problem.with_constants(twin, VARIANTS[0], || Ok(())) {
        Ok(()) => Some(twin),
        Err(e) => {
            println!("ch6-deriv's CUDA C twin not measured: {e}");
            None
        }
    });
    problem.with_constants(&book, VARIANTS[0], || Ok(()))?;
    let mut rows = Vec::new();
    for variant in VARIANTS {
        let args = problem.args(variant, &f_d, &mut df_d)?;
        let problem = &problem;
        let mut row = Row {
            name: format!("{}_f32 {m}^3", variant.kernel()),
            shape: variant.shape::<f32>(gpu, extents, None)?,
            bytes: 2 * n * size_of::<f32>(),
            launch: Box::new(move |module: Option<&LoadedKernels>| {
                problem.launch_args(gpu, &gpu.load_or(module, &crate::KERNELS)?, variant, args)
            }),
        };
        // A twin that writes other results is a bug to report, not a row to compare: noted, and
        // the Rust kernel measured alone, so the rest of the bench still runs.
        let agreeing_twin = match twin {
            Some(twin) if !twin_agrees(gpu, &mut row, twin, args.output())? => {
                println!(
                    "the CUDA C twin of {}_f32 wrote different results: not compared",
                    variant.kernel()
                );
                None
            }
            other => other,
        };
        rows.push(measure(gpu, row, agreeing_twin, settings.reps)?);
    }
    Ok(rows)
}
