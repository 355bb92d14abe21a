//! GPU-vs-CPU tests of the book's chapter 3 shared-memory examples: the reversals (§3.3.3), the
//! bank-conflict reads (§3.3.3.2) and the transposes (§3.4, with the PGI article's and the
//! tutorial's), at the sources' sizes and at extents that are not multiples of the tile.
mod common;

use common::{GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Error, Gpu, KernelView, LaunchShape};
use ferrocuda_book::defaults::Pick;
use ferrocuda_book::examples::ch3::bank_conflicts;
use ferrocuda_book::examples::ch3::shared_reverse::{self, Variant as ReverseVariant};
use ferrocuda_book::examples::ch3::transpose::{self, Variant};
use ferrocuda_book::reference::ch3 as reference;

fn ch3_shared_reverse_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch3-shared-reverse", &[])
}

/// The three dynamic tiles at sizes that break a 64-element or one-warp assumption, up to a
/// full 1024-thread block; the static tile at its one size.
fn ch3_shared_reverse_sizes(gpu: &Gpu) -> TestResult {
    for variant in ReverseVariant::ALL {
        let sizes: &[usize] = match variant {
            ReverseVariant::Static => &[64],
            _ => &[1, 2, 31, 33, 63, 64, 65, 1000, 1024],
        };
        for &n in sizes {
            let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
            let mut d_d = gpu.upload(&a).map_err(fail)?;
            shared_reverse::reverse(gpu, variant, &mut d_d).map_err(fail)?;
            let got = gpu.download(&d_d).map_err(fail)?;
            let check = Check::compare("d", &got, &reference::shared_reverse::reverse(&a), Tolerance::EXACT);
            ensure(check.passed(), || format!("{variant:?}, n = {n}: {check}"))?;
        }
    }
    Ok(())
}

fn ch3_shared_reverse_rejects_bad_sizes(gpu: &Gpu) -> TestResult {
    for (variant, n) in [
        (ReverseVariant::Static, 63),
        (ReverseVariant::Static, 65),
        (ReverseVariant::Dynamic1, 1025),
        (ReverseVariant::Dynamic3, 0),
    ] {
        let mut d_d = gpu.zeros::<f32>(n).map_err(fail)?;
        match shared_reverse::reverse(gpu, variant, &mut d_d) {
            Err(Error::InvalidArgument(_)) => {}
            other => return Err(format!("{variant:?} with {n} elements: {other:?}")),
        }
    }
    Ok(())
}

fn ch3_bank_conflicts_program(gpu: &Gpu) -> TestResult {
    let passes = gpu.pick(64, 2).to_string();
    passes_with(gpu, "ch3-bank-conflicts", &["--size", &passes, "--reps", "2"])
}

/// Every stride from 1 to 33 (all banks, every conflict degree, the padded one), against the
/// CPU's sums of the same words, with one and several passes.
fn ch3_bank_conflicts_every_stride(gpu: &Gpu) -> TestResult {
    let threads = 2 * bank_conflicts::THREADS_PER_BLOCK as usize;
    let mut out_d = gpu.zeros::<u32>(threads).map_err(fail)?;
    for stride in 1..=33 {
        for passes in [1, 9] {
            bank_conflicts::launch(gpu, &mut out_d, stride, passes).map_err(fail)?;
            let expected = reference::bank_conflicts::sums(threads, stride as usize, passes);
            let check = Check::compare(
                "sums",
                &gpu.download(&out_d).map_err(fail)?,
                &expected,
                Tolerance::EXACT,
            );
            ensure(check.passed(), || format!("stride {stride}, {passes} passes: {check}"))?;
        }
    }
    Ok(())
}

fn ch3_bank_conflicts_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let mut out_d = gpu
        .zeros::<u32>(bank_conflicts::THREADS_PER_BLOCK as usize)
        .map_err(fail)?;
    let mut ragged_d = gpu.zeros::<u32>(100).map_err(fail)?;
    ensure(
        bank_conflicts::launch(gpu, &mut out_d, 0, 1).is_err()
            && bank_conflicts::launch(gpu, &mut out_d, 34, 1).is_err()
            && bank_conflicts::launch(gpu, &mut ragged_d, 1, 1).is_err(),
        || "a stride of 0 or 34, or a partial block, was accepted".into(),
    )
}

