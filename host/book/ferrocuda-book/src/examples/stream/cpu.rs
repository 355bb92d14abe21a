//! `stream --cpu`: STREAM on the host's cores (rayon), the IT4I course's hands-on 0
//! (`run_2_memory_bw_cpu.sh`), in McCalpin's table shape: the best rate in MB/s, then the
//! average, minimum and maximum times in seconds over the timed rounds (the first round is not
//! timed), and STREAM's "Solution Validates" line.
//!
//! The loop and the initial values are the device STREAM's; the triad rounds twice, as McCalpin's
//! C loop (a fused one would call libm's `fma` per element here, and measure that instead of the
//! memory), so the arrays are checked exactly against the CPU reference with that triad, a chunk
//! at a time.
use super::{Op, SCALAR, StreamReal, VERIFY_CHUNK, chunks, initial};
use crate::example::Outcome;
use crate::reference;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::try_with_capacity;
use ferrocuda::gpu::Result;
use ferrocuda::measure::Stats;
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
/// timed on its own; returns the four times in seconds.
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
        times[k] = start.elapsed().as_secs_f64();
    }
    times
}

/// STREAM's tolerance on the average error of each array, printed in its line (1e-13 for
/// double, 1e-6 for float); the check here is exact.
fn stream_epsilon<T: Real>() -> f64 {
    match size_of::<T>() {
        8 => 1e-13,
        _ => 1e-6,
    }
}

/// The CPU STREAM in precision `T` over `n` elements per array, `reps` timed rounds.
pub fn run_typed<T: StreamReal + Send + Sync>(n: usize, reps: usize) -> Result<Outcome> {
    let word = size_of::<T>();
    println!("-------------------------------------------------------------");
    println!(
        " STREAM on the CPU (rayon, {} threads), {}, N = {n} ({:.1} MB per array), {reps} timed rounds",
        rayon::current_num_threads(),
        T::NAME,
        (n * word) as f64 * 1e-6
    );
    let filled = |pick: fn((T, T, T)) -> T| -> Result<Vec<T>> {
        let mut values = try_with_capacity(n)?;
        values.par_extend((0..n).into_par_iter().map(|i| pick(initial::<T>(i))));
        Ok(values)
    };
    let (mut a, mut b, mut c) = (filled(|v| v.0)?, filled(|v| v.1)?, filled(|v| v.2)?);
    let scalar = T::from_f64(SCALAR);
    let mut samples: [Vec<f64>; 4] = Default::default();
    for rep in 0..=reps {
        let times = round(&mut a, &mut b, &mut c, scalar);
        if rep > 0 {
            for (k, t) in times.into_iter().enumerate() {
                samples[k].push(t * 1e3);
            }
        }
    }
    println!("Function    Best Rate MB/s  Avg time     Min time     Max time");
    for (k, op) in Op::ALL.into_iter().enumerate() {
        let stats = Stats::of(&mut samples[k]);
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
    let mut checks =
        ["a", "b", "c"].map(|name| Check::compare::<T>(&format!("{name} (CPU)"), &[], &[], Tolerance::EXACT));
    for (start, len) in chunks(n) {
        let expected = reference::stream::sequence_range_with(
            start..start + len,
            initial::<T>,
            scalar,
            reps + 1,
            reference::stream::triad_element_unfused,
        )?;
        for (k, got) in [&a, &b, &c].into_iter().enumerate() {
            checks[k].absorb(
                Check::compare("", &got[start..start + len], &expected[k], Tolerance::EXACT),
                start,
            );
        }
    }
    match checks.iter().all(Check::passed) {
        true => println!(
            "Solution Validates: avg error less than {:.6e} on all three arrays (here: exactly equal to the CPU reference, checked in chunks of {} elements)",
            stream_epsilon::<T>(),
            n.min(VERIFY_CHUNK)
        ),
        false => println!("Failed Validation on one or more arrays"),
    }
    println!("-------------------------------------------------------------");
    Ok(Outcome { checks: checks.into() })
}
