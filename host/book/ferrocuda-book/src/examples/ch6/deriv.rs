//! ch6-deriv: the 9-point, 8th-order finite-difference derivatives in x, y and z of a periodic
//! 64^3 array (book §6.1, Appendix D.5 `derivativeTest`; the stretched grid of §6.1.4).
//!
//! As the book: `f = cos(2 pi (i-1)/(mx-1))` along the derivative's direction, one warm-up
//! launch, then `nReps = 20` launches between two events; for each kernel its tile, the RMS and
//! MAX error against the analytic derivative, the average time and `2 * sizeof(f) / time`. Then
//! the bandwidth table of §6.1.4 (uniform grid, stretched grid with coefficients in constant and
//! in global memory), measured here beside the book's K20 numbers. Added: each kernel's output
//! is checked against the rayon CPU stencil (bit for bit: same wrap, same roundings) and against
//! the analytic derivative within a tolerance derived from the truncation and round-off errors;
//! `--size 512` runs from DRAM (64^3 sits in an H100's L2), `--dims MXxMYxMZ` any multiples of
//! the pencils.
use super::deriv_launch::{Coefficients, DerivReal, Mode, Pencils, Problem, Variant, check_extents};
use super::fortran_e;
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Precision, Run, Size};
use crate::reference::ch6::deriv::{self as reference, ALPHA, Direction, Extents, Grid, STENCIL};
use book_kernels::ch6::deriv::L_PENCILS;
use clap::ValueEnum;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::collections::HashMap;
use std::marker::PhantomData;

/// The book's `mx = my = mz`.
pub const M_BOOK: usize = 64;
/// The book's `nReps`: launches timed together.
pub const N_REPS: usize = 20;
/// The book's printed errors of the x derivative (f32, 64^3, Tesla K20): RMS and MAX.
pub const BOOK_RMS_ERROR: f64 = 5.7695847e-6;
pub const BOOK_MAX_ERROR: f64 = 2.3365021e-5;
/// The bounds the book's errors are reproduced within (f32, 64^3, uniform grid). They are pure
/// round-off (the f64 truncation error is 9.7e-11), which depends on the libm and on FMA use:
/// a float32 emulation gives MAX 2.8-2.9e-5 and RMS 7.2e-6, 1.2-1.3x the book's. Twice the
/// book's MAX and 2.6x its RMS admit every such rounding and fail any real error (a wrong
/// coefficient or wrap is 1e-3 or more).
pub const BOOK_MAX_BOUND: f64 = 5e-5;
pub const BOOK_RMS_BOUND: f64 = 1.5e-5;
/// Tesla K20 bandwidths of the book's §6.1.4 table (GB/s, f32, 64^3), rows as
/// [`Variant::table`]: uniform, nonuniform constant, nonuniform device.
pub const BOOK_K20_GB_PER_S: [[f64; 3]; 6] = [
    [73.6, 14.2, 56.3],
    [66.2, 46.5, 46.8],
    [44.8, 36.4, 37.4],
    [79.3, 71.7, 59.4],
    [44.7, 36.2, 37.4],
    [79.2, 71.5, 59.1],
];

/// The stretched grid's truncation error at the book's 64 points with [`ALPHA`] = 0.5: 8.2e-7
/// measured in f64, rounded up; other sizes scale it as an 8th-order error, `((64-1)/(m-1))^8`.
const STRETCHED_TRUNCATION_AT_64: f64 = 1.0e-6;

/// The largest |derivative - analytic| the check admits for a line of `m` points in a
/// precision of machine epsilon `epsilon`: twice the truncation error plus twice a round-off
/// bound. Truncation, uniform grid: exactly `|k - k'|` for `cos(k x)`, `k = 2 pi`, with the
/// stencil's modified wave number `k' = (m-1) sum_j 2 c_j sin(j k h)`; stretched grid:
/// `STRETCHED_TRUNCATION_AT_64` scaled. Round-off: an input rounded by `epsilon` relative
/// (argument `2 pi x` included) is amplified by the stencil's `(m-1) * 2 sum|c_j|` ~ `2 (m-1)`,
/// so `(m-1) 2 pi epsilon` per unit of `ds/dx` (at most 1.5 on the stretched grid).
pub fn analytic_tolerance(grid: Grid, m: usize, epsilon: f64) -> f64 {
    let (k, h) = (2.0 * std::f64::consts::PI, 1.0 / (m - 1) as f64);
    let (truncation, scale) = match grid {
        Grid::Uniform => {
            let modified: f64 = (1..=4)
                .map(|j| 2.0 * STENCIL[j - 1] * (j as f64 * k * h).sin())
                .sum::<f64>()
                / h;
            ((k - modified).abs(), 1.0)
        }
        Grid::Stretched => (
            STRETCHED_TRUNCATION_AT_64 * ((M_BOOK - 1) as f64 * h).powi(8),
            reference::stretched_ds_dx(0.25),
        ),
    };
    2.0 * truncation + 2.0 * (m - 1) as f64 * k * epsilon * scale
}

