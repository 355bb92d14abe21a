//! ch5-sum-accuracy: the accuracy of summation in single precision (book §5.4, program
//! `sum_accuracy`), on the CPU as the book's program, then the library's GPU tree reduction of the
//! same ten million sevens (the book's closing point: a GPU sum is a tree, close to pairwise).
//!
//! Sub-experiments, in the book's order: Table 5.2 (1/i and 1/i^2, forward vs backward), 10^7 and
//! 2*10^7 sevens with every method, the first `N` at which the recursive sum goes wrong
//! (Fig. 5.6), the `-fast` (SSE) listing, and both series with every method. `--size` sets the
//! length of the GPU sum (10^7 by default, on the simulator too: it takes a second).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::examples::ch5::fortran::fortran_e;
use crate::reference::ch5::sum_accuracy::{self as methods, Series};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::reduce;
use ferrocuda::verify::{Check, Tolerance};

/// ch5-sum-accuracy.
pub struct Ch5SumAccuracy;

impl Example for Ch5SumAccuracy {
    const ID: &'static str = "ch5-sum-accuracy";
    const DESCRIPTION: &'static str =
        "f32 summation: recursive, f64, pairwise, Kahan, SSE lanes; Table 5.2; 10^7 sevens on CPU and GPU (book 5.4)";
    const SIZE: Option<Size> = Some(Size::new(
        "sevens summed on the GPU (the CPU part's sizes are the book's)",
        SEVENS_N[0],
        SEVENS_N[0],
    ));
    type Args = NoOptions;

    /// The peak bytes of a run with `n` sevens on the GPU: the CPU part's largest array (the
    /// book's 2*10^7 sevens), then the `n` sevens on the host and the device (the reductions'
    /// partials are one value per block).
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let cpu_part = Footprint::NONE.host::<f32>(1, SEVENS_N[1])?;
        Some(cpu_part.max(Footprint::NONE.mirrored::<f32>(1, run.size)?))
    }

    /// The book's program, then the GPU tree sum of `--size` sevens (10^7 by default).
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let mut checks = vec![table_5_2()];
        println!();
        let mut stalled = f64::NAN;
        for n in SEVENS_N {
            let (check, recursive) = sevens(n);
            checks.push(check);
            stalled = recursive;
            println!();
        }
        let stall = f64::from(1u32 << 27);
        checks.push(Check::condition(
            &format!("{} sevens: the recursive SP sum stalls at 2^27 = {stall}", SEVENS_N[1]),
            stalled == stall,
        ));

        let first = methods::first_inexact_count(7.0, SEVENS_N[0]);
        println!("Recursive SP sum of sevens: first N computed incorrectly");
        match first {
            Some(n) => println!("  computed (IEEE round to nearest even): N = {n}"),
            None => println!("  computed: none up to {}", SEVENS_N[0]),
        }
        println!(
            "  book: N = {BOOK_FIRST_INEXACT_N} (2^24/7 = {:.2}); the partial sum at N = {BOOK_FIRST_INEXACT_N} is 16777222, even, so still exact",
            f64::from(1u32 << 24) / 7.0
        );
        println!(
            "  with a DP accumulator the same starts past 2^53/7 = {:.2e} (book: N ~ 10^16)",
            2f64.powi(53) / 7.0
        );
        checks.push(Check::condition(
            &format!("first inexact N = {FIRST_INEXACT_N}"),
            first == Some(FIRST_INEXACT_N),
        ));
        println!();

        checks.push(sse_lanes(SEVENS_N[0])?);
        println!();

        let (mut computed, mut book) = (Vec::new(), Vec::new());
        for (series, pairwise, kahan) in BOOK_SERIES_ERRORS {
            computed.extend(series_all_methods(series));
            book.extend([pairwise, kahan]);
        }
        checks.push(Check::compare(
            "pairwise and Kahan errors on both series vs the book's",
            &computed,
            &book,
            SEVEN_DIGITS,
        ));
        println!();

        let n = run.size;
        let x = try_vec(n, 7.0f32)?;
        let x_d = gpu.upload(&x)?;
        let exact = 7.0 * n as f64;
        let tree = f64::from(reduce::sum(gpu, &x_d)?);
        let kahan = f64::from(reduce::sum_kahan(gpu, &x_d)?);
        let recursive = f64::from(methods::recursive_sp(&x));
        println!("On the GPU ({}): {n} elements of magnitude 7.0", gpu.properties().name);
        for (label, value) in [
            ("Tree reduction (ferrocuda::reduce::sum) =", tree),
            ("Kahan per thread, then tree (reduce::sum_kahan) =", kahan),
            ("CPU recursive sum with SP accumulator =", recursive),
        ] {
            println!("{label} {value:.1} Error= {:.1}", exact - value);
        }
        if recursive == exact {
            println!("Below 2^24 / 7 elements every partial sum is exact: the CPU loop agrees with the tree.");
        } else {
            println!(
                "A GPU sum is a tree, like the pairwise sum: it differs from the naive CPU loop, which is the less accurate one."
            );
        }
        checks.push(Check::compare(
            &format!("GPU tree and Kahan sums of {n} sevens exact"),
            &[tree, kahan],
            &[exact; 2],
            Tolerance::EXACT,
        ));
        Ok(Outcome { checks })
    }
}

