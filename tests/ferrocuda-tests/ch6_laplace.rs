//! GPU-vs-CPU tests of the book's chapter 6.2, the 2-D Laplace solver (`ch6-laplace2d`): every
//! kernel's residuals and field equal the CPU's bit for bit, at the book's loop and at sizes that
//! break each kernel's tiling; the CPU's residual column at the book's 4096^2.
mod common;

use book_kernels::ch6::laplace2d::{
    BLOCK_X, BLOCK_Y, STRIP_ROWS, TILED_H, TILED_SWEEPS, TILED_W, jacobi_point, neighbourhood,
};
use common::{GpuTest, TestResult, ensure, fail, passes_with, run_args};
use ferrocuda::{Error, Gpu};
use ferrocuda_book::examples::ch6::laplace2d::{self, report_lines};
use ferrocuda_book::examples::ch6::laplace2d_solver::{DeviceField, LaplaceGpu, Update, Variant, solve};
use ferrocuda_book::reference::ch6::laplace2d::{self as reference, Stop};

/// The CPU's residuals at the book's 4096^2 in f32, sweeps 10, 20, ..., 100, as bit patterns:
/// computed by an independent program (plain loops, std's `sinf`, no shared code) that
/// emulates the book's Fortran in f32 with the sums in the order of [`jacobi_point`]. Printed
/// as the book prints them (`f10.6`): 0.023564, 0.011931, 0.008061, 0.006065, 0.004811,
/// 0.004040, 0.003442, 0.003029, 0.002685, 0.002420.
const BOOK_COLUMN_BITS: [u32; 10] = [
    0x3cc1_0938,
    0x3c43_7b50,
    0x3c04_1400,
    0x3bc6_bb00,
    0x3b9d_a9c0,
    0x3b84_6440,
    0x3b61_9900,
    0x3b46_7c80,
    0x3b2f_f800,
    0x3b1e_9b80,
];

/// The book's loop at the book's size on the CPU: 101 sweeps, and the ten residuals it prints.
fn ch6_laplace2d_book_column_on_cpu() -> TestResult {
    let n = laplace2d::N;
    let initial: Vec<f32> = reference::initial(n, n).map_err(fail)?;
    let solution = reference::solve(&initial, n, n, Stop::BOOK).map_err(fail)?;
    ensure(solution.residuals.len() == 101, || {
        format!("{} sweeps, not the book's 101", solution.residuals.len())
    })?;
    let printed: Vec<u32> = (1..=10).map(|k| solution.residuals[10 * k - 1].to_bits()).collect();
    ensure(printed == BOOK_COLUMN_BITS, || {
        format!("residuals {printed:08x?}, not {BOOK_COLUMN_BITS:08x?}")
    })?;
    let first = &report_lines(&solution.residuals)[0];
    ensure(first == "      10     0.023564   2.3563966E-02", || {
        format!("the first line printed is `{first}`")
    })?;
    // The spec's check: after 100 iterations the field is still far from the harmonic solution.
    let error = reference::max_error_vs_harmonic(&solution.field, n, n);
    ensure((0.97..0.99).contains(&error), || {
        format!("max |a - exact| = {error}, not about 0.98")
    })
}

