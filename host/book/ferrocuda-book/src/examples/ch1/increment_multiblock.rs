//! ch1-increment-multiblock: many blocks and a bounds test (book §1.3.2).
use crate::example::{LegacyExample, LegacySize, Options, Outcome, print_kernel_time};
use crate::examples::ch1::increment_launch::{THREADS_PER_BLOCK, increment};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch1-increment-multiblock",
    description: "ceil(n/256) blocks of 256 threads add b to 1024*1024 ints (book 1.3.2)",
    size: Some(LegacySize {
        unit: "array elements (ints)",
        gpu: N,
        simulator: N,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// The book's array length, 1024*1024.
pub const N: usize = 1024 * 1024;

/// The run's peak: the array and a warm-up copy on the device, the array and its download on
/// the host; `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<i32>(2, n)
}

/// The book's program: n = 1024*1024, `a = 1`, `b = 3`, check `a == 4`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    let b = 3;
    let mut a = try_vec(n, 1)?;
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
