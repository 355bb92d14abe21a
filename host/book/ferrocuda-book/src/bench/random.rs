//! This library's Philox4x32-10 (`ferrocuda::random`) against cuRAND's
//! (`CURAND_RNG_PSEUDO_PHILOX4_32_10`, `curandGenerateNormal` / `curandGenerateUniform`) into one
//! `settings.working_set_mib` buffer, the samples of the two generators interleaved, in the
//! table's own rows: generator, numbers/s, GB/s written, and the ratio Rust / cuRAND.
//!
//! The two make different numbers, so only their rates compare. Both run ten Philox rounds per
//! four words, but cuRAND derives its key and counters from the seed and assigns them to elements
//! in its own order, and converts words to floats and normals its own way (`__sincosf`, its
//! `logf`); ours puts Philox block `offset + i / P` at element `i` and rounds Box-Muller so that
//! the CPU reproduces every element bit for bit.
use super::{Settings, interleaved};
use ferrocuda::gpu::{Curand, CurandGenerator, DeviceBuffer, Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s};
use ferrocuda::random::{self, RandomFloat};

/// The generator seeds: any; the same in every sample.
const SEED: u64 = 1234;

/// What one distribution and type measured.
struct Row {
    name: String,
    elements: usize,
    bytes: usize,
    rust: Stats,
    /// `None` where cuRAND could not be loaded.
    curand: Option<Stats>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Distribution {
    Uniform,
    Normal,
}

fn row<T: RandomFloat>(gpu: &Gpu, settings: &Settings, distribution: Distribution) -> Result<Row> {
    let n = settings.elements::<T>()?;
    let mut out: DeviceBuffer<T> = gpu.zeros(n)?;
    // Without libcurand the Rust rates are still worth printing.
    let mut curand = match Curand::new(gpu.cuda("the cuRAND benchmark")?, CurandGenerator::Philox4x32_10, SEED) {
        Ok(curand) => Some(curand),
        Err(e) => {
            println!("cuRAND not measured: {e}");
            None
        }
    };
    let (zero, one) = (T::from_f64(0.0), T::from_f64(1.0));
    let ours = |out: &mut DeviceBuffer<T>| match distribution {
        Distribution::Uniform => random::fill_uniform(gpu, SEED, 0, out),
        Distribution::Normal => random::fill_normal(gpu, SEED, 0, out),
    };
    let theirs = |curand: &mut Curand, out: &mut DeviceBuffer<T>| match distribution {
        Distribution::Uniform => curand.fill_uniform(out),
        Distribution::Normal => curand.fill_normal(out, zero, one),
    };
    // The warm-up loads the module and sets up cuRAND's state on first use.
    let (rust, curand) = interleaved(gpu, settings.reps, curand.is_some(), |use_curand| {
        match curand.as_mut().filter(|_| use_curand) {
            Some(curand) => theirs(curand, &mut out),
            None => ours(&mut out),
        }
    })?;
    let what = match distribution {
        Distribution::Uniform => "uniform",
        Distribution::Normal => "normal",
    };
    Ok(Row {
        name: format!("philox {what} {}", T::NAME),
        elements: n,
        bytes: n * size_of::<T>(),
        rust,
        curand,
    })
}

/// Measures f32 normals and uniforms and f64 normals, and prints their table.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    let rows = [
        row::<f32>(gpu, settings, Distribution::Normal)?,
        row::<f32>(gpu, settings, Distribution::Uniform)?,
        row::<f64>(gpu, settings, Distribution::Normal)?,
    ];
    let n = rows[0].elements;
    println!();
    println!(
        "random numbers into {} MiB (philox_normal_f32 launch: {}), against cuRAND's Philox4x32-10:",
        settings.working_set_mib,
        random::shape(gpu, n)
    );
    println!(
        "{:<22} {:>14} {:>10} {:>14} {:>10} {:>12}",
        "numbers", "Rust numbers/s", "Rust GB/s", "cuRAND nums/s", "cuRAND GB/s", "Rust/cuRAND"
    );
    for r in &rows {
        let per_s = |stats: &Stats| format!("{:.3e}", r.elements as f64 / (stats.median_ms * 1e-3));
        let written = |stats: &Stats| format!("{:.0}", gb_per_s(r.bytes, stats.median_ms));
        let (curand_per_s, curand_written, ratio) = match &r.curand {
            Some(c) => (per_s(c), written(c), format!("{:.3}", c.median_ms / r.rust.median_ms)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:<22} {:>14} {:>10} {:>14} {:>10} {:>12}",
            r.name,
            per_s(&r.rust),
            written(&r.rust),
            curand_per_s,
            curand_written,
            ratio
        );
    }
    println!(
        "(median of {} interleaved runs each; GB = 1e9 bytes written; the streams differ, so only the rates compare)",
        settings.reps
    );
    Ok(())
}