// ch6-deriv's own options (a plain comment: clap would print a doc comment in place of the
// example's description in its --help).
#[derive(clap::Args, Clone, Debug)]
pub struct Ch6DerivOptions {
    /// the derivatives to run
    #[arg(long, value_name = "x|y|z|all", value_enum, default_value_t = Directions::All, hide_possible_values = true)]
    pub direction: Directions,
    /// 4-line tiles, 32-line tiles, the x one-barrier, memory-only or math-only kernel, the y and z marching kernels (registers, no tile; not in the book), or all the book's
    #[arg(long, value_name = "small|large|1sync|mem|math|march|all", value_enum, default_value_t = Variants::All, hide_possible_values = true)]
    pub variant: Variants,
    /// the uniform grid, the stretched grid (coefficients in constant and in device memory), or both
    #[arg(long, value_name = "uniform|nonuniform|all", value_enum, default_value_t = Grids::All, hide_possible_values = true)]
    pub grid: Grids,
    /// threads per block along the line [default: x min(mx, 128); 4-wide y, z min(m, 128); 32-wide min(m/8, 32)]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub line_threads: Option<usize>,
    /// grid points mx x my x mz, mx and my multiples of 32, mz of 4 [default: --size cubed, 64x64x64]
    #[arg(long, value_name = "MXxMYxMZ", value_parser = parse_dims)]
    pub dims: Option<Extents>,
}

/// `--direction`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directions {
    X,
    Y,
    Z,
    All,
}

/// `--variant`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variants {
    Small,
    Large,
    #[value(name = "1sync")]
    OneSync,
    Mem,
    Math,
    March,
    All,
}

/// `--grid`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grids {
    Uniform,
    Nonuniform,
    All,
}

impl Ch6DerivOptions {
    /// True when it selects `v`.
    pub fn selects(&self, v: &Variant) -> bool {
        let variant = match self.variant {
            Variants::Small => v.pencils == Pencils::Small && v.mode == Mode::Stencil,
            Variants::Large => v.pencils == Pencils::Large,
            Variants::March => v.pencils == Pencils::March,
            // The book's kernels: its tables stay the book's.
            Variants::All => v.pencils != Pencils::March,
            Variants::OneSync => v.mode == Mode::OneSync,
            Variants::Mem => v.mode == Mode::MemOnly,
            Variants::Math => v.mode == Mode::MathOnly,
        };
        let grid = match self.grid {
            Grids::Uniform => v.coefficients == Coefficients::Uniform,
            Grids::Nonuniform => v.coefficients != Coefficients::Uniform,
            Grids::All => true,
        };
        let d = self.direction;
        variant && grid && (d == Directions::All || d as usize == v.direction.index())
    }
}

/// `64x32x8` as extents (`--dims`).
pub fn parse_dims(dims: &str) -> Result<Extents> {
    let parts: std::result::Result<Vec<usize>, _> = dims.split(['x', 'X', ',']).map(|p| p.trim().parse()).collect();
    match parts.as_deref() {
        Ok(&[mx, my, mz]) => Ok(Extents { mx, my, mz }),
        _ => Err(Error::InvalidArgument(format!("`--dims` does not take `{dims}`"))),
    }
}

/// Fortran's list-directed output of a real, as the book prints its results: in f32 seven
/// significant digits in fixed notation from 0.1 up to 1e7 (`73.57396`), eight in E notation
/// otherwise (`5.7695847E-06`); in f64 fifteen and sixteen.
pub fn fortran_list(v: f64, precision: Precision) -> String {
    let digits = match precision {
        Precision::F32 => 7,
        Precision::F64 => 15,
    };
    let a = v.abs();
    if v == 0.0 || (0.1..1e7).contains(&a) {
        let whole = if a >= 1.0 { a.log10().floor() as usize + 1 } else { 0 };
        format!("{v:.*}", digits - whole.min(digits))
    } else {
        fortran_e(v, digits)
    }
}

