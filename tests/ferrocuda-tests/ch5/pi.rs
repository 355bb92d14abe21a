//! Tests of the pi examples (book §5.2, §5.3): ch5-pi-cuf's counts, ch5-pi-fma's Table 5.1 and
//! mismatches, and the two-pass and atomic-lock reductions, against the CPU at awkward sizes.
//! Included by `tests/ferrocuda-tests/ch5.rs`.
use crate::common::{TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda_book::examples::ch5::pi::{self, PiFloat, Rounding};
use ferrocuda_book::examples::ch5::pi_fma::{self, TABLE_5_1};
use ferrocuda_book::examples::ch5::pi_reduction_atomiclock::LockedSum;
use ferrocuda_book::examples::ch5::pi_reduction_twopass::TwoPass;
use ferrocuda_book::reference::ch5::pi::{self as pi_reference, PiReference};

/// Points for the pi tests without a random-number library: `2n` values of a seeded 64-bit LCG
/// in [0, 1), plus points exactly on the circle (`(1, 0)`, `(0, 1)`, `(0.5, 0.75)`... rounded)
/// where `<=` matters.
fn pi_points<T: PiFloat>(n: usize, seed: u64) -> Vec<T> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut xy: Vec<T> = (0..2 * n).map(|_| T::from_f64(next())).collect();
    for (k, (x, y)) in [(1.0, 0.0), (0.0, 1.0), (0.6, 0.8), (0.8, 0.6)]
        .into_iter()
        .enumerate()
        .take(n)
    {
        xy[k] = T::from_f64(x);
        xy[n + k] = T::from_f64(y);
    }
    xy
}

/// Sizes for the pi tests: one point, fewer than a warp, around a block, and a large odd count.
const PI_SIZES: [usize; 7] = [1, 2, 31, 33, 255, 257, 100_003];

fn pi_count_matches_cpu<T: PiFloat>(gpu: &Gpu) -> TestResult {
    for n in PI_SIZES {
        let xy = pi_points::<T>(n, n as u64);
        let xy_d = gpu.upload(&xy).map_err(fail)?;
        for (rounding, norm2) in [
            (Rounding::Separate, T::norm2_separate as fn(T, T) -> T),
            (Rounding::Fma, T::norm2_fma),
        ] {
            let got = pi::count(gpu, rounding, &xy_d).map_err(fail)?;
            let expected = pi_reference::count_inside(&xy, norm2);
            ensure(got == expected, || {
                format!("{} n = {n} {rounding:?}: GPU {got}, CPU {expected}", T::NAME)
            })?;
        }
    }
    Ok(())
}

pub fn ch5_pi_cuf_count_awkward_sizes(gpu: &Gpu) -> TestResult {
    pi_count_matches_cpu::<f32>(gpu)?;
    pi_count_matches_cpu::<f64>(gpu)
}

pub fn ch5_pi_cuf_program(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        passes_with(
            gpu,
            "ch5-pi-cuf",
            &["--size", "100003", "--precision", precision, "--reps", "1"],
        )?;
    }
    Ok(())
}

pub fn ch5_pi_cuf_estimate_and_row() -> TestResult {
    // The book's first SP row: 7778 of 10^4 points; pi and its error in f32.
    let (pi, error) = pi::estimate::<f32>(7778, 10_000);
    let row = pi::row(10_000, pi, error);
    ensure(row == "  Samples=     10000  Pi=3.11120009 Error= 0.3039E-01", || {
        row.clone()
    })
}

/// Table 5.1's three points on the GPU: all inside with separate roundings, none with
/// `fma(y, y, x*x)`, and the mismatch kernel lists all three.
pub fn ch5_pi_fma_table_5_1_points(gpu: &Gpu) -> TestResult {
    let xy_d = gpu.upload(&pi_fma::table_5_1_points()).map_err(fail)?;
    let separate = pi::count(gpu, Rounding::Separate, &xy_d).map_err(fail)?;
    let fused = pi::count(gpu, Rounding::Fma, &xy_d).map_err(fail)?;
    ensure((separate, fused) == (3, 0), || {
        format!("separate {separate}, fma {fused}")
    })?;
    let (count, indices) = pi_fma::mismatches(gpu, &xy_d).map_err(fail)?;
    ensure(count == 3 && indices == [0, 1, 2], || {
        format!("{count} mismatches: {indices:?}")
    })
}

/// The mismatch kernel finds exactly the CPU's points at awkward sizes, in both precisions.
pub fn ch5_pi_fma_mismatches_match_cpu(gpu: &Gpu) -> TestResult {
    fn check<T: PiFloat>(gpu: &Gpu) -> TestResult {
        for n in PI_SIZES {
            let xy = pi_points::<T>(n, 7 * n as u64);
            let xy_d = gpu.upload(&xy).map_err(fail)?;
            let (count, indices) = pi_fma::mismatches(gpu, &xy_d).map_err(fail)?;
            let expected = pi_reference::mismatches(&xy);
            ensure(count == expected.len() && indices == expected, || {
                format!("{} n = {n}: GPU {count} {indices:?}, CPU {expected:?}", T::NAME)
            })?;
        }
        Ok(())
    }
    check::<f32>(gpu)?;
    check::<f64>(gpu)
}

