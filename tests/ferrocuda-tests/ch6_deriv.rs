//! GPU-vs-CPU tests of ch6-deriv, the book's 9-point finite-difference derivatives (§6.1): every
//! kernel against the rayon stencil (bit for bit) and the analytic derivative, at the book's
//! 64^3 in f32 and f64, at non-cubic and awkward extents and block shapes; the book's printed
//! errors; the stretched grid's chain rule; the periodic wrap of period m - 1; refused sizes.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail, passes_with, run_args};
use ferrocuda::Gpu;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::example::Precision;
use ferrocuda_book::examples::ch6::deriv::{self, BOOK_MAX_BOUND, BOOK_RMS_BOUND, analytic_tolerance};
use ferrocuda_book::examples::ch6::deriv_launch::{Coefficients, DerivReal, Mode, Pencils, Problem, Variant};
use ferrocuda_book::reference::ch6::deriv::{
    self as reference, Direction, Extents, Grid, HALO, STENCIL, stretched_ds_dx, stretched_x,
};

/// The book's whole program at 64^3: every kernel, checked by the example itself.
fn ch6_deriv_program_f32(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch6-deriv", &[])
}

fn ch6_deriv_program_f64(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch6-deriv", &["--precision", "f64"])
}

/// Runs every kernel that can run at `extents` on `f` (the function of its direction's line,
/// or `input` when given) and compares with the CPU stencil bit for bit; with `analytic`, also
/// with the exact derivative within the example's tolerance. `line_threads` overrides the
/// block's threads along the line.
fn every_kernel<T: DerivReal>(
    gpu: &Gpu,
    extents: Extents,
    line_threads: Option<usize>,
    input: Option<&dyn Fn(usize) -> T>,
) -> TestResult {
    let n = extents.points().map_err(fail)?;
    let mut df_d = gpu.zeros::<T>(n).map_err(fail)?;
    for coefficients in Coefficients::ALL {
        let mut problem = Problem::<T>::new(gpu, coefficients.grid(), extents).map_err(fail)?;
        problem.line_threads = line_threads;
        for variant in Variant::every().into_iter().filter(|v| v.coefficients == coefficients) {
            let d = variant.direction;
            if extents.along(d) <= HALO {
                continue;
            }
            if variant.shape::<T>(gpu, extents, line_threads).is_err() {
                continue; // a block over 1024 threads: refused, as `refused_sizes` checks
            }
            let (mut f, sol) = reference::field::<T>(problem.grid, extents, d).map_err(fail)?;
            if let Some(input) = input {
                f = (0..n).map(input).collect();
            }
            let f_d = gpu.upload(&f).map_err(fail)?;
            gpu.upload_into(&vec![T::from_f64(f64::NAN); n], &mut df_d)
                .map_err(fail)?;
            problem.run(gpu, variant, &f_d, &mut df_d).map_err(fail)?;
            let got = gpu.download(&df_d).map_err(fail)?;
            let what = format!(
                "{}_{} at {extents}, {line_threads:?} threads",
                variant.kernel(),
                T::NAME
            );
            let check = match variant.mode {
                Mode::MemOnly => Check::compare(&what, &got, &f, Tolerance::EXACT),
                Mode::MathOnly => Check::condition(&what, got.iter().all(|v| v.to_f64().is_nan())),
                _ => {
                    let coeffs = &problem.coeffs[d.index()];
                    let expected = reference::derivative(&f, extents, d, coeffs).map_err(fail)?;
                    Check::compare(&what, &got, &expected, Tolerance::EXACT)
                }
            };
            ensure(check.passed(), || check.to_string())?;
            if input.is_none() && matches!(variant.mode, Mode::Stencil | Mode::OneSync) {
                let (_, max) = reference::errors(&got, &sol);
                let tolerance = analytic_tolerance(problem.grid, extents.along(d), T::MACHINE_EPSILON);
                ensure(max <= tolerance, || {
                    format!("{what}: max error {max:e} against the analytic derivative, more than {tolerance:e}")
                })?;
            }
        }
    }
    Ok(())
}

