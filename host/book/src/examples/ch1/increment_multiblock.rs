//! ch1-increment-multiblock: many blocks and a bounds test (book §1.3.2).
use crate::examples::ch1::increment_launch::{THREADS_PER_BLOCK, increment};
use crate::examples::{Example, Options, Outcome, print_kernel_time};
use crate::reference;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch1-increment-multiblock",
    description: "ceil(n/256) blocks of 256 threads add b to 1024*1024 ints (book 1.3.2)",
    size: crate::examples::SIZE_TO_PLAN,
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// The book's array length, 1024*1024.
pub const N: usize = 1024 * 1024;
/// The book's program: n = 1024*1024, `a = 1`, `b = 3`, check `a == 4`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    let b = 3;
    let mut a = vec![1; n];
    let mut a_d = gpu.upload(&a)?;
    // A first launch loads the kernel (CUDA loads modules lazily); run it on a scratch copy so
    // the timed launch is the kernel alone and `a_d` is incremented once.
    let mut warm_d = gpu.upload(&a)?;
    increment(gpu, &mut warm_d, b, THREADS_PER_BLOCK)?;
    let ms = gpu.time_ms(|| increment(gpu, &mut a_d, b, THREADS_PER_BLOCK))?;
    let gpu_a = gpu.download(&a_d)?;
    reference::ch1::increment::increment(&mut a, b);
    let check = Check::compare("a", &gpu_a, &a, Tolerance::EXACT);
    println!(
        "{}",
        if check.passed() {
            "Program Passed"
        } else {
            "**** Program Failed ****"
        }
    );
    print_kernel_time(gpu, "increment_multiblock", ms, 2 * a.len() * size_of::<i32>());
    Ok(Outcome { checks: vec![check] })
}