/// Conflict degrees: gcd(stride, 32).
fn ch3_bank_conflicts_degrees() -> TestResult {
    let degrees: Vec<u32> = bank_conflicts::STRIDES
        .iter()
        .map(|&s| bank_conflicts::conflict_degree(s))
        .collect();
    ensure(degrees == [1, 2, 1, 4, 8, 16, 32, 1], || format!("{degrees:?}"))
}

fn ch3_transpose_program(gpu: &Gpu) -> TestResult {
    let nx = gpu.pick(transpose::N_BOOK, 96).to_string();
    passes_with(gpu, "ch3-transpose", &["--size", &nx, "--reps", "1"])
}

/// The program on non-square matrices (`--size` nx, `--ny` ny), wider and taller, neither a
/// multiple of a tile; `--ny 0` is refused.
fn ch3_transpose_program_non_square(gpu: &Gpu) -> TestResult {
    for (nx, ny) in [(96, 40), (33, 130)] {
        let (nx_arg, ny_arg) = (nx.to_string(), ny.to_string());
        passes_with(
            gpu,
            "ch3-transpose",
            &["--size", &nx_arg, "--reps", "1", "--ny", &ny_arg],
        )
        .map_err(|e| format!("{nx} x {ny}: {e}"))?;
    }
    let zero = common::run_args(gpu, "ch3-transpose", &["--size", "8", "--ny", "0"]);
    ensure(zero.is_err(), || "--ny 0 was accepted".into())
}

/// Every variant on `nx x ny` (`ny` rows of `nx`), output preset to -1, against the rayon
/// transpose (or the input, for the copies), exactly.
fn check_variants(gpu: &Gpu, nx: usize, ny: usize) -> TestResult {
    let input = transpose::input(nx * ny).map_err(fail)?;
    let mut gold = vec![0.0f32; nx * ny];
    reference::transpose::transpose(&mut gold, &input, nx, ny).map_err(fail)?;
    let idata_d = gpu.upload(&input).map_err(fail)?;
    let mut odata_d = gpu.zeros::<f32>(nx * ny).map_err(fail)?;
    for variant in Variant::ALL {
        gpu.upload_into(&vec![-1.0f32; nx * ny], &mut odata_d).map_err(fail)?;
        transpose::transpose(gpu, variant, &mut odata_d, &idata_d, nx, ny).map_err(fail)?;
        let expected = if variant.is_copy() { &input } else { &gold };
        let check = Check::compare(
            "odata",
            &gpu.download(&odata_d).map_err(fail)?,
            expected,
            Tolerance::EXACT,
        );
        ensure(check.passed(), || {
            format!("{} on {nx} x {ny}: {check}", variant.kernel())
        })?;
    }
    Ok(())
}

/// Extents that are not multiples of the 32- or 16-element tile: single elements, rows and
/// columns, one element past a tile, and the book's size one row short; edge tiles take the
/// bounds-tested path and must neither skip nor write past an element.
fn ch3_transpose_non_multiple_extents(gpu: &Gpu) -> TestResult {
    for (nx, ny) in [
        (1, 1),
        (33, 65),
        (65, 33),
        (1, 100),
        (100, 1),
        (31, 17),
        (17, 31),
        (1000, 1024),
    ] {
        check_variants(gpu, nx, ny)?;
    }
    Ok(())
}

/// Square and rectangular grids of whole tiles: the diagonal kernels' two block orders (square
/// grids use the book's square formula, the others its rectangular one), each a permutation.
fn ch3_transpose_whole_tiles_square_and_rectangular(gpu: &Gpu) -> TestResult {
    for (nx, ny) in [(32, 32), (128, 128), (96, 64), (64, 160), (256, 32)] {
        check_variants(gpu, nx, ny)?;
    }
    Ok(())
}

fn ch3_transpose_rejects_mismatched_extents(gpu: &Gpu) -> TestResult {
    let idata_d = gpu.zeros::<f32>(12).map_err(fail)?;
    let mut odata_d = gpu.zeros::<f32>(12).map_err(fail)?;
    let mut short_d = gpu.zeros::<f32>(11).map_err(fail)?;
    ensure(
        transpose::transpose(gpu, Variant::NoBankConflicts, &mut odata_d, &idata_d, 5, 3).is_err()
            && transpose::transpose(gpu, Variant::NoBankConflicts, &mut short_d, &idata_d, 4, 3).is_err(),
        || "a 5 x 3 transpose of 12 elements, or into 11, was accepted".into(),
    )?;
    // 65535 rows of 32-row tiles is the most a grid holds along y.
    ensure(
        Variant::NoBankConflicts.shape(1, 65535 * 32).is_ok()
            && Variant::NoBankConflicts.shape(1, 65535 * 32 + 1).is_err(),
        || "the grid's y limit is not enforced at 65535 tile rows".into(),
    )
}

