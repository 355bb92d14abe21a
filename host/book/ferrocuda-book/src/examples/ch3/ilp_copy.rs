//! ch3-ilp-copy: instruction-level parallelism (book §3.5.2 and Appendix D.3, kernel
//! `copy_ILP`): with one block per multiprocessor, the copy that batches ILP = 4 loads per
//! thread before its stores against the one-element copy, at block sizes 32..1024, in the shape
//! of the book's K20 table; plus the ILP copy with as many blocks as fit.
use crate::defaults::Pick;
use crate::example::{Example, Options, Outcome, Precision};
use crate::examples::ch3::copy::{
    CopyReal, N, SIMULATOR_N, Variant, block_sizes, input, measure, prepare_one_block, print_heading,
};
use crate::examples::ch3::sweep::SweepCheck;
use crate::examples::plot_option;
use crate::plot::{Chart, Series};
use book_kernels::ch3::ilp_copy::ILP;
use ferrocuda::gpu::{Gpu, Result};

pub const EXAMPLE: Example = Example {
    id: "ch3-ilp-copy",
    description: "copy with ILP = 4 loads in flight per thread vs one, one block per SM, with occupancy (book 3.5.2)",
    size: Some(crate::examples::ch3::copy::SIZE),
    f64: true,
    reps: true,
    flags: &[plot_option::FLAG],
    run,
};

/// The book's table in precision `T`.
pub fn run_typed<T: CopyReal>(gpu: &Gpu, options: &Options, n: usize) -> Result<Outcome> {
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    print_heading::<T>(gpu, options, n, &format!(", ILP = {ILP}"));
    println!(
        " {:>12} {:>22} {:>16} {:>16} {:>20}",
        "Thread Block", "Occupancy (1 blk/SM)", "no ILP GB/s", "ILP=4 GB/s", "ILP=4, no smem GB/s"
    );
    let mut merged: [SweepCheck; 3] = Default::default();
    let (mut plain, mut ilp, mut ilp_many) = (Vec::new(), Vec::new(), Vec::new());
    for threads in block_sizes(gpu.properties()) {
        let (p, c1) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, one_block, options.reps)?;
        let (i, c2) = measure(gpu, Variant::Ilp, &a, &a_d, &mut b_d, threads, one_block, options.reps)?;
        let (m, c3) = measure(gpu, Variant::Ilp, &a, &a_d, &mut b_d, threads, 0, options.reps)?;
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
    plot_option::write_if_asked(options, &chart, &series)?;
    let [plain, ilp, ilp_many] = merged;
    let checks = vec![
        plain.into_check("tlp_copy, one block per SM, every block size"),
        ilp.into_check("ilp_copy, one block per SM, every block size"),
        ilp_many.into_check("ilp_copy, as many blocks per SM as fit, every block size"),
    ];
    Ok(Outcome { checks })
}

/// `ch3-ilp-copy` with `--precision` (the book's table is f64), `--size` and `--plot`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_N))?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options, n),
        Precision::F64 => run_typed::<f64>(gpu, options, n),
    }
}
