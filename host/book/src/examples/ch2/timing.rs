//! ch2-timing: a host timer versus CUDA events around one kernel (book §2.1.1, §2.1.2).
use crate::examples::ch1::increment_launch::{THREADS_PER_BLOCK, increment};
use crate::examples::{Example, Options, Outcome, SIMULATOR_SIZE, Size};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

pub const EXAMPLE: Example = Example {
    id: "ch2-timing",
    description: "times the increment kernel with a host timer (synchronized) and with CUDA events (book 2.1)",
    size: Some(Size {
        unit: "array elements (ints)",
        gpu: N,
        simulator: SIMULATOR_SIZE,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[],
    run,
};

/// Elements (2^24: long enough for the kernel to dwarf the timers' resolution).
pub const N: usize = 1 << 24;

/// The run's peak: the array on the device; on the host the CPU's array and the download at the
/// end; `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.device::<i32>(1, n)?.host::<i32>(2, n)
}

/// Times one increment both ways, `reps` times, and prints each pair.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_SIZE))?;
    let b = 3;
    let mut a = try_vec(n, 1)?;
    let mut a_d = gpu.upload(&a)?;
    // A first launch loads and JIT-links the kernel, which would otherwise land in the first
    // sample (the book's advice: a no-op launch before the timed region).
    increment(gpu, &mut a_d, b, THREADS_PER_BLOCK)?;
    reference::ch1::increment::increment(&mut a, b);
    println!(
        " increment<<<{}, {THREADS_PER_BLOCK}>>>, {n} elements",
        n.div_ceil(THREADS_PER_BLOCK as usize)
    );
    println!(
        "   {:>4}  {:>18}  {:>18}",
        "rep",
        "host timer (ms)",
        format!("{} (ms)", gpu.timing_label())
    );
    for rep in 0..options.reps {
        // Host timer: synchronise before starting and before reading, or it times the launch only.
        gpu.synchronize()?;
        let t1 = Instant::now();
        increment(gpu, &mut a_d, b, THREADS_PER_BLOCK)?;
        gpu.synchronize()?;
        let host_ms = t1.elapsed().as_secs_f64() * 1e3;

        let timer = gpu.timer()?;
        increment(gpu, &mut a_d, b, THREADS_PER_BLOCK)?;
        let event_ms = timer.stop_ms()?;
        reference::ch1::increment::increment(&mut a, 2 * b);
        println!("   {rep:>4}  {host_ms:>18.4}  {event_ms:>18.4}");
    }
    let check = Check::compare("a", &gpu.download(&a_d)?, &a, Tolerance::EXACT);
    Ok(Outcome { checks: vec![check] })
}
