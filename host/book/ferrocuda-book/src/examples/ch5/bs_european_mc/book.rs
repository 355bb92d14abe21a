//! ch5-bs-european-mc `--book`: the four runs the book prints (SP and DP, 10^6 and 10^8 samples,
//! cuRAND seed 1234), each checked against the book's printed intervals and means.
use super::{BOOK_SEED, McReal, program, wide};
use crate::example::Precision;
use crate::reference::ch5::bs_european_mc::BOOK_OPTION;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::random::Generator;
use ferrocuda::verify::{Check, Tolerance};

/// A run the book prints: its precision, samples, and the values shown (the Monte Carlo means
/// only where the book's text keeps them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookRun {
    pub precision: Precision,
    pub n: usize,
    pub ci_put: [f64; 2],
    /// The book's text is cut off after the DP 10^6 call mean.
    pub ci_call: Option<[f64; 2]>,
    /// `(put, call)` Monte Carlo values.
    pub means: Option<(f64, f64)>,
}

/// The book's printed runs (cuRAND XORWOW, seed 1234, Tesla K20x).
// The digits exactly as printed, trailing zeros included.
#[allow(clippy::excessive_precision)]
pub const BOOK_RUNS: [BookRun; 4] = [
    BookRun {
        precision: Precision::F32,
        n: 1_000_000,
        ci_put: [0.1269990, 0.1282227],
        ci_call: Some([1.319741, 1.325168]),
        means: None,
    },
    BookRun {
        precision: Precision::F64,
        n: 1_000_000,
        ci_put: [0.1273886989425723, 0.1286151344613610],
        ci_call: None,
        means: Some((0.1280019167019667, 1.322242692975769)),
    },
    BookRun {
        precision: Precision::F32,
        n: 100_000_000,
        ci_put: [0.1279276, 0.1280502],
        ci_call: Some([1.322789, 1.323332]),
        means: None,
    },
    BookRun {
        precision: Precision::F64,
        n: 100_000_000,
        ci_put: [0.1279554295131442, 0.1280780256895671],
        ci_call: Some([1.322905719832569, 1.323448600037688]),
        means: None,
    },
];

/// How close a run must come to the book's printed values. Only the order of the additions
/// differs (the same normals, the same formulas), and that moves the last digits:
/// - SP: 6 significant digits (relative 1e-5) of the 7 printed: an f32 sum of 10^8 payoffs in a
///   different order moves the 7th;
/// - DP means: 12 significant digits (relative 1e-11), far above f64 summation error (1e-14);
/// - DP intervals: 10 digits (relative 1e-9): the Fortran may form `1.96` as a default (single
///   precision) real, `1.9600000381`, which moves an endpoint by 3.9e-8 of the half-width, up to
///   2.4e-11 at 10^6 samples; the means, free of it, keep 12.
pub fn book_tolerances(precision: Precision) -> (Tolerance, Tolerance) {
    match precision {
        Precision::F32 => (Tolerance { abs: 0.0, rel: 1e-5 }, Tolerance { abs: 0.0, rel: 1e-5 }),
        Precision::F64 => (Tolerance { abs: 0.0, rel: 1e-11 }, Tolerance { abs: 0.0, rel: 1e-9 }),
    }
}

/// The significant digits on which `ours` and `book` agree (`-log10` of the relative difference).
fn digits_agreeing(ours: f64, book: f64) -> f64 {
    let relative = ((ours - book) / book).abs();
    if relative == 0.0 { 17.0 } else { -relative.log10() }
}

/// One of the book's runs, checked against its printed values.
pub(super) fn book_run<T: McReal>(gpu: &Gpu, book: &BookRun) -> Result<Vec<Check>> {
    let (stats, mut checks) = program::<T>(gpu, &BOOK_OPTION, book.n, Generator::Curand, BOOK_SEED)?;
    let (mean_tolerance, ci_tolerance) = book_tolerances(book.precision);
    let mut ours = stats.ci_put(book.n).map(wide).to_vec();
    let mut printed = book.ci_put.to_vec();
    if let Some(ci_call) = book.ci_call {
        ours.extend(stats.ci_call(book.n).map(wide));
        printed.extend(ci_call);
    }
    let agreeing = |ours: &[f64], printed: &[f64]| {
        ours.iter()
            .zip(printed)
            .map(|(&o, &p)| format!("{:.1}", digits_agreeing(o, p)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "Book: intervals {printed:?}; significant digits agreeing: {}",
        agreeing(&ours, &printed)
    );
    checks.push(Check::compare(
        &format!("{} {}: confidence intervals vs the book's", T::LABEL, book.n),
        &ours,
        &printed,
        ci_tolerance,
    ));
    if let Some((put, call)) = book.means {
        let ours = [wide(stats.mean_put), wide(stats.mean_call)];
        println!(
            "Book: Monte Carlo values [{put}, {call}]; significant digits agreeing: {}",
            agreeing(&ours, &[put, call])
        );
        checks.push(Check::compare(
            &format!("{} {}: Monte Carlo values vs the book's", T::LABEL, book.n),
            &ours,
            &[put, call],
            mean_tolerance,
        ));
    }
    println!();
    Ok(checks)
}