/// Every kernel at extents that are not cubes, with short lines (8 points, the 32-wide kernels'
/// one thread per line), a second partial pass of 128-thread x blocks (160), lines whose point
/// count is not a multiple of the threads (12, 36), and z too short for the stencil (4).
fn ch6_deriv_non_cubic_sizes(gpu: &Gpu) -> TestResult {
    let sizes = [
        Extents { mx: 64, my: 32, mz: 8 },
        Extents { mx: 128, my: 64, mz: 4 },
        Extents {
            mx: 160,
            my: 96,
            mz: 12,
        },
        Extents { mx: 32, my: 32, mz: 36 },
    ];
    for extents in sizes {
        every_kernel::<f32>(gpu, extents, None, None)?;
        every_kernel::<f64>(gpu, extents, None, None)?;
    }
    Ok(())
}

/// Block shapes that break assumptions: 1, 3, 5 threads along the line (fewer than the four
/// ghost-filling threads), 31, 33, 65 (not dividing the line), up to the 1024-thread limit.
fn ch6_deriv_awkward_block_shapes(gpu: &Gpu) -> TestResult {
    let extents = Extents { mx: 64, my: 32, mz: 40 };
    for threads in [1, 3, 5, 31, 33, 65] {
        every_kernel::<f32>(gpu, extents, Some(threads), None)?;
    }
    Ok(())
}