/// Table 5.2's series length.
pub const SERIES_N: usize = 8192;
/// The book's sevens, and the larger run in which the recursive sum stalls.
pub const SEVENS_N: [usize; 2] = [10_000_000, 20_000_000];
/// The first `N` at which the recursive f32 sum of sevens is wrong, under IEEE rounding.
pub const FIRST_INEXACT_N: usize = 2_396_747;
/// The book's value for it, off by one (it says 2^24/7 = 2396745, then 2396746).
pub const BOOK_FIRST_INEXACT_N: usize = 2_396_746;
/// Pairwise and Kahan errors (computed - f64 reference) the book prints for 8192 terms, which
/// reproduce exactly: `(series, pairwise, Kahan)`.
pub const BOOK_SERIES_ERRORS: [(Series, f64, f64); 2] = [
    (Series::Harmonic, -3.288733e-08, -3.288733e-08),
    (Series::InverseSquares, -1.347410e-07, -1.553172e-08),
];
/// The book prints 7 significant digits: one unit of the 7th is at most 1e-6 of the value.
const SEVEN_DIGITS: Tolerance = Tolerance { abs: 0.0, rel: 1e-6 };

/// Every method's sum of `x`, as f64 (f32 results widened exactly).
#[derive(Clone, Copy, Debug)]
pub struct Sums {
    pub recursive_sp: f64,
    pub recursive_dp: f64,
    pub pairwise: f64,
    pub kahan: f64,
}

impl Sums {
    /// Runs every method on `x`.
    pub fn of(x: &[f32]) -> Self {
        Self {
            recursive_sp: methods::recursive_sp(x).into(),
            recursive_dp: methods::recursive_dp(x),
            pairwise: methods::pairwise(x).into(),
            kahan: methods::kahan(x).into(),
        }
    }
}

/// Table 5.2: both series forward and backward in f32 against the f64 sum of the same f32
/// terms, with the correct labels; returns the check that backward beats forward.
fn table_5_2() -> Check {
    println!("Table 5.2: {SERIES_N} terms in f32, forward and backward; reference = the same f32 terms summed in f64");
    println!("  error = computed - reference");
    println!(
        "  {:<8} {:<7} {:>15} {:>15} {:>15}",
        "x(i)", "", "Forward SP", "Backward SP", "Reference"
    );
    let mut backward_wins = true;
    for series in [Series::Harmonic, Series::InverseSquares] {
        let x = series.terms(SERIES_N);
        let reference = methods::recursive_dp(&x);
        let forward = f64::from(methods::recursive_sp(&x));
        let backward = f64::from(methods::recursive_sp_backward(&x));
        let label = match series {
            Series::Harmonic => "1/i",
            Series::InverseSquares => "1/i^2",
        };
        println!(
            "  {label:<8} {:<7} {:>15.8} {:>15.8} {:>15.8}",
            "Result", forward, backward, reference
        );
        println!(
            "  {:<8} {:<7} {:>15} {:>15}",
            "",
            "error",
            fortran_e(forward - reference),
            fortran_e(backward - reference)
        );
        backward_wins &= (backward - reference).abs() < (forward - reference).abs();
    }
    println!(
        "  (the book's Table 5.2 prints these two rows under each other's labels: its \"1/i\" row holds the 1/i^2 sums)"
    );
    Check::condition(
        "Table 5.2: adding the smallest terms first (backward) is closer for both series",
        backward_wins,
    )
}

