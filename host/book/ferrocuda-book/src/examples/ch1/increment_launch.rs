//! The increment's two launches, which `ch1-increment` and `ch1-increment-multiblock` run and
//! `ch2-timing` times: one block of `n` threads (book §1.3.1, `increment<<<1,n>>>`), and
//! `ceil(n / threads)` blocks, each thread adding `b` to its element behind a bounds test
//! (book §1.3.2); and the book's program around an increment, which the three ch1 increments
//! share.
use crate::example::{Outcome, print_kernel_time};
use crate::reference;
use book_kernels::ch1::increment::{Increment, IncrementArgs as OneBlockArgs};
use book_kernels::ch1::increment_multiblock::{IncrementArgs, IncrementMultiblock};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// The most threads a block may have on every CUDA GPU so far (compute capability 2.0 to 12.x):
/// the largest array one block covers.
pub const MAX_THREADS_PER_BLOCK: usize = 1024;

/// `a_d[i] += b` with one block of `a_d.len()` threads (at most the device's threads per block).
pub fn increment_one_block(gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32) -> Result<()> {
    let n = a_d.len();
    let max = gpu.properties().max_threads_per_block as usize;
    if n == 0 || n > max {
        return Err(Error::InvalidArgument(format!(
            "one block covers 1 to {max} elements, not {n}: ch1-increment-multiblock (or ch2-timing --launch multiblock) launches as many blocks as needed"
        )));
    }
    let args = OneBlockArgs { a: a_d.view_mut(), b };
    crate::kernels(gpu)?.launch(Increment, LaunchShape::new((1, 1, 1), (n as u32, 1, 1)), args)
}

/// The book's threads per block, `tPB`.
pub const THREADS_PER_BLOCK: u32 = 256;

/// `a_d[i] += b` with `ceil(n / threads_per_block)` blocks.
pub fn increment(gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32, threads_per_block: u32) -> Result<()> {
    let shape = LaunchShape::cover_1d(a_d.len(), threads_per_block)?;
    crate::kernels(gpu)?.launch(IncrementMultiblock, shape, IncrementArgs { a: a_d.view_mut(), b })
}

/// The peak of [`book_program`] over `n` elements: the array and a warm-up copy on the device,
/// the array and its download on the host; `None` on overflow.
pub fn book_memory(n: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<i32>(2, n)
}

/// The book's program over `n` elements: `a = 1`, `b = 3`, `launch` (`a_d += b`) on the GPU,
/// check `a == 4`; prints the verdict and the time of `kernel`.
pub fn book_program(
    gpu: &Gpu,
    n: usize,
    kernel: &str,
    launch: impl Fn(&mut DeviceBuffer<i32>, i32) -> Result<()>,
) -> Result<Outcome> {
    let b = 3;
    let mut a = try_vec(n, 1)?;
    let mut a_d = gpu.upload(&a)?;
    // A first launch loads the kernel (CUDA loads modules lazily); run it on a scratch copy so
    // the timed launch is the kernel alone and `a_d` is incremented once.
    launch(&mut gpu.upload(&a)?, b)?;
    let ms = gpu.time_ms(|| launch(&mut a_d, b))?;
    let gpu_a = gpu.download(&a_d)?;
    reference::ch1::increment::increment(&mut a, b);
    let check = Check::compare("a", &gpu_a, &a, Tolerance::EXACT);
    match check.passed() {
        true => println!("Program Passed"),
        false => println!("**** Program Failed ****"),
    }
    print_kernel_time(gpu, kernel, ms, 2 * n * size_of::<i32>());
    Ok(Outcome { checks: vec![check] })
}
