//! The book's transposes (§3.4) at 16384 x 16384 f32 (1 GiB per matrix, 2 GiB moved per launch,
//! 40 times the H100's L2), 32 x 8 threads per 32 x 32 tile, against memcpy and their CUDA C
//! twins (`host/book/ferrocuda-book/nvcc/ch3/transpose.cu`); each twin's output is compared byte for byte with
//! the Rust kernel's before timing.
use super::{Measured, Row, Settings, measure, twin_agrees, twin_same};
use crate::examples::ch3::transpose::{self, Variant};
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};
use ferrocuda::transpose::TransposeTile;

/// The matrix side: the benchmark size, fixed whatever `--size-mib` says, since the
/// bandwidth of a transpose depends on its extents, not only on its bytes.
pub const N: usize = 16384;

/// Measures the book's six kernels, then the library's `transpose_wide`.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let idata_d = gpu.upload(&transpose::input(N * N)?)?;
    let mut odata_d = gpu.zeros::<f32>(N * N)?;
    let args = transpose::args(&mut odata_d, &idata_d, N, N)?;
    let mut rows = Vec::new();
    for variant in &Variant::ALL[..6] {
        let variant = *variant;
        let mut row = Row {
            name: format!("{} {N}^2", variant.kernel()),
            shape: variant.shape(N, N)?,
            bytes: 2 * N * N * size_of::<f32>(),
            launch: Box::new(move |m: Option<&LoadedKernels>| transpose::launch_from(gpu, m, variant, args)),
        };
        if let Some(twin) = twin {
            let same = twin_agrees(gpu, &mut row, twin, args.odata.as_slice())?;
            twin_same(same, variant.kernel())?;
        }
        rows.push(measure(gpu, row, twin, settings.reps)?);
    }
    // The library's fast transpose, on the same matrices (no twin: it is not the book's).
    let tile = TransposeTile::whole(N, N);
    let row = Row {
        name: format!("transpose_wide (library) {N}^2"),
        shape: tile.wide_shape()?,
        bytes: 2 * N * N * size_of::<f32>(),
        launch: Box::new(move |_: Option<&LoadedKernels>| {
            ferrocuda::transpose::transpose(gpu, None, &mut odata_d, &idata_d, tile)
        }),
    };
    rows.push(measure(gpu, row, None, settings.reps)?);
    Ok(rows)
}
