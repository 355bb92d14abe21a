//! ch3-tlp-copy: thread-level parallelism (book §3.5.1 and Appendix D.3, program `parallelism`):
//! the one-element-per-thread copy at block sizes 32..1024, first with as many blocks per
//! multiprocessor as fit, then with extra dynamic shared memory (unused by the kernel) so that
//! only one block fits (the book's §3.5.1.1 trick), each with its occupancy; `--plot` draws the
//! bandwidth against the block size.
use crate::defaults::Pick;
use crate::example::{Example, Options, Outcome, Precision};
use crate::examples::ch3::copy::{
    CopyReal, N, SIMULATOR_N, Variant, block_sizes, input, measure, prepare_one_block, print_heading,
};
use crate::examples::ch3::sweep::SweepCheck;
use crate::examples::plot_option;
use crate::plot::{Chart, Series};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: Example = Example {
    id: "ch3-tlp-copy",
    description: "copy at block sizes 32..1024, many vs one block per SM, with occupancy (book 3.5.1; its tables are f64)",
    size: Some(crate::examples::ch3::copy::SIZE),
    f64: true,
    reps: true,
    flags: &[plot_option::FLAG],
    run,
};

/// The block-size sweep in precision `T` over `n` elements.
pub fn run_typed<T: CopyReal>(gpu: &Gpu, options: &Options, n: usize) -> Result<Outcome> {
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    print_heading::<T>(gpu, options, n, "");
    println!(
        " {:>12} {:>12} {:>16} {:>22} {:>16}",
        "Thread Block", "Occupancy", "Bandwidth GB/s", "Occupancy (1 blk/SM)", "Bandwidth GB/s"
    );
    let (mut many_checks, mut one_checks) = (SweepCheck::default(), SweepCheck::default());
    let (mut many, mut one) = (Vec::new(), Vec::new());
    for threads in block_sizes(gpu.properties()) {
        let (m, c1) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, 0, options.reps)?;
        let (o, c2) = measure(gpu, Variant::Tlp, &a, &a_d, &mut b_d, threads, one_block, options.reps)?;
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
    plot_option::write_if_asked(options, &chart, &series)?;
    Ok(Outcome { checks })
}

/// `ch3-tlp-copy` with `--precision` (the book's tables are f64), `--size` (elements; the book's
/// 2^20 by default) and `--plot`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_N))?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options, n),
        Precision::F64 => run_typed::<f64>(gpu, options, n),
    }
}
