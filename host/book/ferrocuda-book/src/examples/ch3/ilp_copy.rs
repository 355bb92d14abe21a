//! ch3-ilp-copy: instruction-level parallelism (book §3.5.2 and Appendix D.3, kernel
//! `copy_ILP`): with one block per multiprocessor, the copy that batches ILP = 4 loads per
//! thread before its stores against the one-element copy, at block sizes 32..1024, in the shape
//! of the book's K20 table; plus the ILP copy with as many blocks as fit.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch3::copy::{self, Column, CopyReal, SIZE, Variant, memory};
use crate::examples::plot_option::PlotOption;
use book_kernels::ch3::ilp_copy::ILP;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use std::marker::PhantomData;

/// ch3-ilp-copy, in precision `T` (registered in f32 and f64, f64 by default as the book's
/// tables).
pub struct Ch3IlpCopy<T>(PhantomData<T>);

impl<T: CopyReal> Example for Ch3IlpCopy<T> {
    const ID: &'static str = "ch3-ilp-copy";
    const DESCRIPTION: &'static str =
        "copy with ILP = 4 loads in flight per thread vs one, one block per SM, with occupancy (book 3.5.2)";
    const SIZE: Option<Size> = Some(SIZE);
    const REPS: bool = true;
    type Args = PlotOption;

    fn memory(run: &Run<PlotOption>, _gpu: &Gpu) -> Option<Footprint> {
        memory::<T>(run.size)
    }

    fn run(gpu: &Gpu, run: &Run<PlotOption>) -> Result<Outcome> {
        sweep::<T>(gpu, run)
    }
}

/// The book's table in precision `T`.
fn sweep<T: CopyReal>(gpu: &Gpu, run: &Run<PlotOption>) -> Result<Outcome> {
    let header = format!(
        " {:>12} {:>22} {:>16} {:>16} {:>20}",
        "Thread Block", "Occupancy (1 blk/SM)", "no ILP GB/s", "ILP=4 GB/s", "ILP=4, no smem GB/s"
    );
    let columns = [
        Column(
            Variant::Tlp,
            true,
            "one block per SM, no ILP",
            "tlp_copy, one block per SM, every block size",
        ),
        Column(
            Variant::Ilp,
            true,
            "one block per SM, ILP = 4",
            "ilp_copy, one block per SM, every block size",
        ),
        Column(
            Variant::Ilp,
            false,
            "ILP = 4, blocks per SM as many as fit",
            "ilp_copy, as many blocks per SM as fit, every block size",
        ),
    ];
    let what = format!(", ILP = {ILP}");
    let title = format!("Copy bandwidth, ILP = {ILP} vs 1");
    let (checks, _) = copy::sweep::<T>(gpu, run, (&what, header, &title), &columns, |threads, m| {
        format!(
            " {threads:>12} {:>22.3} {:>16.1} {:>16.1} {:>20.1}",
            m[1].occupancy, m[0].gb_per_s, m[1].gb_per_s, m[2].gb_per_s
        )
    })?;
    Ok(Outcome { checks })
}
