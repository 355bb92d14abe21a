//! ch3-ilp-copy: instruction-level parallelism (book §3.5.2 and Appendix D.3, kernel
//! `copy_ILP`): with one block per multiprocessor, the copy that batches ILP = 4 loads per
//! thread before its stores against the one-element copy, at block sizes 32..1024, in the shape
//! of the book's K20 table; plus the ILP copy with as many blocks as fit.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch3::copy::{
    CopyReal, SIZE, Variant, block_sizes, input, measure, memory, prepare_one_block, print_heading,
};
use crate::examples::ch3::sweep::SweepCheck;
use crate::examples::plot_option::PlotOption;
use crate::plot::{Chart, Series};
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
    let n = run.size;
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    print_heading::<T>(gpu, run.reps, n, &format!(", ILP = {ILP}"));
    println!(
        " {:>12} {:>22} {:>16} {:>16} {:>20}",
        "Thread Block", "Occupancy (1 blk/SM)", "no ILP GB/s", "ILP=4 GB/s", "ILP=4, no smem GB/s"
    );
    let mut merged: [SweepCheck; 3] = Default::default();
    let (mut plain, mut ilp, mut ilp_many) = (Vec::new(), Vec::new(), Vec::new());
    for threads in block_sizes(gpu.properties()) {
        let (p, c1) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, one_block, run.reps)?;
        let (i, c2) = measure(gpu, Variant::Ilp, &a, &a_d, &mut b_d, threads, one_block, run.reps)?;
        let (m, c3) = measure(gpu, Variant::Ilp, &a, &a_d, &mut b_d, threads, 0, run.reps)?;
        for (m, c) in merged.iter_mut().zip([c1, c2, c3]) {
            m.add(format!("{threads} threads"), c);
        }
        println!(
            " {threads:>12} {:>22.3} {:>16.1} {:>16.1} {:>20.1}",
            i.occupancy, p.gb_per_s, i.gb_per_s, m.gb_per_s
        );
        plain.push((f64::from(threads), p.gb_per_s));
        ilp.push((f64::from(threads), i.gb_per_s));
        ilp_many.push((f64::from(threads), m.gb_per_s));
    }
    let chart = Chart::new(
        format!(
            "Copy bandwidth, ILP = {ILP} vs 1 ({}, {})",
            T::NAME,
            gpu.properties().name
        ),
        "threads per block",
        "effective bandwidth (GB/s)",
    )
    .log_x();
    let series = [
        Series::new("one block per SM, no ILP", plain),
        Series::new("one block per SM, ILP = 4", ilp),
        Series::new("ILP = 4, blocks per SM as many as fit", ilp_many),
    ];
    run.args.write(&chart, &series)?;
    let [plain, ilp, ilp_many] = merged;
    let checks = vec![
        plain.into_check("tlp_copy, one block per SM, every block size"),
        ilp.into_check("ilp_copy, one block per SM, every block size"),
        ilp_many.into_check("ilp_copy, as many blocks per SM as fit, every block size"),
    ];
    Ok(Outcome { checks })
}
