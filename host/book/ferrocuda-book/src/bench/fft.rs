//! This library's FFT kernels (`ferrocuda::fft`, `Engine::Rust`) against cuFFT, the samples of
//! the two interleaved: complex-to-complex forward transforms, out of place, in `f32` and `f64`,
//! batched 1-D rows of 256 to 4096 filling the working set (`--size-mib`, at least 256 MiB by
//! default) and single 2-D transforms of 1024^2 and 4096^2 (the first fits in the H100's 50 MB
//! L2, so its rates exceed DRAM's).
//!
//! Each row prints the median time, GFLOP/s counted as `5 N log2 N` per transform (the radix-2
//! count, what cuFFT and FFTW report), the bandwidth of one read and one write of the data per
//! launch as a fraction of `cudaMemcpy`'s (the Rust engine's launches are each one such pass;
//! cuFFT's are not known, so its column is the one-pass equivalent), and Rust/cuFFT (time ratio
//! inverted: above 1 when Rust is faster).
use super::{Settings, interleaved};
use ferrocuda::fft::{Complex, Direction, Engine, FftFloat, Plan, Shape, Transform};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s};

/// The 1-D row lengths (the 256 to 4096).
const ROW_LENGTHS: [usize; 5] = [256, 512, 1024, 2048, 4096];
/// The 2-D sizes (the chapter's Poisson grid, and a large one).
const SQUARE_SIZES: [usize; 2] = [1024, 4096];

/// What one transform measured.
struct Row {
    name: String,
    shape: Shape,
    bytes: usize,
    launches: usize,
    rust: Stats,
    cufft: Option<Stats>,
}

impl Row {
    fn gflop_per_s(&self, stats: &Stats) -> f64 {
        let n: usize = self.shape.dims().iter().product();
        let flop = 5.0 * n as f64 * (n as f64).log2() * self.shape.batch() as f64;
        flop / (stats.median_ms * 1e6)
    }
}

fn measure<T: FftFloat>(gpu: &Gpu, settings: &Settings, shape: Shape) -> Result<Row> {
    let len = shape.complex_len();
    let input: Vec<Complex<T>> = (0..len)
        .map(|i| Complex::new(T::from_f64((i % 17) as f64 - 8.0), T::from_f64((i % 5) as f64)))
        .collect();
    let input_d = gpu.upload(&input)?;
    let mut output_d = gpu.zeros::<Complex<T>>(len)?;
    let mut rust = Plan::<T>::new(gpu, shape, Transform::C2c, Engine::Rust)?;
    let mut cufft = match Plan::<T>::new(gpu, shape, Transform::C2c, Engine::Cufft) {
        Ok(plan) => Some(plan),
        Err(e) => {
            println!("cuFFT not measured: {e}");
            None
        }
    };
    // The warm-up loads the module and cuFFT's kernels.
    let (rust_stats, cufft_stats) = interleaved(gpu, settings.reps, cufft.is_some(), |theirs| {
        let plan = cufft.as_mut().filter(|_| theirs).unwrap_or(&mut rust);
        plan.c2c(gpu, &input_d, &mut output_d, Direction::Forward)
    })?;
    let dims = shape.dims().iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x");
    Ok(Row {
        name: format!("c2c {dims} x {} {}", shape.batch(), T::NAME),
        shape,
        bytes: len * size_of::<Complex<T>>(),
        launches: rust.launches().unwrap_or(1),
        rust: rust_stats,
        cufft: cufft_stats,
    })
}

fn rows<T: FftFloat>(gpu: &Gpu, settings: &Settings) -> Result<Vec<Row>> {
    let bytes = settings.working_set_mib.max(1) << 20;
    let mut rows = Vec::new();
    for n in ROW_LENGTHS {
        let batch = (bytes / (n * size_of::<Complex<T>>())).max(1);
        rows.push(measure::<T>(gpu, settings, Shape::new(&[n], batch)?)?);
    }
    for n in SQUARE_SIZES {
        rows.push(measure::<T>(gpu, settings, Shape::new(&[n, n], 1)?)?);
    }
    Ok(rows)
}

/// Measures every row in `f32` and `f64` and prints the table; `memcpy_gb_per_s` is the
/// device-to-device copy rate of the same run.
pub fn run(gpu: &Gpu, settings: &Settings, memcpy_gb_per_s: f64) -> Result<()> {
    let mut all = rows::<f32>(gpu, settings)?;
    all.extend(rows::<f64>(gpu, settings)?);
    println!();
    println!("FFT, Rust kernels against cuFFT (C2C forward, out of place):");
    println!(
        "{:<26} {:>8} {:>9} {:>9} {:>11} {:>9} {:>9} {:>11} {:>10}",
        "transform",
        "launches",
        "Rust ms",
        "Rust GF/s",
        "/memcpy/pass",
        "cuFFT ms",
        "cuFFT GF/s",
        "/memcpy 1p",
        "Rust/cuFFT"
    );
    for r in &all {
        let per_pass = |stats: &Stats, passes: usize| gb_per_s(2 * r.bytes * passes, stats.median_ms) / memcpy_gb_per_s;
        let (cufft_ms, cufft_gflops, cufft_fraction, ratio) = match &r.cufft {
            Some(c) => (
                format!("{:.3}", c.median_ms),
                format!("{:.0}", r.gflop_per_s(c)),
                format!("{:.3}", per_pass(c, 1)),
                format!("{:.3}", c.median_ms / r.rust.median_ms),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        println!(
            "{:<26} {:>8} {:>9.3} {:>9.0} {:>11.3} {:>9} {:>9} {:>11} {:>10}",
            r.name,
            r.launches,
            r.rust.median_ms,
            r.gflop_per_s(&r.rust),
            per_pass(&r.rust, r.launches),
            cufft_ms,
            cufft_gflops,
            cufft_fraction,
            ratio
        );
    }
    println!(
        "(median of {} interleaved runs each; GF = 1e9 x 5 N log2 N per transform; a pass reads and writes the data once; goal: Rust/cuFFT >= 0.8)",
        settings.reps
    );
    Ok(())
}
