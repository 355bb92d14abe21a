//! ch3-tlp-copy: thread-level parallelism (book §3.5.1 and Appendix D.3, program `parallelism`):
//! the one-element-per-thread copy at block sizes 32..1024, first with as many blocks per
//! multiprocessor as fit, then with extra dynamic shared memory (unused by the kernel) so that
//! only one block fits (the book's §3.5.1.1 trick), each with its occupancy; `--plot` draws the
//! bandwidth against the block size.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch3::copy::{self, Column, CopyReal, SIZE, Variant, memory};
use crate::examples::plot_option::PlotOption;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;
use std::marker::PhantomData;

/// ch3-tlp-copy, in precision `T` (registered in f32 and f64, f64 by default as the book's
/// tables).
pub struct Ch3TlpCopy<T>(PhantomData<T>);

impl<T: CopyReal> Example for Ch3TlpCopy<T> {
    const ID: &'static str = "ch3-tlp-copy";
    const DESCRIPTION: &'static str =
        "copy at block sizes 32..1024, many vs one block per SM, with occupancy (book 3.5.1; its tables are f64)";
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

/// The block-size sweep in precision `T`, many blocks per SM against one.
fn sweep<T: CopyReal>(gpu: &Gpu, run: &Run<PlotOption>) -> Result<Outcome> {
    let header = format!(
        " {:>12} {:>12} {:>16} {:>22} {:>16}",
        "Thread Block", "Occupancy", "Bandwidth GB/s", "Occupancy (1 blk/SM)", "Bandwidth GB/s"
    );
    let columns = [
        Column(
            Variant::Tlp,
            false,
            "blocks per SM as many as fit",
            "tlp_copy, as many blocks per SM as fit, every block size",
        ),
        Column(
            Variant::Tlp,
            true,
            "one block per SM (extra shared memory)",
            "tlp_copy, one block per SM, every block size",
        ),
    ];
    let title = "Copy bandwidth vs thread block size";
    let (mut checks, one_block) = copy::sweep::<T>(gpu, run, ("", header, title), &columns, |threads, m| {
        format!(
            " {threads:>12} {:>12.3} {:>16.1} {:>22.3} {:>16.1}",
            m[0].occupancy, m[0].gb_per_s, m[1].occupancy, m[1].gb_per_s
        )
    })?;
    checks.push(Check::condition(
        "the extra shared memory leaves one block per multiprocessor",
        T::blocks_per_multiprocessor(
            gpu,
            Variant::Tlp,
            gpu.properties().max_threads_per_block.min(32),
            one_block,
        )? == 1,
    ));
    Ok(Outcome { checks })
}