/// The stencil's order: on values where the order of the four sums matters, the result is the
/// book's statement evaluated left to right.
fn ch6_laplace2d_stencil_order() -> TestResult {
    let (big, tiny) = (1.0f32, f32::EPSILON / 2.0);
    // W, E, S, N = 1, 2^-24, 2^-24, -1: ((W + E) + S) + N = 0 in f32 (each 2^-24 added to 1 is
    // lost to rounding), while adding E and S first keeps their 2^-23.
    let s = [[0.0, tiny, 0.0], [big, 0.5, tiny], [0.0, -big, 0.0]];
    let book = 0.2f32 * (((big + tiny) + tiny) + -big);
    let other = 0.2f32 * (((tiny + tiny) + big) + -big);
    ensure(book != other, || "the test values do not tell the orders apart".into())?;
    let got = jacobi_point(&s);
    ensure(got.to_bits() == book.to_bits(), || {
        format!("jacobi_point = {got:e}, not the book's order's {book:e}")
    })?;
    // Diagonals: `0.05 * (((SW + SE) + NW) + NE)`, added after the edges' product.
    let mut d = [[0.0f32; 3]; 3];
    (d[0][0], d[0][2], d[2][0], d[2][2]) = (big, tiny, tiny, -big);
    let corners = 0.05f32 * (((big + tiny) + tiny) + -big);
    ensure(jacobi_point(&d).to_bits() == corners.to_bits(), || {
        format!("corners give {:e}, not {corners:e}", jacobi_point(&d))
    })?;
    let ones = neighbourhood(|_, _| 1.0f64);
    ensure((jacobi_point(&ones) - 1.0).abs() < 1e-15, || {
        "the weights do not sum to 1".into()
    })
}

/// Converged (f64, a tolerance far below the discretisation error), the field is the harmonic
/// `sin(pi x) exp(-pi y)` up to the compact stencil's error, sixth order for a harmonic
/// function: halving h divides it by 64 (50 to 80 allowed; the leading term dominates already).
fn ch6_laplace2d_converges_to_harmonic() -> TestResult {
    let error = |n: usize, tolerance: f64| -> Result<f64, String> {
        let initial: Vec<f64> = reference::initial(n, n).map_err(fail)?;
        let stop = Stop::new(tolerance, 100_000).map_err(fail)?;
        let solution = reference::solve(&initial, n, n, stop).map_err(fail)?;
        ensure(solution.residuals.len() < 100_000, || format!("{n}^2 did not converge"))?;
        Ok(reference::max_error_vs_harmonic(&solution.field, n, n))
    };
    let (coarse, fine) = (error(17, 1e-14)?, error(33, 1e-15)?);
    ensure((50.0..80.0).contains(&(coarse / fine)) && fine < 1e-10, || {
        format!("errors {coarse:e} at 17^2 and {fine:e} at 33^2: not sixth order")
    })
}

/// The working-precision constants: `T::from_f64(0.2)` is the book's `0.2_fp_kind` literal.
fn ch6_laplace2d_constants() -> TestResult {
    ensure(0.2f64 as f32 == 0.2f32 && 0.05f64 as f32 == 0.05f32, || {
        "0.2 or 0.05 rounds differently through f64".into()
    })
}

/// The book's `initialize`: `sin` along the first row, `sin exp(-pi)` along the last, 0 inside.
fn ch6_laplace2d_initial_field() -> TestResult {
    let (nx, ny) = (9, 5);
    let a: Vec<f32> = reference::initial(nx, ny).map_err(fail)?;
    let pi = 2.0f32 * 1.0f32.asin();
    ensure(pi == std::f32::consts::PI, || format!("pi = {pi}"))?;
    ensure(a[0] == 0.0 && a[nx - 1] == pi.sin(), || {
        format!("first row ends {} and {}", a[0], a[nx - 1])
    })?;
    ensure(a[nx / 2] == 1.0, || format!("a(5,1) = {}, not sin(pi/2)", a[nx / 2]))?;
    let last = (ny - 1) * nx;
    ensure(a[last + nx / 2] == (-pi).exp(), || {
        format!("a(5,ny) = {}, not exp(-pi)", a[last + nx / 2])
    })?;
    ensure(a[nx..last].iter().all(|&v| v == 0.0), || "the inside is not 0".into())
}

