//! The copies of the book's §3.5 at 512 MiB: the one-element copy (`tlp_copy`) and the ILP = 4
//! copy (`ilp_copy`), each at its best block size of 32..1024 (chosen by a short sweep of the
//! Rust kernel, then measured with its CUDA C twin at that shape), f32 and f64.
use super::{Measured, Row, Settings, measure};
use crate::examples::ch3::copy::{CopyReal, Variant, block_sizes, input};
use book_kernels::ch3::tlp_copy::CopyArgs;
use ferrocuda::gpu::{Error, Gpu, KernelView, LoadedKernels, Result};
use ferrocuda::measure::time_reps;

/// Timed launches per block size in the sweep that picks the best shape.
const SWEEP_REPS: usize = 5;

/// Measures both copies in both precisions.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let mut rows = typed::<f32>(gpu, settings, twin)?;
    rows.extend(typed::<f64>(gpu, settings, twin)?);
    Ok(rows)
}

fn typed<T: CopyReal>(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let n = settings.elements::<T>()?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    let mut measured = Vec::new();
    for variant in [Variant::Tlp, Variant::Ilp] {
        let args = CopyArgs {
            input: a_d.view(),
            output: b_d.view_mut(),
        };
        // The block size with the shortest median time (the first of equals).
        let sweep: Vec<(f64, u32)> = block_sizes(gpu.properties())
            .into_iter()
            .map(|threads| {
                let shape = variant.shape(n, threads)?;
                let stats = time_reps(gpu, SWEEP_REPS, || T::launch(gpu, None, variant, shape, args))?;
                Ok((stats.median_ms, threads))
            })
            .collect::<Result<_>>()?;
        let Some(&(_, threads)) = sweep.iter().min_by(|a, b| a.0.total_cmp(&b.0)) else {
            return Err(Error::InvalidArgument(
                "the device reports no block size to sweep".into(),
            ));
        };
        let shape = variant.shape(n, threads)?;
        let mut row = Row {
            name: format!(
                "{}_copy_{}",
                if variant == Variant::Tlp { "tlp" } else { "ilp" },
                T::NAME
            ),
            shape,
            bytes: 2 * n * size_of::<T>(),
            launch: Box::new(move |m: Option<&LoadedKernels>| T::launch(gpu, m, variant, shape, args)),
        };
        // Each kernel copies into a poisoned output and must reproduce the input exactly (a
        // twin whose argument layout drifted, or that copied nothing, would not).
        for module in [None].into_iter().chain(twin.map(Some)) {
            gpu.upload_view(&vec![T::from_f64(-1.0); n], args.output)?;
            (row.launch)(module)?;
            if gpu.download_view(args.output.as_slice())? != a {
                return Err(Error::Io(format!(
                    "the {} {} did not copy its input exactly",
                    if module.is_some() { "CUDA C twin of" } else { "Rust" },
                    row.name
                )));
            }
        }
        measured.push(measure(gpu, row, twin, settings.reps)?);
    }
    Ok(measured)
}
