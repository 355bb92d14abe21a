//! ch6-laplace2d: the 2-D Laplace equation by Jacobi iteration with the compact 9-point stencil
//! (book §6.2; Appendix D.5, module `laplaceRoutines` and program `laplace`), on the CPU and with
//! each kernel: the book's `jacobiGlobal`, `jacobiShared` and `jacobiTexture` (the read-only path
//! here), and two of ours, 8 points per thread (`jacobi_strip`) and 4 sweeps per launch in shared
//! memory (`jacobi_tiled`). Each prints the book's residual column and time; the columns and the
//! final fields must equal the CPU's bit for bit. Then the distance to the harmonic solution
//! `sin(pi x) exp(-pi y)` the iteration tends to.
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome, Precision};
use crate::examples::ch6::laplace2d_solver::{DeviceField, LaplaceGpu, Update, Variant, solve, time_sweep};
use crate::reference::ch6::laplace2d::{self as reference, Stop};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::gb_per_s;
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch6-laplace2d",
    description: "Laplace by 9-point Jacobi, 4096^2: CPU, jacobiGlobal/Shared/Texture, strips, 4 sweeps per launch; residual columns bit for bit (book 6.2)",
    size: Some(LegacySize {
        unit: "mesh points along i, boundary included (--ny, points along j, defaults to it: a square mesh)",
        gpu: N,
        simulator: SIMULATOR_N,
        min: 3,
        max: u32::MAX as usize,
        memory,
    }),
    f64: true,
    reps: true,
    flags: &[
        Flag::value(
            "--ny",
            "N",
            "mesh points along j, boundary included, at least 3 [default: --size, a square mesh]",
        ),
        Flag::value(
            "--iterations",
            "N",
            "the book's iterMax: at most iterMax + 1 sweeps, up to 1000000 [default: 100, 101 sweeps]",
        ),
        Flag::value(
            "--tol",
            "X",
            "the book's tol: stop when the largest change of a sweep is at most X [default: 1e-5]",
        ),
        Flag::value(
            "--kernel",
            "K",
            "global, shared, texture, strip, tiled, book (the first three) or all [default: all]",
        ),
        Flag::value(
            "--update",
            "copy|swap",
            "a = aNew by the book's device copy or by swapping the buffers [default: copy]",
        ),
    ],
    run,
};

/// The book's mesh side.
pub const N: usize = 4096;
/// The simulator's default side: 101 sweeps with every kernel in seconds.
pub const SIMULATOR_N: usize = 128;
/// The book's `reportInterval`.
pub const REPORT_INTERVAL: usize = 10;
/// Point updates (points x sweeps) beyond which the CPU loop is skipped and the kernels are
/// compared with one another: the book's 4096^2 x 101 sweeps is 1.7e9.
pub const CPU_BUDGET: usize = 4_000_000_000;

/// The run's parameters, from the options.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub nx: usize,
    pub ny: usize,
    pub stop: Stop,
    pub variants: Vec<Variant>,
    pub update: Update,
}

impl Setup {
    /// The setup `options` ask for on `gpu` (the book's 4096^2 on a GPU, [`SIMULATOR_N`] on the
    /// simulator, unless `--size` says otherwise).
    pub fn from_options(gpu: &Gpu, options: &Options) -> Result<Self> {
        let nx = options.size_or(gpu.pick(N, SIMULATOR_N))?;
        let ny = options.parsed("--ny")?.unwrap_or(nx);
        reference::check_mesh(nx, ny)?;
        let stop = Stop::new(
            options.parsed("--tol")?.unwrap_or(reference::TOLERANCE),
            options.parsed("--iterations")?.unwrap_or(reference::ITER_MAX),
        )?;
        let variants = match options.value("--kernel") {
            None | Some("all") => Variant::ALL.to_vec(),
            Some("book") => Variant::BOOK.to_vec(),
            Some(k) => vec![k.parse()?],
        };
        Ok(Self {
            nx,
            ny,
            stop,
            variants,
            update: options.parsed("--update")?.unwrap_or_default(),
        })
    }
}

/// The peak bytes of a run on `nx` points along i (`--ny` along j, `--iterations`, in
/// `--precision`): on the device the timing field and one solve's field (each `a` and `aNew`)
/// with a residual slot per sweep; on the host the initial field, the reference field (the
/// CPU's, or the first kernel's beyond the CPU's budget) and one kernel's downloaded field
/// (during the CPU's loop: its `a` and `aNew`), with the residual columns.
pub fn memory(options: &Options, _gpu: &Gpu, nx: usize) -> Option<Footprint> {
    let ny = options.parsed::<usize>("--ny").ok().flatten().unwrap_or(nx);
    let points = footprint::elements(&[nx, ny])?;
    let iter_max = options.parsed::<usize>("--iterations").ok().flatten();
    let sweeps = iter_max.unwrap_or(reference::ITER_MAX).checked_add(1)?;
    fn plan<T>(points: usize, sweeps: usize) -> Option<Footprint> {
        Footprint::NONE
            .device::<T>(4, points)?
            .device::<u64>(1, sweeps)?
            .host::<T>(3, points)?
            .host::<T>(3, sweeps)?
            .host::<u64>(1, sweeps)
    }
    match options.precision {
        Precision::F32 => plan::<f32>(points, sweeps),
        Precision::F64 => plan::<f64>(points, sweeps),
    }
}

