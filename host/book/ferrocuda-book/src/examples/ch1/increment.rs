//! ch1-increment: one block of threads increments an array (book §1.3.1, `incrementTestGPU`).
use crate::example::{Example, Options, Outcome, Size, print_kernel_time};
use crate::examples::ch1::increment_launch::{MAX_THREADS_PER_BLOCK, increment_one_block as increment};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch1-increment",
    description: "one block of n threads adds b to each element of an int array (book 1.3.1)",
    size: Some(Size {
        unit: "array elements, one thread each in one block",
        gpu: N,
        simulator: N,
        min: 1,
        max: MAX_THREADS_PER_BLOCK,
        memory,
    }),
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// The book's array length.
pub const N: usize = 256;

/// The run's peak: the array and a warm-up copy on the device, the array and its download on
/// the host; `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<i32>(2, n)
}

/// The book's program: `a = 1`, `b = 3`, increment on the GPU, check `a == 4`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N)?;
    let b = 3;
    let mut a = try_vec(n, 1)?;
    let mut a_d = gpu.upload(&a)?;
    // A first launch loads the kernel (CUDA loads modules lazily); run it on a scratch copy so
    // the timed launch is the kernel alone and `a_d` is incremented once.
    let mut warm_d = gpu.upload(&a)?;
    increment(gpu, &mut warm_d, b)?;
    let ms = gpu.time_ms(|| increment(gpu, &mut a_d, b))?;
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
    print_kernel_time(gpu, "increment", ms, 2 * a.len() * size_of::<i32>());
    Ok(Outcome { checks: vec![check] })
}
