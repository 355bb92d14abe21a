//! ch1-error-handling: synchronous and asynchronous kernel errors (book §1.5).
//!
//! The book calls `cudaGetLastError()` after a launch for configuration errors and
//! `cudaDeviceSynchronize()` for faults while the kernel runs. Here the launch returns the first
//! kind and the next synchronisation the second, each naming the kernel and the CUDA error.
//!
//! The second part makes a kernel trap, which leaves the CUDA context unusable (a sticky error,
//! as in CUDA C): run this example in a process of its own, as the runner does.
use crate::example::{LegacyExample, Options, Outcome};
use book_kernels::ch1::increment::{Increment, IncrementArgs};
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch1-error-handling",
    description: "an invalid launch (1025 threads/block) and an out-of-bounds kernel, each surfaced with context (book 1.5)",
    size: None,
    f64: false,
    reps: false,
    flags: &[],
    run,
};

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

fn describe(result: &Result<()>) -> String {
    match result {
        Ok(()) => "no error".to_string(),
        Err(e) => e.to_string(),
    }
}

/// Part 1: more threads per block than the device allows (a launch error). Part 2: more threads
/// than elements, which the book's bounds-test-free kernel turns into an out-of-bounds write in
/// CUDA C, and which the Rust kernel's checked indexing turns into a trap (a run-time error).
pub fn run(gpu: &Gpu, _options: &Options) -> Result<Outcome> {
    let too_many = gpu.properties().max_threads_per_block + 1;
    println!(" increment<<<1, {too_many}>>> on {N} elements:");
    let (sync, asynchronous) = launch_and_sync(gpu, too_many as usize, too_many)?;
    println!("   Sync kernel error: {}", describe(&sync));
    println!("   Async kernel error: {}", describe(&asynchronous));
    let invalid_config = sync.as_ref().is_err_and(|e| e.is_invalid_launch()) && asynchronous.is_ok();

    println!(" increment<<<1, {}>>> on {N} elements:", 2 * N);
    let (sync, asynchronous) = launch_and_sync(gpu, N, 2 * N as u32)?;
    println!("   Sync kernel error: {}", describe(&sync));
    println!("   Async kernel error: {}", describe(&asynchronous));
    let fault_caught = sync.is_ok() && asynchronous.is_err();
    Ok(Outcome {
        checks: vec![
            Check::condition("an invalid configuration is a launch error", invalid_config),
            Check::condition("an out-of-bounds index is a run-time error", fault_caught),
        ],
    })
}