/// The book's program on `--size` x `--ny` points.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let setup = Setup::from_options(gpu, options)?;
    let checks = match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, &setup, options.reps)?,
        Precision::F64 => run_typed::<f64>(gpu, &setup, options.reps)?,
    };
    Ok(Outcome { checks })
}

/// The CPU's loop and each kernel's, printed as the book prints them, each kernel's residuals
/// and field compared with the CPU's (with one another when the CPU is beyond its budget).
pub fn run_typed<T: LaplaceGpu>(gpu: &Gpu, setup: &Setup, reps: usize) -> Result<Vec<Check>> {
    let Setup { nx, ny, stop, .. } = *setup;
    let initial: Vec<T> = reference::initial(nx, ny)?;
    println!();
    println!("Relaxation calculation on {nx} x {ny} mesh");
    println!(
        " ({}, tol = {:e}, iterMax = {}; last column: the residual to {} significant digits)",
        std::any::type_name::<T>(),
        stop.tolerance,
        stop.iter_max,
        significant_digits::<T>()
    );
    let cpu = if (nx * ny).saturating_mul(stop.max_sweeps()) <= CPU_BUDGET {
        let started = Instant::now();
        let solution = reference::solve(&initial, nx, ny, stop)?;
        println!();
        println!(" CPU (rayon, {} threads)", rayon::current_num_threads());
        print_column(&solution.residuals, started.elapsed().as_secs_f64());
        Some(solution)
    } else {
        println!();
        println!(
            " CPU loop skipped: {nx} x {ny} points x {} sweeps is beyond its budget",
            stop.max_sweeps()
        );
        None
    };
    let mut timing = DeviceField::upload(gpu, &initial, nx, ny, Variant::Tiled.sweeps_per_launch())?;
    // The reference: the CPU's run, or beyond its budget the first kernel's. Each kernel is
    // checked as soon as it has run and its field dropped, so that at most one kernel's field
    // is alive beside the reference's.
    let mut reference_run: Option<(String, Vec<T>, Vec<T>)> = cpu.map(|c| ("CPU".to_string(), c.residuals, c.field));
    let mut checks = Vec::new();
    for &variant in &setup.variants {
        let solution = solve(gpu, variant, setup.update, &initial, nx, ny, stop)?;
        println!();
        println!(" GPU {variant}, {} ({})", setup.update, gpu.properties().name);
        if let Some(note) = variant.note() {
            println!(" ({note})");
        }
        print_column(&solution.residuals, solution.elapsed_s);
        let ms = time_sweep(gpu, &mut timing, variant, reps)?;
        println!(
            "   {variant}: {ms:.4} ms per sweep ({}), {:.1} GB/s (each point read and written once)",
            gpu.timing_label(),
            gb_per_s(timing.bytes_per_sweep(), ms)
        );
        let name = variant.to_string();
        let (against, residuals, field) = match &reference_run {
            Some((against, residuals, field)) => (against.as_str(), residuals.as_slice(), field.as_slice()),
            None => (name.as_str(), solution.residuals.as_slice(), solution.field.as_slice()),
        };
        checks.push(Check::compare(
            &format!("{variant}: residuals of all {} sweeps vs {against}", residuals.len()),
            &solution.residuals,
            residuals,
            Tolerance::EXACT,
        ));
        checks.push(Check::compare(
            &format!("{variant}: field vs {against}"),
            &solution.field,
            field,
            Tolerance::EXACT,
        ));
        if reference_run.is_none() {
            reference_run = Some((name, solution.residuals, solution.field));
        }
    }
    let Some((_, residuals, field)) = &reference_run else {
        return Ok(checks);
    };
    println!();
    println!(
        " max |a - sin(pi x) exp(-pi y)| after {} sweeps: {:.6e}",
        residuals.len(),
        reference::max_error_vs_harmonic(field, nx, ny)
    );
    Ok(checks)
}

/// Prints the book's column: `Iteration  Max Residual`, one line per `reportInterval` sweeps,
/// then `Completed in ... seconds`.
fn print_column<T: LaplaceGpu>(residuals: &[T], elapsed_s: f64) {
    println!(" Iteration   Max Residual");
    for line in report_lines(residuals) {
        println!("{line}");
    }
    println!("  Completed in {elapsed_s:10.3} seconds");
}

/// The lines the book prints for these residuals (sweep `k` is `residuals[k - 1]`): each sweep
/// whose number is a multiple of `reportInterval`, as `'(i8,3x,f10.6)'`, followed here by the
/// residual to every significant digit of the precision, in Fortran's `1PE` shape.
pub fn report_lines<T: LaplaceGpu>(residuals: &[T]) -> Vec<String> {
    residuals
        .iter()
        .enumerate()
        .map(|(k, &r)| (k + 1, r))
        .filter(|(iter, _)| iter % REPORT_INTERVAL == 0)
        .map(|(iter, r)| format!("{iter:8}   {r:10.6}   {}", scientific(r)))
        .collect()
}

/// Significant digits printed for `T`: 8 for `f32` (list-directed `real(4)`), 16 for `f64`.
pub fn significant_digits<T>() -> usize {
    if size_of::<T>() == 4 { 8 } else { 16 }
}

/// `v` in Fortran's `1PE` shape with the significant digits of `T`: `2.3563966E-02`.
pub fn scientific<T: LaplaceGpu>(v: T) -> String {
    let s = format!("{:.*E}", significant_digits::<T>() - 1, v);
    match s.split_once('E') {
        Some((mantissa, exponent)) => {
            let e: i32 = exponent.parse().unwrap_or(0);
            format!("{mantissa}E{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}
