//! ch6-laplace2d: the 2-D Laplace equation by Jacobi iteration with the compact 9-point stencil
//! (book §6.2; Appendix D.5, module `laplaceRoutines` and program `laplace`), on the CPU and with
//! each kernel: the book's `jacobiGlobal`, `jacobiShared` and `jacobiTexture` (the read-only path
//! here), and two of ours, 8 points per thread (`jacobi_strip`) and 4 sweeps per launch in shared
//! memory (`jacobi_tiled`). Each prints the book's residual column and time; the columns and the
//! final fields must equal the CPU's bit for bit. Then the distance to the harmonic solution
//! `sin(pi x) exp(-pi y)` the iteration tends to.
use super::fortran_e;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch6::laplace2d_solver::{DeviceField, LaplaceGpu, Update, Variant, solve, time_sweep};
use crate::reference::ch6::laplace2d::{self as reference, Stop};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::gb_per_s;
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;
use std::time::Instant;

/// The book's mesh side.
pub const N: usize = 4096;
/// The simulator's default side: 101 sweeps with every kernel in seconds.
pub const SIMULATOR_N: usize = 128;
/// The book's `reportInterval`.
pub const REPORT_INTERVAL: usize = 10;
/// Point updates (points x sweeps) beyond which the CPU loop is skipped and the kernels are
/// compared with one another: the book's 4096^2 x 101 sweeps is 1.7e9.
pub const CPU_BUDGET: usize = 4_000_000_000;

// ch6-laplace2d's own options (a plain comment: clap would print a doc comment in place of the
// example's description in its --help).
#[derive(clap::Args, Clone, Debug)]
pub struct Ch6Laplace2dOptions {
    /// mesh points along j, boundary included, at least 3 [default: --size, a square mesh]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub ny: Option<usize>,
    /// the book's iterMax: at most iterMax + 1 sweeps, up to 1000000 [default: 100, 101 sweeps]
    #[arg(long, value_name = "N", default_value_t = reference::ITER_MAX, hide_default_value = true, allow_negative_numbers = true)]
    pub iterations: usize,
    /// the book's tol: stop when the largest change of a sweep is at most X [default: 1e-5]
    #[arg(long, value_name = "X", default_value_t = reference::TOLERANCE, hide_default_value = true, allow_negative_numbers = true)]
    pub tol: f64,
    /// global, shared, texture, strip, tiled, book (the first three) or all
    #[arg(long, value_name = "K", value_enum, default_value_t = Kernels::All, hide_possible_values = true)]
    pub kernel: Kernels,
    /// a = aNew by the book's device copy or by swapping the buffers
    #[arg(long, value_name = "copy|swap", value_enum, default_value_t = Update::Copy, hide_possible_values = true)]
    pub update: Update,
}

/// `--kernel`: one kernel (by its short name or its kernel's), the book's three, or all.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    #[value(alias = "jacobi_global")]
    Global,
    #[value(alias = "jacobi_shared")]
    Shared,
    #[value(alias = "jacobi_texture")]
    Texture,
    #[value(alias = "jacobi_strip")]
    Strip,
    #[value(alias = "jacobi_tiled")]
    Tiled,
    Book,
    All,
}

impl Kernels {
    /// The kernels it names, in the order of [`Variant::ALL`].
    pub fn variants(self) -> Vec<Variant> {
        match self {
            Kernels::Book => Variant::BOOK.to_vec(),
            Kernels::All => Variant::ALL.to_vec(),
            one => vec![Variant::ALL[one as usize]],
        }
    }
}

/// ch6-laplace2d in precision `T`.
pub struct Ch6Laplace2d<T>(PhantomData<T>);

