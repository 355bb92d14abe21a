//! Simulator against GPU: every kernel, the same inputs on both backends, the outputs compared
//! (exactly for integer and deterministic kernels; within the documented tolerance for the sines,
//! whose multiply-adds the GPU contracts into FMAs and whose hardware sine the simulator
//! replaces by the accurate one). `cargo xtask agree` prints the table; `tests/ferrocuda-tests/agreement.rs`
//! requires every row to agree.
mod appc;
mod ch1;
mod ch2;
mod ch3;
mod ch3_cuf;
mod ch4;
mod ch5;
mod ch6_deriv;
mod ch6_laplace;
mod ch7;
mod course;
mod course_heat;
mod course_images;
mod course_runtime;
mod fft;
mod gemm;
mod library;
mod probes;
mod stream;

use crate::examples::stream::StreamReal;
use ferrocuda::fft::{Complex, ComplexScalar};
use ferrocuda::gpu::{Element, Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

/// One kernel compared.
#[derive(Clone, Debug)]
pub struct Row {
    /// The kernel's comparison (`check.what` names it).
    pub check: Check,
    pub tolerance: Tolerance,
}

impl Row {
    /// True when the simulator's output equals the GPU's within the tolerance.
    pub fn agrees(&self) -> bool {
        self.check.passed()
    }
}

/// The backends and the rows compared so far.
struct Comparison<'a> {
    cuda: &'a Gpu,
    sim: &'a Gpu,
    rows: Vec<Row>,
}

impl Comparison<'_> {
    /// Runs `run` on both backends and compares what it returns.
    fn compare<T: Element + Into<f64>>(
        &mut self,
        kernel: &str,
        tolerance: Tolerance,
        run: impl Fn(&Gpu) -> Result<Vec<T>>,
    ) -> Result<()> {
        let (on_gpu, on_sim) = (run(self.cuda)?, run(self.sim)?);
        let check = Check::compare(kernel, &on_sim, &on_gpu, tolerance);
        self.rows.push(Row { check, tolerance });
        Ok(())
    }
}

/// Inputs that differ per element, so a wrong index shows.
fn ramp_i32(n: usize) -> Vec<i32> {
    (0..n).map(|i| (i * 7919 % 1000) as i32).collect()
}
fn ramp_real<T: StreamReal>(n: usize, scale: f64) -> Vec<T> {
    (0..n)
        .map(|i| T::from_f64(((i * 37 % 1001) as f64 / 1000.0 - 0.5) * scale))
        .collect()
}

/// Re and im parts, interleaved, for the element-wise comparison.
fn flatten<T: ComplexScalar>(values: Vec<Complex<T>>) -> Vec<T> {
    values.into_iter().flat_map(|c| [c.re, c.im]).collect()
}

/// The library's own kernels (probes, reductions) on `gpu`.
fn library(gpu: &Gpu) -> Result<ferrocuda::LoadedKernels<'_>> {
    gpu.load(&ferrocuda::ptx::LIBRARY)
}

/// Compares every kernel of the library on `cuda` and `sim`.
pub fn run(cuda: &Gpu, sim: &Gpu) -> Result<Vec<Row>> {
    let mut c = Comparison {
        cuda,
        sim,
        rows: Vec::new(),
    };
    ch1::chapter_one(&mut c)?;
    ch2::chapter_two(&mut c)?;
    ch3::chapter_three_shared_memory(&mut c)?;
    ch3::chapter_three_transfers(&mut c)?;
    ch3::ch3_access::<f32>(&mut c)?;
    ch3::ch3_access::<f64>(&mut c)?;
    ch3::chapter_three_compute(&mut c)?;
    course::matmul(&mut c)?;
    stream::stream_kernels::<f32>(&mut c)?;
    stream::stream_kernels::<f64>(&mut c)?;
    course::others(&mut c)?;
    course_runtime::course_runtime(&mut c)?;
    course::sums_and_histograms(&mut c)?;
    course_images::course_images(&mut c)?;
    ch5::pi_counts::<f32>(&mut c)?;
    ch5::pi_counts::<f64>(&mut c)?;
    ch5::bs_european_mc::<f32>(&mut c)?;
    ch5::bs_european_mc::<f64>(&mut c)?;
    library::philox::<f32>(&mut c)?;
    library::philox::<f64>(&mut c)?;
    probes::all(&mut c)?;
    ch6_laplace::compare::<f32>(&mut c)?;
    ch6_laplace::compare::<f64>(&mut c)?;
    library::sor::<f32>(&mut c)?;
    library::sor::<f64>(&mut c)?;
    course_heat::typed::<f32>(&mut c)?;
    course_heat::typed::<f64>(&mut c)?;
    fft::rows(&mut c)?;
    gemm::rows(&mut c)?;
    library::reductions::<i32>(&mut c)?;
    library::reductions::<u32>(&mut c)?;
    library::reductions::<u64>(&mut c)?;
    library::reductions::<f32>(&mut c)?;
    library::reductions::<f64>(&mut c)?;
    library::scans::<i32>(&mut c)?;
    library::scans::<u32>(&mut c)?;
    library::scans::<u64>(&mut c)?;
    library::scans::<f32>(&mut c)?;
    library::scans::<f64>(&mut c)?;
    library::selections::<i32>(&mut c)?;
    library::selections::<u32>(&mut c)?;
    library::selections::<u64>(&mut c)?;
    library::selections::<f32>(&mut c)?;
    library::selections::<f64>(&mut c)?;
    library::sorts(&mut c, |x| x, f64::from)?;
    library::sorts(&mut c, |x| x as i32 - 2048, f64::from)?;
    library::sorts(&mut c, |x| x as f32 - 2048.5, f64::from)?;
    library::sorts(&mut c, |x| u64::from(x) << 40, |x| x as f64)?;
    library::sorts(&mut c, |x| (i64::from(x) - 2048) << 40, |x| x as f64)?;
    library::sorts(&mut c, |x| f64::from(x) * -0.5, |x| x)?;
    library::histograms(&mut c)?;
    ch6_deriv::typed::<f32>(&mut c)?;
    ch6_deriv::typed::<f64>(&mut c)?;
    ch7::ch7(&mut c)?;
    ch4::ch4(&mut c)?;
    appc::appc(&mut c)?;
    ch3_cuf::ch3_cuf(&mut c)?;
    library::count_nonzero_and_kahan_sum(&mut c)?;
    Ok(c.rows)
}

/// Prints the rows as a table; returns true when all agree.
pub fn print(rows: &[Row]) -> bool {
    println!(
        "{:<36} {:>8} {:>12} {:>12}  verdict",
        "kernel", "values", "max |diff|", "tolerance"
    );
    for row in rows {
        let tolerance = if row.tolerance == Tolerance::EXACT {
            "exact".to_string()
        } else {
            format!("{:.1e}", row.tolerance.abs)
        };
        println!(
            "{:<36} {:>8} {:>12.3e} {:>12}  {}",
            row.check.what,
            row.check.len,
            row.check.max_abs_err,
            tolerance,
            if row.agrees() { "agree" } else { "DIFFER" }
        );
    }
    let differ = rows.iter().filter(|r| !r.agrees()).count();
    println!(
        "{} kernels compared (probe_clock reads clocks, which no two runs share), {differ} differ",
        rows.len()
    );
    differ == 0
}