/// The book's listing for `n` sevens (`pgf90 -O3`, where `sum()` is a sequential loop: here
/// Rust's `Iterator::sum`, also a sequential fold); returns the exactness check.
fn sevens(n: usize) -> (Check, f64) {
    let x = vec![7.0f32; n];
    let exact = 7.0 * n as f64;
    let sums = Sums::of(&x);
    let intrinsic = f64::from(x.iter().sum::<f32>());
    println!("Summming {n:>10} elements of magnitude 7.0");
    for (label, value) in [
        ("Sum with intrinsic function (Iterator::sum) =", intrinsic),
        ("Recursive sum with SP accumulator =", sums.recursive_sp),
        ("Recursive sum with DP accumulator =", sums.recursive_dp),
        ("Pairwise sum in SP =", sums.pairwise),
        ("Compensated sum in SP =", sums.kahan),
    ] {
        println!("{label} {value:.1} Error= {:.1}", exact - value);
    }
    let check = Check::compare(
        &format!("{n} sevens: DP, pairwise and Kahan sums exact"),
        &[sums.recursive_dp, sums.pairwise, sums.kahan],
        &[exact; 3],
        Tolerance::EXACT,
    );
    (check, sums.recursive_sp)
}

/// The `-fast` listing: `sum()` vectorised over SSE lanes, modelled by `lanes` accumulators;
/// returns the check that 8 and more lanes are exact.
fn sse_lanes(n: usize) -> Result<Check> {
    let x = vec![7.0f32; n];
    let exact = 7.0 * n as f64;
    println!(
        "Summming {n:>10} elements of magnitude 7.0, sum() over SIMD lanes (the book's pgf90 -fast, SSE: 4 lanes)"
    );
    let mut wide = Vec::new();
    for lanes in [1, 2, 4, 8, 16] {
        let value = f64::from(methods::lanes_sum(&x, lanes)?);
        let note = if lanes == 4 {
            "  <- 4 SSE lanes: the -fast intrinsic"
        } else {
            ""
        };
        println!(
            "Sum over {lanes:>2} f32 lanes = {value:.1} Error= {:.1}{note}",
            exact - value
        );
        if lanes >= 8 {
            wide.push(value);
        }
    }
    Ok(Check::compare(
        &format!("{n} sevens over 8 and 16 lanes: exact"),
        &wide,
        &vec![exact; wide.len()],
        Tolerance::EXACT,
    ))
}

/// Both series with every method (the book's fifth listing); returns the errors of pairwise and
/// Kahan, for comparison with the book's.
fn series_all_methods(series: Series) -> [f64; 2] {
    let x = series.terms(SERIES_N);
    let sums = Sums::of(&x);
    let reference = sums.recursive_dp;
    let intrinsic = f64::from(x.iter().sum::<f32>());
    println!("Summming {SERIES_N} elements of magnitude {}", series.label());
    for (label, value) in [
        ("Sum with intrinsic function =", intrinsic),
        ("Recursive SP forward sum    =", sums.recursive_sp),
        ("Recursive DP forward sum    =", sums.recursive_dp),
        ("Pairwise sum in SP          =", sums.pairwise),
        ("Compensated sum in SP       =", sums.kahan),
    ] {
        println!("{label} {} Error = {}", fortran_e(value), fortran_e(value - reference));
    }
    [sums.pairwise - reference, sums.kahan - reference]
}
