//! Host-device transfers (book §3.1.1): the Rust path (`Gpu::upload_pinned` and friends, on
//! cudarc) against the CUDA C twin `host/book/ferrocuda-book/nvcc/ch3/bandwidth_test.cu`, a host program that
//! calls `cudaMemcpy` on `cudaMallocHost` and `malloc` memory, compiled by nvcc and run beside
//! this process on the same GPU.
//!
//! Why a CUDA C program rather than a second timing through the driver API from Rust: the
//! question is whether a Rust user gets what a CUDA C user gets from `cudaMemcpy`, allocation
//! flags and runtime included (cudarc's own pinned allocation, for one, is write-combined,
//! `cudaMallocHost`'s is not); a driver-API timing in this process would share every choice the
//! Rust path makes and compare it only with itself. Both sides time each copy with events on
//! the default stream; the samples are taken in two rounds, alternating sides, so drift hits both.
use super::Settings;
use crate::examples::ch3::bandwidth_test::round_trips;
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s};
use std::process::Command;

const BANDWIDTH_TEST: &str = include_str!("../../nvcc/ch3/bandwidth_test.cu");

/// The transfer size of the comparison: 256 MiB, far past any fixed per-copy cost.
pub const BYTES: usize = 256 << 20;
/// The goal for pinned host-to-device copies: at least this fraction of CUDA C's.
pub const GOAL: f64 = 0.95;

/// The transfers, in the twin's output order.
const KINDS: [&str; 4] = ["pinned_h2d", "pinned_d2h", "pageable_h2d", "pageable_d2h"];

/// Runs the twin: `reps` samples of each transfer, in ms, in `KINDS` order.
fn twin_samples(exe: &std::path::Path, device: usize, bytes: usize, reps: usize) -> Result<[Vec<f64>; 4]> {
    let output = Command::new(exe)
        .args([device.to_string(), bytes.to_string(), reps.to_string()])
        .output()
        .map_err(|e| Error::Io(format!("cannot run {}: {e}", exe.display())))?;
    if !output.status.success() {
        return Err(Error::Io(format!(
            "the CUDA C bandwidth test failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    parse_twin_output(&String::from_utf8_lossy(&output.stdout))
}

/// The twin's samples from its output: a line per transfer (`pinned_h2d 5.1 5.0 ...`) and the
/// line `verified 1`; an error naming what is missing or malformed.
pub fn parse_twin_output(stdout: &str) -> Result<[Vec<f64>; 4]> {
    if !stdout.lines().any(|l| l.trim() == "verified 1") {
        return Err(Error::Io(
            "the CUDA C bandwidth test's round trips returned other bytes".into(),
        ));
    }
    let mut samples: [Vec<f64>; 4] = Default::default();
    for (kind, out) in KINDS.iter().zip(&mut samples) {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(kind))
            .ok_or_else(|| Error::Io(format!("the CUDA C bandwidth test printed no `{kind}` line")))?;
        *out = line
            .split_whitespace()
            .skip(1)
            .map(|t| {
                t.parse::<f64>()
                    .map_err(|_| Error::Io(format!("`{t}` in the `{kind}` line is not a time")))
            })
            .collect::<Result<_>>()?;
        if out.is_empty() {
            return Err(Error::Io(format!(
                "the `{kind}` line of the CUDA C bandwidth test has no time"
            )));
        }
    }
    Ok(samples)
}

/// Measures the four transfers at [`BYTES`] on both sides and prints them with the ratios; the
/// pinned host-to-device row carries the goal.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    println!();
    println!(
        "host-device transfers, {} MiB, cudaMemcpy-style copies timed with events:",
        BYTES >> 20
    );
    let mut twin = crate::nvcc::build_program("ch3/bandwidth_test.cu", BANDWIDTH_TEST);
    if let Err(e) = &twin {
        println!("CUDA C twin: not measured ({e})");
    }
    let a: Vec<u32> = (0..BYTES / 4).map(|i| i as u32).collect();
    let rounds = 2;
    let reps = settings.reps.div_ceil(rounds).max(1);
    let mut rust: [Vec<f64>; 4] = Default::default();
    let mut cuda_c: [Vec<f64>; 4] = Default::default();
    for _ in 0..rounds {
        let (rates, checks) = round_trips(gpu, &a, reps)?;
        if let Some(failed) = checks.iter().find(|c| !c.passed()) {
            return Err(Error::Io(format!("the Rust round trip failed: {failed}")));
        }
        for (out, s) in rust.iter_mut().zip([
            rates.pinned_h2d,
            rates.pinned_d2h,
            rates.pageable_h2d,
            rates.pageable_d2h,
        ]) {
            out.push(s.median_ms);
        }
        if let Ok((exe, _)) = &twin {
            match twin_samples(exe, gpu.properties().ordinal, BYTES, reps) {
                Ok(samples) => {
                    for (out, mut samples) in cuda_c.iter_mut().zip(samples) {
                        out.push(Stats::of(&mut samples).median_ms);
                    }
                }
                // The Rust rows still stand; the ratios are left out rather than half-measured.
                Err(e) => {
                    println!("CUDA C twin: not measured ({e})");
                    cuda_c = Default::default();
                    twin = Err(e);
                }
            }
        }
    }
    if let Ok((_, compiler)) = &twin {
        println!("CUDA C twin: host/book/ferrocuda-book/nvcc/ch3/bandwidth_test.cu, {compiler}");
    }
    println!(
        "{:<16} {:>10} {:>12} {:>12} {:>8}",
        "transfer", "Rust GB/s", "CUDA C GB/s", "Rust/CUDA C", "goal"
    );
    for (k, kind) in KINDS.iter().enumerate() {
        let rust_gb = gb_per_s(BYTES, Stats::of(&mut rust[k]).median_ms);
        let (c_gb, ratio) = if cuda_c[k].is_empty() {
            ("-".to_string(), None)
        } else {
            let c = gb_per_s(BYTES, Stats::of(&mut cuda_c[k]).median_ms);
            (format!("{c:.2}"), Some(rust_gb / c))
        };
        let goal = match (k, ratio) {
            (0, Some(r)) => format!("{} {GOAL}", if r >= GOAL { "met, >=" } else { "MISSED, <" }),
            (0, None) => format!(">= {GOAL}"),
            _ => String::new(),
        };
        println!(
            "{kind:<16} {rust_gb:>10.2} {c_gb:>12} {:>12} {goal:>8}",
            ratio.map_or("-".to_string(), |r| format!("{r:.3}"))
        );
    }
    println!(
        "(each side: {rounds} alternating rounds of {reps} copies, the median of the rounds' medians; GB = 1e9 bytes)"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twin_output_is_parsed_and_checked() {
        let good = "pinned_h2d 5.0 5.5\npinned_d2h 4.0\npageable_h2d 30 31\npageable_d2h 29.5\nverified 1\n";
        let samples = parse_twin_output(good).expect("parses");
        assert_eq!(samples[0], vec![5.0, 5.5]);
        assert_eq!(samples[3], vec![29.5]);
        assert!(parse_twin_output(&good.replace("verified 1", "verified 0")).is_err());
        assert!(parse_twin_output(&good.replace("pinned_d2h 4.0", "pinned_d2h")).is_err());
        assert!(parse_twin_output(&good.replace("30 31", "30 x")).is_err());
        assert!(parse_twin_output(&good.replace("pageable_d2h 29.5\n", "")).is_err());
    }
}
