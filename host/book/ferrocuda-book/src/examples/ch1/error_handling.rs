//! ch1-error-handling: synchronous and asynchronous kernel errors (book §1.5).
//!
//! The book calls `cudaGetLastError()` after a launch for configuration errors and
//! `cudaDeviceSynchronize()` for faults while the kernel runs. Here the launch returns the first
//! kind and the next synchronisation the second, each naming the kernel and the CUDA error.
//!
//! The second part makes a kernel trap, which leaves the CUDA context unusable (a sticky error,
//! as in CUDA C): run this example in a process of its own, as the runner does.
use crate::example::{Example, NoOptions, Outcome, Run};
use book_kernels::ch1::increment::{Increment, IncrementArgs};
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::Check;

/// The book's array length.
pub const N: usize = 256;

/// Launches `increment` with `threads` threads on an array of `n`; returns what the launch
/// (the book's `ierrSync`) and the synchronisation after it (`ierrAsync`) said.
pub fn launch_and_sync(gpu: &Gpu, n: usize, threads: u32) -> Result<(Result<()>, Result<()>)> {
    let mut a_d = gpu.upload(&vec![1i32; n])?;
    let args = IncrementArgs {
        a: a_d.view_mut(),
        b: 3,
    };
    let sync = crate::kernels(gpu)?.launch(Increment, LaunchShape::new((1, 1, 1), (threads, 1, 1)), args);
    let asynchronous = gpu.synchronize();
    Ok((sync, asynchronous))
}

/// ch1-error-handling.
pub struct Ch1ErrorHandling;

impl Example for Ch1ErrorHandling {
    const ID: &'static str = "ch1-error-handling";
    const DESCRIPTION: &'static str =
        "an invalid launch (1025 threads/block) and an out-of-bounds kernel, each surfaced with context (book 1.5)";
    type Args = NoOptions;

    /// Part 1: more threads per block than the device allows (a launch error). Part 2: more
    /// threads than elements, which the book's bounds-test-free kernel turns into an
    /// out-of-bounds write in CUDA C, and which the Rust kernel's checked indexing turns into a
    /// trap (a run-time error).
    fn run(gpu: &Gpu, _run: &Run<NoOptions>) -> Result<Outcome> {
        let too_many = gpu.properties().max_threads_per_block + 1;
        let (sync, asynchronous) = report(gpu, too_many as usize, too_many)?;
        let invalid_config = sync.as_ref().is_err_and(|e| e.is_invalid_launch()) && asynchronous.is_ok();
        let (sync, asynchronous) = report(gpu, N, 2 * N as u32)?;
        let fault_caught = sync.is_ok() && asynchronous.is_err();
        Ok(Outcome {
            checks: vec![
                Check::condition("an invalid configuration is a launch error", invalid_config),
                Check::condition("an out-of-bounds index is a run-time error", fault_caught),
            ],
        })
    }
}

/// [`launch_and_sync`], printing the launch and what each error check said.
fn report(gpu: &Gpu, n: usize, threads: u32) -> Result<(Result<()>, Result<()>)> {
    println!(" increment<<<1, {threads}>>> on {N} elements:");
    let (sync, asynchronous) = launch_and_sync(gpu, n, threads)?;
    let describe = |r: &Result<()>| r.as_ref().map_or_else(ToString::to_string, |()| "no error".into());
    println!("   Sync kernel error: {}", describe(&sync));
    println!("   Async kernel error: {}", describe(&asynchronous));
    Ok((sync, asynchronous))
}
