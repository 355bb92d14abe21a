//! ch3-cuf-reduce: a reduction in a CUF kernel loop (book §3.7, `program reduce`): `a_d = 1`,
//! then `!$cuf kernel do <<<*,tPB>>>` over `aSum = aSum + a_d(i)`, a host scalar the compiler
//! turns into a device reduction; `aSum /= n` fails the program.
//!
//! Here the reduction is the library's (`ferrocuda::reduce`, two passes: a grid-stride pass with
//! one partial per block, then one block folding the partials), the shape of what CUF generates.
use crate::example::{Example, NoOptions, Outcome, Run, Size, print_kernel_time};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::reduce::{Kind, Plan, THREADS_PER_BLOCK};
use ferrocuda::verify::{Check, Tolerance};

/// The book's `n = 1024*1024`.
pub const N: usize = 1024 * 1024;

/// ch3-cuf-reduce.
pub struct Ch3CufReduce;

impl Example for Ch3CufReduce {
    const ID: &'static str = "ch3-cuf-reduce";
    const DESCRIPTION: &'static str = "aSum = aSum + a_d(i) in a CUF loop: the sum of 1024^2 ones on the GPU (ferrocuda::reduce), equal to n (book 3.7)";
    const SIZE: Option<Size> = Some(Size {
        unit: "elements of the int array",
        gpu: N,
        simulator: N,
        min: 1,
        // The book's `integer :: aSum` holds the sum of n ones up to i32::MAX.
        max: i32::MAX as usize,
    });
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: `a_d` on the device (the reduction's partials are a few kB); `a` on the
    /// host; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<i32>(1, run.size)?.host::<i32>(1, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let a = try_vec(n, 1i32)?;
        let a_d = gpu.upload(&a)?;
        let mut plan = Plan::<i32>::new(gpu, n, THREADS_PER_BLOCK)?;
        let a_sum_gpu = a_sum(gpu, &mut plan, &a_d)?;
        let expected = reference::ch3::cuf::sum(&a) as f64;
        let check = Check::compare("aSum", &[f64::from(a_sum_gpu)], &[expected], Tolerance::EXACT);
        println!(" !$cuf kernel do <<<*,{THREADS_PER_BLOCK}>>> over aSum = aSum + a_d(i), n = {n}");
        println!("   reduction: {} (partials), then one block", plan.shape());
        println!(" aSum = {a_sum_gpu}");
        match a_sum_gpu as usize == n && check.passed() {
            true => println!(" Program Passed"),
            false => println!(" **** Program Failed ****"),
        }
        let stats = time_reps(gpu, run.reps, || plan.launch(gpu, Kind::Sum, &a_d))?;
        print_kernel_time(
            gpu,
            "reduce_sum_i32 (both passes)",
            stats.median_ms,
            n * size_of::<i32>(),
        );
        Ok(Outcome { checks: vec![check] })
    }
}

/// `aSum`: the sum of `a_d`, queued on `plan` and read back.
pub fn a_sum(gpu: &Gpu, plan: &mut Plan<i32>, a_d: &DeviceBuffer<i32>) -> Result<i32> {
    plan.launch(gpu, Kind::Sum, a_d)?;
    plan.result(gpu)
}
