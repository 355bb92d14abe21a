//! ch3-cuf-reduce: a reduction in a CUF kernel loop (book §3.7, `program reduce`): `a_d = 1`,
//! then `!$cuf kernel do <<<*,tPB>>>` over `aSum = aSum + a_d(i)`, a host scalar the compiler
//! turns into a device reduction; `aSum /= n` fails the program.
//!
//! Here the reduction is the library's (`ferrocuda::reduce`, two passes: a grid-stride pass with
//! one partial per block, then one block folding the partials), the shape of what CUF generates.
use crate::example::{LegacyExample, LegacySize, Options, Outcome, print_kernel_time};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::reduce::{Kind, Plan, THREADS_PER_BLOCK};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch3-cuf-reduce",
    description: "aSum = aSum + a_d(i) in a CUF loop: the sum of 1024^2 ones on the GPU (ferrocuda::reduce), equal to n (book 3.7)",
    size: Some(LegacySize {
        unit: "elements of the int array",
        gpu: N,
        simulator: N,
        min: 1,
        // The book's `integer :: aSum` holds the sum of n ones up to i32::MAX.
        max: i32::MAX as usize,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[],
    run,
};

/// The book's `n = 1024*1024`.
pub const N: usize = 1024 * 1024;

/// The run's peak: `a_d` on the device (the reduction's partials are a few kB); `a` on the
/// host; `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.device::<i32>(1, n)?.host::<i32>(1, n)
}

/// `aSum`: the sum of `a_d`, queued on `plan` and read back.
pub fn a_sum(gpu: &Gpu, plan: &mut Plan<i32>, a_d: &DeviceBuffer<i32>) -> Result<i32> {
    plan.launch(gpu, Kind::Sum, a_d)?;
    plan.result(gpu)
}

pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    if n > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "--size is at most {} here (the sum of n ones in the book's integer aSum), not {n}",
            i32::MAX
        )));
    }
    let a = try_vec(n, 1i32)?;
    let a_d = gpu.upload(&a)?;
    let mut plan = Plan::<i32>::new(gpu, n, THREADS_PER_BLOCK)?;
    let a_sum_gpu = a_sum(gpu, &mut plan, &a_d)?;
    let expected = reference::ch3::cuf::sum(&a);
    let check = Check::compare("aSum", &[f64::from(a_sum_gpu)], &[expected as f64], Tolerance::EXACT);
    println!(" !$cuf kernel do <<<*,{THREADS_PER_BLOCK}>>> over aSum = aSum + a_d(i), n = {n}");
    println!("   reduction: {} (partials), then one block", plan.shape());
    println!(" aSum = {a_sum_gpu}");
    println!(
        " {}",
        if a_sum_gpu as usize == n && check.passed() {
            "Program Passed"
        } else {
            "**** Program Failed ****"
        }
    );
    let stats = time_reps(gpu, options.reps, || plan.launch(gpu, Kind::Sum, &a_d))?;
    print_kernel_time(
        gpu,
        "reduce_sum_i32 (both passes)",
        stats.median_ms,
        n * size_of::<i32>(),
    );
    Ok(Outcome { checks: vec![check] })
}