/// One kernel's measurement.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub rms: f64,
    pub max: f64,
    pub ms: f64,
    pub gb_per_s: f64,
}

/// ch6-deriv in precision `T`.
pub struct Ch6Deriv<T>(PhantomData<T>);

impl<T: DerivReal> Example for Ch6Deriv<T> {
    const ID: &'static str = "ch6-deriv";
    const DESCRIPTION: &'static str = "9-point 8th-order derivatives in x, y, z of a periodic 64^3 array: 4- and 32-line tiles, one barrier, memory- and math-only, stretched grid with constant or device coefficients; the 6.1.4 table (book 6.1; --size 512 from DRAM)";
    const SIZE: Option<Size> = Some(Size::new("points per side of the periodic cube m x m x m, a multiple of 32 (--dims, which gives unequal extents, replaces it)", M_BOOK, M_BOOK).at_least(L_PENCILS));
    const REPS: bool = true;
    type Args = Ch6DerivOptions;

    /// The peak bytes of a run on the cube of side `--size` (or `--dims`): on the device the
    /// NaN poison, the derivative and the field; on the host the field, its exact derivative
    /// (f64), the CPU stencil's result and one kernel's downloaded derivative. A side is counted
    /// as the next multiple of 32, the next the kernels take, so that the largest size that
    /// fits, which the runner names, is one they take.
    fn memory(run: &Run<Ch6DerivOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let cube = Extents::cube(run.size.checked_next_multiple_of(L_PENCILS)?);
        let Extents { mx, my, mz } = run.args.dims.unwrap_or(cube);
        let points = ferrocuda::footprint::elements(&[mx, my, mz])?;
        Footprint::NONE
            .device::<T>(3, points)?
            .host::<T>(3, points)?
            .host::<f64>(1, points)
    }

