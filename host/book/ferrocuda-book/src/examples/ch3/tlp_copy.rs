//! ch3-tlp-copy: thread-level parallelism (book §3.5.1 and Appendix D.3, program `parallelism`):
//! the one-element-per-thread copy at block sizes 32..1024, first with as many blocks per
//! multiprocessor as fit, then with extra dynamic shared memory (unused by the kernel) so that
//! only one block fits (the book's §3.5.1.1 trick), each with its occupancy; `--plot` draws the
//! bandwidth against the block size.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch3::copy::{
    CopyReal, SIZE, Variant, block_sizes, input, measure, memory, prepare_one_block, print_heading,
};
use crate::examples::ch3::sweep::SweepCheck;
use crate::examples::plot_option::PlotOption;
use crate::plot::{Chart, Series};
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

/// The block-size sweep in precision `T` over `n` elements.
fn sweep<T: CopyReal>(gpu: &Gpu, run: &Run<PlotOption>) -> Result<Outcome> {
    let n = run.size;
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    print_heading::<T>(gpu, run.reps, n, "");
    println!(
        " {:>12} {:>12} {:>16} {:>22} {:>16}",
        "Thread Block", "Occupancy", "Bandwidth GB/s", "Occupancy (1 blk/SM)", "Bandwidth GB/s"
    );
    let (mut many_checks, mut one_checks) = (SweepCheck::default(), SweepCheck::default());
    let (mut many, mut one) = (Vec::new(), Vec::new());
    for threads in block_sizes(gpu.properties()) {
        let (m, c1) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, 0, run.reps)?;
        let (o, c2) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, one_block, run.reps)?;
        many_checks.add(format!("{threads} threads"), c1);
        one_checks.add(format!("{threads} threads"), c2);
        println!(
            " {threads:>12} {:>12.3} {:>16.1} {:>22.3} {:>16.1}",
            m.occupancy, m.gb_per_s, o.occupancy, o.gb_per_s
        );
        many.push((f64::from(threads), m.gb_per_s));
        one.push((f64::from(threads), o.gb_per_s));
    }
    let mut checks = vec![
        many_checks.into_check("tlp_copy, as many blocks per SM as fit, every block size"),
        one_checks.into_check("tlp_copy, one block per SM, every block size"),
    ];
    checks.push(Check::condition(
        "the extra shared memory leaves one block per multiprocessor",
        T::blocks_per_multiprocessor(
            gpu,
            Variant::Tlp,
            gpu.properties().max_threads_per_block.min(32),
            one_block,
        )? == 1,
    ));
    let chart = Chart::new(
        format!(
            "Copy bandwidth vs thread block size ({}, {})",
            T::NAME,
            gpu.properties().name
        ),
        "threads per block",
        "effective bandwidth (GB/s)",
    )
    .log_x();
    let series = [
        Series::new("blocks per SM as many as fit", many),
        Series::new("one block per SM (extra shared memory)", one),
    ];
    run.args.write(&chart, &series)?;
    Ok(Outcome { checks })
}
