//! `stream --cpu`: STREAM on the host's cores (rayon), the IT4I course's hands-on 0
//! (`run_2_memory_bw_cpu.sh`), in McCalpin's table shape: the best rate in MB/s, then the
//! average, minimum and maximum times in seconds over the timed rounds (the first round is not
//! timed), and STREAM's "Solution Validates" line.
//!
//! The loop and the initial values are the device STREAM's; the triad rounds twice, as McCalpin's
//! C loop (a fused one would call libm's `fma` per element here, and measure that instead of the
//! memory), so the arrays are checked exactly against the CPU reference with that triad, a chunk
//! at a time.
use super::{Op, SCALAR, StreamReal, VERIFY_CHUNK, initial_range, timed_rounds, verify_rounds};
use crate::example::Outcome;
use crate::reference;
use ferrocuda::device::real::Real;
use ferrocuda::gpu::Result;
use ferrocuda::verify::{Check, Tolerance};
use rayon::prelude::*;
use std::time::Instant;

/// The course's array length: its table's times and rates give 16 bytes moved per element of
/// Copy in 0.050272 s at 79567.2 MB/s, so N = 250,000,000 (2 GB per f64 array); the course does
/// not print it.
pub const COURSE_N: usize = 250_000_000;
/// The default on machines without a GPU, where the host is a development machine.
pub const SIMULATOR_N: usize = 1 << 24;

/// One round of STREAM's loop on the host: `c = a; b = s*c; c = a + b; a = b + s*c`, each kernel
/// timed on its own; returns the four times in milliseconds.
fn round<T: Real + Send + Sync>(a: &mut [T], b: &mut [T], c: &mut [T], scalar: T) -> [f64; 4] {
    let mut times = [0.0; 4];
    for (k, op) in Op::ALL.into_iter().enumerate() {
        let start = Instant::now();
        match op {
            Op::Copy => c.par_iter_mut().zip(&*a).for_each(|(c, &a)| *c = a),
            Op::Scale => b.par_iter_mut().zip(&*c).for_each(|(b, &c)| *b = scalar * c),
            Op::Add => c.par_iter_mut().zip(&*a).zip(&*b).for_each(|((c, &a), &b)| *c = a + b),
            Op::Triad => a
                .par_iter_mut()
                .zip(&*b)
                .zip(&*c)
                .for_each(|((a, &b), &c)| *a = reference::stream::triad_element_unfused(b, c, scalar)),
        }
        times[k] = start.elapsed().as_secs_f64() * 1e3;
    }
    times
}

/// The CPU STREAM in precision `T` over `n` elements per array, `reps` timed rounds.
pub fn run<T: StreamReal>(n: usize, reps: usize) -> Result<Outcome> {
    let word = size_of::<T>();
    println!("-------------------------------------------------------------");
    println!(
        " STREAM on the CPU (rayon, {} threads), {}, N = {n} ({:.1} MB per array), {reps} timed rounds",
        rayon::current_num_threads(),
        T::NAME,
        (n * word) as f64 * 1e-6
    );
    let (mut a, mut b, mut c) = (
        initial_range(0, 0..n)?,
        initial_range(1, 0..n)?,
        initial_range(2, 0..n)?,
    );
    let scalar = T::from_f64(SCALAR);
    let stats = timed_rounds(reps, || Ok(round(&mut a, &mut b, &mut c, scalar)))?;
    println!("Function    Best Rate MB/s  Avg time     Min time     Max time");
    for (op, stats) in Op::ALL.into_iter().zip(stats) {
        let bytes = (op.arrays_moved() * word * n) as f64;
        println!(
            "{:<11}{:>12.1}  {:>11.6}  {:>11.6}  {:>11.6}",
            format!("{}:", op.label()),
            bytes * 1e-6 / (stats.min_ms * 1e-3),
            stats.mean_ms * 1e-3,
            stats.min_ms * 1e-3,
            stats.max_ms * 1e-3
        );
    }
    println!("-------------------------------------------------------------");
    let triad = reference::stream::triad_element_unfused;
    let checks = verify_rounds(n, reps + 1, " (CPU)", triad, |k, start, expected| {
        let got = &[&a, &b, &c][k][start..start + expected.len()];
        Ok(Check::compare("", got, expected, Tolerance::EXACT))
    })?;
    // STREAM's tolerance on the average error of each array, printed in its line; the check
    // here is exact.
    let epsilon = if word == 8 { 1e-13 } else { 1e-6 };
    match checks.iter().all(Check::passed) {
        true => println!(
            "Solution Validates: avg error less than {:.6e} on all three arrays (here: exactly equal to the CPU reference, checked in chunks of {} elements)",
            epsilon,
            n.min(VERIFY_CHUNK)
        ),
        false => println!("Failed Validation on one or more arrays"),
    }
    println!("-------------------------------------------------------------");
    Ok(Outcome { checks })
}