    /// The selected kernels on the cube of side `--size` (the book's 64) or on `--dims`: prints
    /// the book's output per kernel and the table.
    fn run(gpu: &Gpu, run: &Run<Ch6DerivOptions>) -> Result<Outcome> {
        let (args, precision) = (&run.args, run.precision);
        let e = args.dims.unwrap_or(Extents::cube(run.size));
        check_extents(e)?;
        let variants: Vec<Variant> = Variant::every().into_iter().filter(|v| args.selects(v)).collect();
        if variants.is_empty() {
            let name = |v: Option<clap::builder::PossibleValue>| v.map_or(String::new(), |v| v.get_name().to_string());
            return Err(Error::InvalidArgument(format!(
                "no kernel is a {} variant of the {} grid in the chosen directions",
                name(args.variant.to_possible_value()),
                name(args.grid.to_possible_value())
            )));
        }
        let reps = gpu.pick(run.reps.max(N_REPS), 1);
        let field_bytes = e
            .points()?
            .checked_mul(2 * size_of::<T>())
            .map(|read_and_written| read_and_written / 2)
            .ok_or_else(|| Error::InvalidArgument(format!("the arrays of {e} do not fit in memory")))?;
        println!();
        println!(" Device: {}", gpu.properties().name);
        println!(
            " Grid {e}, {precision}: {:.1} MiB per array; launches per timing: {} ({}){}",
            field_bytes as f64 / (1 << 20) as f64,
            reps,
            gpu.timing_label(),
            if e == Extents::cube(M_BOOK) && !gpu.is_simulator() {
                "; 64^3 fits in an H100's L2: --size 512 measures DRAM"
            } else {
                ""
            }
        );
        if !gpu.is_simulator() {
            let memcpy = ferrocuda::measure::memcpy_gb_per_s(gpu, field_bytes, reps)?;
            println!(" memcpy device-to-device of one array: {memcpy:.2} GB/s (read + write)");
        }
        let poison_d = gpu.upload(&try_vec(e.points()?, T::from_f64(f64::NAN))?)?;
        let mut df_d = gpu.zeros::<T>(e.points()?)?;
        let (mut checks, mut measured) = (Vec::new(), HashMap::new());
        for coefficients in Coefficients::ALL {
            if !variants.iter().any(|v| v.coefficients == coefficients) {
                continue;
            }
            let mut problem = Problem::<T>::new(gpu, coefficients.grid(), e)?;
            problem.line_threads = args.line_threads;
            if coefficients != Coefficients::Uniform {
                println!();
                println!(
                    " Stretched grid (alpha = {ALPHA}), coefficients in {} memory",
                    if coefficients == Coefficients::Constant {
                        "constant"
                    } else {
                        "device"
                    }
                );
            }
            for direction in Direction::ALL {
                let variants: Vec<Variant> = variants
                    .iter()
                    .copied()
                    .filter(|v| v.coefficients == coefficients && v.direction == direction)
                    .collect();
                if variants.is_empty() {
                    continue;
                }
                println!();
                println!(" {} derivative", direction.name());
                let (f, sol) = reference::field::<T>(problem.grid, e, direction)?;
                let f_d = gpu.upload(&f)?;
                let m = e.along(direction);
                let expected = if m > reference::HALO {
                    reference::derivative(&f, e, direction, &problem.coeffs[direction.index()])?
                } else {
                    Vec::new()
                };
                let tolerance = analytic_tolerance(problem.grid, m, T::MACHINE_EPSILON);
                for variant in variants {
                    let kernel = format!("{}_{}", variant.kernel(), T::NAME);
                    let (df, ms) = match time_kernel(gpu, &problem, variant, &f_d, &poison_d, &mut df_d, reps) {
                        Ok(result) => result,
                        Err(Error::InvalidArgument(reason)) => {
                            println!(" {kernel}: not run: {reason}");
                            continue;
                        }
                        Err(other) => return Err(other),
                    };
                    let (rms, max) = reference::errors(&df, &sol);
                    let gb_per_s = ferrocuda::measure::gb_per_s(2 * field_bytes, ms);
                    let m = Measured { rms, max, ms, gb_per_s };
                    print_kernel(variant, e, m, precision);
                    measured.insert(variant, m);
                    checks.extend(kernel_checks(
                        &kernel,
                        variant,
                        &df,
                        &f,
                        &expected,
                        (rms, max),
                        tolerance,
                    ));
                    if T::NAME == "f32"
                        && e == Extents::cube(M_BOOK)
                        && variant.mode == Mode::Stencil
                        && variant.coefficients == Coefficients::Uniform
                    {
                        checks.push(Check::condition(
                        &format!("{kernel}: RMS {rms:.3e} < {BOOK_RMS_BOUND:e} and MAX {max:.3e} < {BOOK_MAX_BOUND:e} (book: {BOOK_RMS_ERROR:e}, {BOOK_MAX_ERROR:e})"),
                        rms < BOOK_RMS_BOUND && max < BOOK_MAX_BOUND,
                    ));
                    }
                }
                print_limiting_factor(&measured, direction, coefficients);
            }
        }
        print_table(gpu, e, precision, &measured);
        if measured.is_empty() {
            return Err(Error::InvalidArgument(format!("no selected kernel can run at {e}")));
        }
        Ok(Outcome { checks })
    }
}

/// Poisons `df_d` with NaN, launches `variant` once (warm-up; its result is returned for the
/// checks), then times `reps` launches together: the result and the average ms per launch.
fn time_kernel<T: DerivReal>(
    gpu: &Gpu,
    problem: &Problem<T>,
    variant: Variant,
    f_d: &DeviceBuffer<T>,
    poison_d: &DeviceBuffer<T>,
    df_d: &mut DeviceBuffer<T>,
    reps: usize,
) -> Result<(Vec<T>, f64)> {
    variant.shape::<T>(gpu, problem.extents, problem.line_threads)?;
    let kernels = crate::kernels(gpu)?;
    problem.with_constants(&kernels, variant, || {
        gpu.copy_device_to_device(poison_d, df_d)?;
        problem.launch(gpu, &kernels, variant, f_d, df_d)?;
        let df = gpu.download(df_d)?;
        let ms = gpu.time_ms(|| (0..reps).try_for_each(|_| problem.launch(gpu, &kernels, variant, f_d, df_d)))?;
        Ok((df, ms / reps as f64))
    })
}