/// The book's printed line, `'(i8,3x,f10.6)'` then every digit, and the lines it prints:
/// every 10th sweep.
fn ch6_laplace2d_report_format() -> TestResult {
    let mut residuals = vec![0.5f32; 25];
    residuals[9] = f32::from_bits(BOOK_COLUMN_BITS[0]);
    residuals[19] = f32::from_bits(BOOK_COLUMN_BITS[1]);
    let lines = report_lines(&residuals);
    let expected = [
        "      10     0.023564   2.3563966E-02",
        "      20     0.011931   1.1931255E-02",
    ];
    ensure(lines == expected, || format!("{lines:?}"))?;
    let lines = report_lines(&[0.1f64; 10]);
    ensure(lines == ["      10     0.100000   1.000000000000000E-01"], || {
        format!("f64: {lines:?}")
    })
}

/// The embedded PTX of every kernel: no `fma` (the CPU rounds each product and sum, so a
/// contracted multiply-add would break the bit-for-bit residuals), both products `mul.rn`, the
/// loads each kernel was written for, no local memory.
fn ch6_laplace2d_ptx() -> TestResult {
    let sweeps = ["global", "shared", "texture", "strip", "tiled"];
    for precision in ["f32", "f64"] {
        for kernel in sweeps
            .iter()
            .map(|k| format!("jacobi_{k}"))
            .chain(["max_residual".to_string()])
        {
            let name = format!("{kernel}_{precision}");
            let bodies: Vec<&str> = ferrocuda_book::KERNELS
                .modules()
                .filter_map(|m| ferrocuda::ptx::entry_ptx(m.ptx, &name))
                .collect();
            ensure(!bodies.is_empty(), || format!("no PTX entry `{name}`"))?;
            for body in bodies {
                let has = |pattern: &str| body.contains(pattern);
                let mut wanted: Vec<String> = Vec::new();
                if kernel != "max_residual" {
                    wanted.push(format!("mul.rn.{precision}"));
                }
                match kernel.as_str() {
                    "jacobi_global" | "jacobi_shared" => wanted.push(format!("ld.global.{precision}")),
                    "max_residual" => wanted.extend(["ld.global.nc".into(), "atom.max.u64".into()]),
                    _ => wanted.push("ld.global.nc".into()),
                }
                if kernel == "jacobi_shared" || kernel == "jacobi_tiled" {
                    wanted.extend(["bar.sync".into(), "ld.shared".into(), "st.shared".into()]);
                }
                if kernel == "jacobi_tiled" {
                    wanted.push("atom.max.u64".into());
                }
                let missing: Vec<&String> = wanted.iter().filter(|p| !has(p)).collect();
                ensure(missing.is_empty(), || format!("`{name}` lacks {missing:?}"))?;
                ensure(!has("fma.") && !has(".local"), || {
                    format!("`{name}` has an fma or local memory")
                })?;
                ensure(kernel != "jacobi_global" || !has(".nc"), || {
                    "jacobi_global reads through the read-only path".into()
                })?;
            }
        }
    }
    Ok(())
}

/// Runs the book's loop with every kernel and checks residuals and field against the CPU's, and
/// that each prints the CPU's lines.
fn every_kernel_matches_cpu<T: LaplaceGpu>(gpu: &Gpu, nx: usize, ny: usize, stop: Stop, update: Update) -> TestResult {
    let initial: Vec<T> = reference::initial(nx, ny).map_err(fail)?;
    let cpu = reference::solve(&initial, nx, ny, stop).map_err(fail)?;
    for variant in Variant::ALL {
        let got = solve(gpu, variant, update, &initial, nx, ny, stop).map_err(fail)?;
        let same_residuals = got
            .residuals
            .iter()
            .map(|r| r.abs_bits())
            .eq(cpu.residuals.iter().map(|r| r.abs_bits()));
        ensure(same_residuals, || {
            format!(
                "{variant}, {nx} x {ny}, {update}: {} residuals differ from the CPU's {}",
                got.residuals.len(),
                cpu.residuals.len()
            )
        })?;
        ensure(report_lines(&got.residuals) == report_lines(&cpu.residuals), || {
            format!("{variant}: printed column differs")
        })?;
        let first_difference = got
            .field
            .iter()
            .zip(&cpu.field)
            .position(|(&g, &c)| Into::<f64>::into(g).to_bits() != Into::<f64>::into(c).to_bits());
        ensure(first_difference.is_none(), || {
            format!("{variant}, {nx} x {ny}: field differs at point {first_difference:?}")
        })?;
    }
    Ok(())
}