/// The kernels check what their unchecked full-tile path relies on: a block of other than
/// 32 x 8 threads, or views shorter than `nx * ny`, stop the kernel (on the simulator, whose
/// fault leaves it usable; on a GPU the trap would end the context).
fn ch3_transpose_kernel_checks_its_launch() -> TestResult {
    use book_kernels::ch3::transpose::{TransposeArgs, TransposeNoBankConflicts, tile_bytes};
    let sim = Gpu::simulator();
    let idata_d = sim.zeros::<f32>(64 * 64).map_err(fail)?;
    let mut odata_d = sim.zeros::<f32>(64 * 64).map_err(fail)?;
    let args = TransposeArgs {
        odata: odata_d.view_mut(),
        idata: idata_d.view(),
        nx: 64,
        ny: 64,
    };
    let shared = tile_bytes(32, 1) as u32;
    let wrong_block = LaunchShape::new((2, 2, 1), (16, 16, 1)).with_shared_bytes(shared);
    let launched = common::book(&sim)?
        .launch(TransposeNoBankConflicts, wrong_block, args)
        .and_then(|()| sim.synchronize());
    ensure(launched.is_err(), || "a 16 x 16 block was not stopped".into())?;
    let right_block = LaunchShape::new((2, 2, 1), (32, 8, 1)).with_shared_bytes(shared);
    let too_wide = TransposeArgs { nx: 65, ..args };
    let launched = common::book(&sim)?
        .launch(TransposeNoBankConflicts, right_block, too_wide)
        .and_then(|()| sim.synchronize());
    ensure(launched.is_err(), || {
        "a 65 x 64 matrix in 64 x 64 views was not stopped".into()
    })?;
    common::book(&sim)?
        .launch(TransposeNoBankConflicts, right_block, args)
        .and_then(|()| sim.synchronize())
        .map_err(fail)
}

/// The CPU reference itself on a small case written out by hand; arrays of other than
/// `nx * ny` elements are refused, not a panic.
fn ch3_transpose_reference_by_hand() -> TestResult {
    let input = [1, 2, 3, 4, 5, 6]; // 2 rows of 3
    let mut out = [0; 6];
    reference::transpose::transpose(&mut out, &input, 3, 2).map_err(fail)?;
    ensure(out == [1, 4, 2, 5, 3, 6], || format!("{out:?}"))?;
    let mut short = [0; 5];
    ensure(
        reference::transpose::transpose(&mut short, &input, 3, 2).is_err()
            && reference::transpose::transpose(&mut out, &input[..4], 3, 2).is_err()
            && reference::transpose::transpose(&mut out, &input, 4, 2).is_err()
            && reference::transpose::transpose(&mut out, &input, usize::MAX, 2).is_err(),
        || "a transpose of mismatched lengths was accepted".into(),
    )
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch3_shared_reverse_program", ch3_shared_reverse_program),
        ("ch3_shared_reverse_sizes", ch3_shared_reverse_sizes),
        (
            "ch3_shared_reverse_rejects_bad_sizes",
            ch3_shared_reverse_rejects_bad_sizes,
        ),
        ("ch3_bank_conflicts_program", ch3_bank_conflicts_program),
        ("ch3_bank_conflicts_every_stride", ch3_bank_conflicts_every_stride),
        (
            "ch3_bank_conflicts_rejects_bad_arguments",
            ch3_bank_conflicts_rejects_bad_arguments,
        ),
        ("ch3_transpose_program", ch3_transpose_program),
        ("ch3_transpose_program_non_square", ch3_transpose_program_non_square),
        ("ch3_transpose_non_multiple_extents", ch3_transpose_non_multiple_extents),
        (
            "ch3_transpose_whole_tiles_square_and_rectangular",
            ch3_transpose_whole_tiles_square_and_rectangular,
        ),
        (
            "ch3_transpose_rejects_mismatched_extents",
            ch3_transpose_rejects_mismatched_extents,
        ),
    ];
    common::main(
        vec![
            ("ch3_bank_conflicts_degrees", ch3_bank_conflicts_degrees),
            (
                "ch3_transpose_kernel_checks_its_launch",
                ch3_transpose_kernel_checks_its_launch,
            ),
            ("ch3_transpose_reference_by_hand", ch3_transpose_reference_by_hand),
        ],
        gpu_tests,
    )
}