/// A seeded xorshift in [-1, 1): inputs that are no smooth function, so every misplaced
/// neighbour shows in the bit-for-bit comparison.
fn noise(seed: u64) -> impl Fn(usize) -> f64 {
    move |i| {
        let mut x = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The book's wrap, index 64 is index 1 (period m - 1): the reference's neighbour map, then
/// every kernel on seeded noise against it, then an impulse at point m - 2 of every line, whose
/// derivative the wrap puts at points 0, 1, .. as the coefficients say.
fn ch6_deriv_wrap(gpu: &Gpu) -> TestResult {
    let m = 64;
    // `wrap(n, o, m)` is point n + o - 4 of the line.
    ensure(reference::wrap(0, HALO - 1, m) == m - 2, || {
        "point -1 is not m - 2".into()
    })?;
    ensure(reference::wrap(m - 1, HALO + 1, m) == 1, || "point m is not 1".into())?;
    ensure(reference::wrap(2, 0, m) == m - 3, || "point -2 is not m - 3".into())?;
    ensure(reference::wrap(m - 2, 2 * HALO, m) == 3, || {
        "point m + 2 is not 3".into()
    })?;
    let noise32 = noise(1234);
    every_kernel::<f32>(gpu, Extents::cube(m), None, Some(&|i| noise32(i) as f32))?;
    every_kernel::<f64>(gpu, Extents { mx: 32, my: 64, mz: 8 }, None, Some(&noise(99)))?;

    let extents = Extents::cube(m);
    let problem = Problem::<f64>::new(gpu, Grid::Uniform, extents).map_err(fail)?;
    let dsinv = (m - 1) as f64;
    let [a, b, c, d] = STENCIL.map(|s| s * dsinv);
    // Derivative at point n of an impulse at point m - 2 of its line (f = 0 elsewhere).
    let expected = |n: usize| match n {
        0 | 63 => -a,
        1 => -b,
        2 => -c,
        3 => -d,
        61 => a,
        60 => b,
        59 => c,
        58 => d,
        _ => 0.0,
    };
    for direction in Direction::ALL {
        let stride = extents.stride(direction);
        let f: Vec<f64> = (0..extents.points().map_err(fail)?)
            .map(|p| f64::from(u8::from((p / stride) % m == m - 2)))
            .collect();
        let f_d = gpu.upload(&f).map_err(fail)?;
        let mut df_d = gpu.zeros::<f64>(f.len()).map_err(fail)?;
        for pencils in [Pencils::Small, Pencils::Large] {
            problem
                .run(
                    gpu,
                    Variant::new(direction, pencils, Coefficients::Uniform),
                    &f_d,
                    &mut df_d,
                )
                .map_err(fail)?;
            let got = gpu.download(&df_d).map_err(fail)?;
            let want: Vec<f64> = (0..f.len()).map(|p| expected((p / stride) % m)).collect();
            // The stencil adds exact zeros to one product: the result is the coefficient itself.
            let check = Check::compare(&format!("{} impulse", direction.name()), &got, &want, Tolerance::EXACT);
            ensure(check.passed(), || check.to_string())?;
        }
    }
    Ok(())
}

/// The book's printed f32 errors of the x derivative at 64^3 (RMS 5.7695847E-06, MAX
/// 2.3365021E-05), reproduced within the stated bounds by every uniform-grid derivative.
fn ch6_deriv_book_errors(gpu: &Gpu) -> TestResult {
    let extents = Extents::cube(deriv::M_BOOK);
    let problem = Problem::<f32>::new(gpu, Grid::Uniform, extents).map_err(fail)?;
    let mut df_d = gpu.zeros::<f32>(extents.points().map_err(fail)?).map_err(fail)?;
    for variant in Variant::table(Coefficients::Uniform) {
        let (f, sol) = reference::field::<f32>(Grid::Uniform, extents, variant.direction).map_err(fail)?;
        problem
            .run(gpu, variant, &gpu.upload(&f).map_err(fail)?, &mut df_d)
            .map_err(fail)?;
        let (rms, max) = reference::errors(&gpu.download(&df_d).map_err(fail)?, &sol);
        ensure(rms < BOOK_RMS_BOUND && max < BOOK_MAX_BOUND, || {
            format!(
                "{}: RMS {rms:e}, MAX {max:e}; book {:e}, {:e}",
                variant.kernel(),
                deriv::BOOK_RMS_ERROR,
                deriv::BOOK_MAX_ERROR
            )
        })?;
        // Round-off, not truncation: an error at the size of f64's would mean a wrong check.
        ensure(max > 1e-6, || {
            format!("{}: MAX {max:e} is not f32 round-off", variant.kernel())
        })?;
    }
    Ok(())
}

/// The stretched grid: its coefficients are the uniform ones times ds/dx; its derivative
/// of `cos(2 pi x)` is `(df/ds)(ds/dx)`: in f64 the uniform-grid kernel's df/ds on the same
/// samples times ds/dx equals the stretched-grid kernels' output to rounding, and both are
/// within the truncation error of the analytic `-2 pi sin(2 pi x)`.
fn ch6_deriv_nonuniform_chain_rule(gpu: &Gpu) -> TestResult {
    let m = 64;
    let uniform = reference::coefficients::<f64>(Grid::Uniform, m);
    let stretched = reference::coefficients::<f64>(Grid::Stretched, m);
    for n in 0..m {
        let s = n as f64 / (m - 1) as f64;
        for k in 0..4 {
            let want = uniform[k][n] * stretched_ds_dx(s);
            ensure((stretched[k][n] - want).abs() <= 1e-14 * want.abs(), || {
                format!("coefficient {k} at point {n}: {} for {want}", stretched[k][n])
            })?;
        }
    }
    // x(s) is the integral of dx/ds: a centred difference of it gives 1 / (ds/dx).
    let h = 1e-6;
    for s in [0.0, 0.1, 0.25, 0.6, 0.75] {
        let dx_ds = (stretched_x(s + h) - stretched_x(s - h)) / (2.0 * h);
        ensure((dx_ds * stretched_ds_dx(s) - 1.0).abs() < 1e-8, || {
            format!("dx/ds at s = {s}")
        })?;
    }
    let extents = Extents { mx: m, my: m, mz: 8 };
    let n = extents.points().map_err(fail)?;
    let (f, sol) = reference::field::<f64>(Grid::Stretched, extents, Direction::X).map_err(fail)?;
    let f_d = gpu.upload(&f).map_err(fail)?;
    let mut df_d = gpu.zeros::<f64>(n).map_err(fail)?;
    Problem::<f64>::new(gpu, Grid::Uniform, extents)
        .map_err(fail)?
        .run(
            gpu,
            Variant::new(Direction::X, Pencils::Small, Coefficients::Uniform),
            &f_d,
            &mut df_d,
        )
        .map_err(fail)?;
    let df_ds = gpu.download(&df_d).map_err(fail)?;
    let chain: Vec<f64> = df_ds
        .iter()
        .enumerate()
        .map(|(p, v)| v * stretched_ds_dx((p % m) as f64 / (m - 1) as f64))
        .collect();
    let stretched_problem = Problem::<f64>::new(gpu, Grid::Stretched, extents).map_err(fail)?;
    for coefficients in [Coefficients::Constant, Coefficients::Global] {
        for pencils in [Pencils::Small, Pencils::Large] {
            let variant = Variant::new(Direction::X, pencils, coefficients);
            stretched_problem.run(gpu, variant, &f_d, &mut df_d).map_err(fail)?;
            let df_dx = gpu.download(&df_d).map_err(fail)?;
            // One rounding of the coefficient against two of the product: a few ulps of the
            // sum of |terms|, at most (m - 1) * 2 * 2.1 * 1.5 ~ 400 times the largest |f|.
            let check = Check::compare(&variant.kernel(), &df_dx, &chain, Tolerance { abs: 1e-12, rel: 0.0 });
            ensure(check.passed(), || format!("(df/ds)(ds/dx): {check}"))?;
            let (_, max) = reference::errors(&df_dx, &sol);
            let tolerance = analytic_tolerance(Grid::Stretched, m, f64::EPSILON);
            ensure(max <= tolerance && max > 1e-8, || {
                format!(
                    "{}: max error {max:e} against -2 pi sin(2 pi x), tolerance {tolerance:e}",
                    variant.kernel()
                )
            })?;
        }
    }
    // In f32, the same against the analytic derivative.
    every_kernel::<f32>(gpu, extents, None, None)
}

/// Extents and flags the kernels cannot take are refused with one sentence, not a panic.
fn ch6_deriv_refused_sizes(gpu: &Gpu) -> TestResult {
    for (dims, says) in [
        ("48x32x8", "multiples of 32"),
        ("64x64x6", "multiple of 4"),
        ("0x32x8", "multiples of 32"),
        ("64x64", "does not take"),
        ("64x64xq", "does not take"),
    ] {
        match run_args(gpu, "ch6-deriv", &["--dims", dims]) {
            Err(ferrocuda::Error::InvalidArgument(message)) if message.contains(says) => {}
            Err(other) => return Err(format!("--dims {dims}: {other}")),
            Ok(_) => return Err(format!("--dims {dims} was accepted")),
        }
    }
    // z with 4 points: the stencil reaches past the period of 3.
    let extents = Extents { mx: 32, my: 32, mz: 4 };
    let z = Variant::new(Direction::Z, Pencils::Small, Coefficients::Uniform);
    let err = z.shape::<f32>(gpu, extents, None).map(|_| ()).unwrap_err().to_string();
    ensure(err.contains("more than 4 points along z"), || err.clone())?;
    let only_z = ["--dims", "32x32x4", "--direction", "z"];
    ensure(run_args(gpu, "ch6-deriv", &only_z).is_err(), || {
        "z at mz = 4 ran".into()
    })?;
    // Blocks over 1024 threads.
    let err = Variant::new(Direction::X, Pencils::Small, Coefficients::Uniform)
        .shape::<f32>(gpu, Extents::cube(64), Some(512))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    ensure(err.contains("at most 1024"), || err.clone())?;
    for (flag, value) in [
        ("--direction", "w"),
        ("--variant", "huge"),
        ("--grid", "round"),
        ("--line-threads", "-3"),
    ] {
        ensure(run_args(gpu, "ch6-deriv", &[flag, value]).is_err(), || {
            format!("{flag} {value} was accepted")
        })?;
    }
    // A lone tile larger than any device's shared memory: x lines of 65536 points.
    let wide = Extents {
        mx: 65536,
        my: 32,
        mz: 4,
    };
    let err = Variant::new(Direction::X, Pencils::Large, Coefficients::Uniform)
        .shape::<f64>(gpu, wide, None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    ensure(err.contains("shared memory"), || err.clone())
}

/// The constant bank: the stretched grid's arrays fit up to 4032 points per line in f32 and
/// 2016 in f64 (so 512^3 fits in both), and f64 values read back as written through the bank.
fn ch6_deriv_constant_bank(gpu: &Gpu) -> TestResult {
    use book_kernels::ch6::deriv_nonuniform::max_constant_points;
    ensure(max_constant_points(1) == 4032 && max_constant_points(2) == 2016, || {
        format!("{} {}", max_constant_points(1), max_constant_points(2))
    })?;
    let err = common::book(gpu)?
        .write_constant(257, &[1.0f64])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    ensure(err.contains("even word"), || err.clone())?;
    // An f64 stretched-grid derivative with a line too long for the bank is refused.
    let extents = Extents {
        mx: 2048,
        my: 32,
        mz: 8,
    };
    let problem = Problem::<f64>::new(gpu, Grid::Stretched, extents).map_err(fail)?;
    let n = extents.points().map_err(fail)?;
    let f_d = gpu.zeros::<f64>(n).map_err(fail)?;
    let mut df_d = gpu.zeros::<f64>(n).map_err(fail)?;
    let variant = Variant::new(Direction::X, Pencils::Small, Coefficients::Constant);
    let err = problem
        .run(gpu, variant, &f_d, &mut df_d)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    ensure(err.contains("do not fit in the 64 KiB constant bank"), || err.clone())
}

/// The benchmark's rows run (here at 1 MiB per array, 64^3), each declaring one read and one
/// write per point, in the launch shape the example uses.
fn ch6_deriv_bench_rows(gpu: &Gpu) -> TestResult {
    use ferrocuda_book::bench::{Settings, ch6_deriv as bench};
    let settings = Settings {
        working_set_mib: 1,
        reps: 1,
        ..Settings::default()
    };
    ensure(bench::side(&settings).map_err(fail)? == 64, || {
        "1 MiB is not 64^3".into()
    })?;
    let default = bench::side(&Settings::default()).map_err(fail)?;
    ensure(default == 512, || format!("the default bench side is {default}"))?;
    let rows = bench::run(gpu, &settings, None).map_err(fail)?;
    ensure(rows.len() == bench::VARIANTS.len(), || format!("{} rows", rows.len()))?;
    for (row, variant) in rows.iter().zip(bench::VARIANTS) {
        let shape = variant.shape::<f32>(gpu, Extents::cube(64), None).map_err(fail)?;
        ensure(row.bytes == 2 * 64 * 64 * 64 * 4 && row.shape == shape, || {
            format!("{}: {} bytes, {}", row.name, row.bytes, row.shape)
        })?;
    }
    Ok(())
}

/// The generated PTX: the 32-wide kernels issue four loads before their first shared store;
/// the uniform kernels read their coefficients with `ld.const` (8-byte in f64), the global ones
/// with `ld.global` and no `ld.const` beyond none; the stencil is fused multiply-adds; the
/// one-barrier kernel has one `bar.sync`, the others two; the math-only kernel loads nothing.
fn ch6_deriv_ptx() -> TestResult {
    let modules: Vec<_> = ferrocuda_book::KERNELS.modules().collect();
    ensure(!modules.is_empty(), || "no PTX".into())?;
    for module in modules {
        let body = |name: &str| ferrocuda::ptx::entry_ptx(module.ptx, name).ok_or(format!("no entry {name}"));
        for t in ["f32", "f64"] {
            for kernel in ["deriv_y_l_pencils", "deriv_z_l_pencils", "deriv_x"] {
                let b = body(&format!("{kernel}_{t}"))?;
                let first_store = b.find("st.shared").ok_or(format!("{kernel}_{t} stores no tile"))?;
                let loads = b[..first_store].matches(&format!("ld.global.{t}")).count();
                ensure(loads >= 4, || {
                    format!("{kernel}_{t}: {loads} loads before the first shared store")
                })?;
                ensure(b.matches("bar.sync").count() == 2, || {
                    format!("{kernel}_{t}: not two barriers")
                })?;
                ensure(b.contains(&format!("fma.rn.{t}")), || format!("{kernel}_{t}: no fma"))?;
            }
            let width = if t == "f32" { "b32" } else { "b64" };
            ensure(
                body(&format!("deriv_x_{t}"))?.contains(&format!("ld.const.{width}")),
                || format!("deriv_x_{t}: no ld.const.{width}"),
            )?;
            ensure(
                body(&format!("deriv_y_nonuniform_constant_{t}"))?.contains(&format!("ld.const.{width}")),
                || format!("deriv_y_nonuniform_constant_{t}: no ld.const.{width}"),
            )?;
            let global = body(&format!("deriv_y_nonuniform_global_{t}"))?;
            ensure(!global.contains("ld.const"), || {
                format!("deriv_y_nonuniform_global_{t} reads constant memory")
            })?;
            ensure(
                body(&format!("deriv_x_1sync_{t}"))?.matches("bar.sync").count() == 1,
                || format!("deriv_x_1sync_{t}: not one barrier"),
            )?;
            ensure(!body(&format!("derivative_math_{t}"))?.contains("ld.global"), || {
                format!("derivative_math_{t} loads from global memory")
            })?;
        }
    }
    Ok(())
}

/// The example's number format: Fortran's list-directed output of a real, as the book prints.
fn ch6_deriv_fortran_format() -> TestResult {
    let cases = [
        (5.7695847e-6, "5.7695847E-06"),
        (2.8503999e-2, "2.8503999E-02"),
        (73.57396, "73.57396"),
        (0.5, "0.5000000"),
        (2954.123, "2954.123"),
    ];
    for (v, want) in cases {
        let got = deriv::fortran_list(v, Precision::F32);
        ensure(got == want, || format!("{v}: {got}, not {want}"))?;
    }
    let dims = deriv::parse_dims("64x32x8").map_err(fail)?;
    ensure(dims == Extents { mx: 64, my: 32, mz: 8 }, || format!("{dims}"))
}

/// The memory plans of this file's ids.
fn ch6_deriv_memory_plan() -> TestResult {
    common::memory_plans_grow(&["ch6-deriv"])
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("ch6_deriv_memory_plan", ch6_deriv_memory_plan),
        ("ch6_deriv_ptx", ch6_deriv_ptx),
        ("ch6_deriv_fortran_format", ch6_deriv_fortran_format),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch6_deriv_program_f32", ch6_deriv_program_f32),
        ("ch6_deriv_program_f64", ch6_deriv_program_f64),
        ("ch6_deriv_non_cubic_sizes", ch6_deriv_non_cubic_sizes),
        ("ch6_deriv_awkward_block_shapes", ch6_deriv_awkward_block_shapes),
        ("ch6_deriv_wrap", ch6_deriv_wrap),
        ("ch6_deriv_book_errors", ch6_deriv_book_errors),
        ("ch6_deriv_nonuniform_chain_rule", ch6_deriv_nonuniform_chain_rule),
        ("ch6_deriv_refused_sizes", ch6_deriv_refused_sizes),
        ("ch6_deriv_constant_bank", ch6_deriv_constant_bank),
        ("ch6_deriv_bench_rows", ch6_deriv_bench_rows),
    ];
    common::main(cpu_tests, gpu_tests)
}