/// The book's loop (101 sweeps) at the simulator's default mesh, every kernel, f32.
fn ch6_laplace2d_residual_column_101_sweeps(gpu: &Gpu) -> TestResult {
    let n = laplace2d::SIMULATOR_N;
    every_kernel_matches_cpu::<f32>(gpu, n, n, Stop::BOOK, Update::Copy)
}

/// Meshes that break each kernel's tiling: the least (3 x 3), the book's block +- 1 (32 x 16),
/// the strips' 8 and 64 rows +- 1, the tiled kernel's inner tile (120 x 24) +- 1, non-square.
fn ch6_laplace2d_awkward_sizes(gpu: &Gpu) -> TestResult {
    let stop = Stop::new(reference::TOLERANCE, 5).map_err(fail)?;
    let sizes = [
        (3, 3),
        (4, 3),
        (3, 7),
        (31, 33),
        (33, 31),
        (BLOCK_X - 1, BLOCK_Y + 1),
        (BLOCK_X + 1, BLOCK_Y - 1),
        (47, 8 * STRIP_ROWS + 1),
        (17, 8 * STRIP_ROWS - 1),
        (TILED_W + 1, TILED_H - 1),
        (TILED_W - 1, TILED_H + 1),
        (2 * TILED_W + 1, 2 * TILED_H + 3),
    ];
    for (nx, ny) in sizes {
        every_kernel_matches_cpu::<f32>(gpu, nx, ny, stop, Update::Copy)?;
    }
    Ok(())
}

/// Double precision (the book's module is single only): the book's loop on a non-square mesh.
fn ch6_laplace2d_f64(gpu: &Gpu) -> TestResult {
    every_kernel_matches_cpu::<f64>(gpu, 61, 37, Stop::BOOK, Update::Copy)
}

/// `a = aNew` by swapping the buffers gives the book's copy's results (both equal the CPU's).
fn ch6_laplace2d_copy_equals_swap(gpu: &Gpu) -> TestResult {
    let stop = Stop::new(reference::TOLERANCE, 22).map_err(fail)?;
    every_kernel_matches_cpu::<f32>(gpu, 50, 41, stop, Update::Swap)?;
    every_kernel_matches_cpu::<f32>(gpu, 50, 41, stop, Update::Copy)
}

/// A tolerance met in the middle of a 4-sweep launch: the tiled kernel stops where the book's
/// loop stops, with its field.
fn ch6_laplace2d_tolerance_inside_a_tiled_launch(gpu: &Gpu) -> TestResult {
    let (nx, ny) = (40, 30);
    let initial: Vec<f32> = reference::initial(nx, ny).map_err(fail)?;
    let free = reference::solve(&initial, nx, ny, Stop::BOOK).map_err(fail)?;
    // Stop at the first sweep whose residual is at most that of sweep 10.
    let stop = Stop::new(free.residuals[9].into(), 100).map_err(fail)?;
    let cpu = reference::solve(&initial, nx, ny, stop).map_err(fail)?;
    let sweeps = cpu.residuals.len();
    ensure(sweeps % TILED_SWEEPS != 0 && sweeps <= 10, || {
        format!("the CPU stops after {sweeps} sweeps, which does not test a partial launch")
    })?;
    every_kernel_matches_cpu::<f32>(gpu, nx, ny, stop, Update::Swap)
}

