//! ch1-increment: one block of threads increments an array (book §1.3.1, `incrementTestGPU`).
use crate::example::{Example, NoOptions, Outcome, Run, Size, print_kernel_time};
use crate::examples::ch1::increment_launch::{MAX_THREADS_PER_BLOCK, increment_one_block as increment};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

/// The book's array length.
pub const N: usize = 256;

/// ch1-increment.
pub struct Ch1Increment;

impl Example for Ch1Increment {
    const ID: &'static str = "ch1-increment";
    const DESCRIPTION: &'static str = "one block of n threads adds b to each element of an int array (book 1.3.1)";
    const SIZE: Option<Size> = Some(Size {
        unit: "array elements, one thread each in one block",
        gpu: N,
        simulator: N,
        min: 1,
        max: MAX_THREADS_PER_BLOCK,
    });
    type Args = NoOptions;

    /// The run's peak: the array and a warm-up copy on the device, the array and its download
    /// on the host; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.mirrored::<i32>(2, run.size)
    }

    /// The book's program: `a = 1`, `b = 3`, increment on the GPU, check `a == 4`.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
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
}
