//! Book chapter 7's end-to-end rows: `ch7-poisson` at 1024^2 in f64 with each FFT engine (the
//! book's measurement, plan creation included, and the share of the transfers), and
//! `ch7-fft-convolution`'s streamed loop against the book's model `max(2/3 I/O, compute)`.
use super::Settings;
use crate::defaults::Pick;
use crate::examples::ch7::fft_convolution::{self as convolution, Mode, Order, Pipeline, Series};
use crate::examples::ch7::poisson::{self, Problem};
use ferrocuda::fft::{Complex, Engine};
use ferrocuda::gpu::{Gpu, Result};

/// The simulator's Poisson mesh for these rows.
const SIMULATOR_POISSON_N: usize = 256;
/// The simulator's convolution planes.
const SIMULATOR_PLANES: usize = 8;

/// Prints the chapter-7 rows.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    let n = gpu.pick(poisson::N, SIMULATOR_POISSON_N);
    println!();
    println!(
        "ch7-poisson, {n}^2 f64, median of {} runs ({})",
        settings.reps,
        gpu.timing_label()
    );
    println!(
        "{:<14} {:>12} {:>12} {:>10} {:>10} {:>10}",
        "engine", "elapsed ms", "transfers ms", "share", "FFTs ms", "kernels ms"
    );
    let problem = Problem::<f64>::new(n, n)?;
    for engine in [Engine::Rust, Engine::Cufft] {
        if engine == Engine::Cufft && gpu.is_simulator() {
            println!("{:<14} the simulator has no cuFFT", "cuFFT");
            continue;
        }
        let mut runs = Vec::with_capacity(settings.reps.max(1));
        for _ in 0..settings.reps.max(1) {
            match poisson::solve(gpu, engine, &problem) {
                Ok((_, timings, _)) => runs.push(timings),
                Err(e) => {
                    println!("{:<14} not run: {e}", format!("{engine:?}"));
                    break;
                }
            }
        }
        if runs.is_empty() {
            continue;
        }
        runs.sort_by(|a, b| a.elapsed_ms.total_cmp(&b.elapsed_ms));
        let t = runs[runs.len() / 2];
        let phases = t.transfers_ms + t.ffts_ms + t.kernels_ms;
        println!(
            "{:<14} {:>12.4} {:>12.4} {:>9.1}% {:>10.4} {:>10.4}",
            format!("{engine:?}"),
            t.elapsed_ms,
            t.transfers_ms,
            100.0 * t.transfers_ms / phases.max(f64::MIN_POSITIVE),
            t.ffts_ms,
            t.kernels_ms
        );
    }
    let side = gpu.pick(convolution::N, convolution::SIMULATOR_N);
    let planes = gpu.pick(convolution::PLANES, SIMULATOR_PLANES);
    println!();
    println!("ch7-fft-convolution, {planes} planes of {side}^2 complex f32, wall clock seconds");
    let mut pipeline = Pipeline::new(gpu, side, Engine::Auto)?;
    let mut series = Series::new(gpu, planes, side * side, |_, _, _| Complex::new(1.0, 1.0))?;
    let io_s = pipeline.run(gpu, &mut series, Mode::IoOnly)?;
    let single_s = pipeline.run(gpu, &mut series, Mode::SingleStream)?;
    let model_s = (2.0 / 3.0 * io_s).max(single_s - io_s);
    println!(
        " FFT engine {:?}; I/O only {io_s:.6}, single stream {single_s:.6}, model max(2/3 I/O, compute) {model_s:.6}",
        pipeline.engine()
    );
    for order in [Order::Book, Order::Fixed] {
        let streams_s = pipeline.run(gpu, &mut series, Mode::Streams(order))?;
        println!(
            " {:?} order: measured {streams_s:.6} s, {:.2} x the model",
            order,
            streams_s / model_s.max(f64::MIN_POSITIVE)
        );
    }
    Ok(())
}
