//! Tests of ch5-sum-accuracy (book §5.4): the summation methods on the CPU against exact
//! targets, the Fortran `E` format, and the GPU tree sum of the same sevens. Included by
//! `tests/ferrocuda-tests/ch5.rs`.
use crate::common::{TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::reduce;
use ferrocuda_book::examples::ch5::fortran::fortran_e;
use ferrocuda_book::examples::ch5::sum_accuracy::{BOOK_SERIES_ERRORS, FIRST_INEXACT_N, SERIES_N};
use ferrocuda_book::reference::ch5::sum_accuracy::{self as methods, Series};

pub fn ch5_sum_accuracy_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch5-sum-accuracy", &["--size", "100003"])
}

/// The errors the book prints for pairwise and Kahan (7 digits), which reproduce exactly.
pub fn ch5_sum_accuracy_pairwise_kahan_errors() -> TestResult {
    for (series, pairwise, kahan) in BOOK_SERIES_ERRORS {
        let x = series.terms(SERIES_N);
        let reference = methods::recursive_dp(&x);
        for (method, got, book) in [
            ("pairwise", f64::from(methods::pairwise(&x)) - reference, pairwise),
            ("Kahan", f64::from(methods::kahan(&x)) - reference, kahan),
        ] {
            ensure(fortran_e(got) == fortran_e(book), || {
                format!(
                    "{series:?} {method}: error {} where the book prints {}",
                    fortran_e(got),
                    fortran_e(book)
                )
            })?;
        }
    }
    Ok(())
}

pub fn ch5_sum_accuracy_threshold() -> TestResult {
    let first = methods::first_inexact_count(7.0, 3_000_000);
    ensure(first == Some(FIRST_INEXACT_N), || format!("first inexact N {first:?}"))?;
    // The book's 2396746 is still exact: 16777222 is even, so an f32.
    let x = vec![7.0f32; FIRST_INEXACT_N - 1];
    ensure(methods::recursive_sp(&x) == 16_777_222.0, || "sum at N - 1".into())
}

/// Sevens in the millions: DP, pairwise and Kahan exact, the recursive sum not.
pub fn ch5_sum_accuracy_sevens() -> TestResult {
    let x = vec![7.0f32; 10_000_000];
    ensure(methods::pairwise(&x) == 7.0e7, || "pairwise".into())?;
    ensure(methods::kahan(&x) == 7.0e7, || "Kahan".into())?;
    ensure(methods::recursive_dp(&x) == 7.0e7, || "DP accumulator".into())?;
    ensure(methods::recursive_sp(&x) != 7.0e7, || {
        "the recursive SP sum cannot be exact past 2^24".into()
    })?;
    ensure(methods::lanes_sum(&x, 8).map_err(fail)? == 7.0e7, || "8 lanes".into())?;
    ensure(methods::lanes_sum(&x, 4).map_err(fail)? != 7.0e7, || {
        "4 lanes are inexact in the book".into()
    })?;
    ensure(
        methods::lanes_sum(&x, 0).is_err() && methods::lanes_sum(&x, 3).is_err(),
        || "0 or 3 lanes were accepted".into(),
    )
}

/// Pairwise, Kahan and the lane sums add every element once at lengths that break the halving
/// and the lanes (odd, one past a power of two, shorter than the lanes): small integers, so every
/// method is exact.
pub fn ch5_sum_accuracy_awkward_lengths() -> TestResult {
    for n in [0usize, 1, 2, 3, 5, 7, 9, 31, 33, 255, 257, 1000, 4097] {
        let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32 + 1.0).collect();
        let exact = (0..n).map(|i| (i % 13) as f64 + 1.0).sum::<f64>();
        let got = [
            ("pairwise", f64::from(methods::pairwise(&x))),
            ("Kahan", f64::from(methods::kahan(&x))),
            ("recursive", f64::from(methods::recursive_sp(&x))),
            ("backward", f64::from(methods::recursive_sp_backward(&x))),
            ("4 lanes", f64::from(methods::lanes_sum(&x, 4).map_err(fail)?)),
            ("16 lanes", f64::from(methods::lanes_sum(&x, 16).map_err(fail)?)),
        ];
        for (method, value) in got {
            ensure(value == exact, || {
                format!("n = {n}: {method} gave {value}, not {exact}")
            })?;
        }
    }
    Ok(())
}

/// Table 5.2's conclusion: backward (smallest first) is closer than forward, on both series.
pub fn ch5_sum_accuracy_backward_beats_forward() -> TestResult {
    for series in [Series::Harmonic, Series::InverseSquares] {
        let x = series.terms(SERIES_N);
        let reference = methods::recursive_dp(&x);
        let forward = (f64::from(methods::recursive_sp(&x)) - reference).abs();
        let backward = (f64::from(methods::recursive_sp_backward(&x)) - reference).abs();
        ensure(backward < forward, || {
            format!("{series:?}: backward {backward:e}, forward {forward:e}")
        })?;
    }
    Ok(())
}

pub fn ch5_sum_accuracy_fortran_e_format() -> TestResult {
    let cases = [
        (9.588196, "0.9588196E+01"),
        (-3.288733e-8, "-0.3288733E-07"),
        (0.0, "0.0000000E+00"),
        (70_000_000.0, "0.7000000E+08"),
    ];
    for (v, text) in cases {
        ensure(fortran_e(v) == text, || format!("{v} printed {}", fortran_e(v)))?;
    }
    Ok(())
}

/// The GPU tree sum of 10^7 sevens is exact (where the CPU loop is not), and at awkward lengths.
pub fn ch5_sum_accuracy_gpu_tree_sum_of_sevens(gpu: &Gpu) -> TestResult {
    for n in [1usize, 31, 33, 255, 257, 100_003, 10_000_000] {
        let x_d = gpu.upload(&vec![7.0f32; n]).map_err(fail)?;
        let exact = 7.0 * n as f32;
        let tree = reduce::sum(gpu, &x_d).map_err(fail)?;
        let kahan = reduce::sum_kahan(gpu, &x_d).map_err(fail)?;
        ensure(tree == exact && kahan == exact, || {
            format!("n = {n}: tree {tree}, Kahan {kahan}, exact {exact}")
        })?;
    }
    Ok(())
}