/// The checks of one kernel: against the CPU stencil bit for bit (the memory-only kernel: `df =
/// f`; the math-only kernel: nothing stored), and against the analytic derivative.
fn kernel_checks<T: DerivReal>(
    kernel: &str,
    variant: Variant,
    df: &[T],
    f: &[T],
    expected: &[T],
    (rms, max): (f64, f64),
    tolerance: f64,
) -> Vec<Check> {
    match variant.mode {
        Mode::MemOnly => vec![Check::compare(&format!("{kernel}: df = f"), df, f, Tolerance::EXACT)],
        Mode::MathOnly => vec![Check::condition(
            &format!("{kernel} stores nothing"),
            df.iter().all(|v| v.to_f64().is_nan()),
        )],
        Mode::Stencil | Mode::OneSync => vec![
            Check::compare(&format!("{kernel} vs CPU stencil"), df, expected, Tolerance::EXACT),
            Check {
                what: format!("{kernel} vs analytic derivative (RMS {rms:.3e}; MAX within {tolerance:.3e})"),
                len: df.len(),
                max_abs_err: max,
                max_rel_err: 0.0,
                mismatches: usize::from(max.is_nan() || max > tolerance),
                first_mismatch: None,
            },
        ],
    }
}

/// The book's lines for one kernel.
fn print_kernel(variant: Variant, e: Extents, m: Measured, precision: Precision) {
    let (plane, dims) = (variant.tile_plane(), variant.tile_dims(e));
    let fmt = |v: f64| fortran_list(v, precision);
    match variant.mode {
        Mode::MemOnly => {
            println!(" x derivative mem with {plane} tile: {dims}");
            println!("   Average time (ms): {}", fmt(m.ms));
            println!("   Mem Bandwidth (GB/s): {}", fmt(m.gb_per_s));
            return;
        }
        Mode::MathOnly => {
            println!(" x derivative math with {plane} tile: {dims}");
            println!("   Average time (ms): {}", fmt(m.ms));
            return;
        }
        Mode::OneSync => println!(" Single syncthreads, using shared memory tile of {plane}: {dims}"),
        Mode::Stencil => println!(" Using shared memory tile of {plane}: {dims}"),
    }
    println!("   RMS error: {}", fmt(m.rms));
    println!("   MAX error: {}", fmt(m.max));
    println!("   Average time (ms): {}", fmt(m.ms));
    println!("   Average Bandwidth (GB/s): {}", fmt(m.gb_per_s));
}

/// After the x derivatives: the memory-only and math-only times as fractions of the full
/// kernel's (book §6.1.2.1: "approximately 85% and 55%", so the kernel is memory bound).
fn print_limiting_factor(measured: &HashMap<Variant, Measured>, direction: Direction, coefficients: Coefficients) {
    if direction != Direction::X || coefficients != Coefficients::Uniform {
        return;
    }
    let full = measured.get(&Variant::x(Mode::Stencil)).map(|m| m.ms);
    let part = |mode| measured.get(&Variant::x(mode)).map(|m| m.ms);
    if let (Some(full), Some(mem), Some(math)) = (full, part(Mode::MemOnly), part(Mode::MathOnly)) {
        println!(
            " memory-only and math-only times: {:.0}% and {:.0}% of deriv_x's (book: approximately 85% and 55%)",
            100.0 * mem / full,
            100.0 * math / full
        );
    }
}

/// The bandwidth table of §6.1.4, measured, beside the book's K20 numbers (64^3, f32).
fn print_table(gpu: &Gpu, e: Extents, precision: Precision, measured: &HashMap<Variant, Measured>) {
    println!();
    println!(
        " Effective Bandwidth (GB/s), {e}, {precision}, {} ({})",
        gpu.properties().name,
        gpu.timing_label()
    );
    println!(
        " {:<32} {:>9} {:>11} {:>11}   {:>9} {:>11} {:>11}",
        "Routine", "Uniform", "Nonuniform,", "Nonuniform,", "K20:", "Nonuniform,", "Nonuniform,"
    );
    println!(
        " {:<32} {:>9} {:>11} {:>11}   {:>9} {:>11} {:>11}",
        "", "grid", "constant", "device", "uniform", "constant", "device"
    );
    for (row, book) in BOOK_K20_GB_PER_S.iter().enumerate() {
        let cell = |c: Coefficients| {
            measured
                .get(&Variant::table(c)[row])
                .map_or("-".to_string(), |m| format!("{:.1}", m.gb_per_s))
        };
        let v = Variant::table(Coefficients::Uniform)[row];
        println!(
            " {:<32} {:>9} {:>11} {:>11}   {:>9.1} {:>11.1} {:>11.1}",
            format!(
                "{} derivative, {} tile {}",
                v.direction.name(),
                v.tile_plane(),
                v.tile_dims(e)
            ),
            cell(Coefficients::Uniform),
            cell(Coefficients::Constant),
            cell(Coefficients::Global),
            book[0],
            book[1],
            book[2]
        );
    }
}