/// The example itself, f32 and f64, the book's three kernels and ours.
fn ch6_laplace2d_program(gpu: &Gpu) -> TestResult {
    let (id, size) = ("ch6-laplace2d", ["--size", "37", "--reps", "2"]);
    passes_with(gpu, id, &[&size[..], &["--iterations", "30"]].concat())?;
    let f64 = ["--precision", "f64", "--ny", "20", "--update", "swap"];
    passes_with(gpu, id, &[&size[..], &f64].concat())
}

/// True when `result` is the one-sentence refusal of a bad argument.
fn refused<T>(result: ferrocuda::Result<T>) -> bool {
    matches!(result, Err(Error::InvalidArgument(_)))
}

/// Sizes below 3 x 3 and other bad options are refused with `InvalidArgument`, never a panic.
fn ch6_laplace2d_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let bad: [&[&str]; 10] = [
        &["--size", "2"],
        &["--size", "0"],
        &["--size", "1"],
        &["--ny", "2"],
        &["--iterations", "2000000"],
        &["--iterations", "-1"],
        &["--tol", "0"],
        &["--tol", "x"],
        &["--kernel", "fast"],
        &["--update", "move"],
    ];
    for args in bad {
        ensure(refused(run_args(gpu, "ch6-laplace2d", args)), || {
            format!("the example ran with `{}`", args.join(" "))
        })?;
    }
    ensure(refused(reference::check_mesh(usize::MAX / 2, 3)), || {
        "an unaddressable mesh was accepted".into()
    })?;
    let initial: Vec<f32> = reference::initial(8, 8).map_err(fail)?;
    ensure(refused(DeviceField::upload(gpu, &initial, 8, 9, 4)), || {
        "a field of the wrong length was uploaded".into()
    })?;
    let mut field = DeviceField::upload(gpu, &initial, 8, 8, 4).map_err(fail)?;
    ensure(refused(field.tiled_sweeps(gpu, 0, TILED_SWEEPS + 1)), || {
        "5 sweeps in one tiled launch".into()
    })?;
    ensure(refused(field.tiled_sweeps(gpu, 2, 3)), || {
        "residual slots beyond the buffer".into()
    })?;
    ensure(refused(field.sweep_from(gpu, None, Variant::Tiled)), || {
        "the tiled kernel launched as a single sweep".into()
    })
}

/// The memory plan of ch6-laplace2d.
fn ch6_laplace2d_memory_plan() -> TestResult {
    common::memory_plans_grow(&["ch6-laplace2d"])
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        (
            "ch6_laplace2d_residual_column_101_sweeps",
            ch6_laplace2d_residual_column_101_sweeps,
        ),
        ("ch6_laplace2d_awkward_sizes", ch6_laplace2d_awkward_sizes),
        ("ch6_laplace2d_f64", ch6_laplace2d_f64),
        ("ch6_laplace2d_copy_equals_swap", ch6_laplace2d_copy_equals_swap),
        (
            "ch6_laplace2d_tolerance_inside_a_tiled_launch",
            ch6_laplace2d_tolerance_inside_a_tiled_launch,
        ),
        ("ch6_laplace2d_program", ch6_laplace2d_program),
        (
            "ch6_laplace2d_rejects_bad_arguments",
            ch6_laplace2d_rejects_bad_arguments,
        ),
    ];
    common::main(
        vec![
            ("ch6_laplace2d_memory_plan", ch6_laplace2d_memory_plan),
            ("ch6_laplace2d_book_column_on_cpu", ch6_laplace2d_book_column_on_cpu),
            ("ch6_laplace2d_stencil_order", ch6_laplace2d_stencil_order),
            ("ch6_laplace2d_constants", ch6_laplace2d_constants),
            (
                "ch6_laplace2d_converges_to_harmonic",
                ch6_laplace2d_converges_to_harmonic,
            ),
            ("ch6_laplace2d_initial_field", ch6_laplace2d_initial_field),
            ("ch6_laplace2d_report_format", ch6_laplace2d_report_format),
            ("ch6_laplace2d_ptx", ch6_laplace2d_ptx),
        ],
        gpu_tests,
    )
}