impl<T: LaplaceGpu> Example for Ch6Laplace2d<T> {
    const ID: &'static str = "ch6-laplace2d";
    const DESCRIPTION: &'static str = "Laplace by 9-point Jacobi, 4096^2: CPU, jacobiGlobal/Shared/Texture, strips, 4 sweeps per launch; residual columns bit for bit (book 6.2)";
    const SIZE: Option<Size> = Some(
        Size::new(
            "mesh points along i, boundary included (--ny, points along j, defaults to it: a square mesh)",
            N,
            SIMULATOR_N,
        )
        .at_least(3)
        .at_most(u32::MAX as usize),
    );
    const REPS: bool = true;
    type Args = Ch6Laplace2dOptions;

    /// The peak bytes: on the device the timing field and one solve's field (each `a` and
    /// `aNew`) with a residual slot per sweep; on the host the initial field, the reference field
    /// (the CPU's, or the first kernel's beyond the CPU's budget) and one kernel's downloaded
    /// field (during the CPU's loop: its `a` and `aNew`), with the residual columns.
    fn memory(run: &Run<Ch6Laplace2dOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let points = footprint::elements(&[run.size, run.args.ny.unwrap_or(run.size)])?;
        let sweeps = run.args.iterations.checked_add(1)?;
        Footprint::NONE
            .device::<T>(4, points)?
            .device::<u64>(1, sweeps)?
            .host::<T>(3, points)?
            .host::<T>(3, sweeps)?
            .host::<u64>(1, sweeps)
    }

    /// The book's program on `--size` x `--ny` points: the CPU's loop and each kernel's,
    /// printed as the book prints them, each kernel's residuals and field compared with the CPU's
    /// (with one another when the CPU is beyond its budget).
    fn run(gpu: &Gpu, run: &Run<Ch6Laplace2dOptions>) -> Result<Outcome> {
        let (nx, ny, update) = (run.size, run.args.ny.unwrap_or(run.size), run.args.update);
        reference::check_mesh(nx, ny)?;
        let stop = Stop::new(run.args.tol, run.args.iterations)?;
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
        // The reference: the CPU's run, or beyond its budget the first kernel's. Each kernel is
        // checked as soon as it has run and its field dropped, so that at most one kernel's field
        // is alive beside the reference's.
        let mut reference_run = if (nx * ny).saturating_mul(stop.max_sweeps()) <= CPU_BUDGET {
            let started = Instant::now();
            let cpu = reference::solve(&initial, nx, ny, stop)?;
            println!();
            println!(" CPU (rayon, {} threads)", rayon::current_num_threads());
            print_column(&cpu.residuals, started.elapsed().as_secs_f64());
            Some(("CPU".to_string(), cpu.residuals, cpu.field))
        } else {
            println!();
            println!(
                " CPU loop skipped: {nx} x {ny} points x {} sweeps is beyond its budget",
                stop.max_sweeps()
            );
            None
        };
        let mut timing = DeviceField::upload(gpu, &initial, nx, ny, Variant::Tiled.sweeps_per_launch())?;
        let mut checks = Vec::new();
        for variant in run.args.kernel.variants() {
            let solution = solve(gpu, variant, update, &initial, nx, ny, stop)?;
            println!();
            println!(" GPU {variant}, {} ({})", update, gpu.properties().name);
            if let Some(note) = variant.note() {
                println!(" ({note})");
            }
            print_column(&solution.residuals, solution.elapsed_s);
            let ms = time_sweep(gpu, &mut timing, variant, run.reps)?;
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
        if let Some((_, residuals, field)) = &reference_run {
            println!();
            println!(
                " max |a - sin(pi x) exp(-pi y)| after {} sweeps: {:.6e}",
                residuals.len(),
                reference::max_error_vs_harmonic(field, nx, ny)
            );
        }
        Ok(Outcome { checks })
    }
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
        .map(|(iter, r)| {
            let digits = significant_digits::<T>();
            format!("{iter:8}   {r:10.6}   {}", fortran_e(r.into(), digits - 1))
        })
        .collect()
}

/// Significant digits printed for `T`: 8 for `f32` (list-directed `real(4)`), 16 for `f64`.
pub fn significant_digits<T>() -> usize {
    if size_of::<T>() == 4 { 8 } else { 16 }
}
