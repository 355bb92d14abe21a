//! The summation methods of book §5.4 ("Accuracy of summation", program `sum_accuracy`), in f32
//! with f64 references: recursive sums with an f32 or f64 accumulator (forward and backward), the
//! book's in-place pairwise sum, Kahan's compensated sum in the book's form, and an `L`-lane sum
//! that models the SSE vectorisation of `pgf90 -fast`. Every function is sequential and
//! deterministic: these are exact regression targets, not approximations.
use ferrocuda::gpu::{Error, Result};

/// Recursive (sequential) sum with a single-precision accumulator, first element first.
pub fn recursive_sp(x: &[f32]) -> f32 {
    x.iter().fold(0.0, |sum, &v| sum + v)
}

/// Recursive sum with a single-precision accumulator, last element first (the book's "backward"
/// sum: for a decreasing series, the smallest terms first).
pub fn recursive_sp_backward(x: &[f32]) -> f32 {
    x.iter().rev().fold(0.0, |sum, &v| sum + v)
}

/// Recursive sum of the f32 terms with a double-precision accumulator (the book's reference).
pub fn recursive_dp(x: &[f32]) -> f64 {
    x.iter().fold(0.0, |sum, &v| sum + f64::from(v))
}

/// The book's in-place pairwise sum, on a copy of `x`: while more than two partial sums are left,
/// element `i` takes element `i + inext` (`inext = ceil(icurrent / 2)`), halving the live length;
/// the result is `x(1) + x(2)`.
///
/// Cost: `n - 1` additions, `n` floats of scratch; the error grows as `log2 n` instead of `n`.
pub fn pairwise(x: &[f32]) -> f32 {
    match x.len() {
        0 => return 0.0,
        1 => return x[0],
        _ => {}
    }
    let mut x = x.to_vec();
    // 1-based in the book: `icurrent = N; inext = ceiling(N/2)`.
    let mut icurrent = x.len();
    let mut inext = icurrent.div_ceil(2);
    while inext > 1 {
        // `do i = 1, inext: if (2*i <= icurrent) x(i) = x(i) + x(i+inext)`, 0-based.
        for i in 0..inext {
            if 2 * (i + 1) <= icurrent {
                x[i] += x[i + inext];
            }
        }
        icurrent = inext;
        inext = inext.div_ceil(2);
    }
    x[0] + x[1]
}

/// Kahan's compensated sum exactly in the book's form: `y = comp + x(i); tmp = sum + y;
/// comp = (sum - tmp) + y; sum = tmp`, then `sum = sum + comp` at the end.
pub fn kahan(x: &[f32]) -> f32 {
    let (mut sum, mut comp) = (0.0f32, 0.0f32);
    for &v in x {
        let y = comp + v;
        let tmp = sum + y;
        comp = (sum - tmp) + y;
        sum = tmp;
    }
    sum + comp
}

/// A sum over `lanes` f32 accumulators, lane `j` taking elements `j, j + lanes, ...` (SIMD lanes
/// over contiguous vectors), the lanes then combined pairwise (`HADDPS`), the last `n % lanes`
/// elements added at the end; `lanes` is a power of two.
///
/// Models `pgf90 -fast`, which vectorises `sum(x)` over 4 SSE lanes (book §5.4, the `-fast`
/// listing): with 4 lanes the 10^7 sevens give the book's `-fast` value. Refuses a `lanes` that
/// is not a power of two (0 included).
pub fn lanes_sum(x: &[f32], lanes: usize) -> Result<f32> {
    if !lanes.is_power_of_two() {
        return Err(Error::InvalidArgument(format!(
            "the lanes of a vectorised sum are a power of two, not {lanes}"
        )));
    }
    let mut acc = vec![0.0f32; lanes];
    let full = x.len() / lanes * lanes;
    for chunk in x[..full].chunks_exact(lanes) {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a += v;
        }
    }
    while acc.len() > 1 {
        acc = acc.chunks_exact(2).map(|p| p[0] + p[1]).collect();
    }
    Ok(x[full..].iter().fold(acc[0], |sum, &v| sum + v))
}

/// The series of Table 5.2, with terms computed in f32 as the book's `1./i` and `1./(i*i)`
/// (`i*i` an integer, then converted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    /// `x(i) = 1/i`.
    Harmonic,
    /// `x(i) = 1/i^2`.
    InverseSquares,
}

impl Series {
    /// The book's label of the series (`1/(i)`, `1/(i*i)`).
    pub fn label(self) -> &'static str {
        match self {
            Series::Harmonic => "1/(i)",
            Series::InverseSquares => "1/(i*i)",
        }
    }

    /// Terms `i = 1..=n` in f32 (`i * i` saturates past 2^64, where its term is 0 in f32 anyway).
    pub fn terms(self, n: usize) -> Vec<f32> {
        (1..=n as u64)
            .map(|i| match self {
                Series::Harmonic => 1.0 / i as f32,
                Series::InverseSquares => 1.0 / i.saturating_mul(i) as f32,
            })
            .collect()
    }
}

/// The first `n` at which the recursive f32 sum of `n` copies of `value` differs from `n * value`
/// (searched up to `limit`), or `None`.
///
/// For 7.0 this is 2396747 under IEEE round-to-nearest-even: the partial sum 16777222 at
/// `n = 2396746` is even, so representable; the next one is not.
pub fn first_inexact_count(value: f32, limit: usize) -> Option<usize> {
    let mut sum = 0.0f32;
    for n in 1..=limit {
        sum += value;
        if f64::from(sum) != n as f64 * f64::from(value) {
            return Some(n);
        }
    }
    None
}