pub fn ch5_pi_fma_program(gpu: &Gpu) -> TestResult {
    for fma in ["on", "off"] {
        passes_with(gpu, "ch5-pi-fma", &["--size", "1000003", "--fma", fma])?;
    }
    Ok(())
}

/// The book's `test_accuracy`: x^2 + y^2 of Table 5.1's first point in SP, in DP, and DP
/// rounded to SP (which equals the GPU's fused result); and the three orderings of the text.
pub fn ch5_pi_fma_test_accuracy() -> TestResult {
    for (_, x, y) in TABLE_5_1 {
        let (x, y) = (f32::from_bits(x), f32::from_bits(y));
        ensure((x * x + y * y).to_bits() == 0x3F80_0000, || "x*x+y*y".into())?;
        ensure(x.mul_add(x, y * y).to_bits() == 0x3F80_0000, || "fmaf(x,x,y*y)".into())?;
        ensure(y.mul_add(y, x * x).to_bits() == 0x3F80_0001, || "fmaf(y,y,x*x)".into())?;
        let double = f64::from(x) * f64::from(x) + f64::from(y) * f64::from(y);
        ensure((double as f32).to_bits() == 0x3F80_0001, || "DP as SP".into())?;
    }
    let (single, double, rounded) = pi_fma::TEST_ACCURACY_BITS;
    let (x, y) = (
        f64::from(f32::from_bits(TABLE_5_1[0].1)),
        f64::from(f32::from_bits(TABLE_5_1[0].2)),
    );
    ensure((x * x + y * y).to_bits() == double, || {
        "DP bits of the first point".into()
    })?;
    ensure((single, rounded) == (0x3F80_0000, 0x3F80_0001), || "SP bits".into())
}

/// Launch shapes of the two-pass and lock-guarded counts: one thread, one warp, odd block
/// counts, the book's shapes, the largest block; each total equals the CPU count.
pub fn ch5_pi_reductions_launch_shapes(gpu: &Gpu) -> TestResult {
    let shapes = [(1, 1), (1, 32), (7, 64), (64, 256), (256, 512), (3, 1024), (130, 128)];
    for n in [1usize, 33, 100_003] {
        let xy = pi_points::<f32>(n, 11 * n as u64);
        let expected = pi_reference::count_inside(&xy, f32::norm2_separate);
        let xy_d = gpu.upload(&xy).map_err(fail)?;
        for (blocks, threads) in shapes {
            let mut two_pass = TwoPass::new(gpu, blocks, threads).map_err(fail)?;
            two_pass.launch(gpu, &xy_d).map_err(fail)?;
            let mut locked = LockedSum::new(gpu, blocks, threads).map_err(fail)?;
            locked.launch(gpu, &xy_d).map_err(fail)?;
            let (two, lock) = (two_pass.total(gpu).map_err(fail)?, locked.total(gpu).map_err(fail)?);
            ensure(two == expected && lock == expected, || {
                format!("n = {n}, <<<{blocks},{threads}>>>: two-pass {two}, lock {lock}, CPU {expected}")
            })?;
        }
    }
    Ok(())
}

pub fn ch5_pi_reductions_programs(gpu: &Gpu) -> TestResult {
    for id in ["ch5-pi-reduction-twopass", "ch5-pi-reduction-atomiclock"] {
        for precision in ["f32", "f64"] {
            passes_with(gpu, id, &["--size", "100003", "--precision", precision, "--reps", "1"])?;
        }
    }
    Ok(())
}

/// Shapes the tree kernels cannot run: a block that is not a power of two, no block, more
/// partials than one block of `final_sum` can add; each is one clear error.
pub fn ch5_pi_reductions_refuse_bad_shapes(gpu: &Gpu) -> TestResult {
    for (blocks, threads) in [(1, 48), (0, 256), (4, 2048)] {
        ensure(TwoPass::new(gpu, blocks, threads).is_err(), || {
            format!("two-pass <<<{blocks},{threads}>>> accepted")
        })?;
        ensure(LockedSum::new(gpu, blocks, threads).is_err(), || {
            format!("lock <<<{blocks},{threads}>>> accepted")
        })?;
    }
    ensure(TwoPass::new(gpu, 2048, 256).is_err(), || {
        "2048 partials accepted".into()
    })
}

/// The book's tables, from cuRAND's streams: every printed `Pi=` to 8 decimals.
pub fn ch5_pi_cuf_book_tables(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch5-pi-cuf", &["--book"])
}

/// The book's FMA experiment: its `Pi=` column and Table 5.1's three points at N = 10^8.
pub fn ch5_pi_fma_book_table(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch5-pi-fma", &["--book"])
}
