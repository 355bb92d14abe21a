//! The intrinsics examples in f64, the yardstick both f32 variants are measured against, and in
//! f32 as the accurate kernel rounds (for the tests).
use crate::reference::try_collect;
use book_kernels::ch3::intrinsics::{COEFFICIENTS, DEGREE, TERMS};
use ferrocuda::gpu::Result;
use rayon::prelude::*;
use std::ops::{Add, Mul};

/// `sum over k = 1..=TERMS of sin(k x) exp(-k x / 8) / (k + x^2)` in f64.
pub fn terms_f64(x: &[f32]) -> Result<Vec<f64>> {
    try_collect(x.par_iter().map(|&x| {
        let x = x as f64;
        (1..=TERMS)
            .map(|k| {
                let kx = k as f64 * x;
                kx.sin() * (-kx / 8.0).exp() / (k as f64 + x * x)
            })
            .sum()
    }))
}

/// The same sum in f32 with `libm`'s `sinf`, `expf` and IEEE division, each operation rounded
/// as in `intrinsics_accurate`.
pub fn terms_f32(x: &[f32]) -> Result<Vec<f32>> {
    try_collect(x.par_iter().map(|&x| {
        let x2 = x * x;
        let mut sum = 0.0f32;
        for k in 1..=TERMS {
            let kf = k as f32;
            let kx = kf * x;
            let num = libm::sinf(kx) * libm::expf(kx * -0.125);
            sum += num / (kf + x2);
        }
        sum
    }))
}

/// The Horner kernels' polynomial in f64, from the same f32 coefficients.
pub fn horner_f64(x: &[f32]) -> Result<Vec<f64>> {
    try_collect(x.par_iter().map(|&x| {
        let x = x as f64;
        (0..DEGREE)
            .rev()
            .fold(COEFFICIENTS[DEGREE] as f64, |y, k| y * x + COEFFICIENTS[k] as f64)
    }))
}

/// The polynomial in f32, fused (`fused`: one rounding per step) or not (two), as the kernels.
pub fn horner_f32(x: &[f32], fused: bool) -> Result<Vec<f32>> {
    try_collect(x.par_iter().map(|&x| {
        (0..DEGREE).rev().fold(COEFFICIENTS[DEGREE], |y, k| {
            if fused {
                libm::fmaf(y, x, COEFFICIENTS[k])
            } else {
                y * x + COEFFICIENTS[k]
            }
        })
    }))
}

/// `f32` or `f64`: what the directed-rounding check needs of the element type.
pub trait RoundingReal: Copy + PartialEq + Into<f64> + Sync + Add<Output = Self> + Mul<Output = Self> {
    /// `a + b` exactly, as `hi + lo` (`hi` the `f64` nearest, `lo` the rest): for `f32` the
    /// `f64` sum (exact while the exponents differ by at most 29, as the example's inputs do),
    /// for `f64` Knuth's TwoSum.
    fn sum_exact(a: Self, b: Self) -> (f64, f64);
    /// `a * b` exactly, as `hi + lo`: for `f32` the `f64` product, for `f64` the `fma` residual
    /// (exact while the product is not subnormal).
    fn product_exact(a: Self, b: Self) -> (f64, f64);
    /// The next float up, in the element type.
    fn next_up(self) -> Self;
}

impl RoundingReal for f32 {
    fn sum_exact(a: Self, b: Self) -> (f64, f64) {
        (a as f64 + b as f64, 0.0)
    }
    fn product_exact(a: Self, b: Self) -> (f64, f64) {
        (a as f64 * b as f64, 0.0)
    }
    fn next_up(self) -> Self {
        f32::next_up(self)
    }
}

impl RoundingReal for f64 {
    fn sum_exact(a: Self, b: Self) -> (f64, f64) {
        let s = a + b;
        let b_virtual = s - a;
        (s, (a - (s - b_virtual)) + (b - b_virtual))
    }
    fn product_exact(a: Self, b: Self) -> (f64, f64) {
        let p = a * b;
        (p, a.mul_add(b, -p))
    }
    fn next_up(self) -> Self {
        f64::next_up(self)
    }
}

/// How `y` compares with the exact `hi + lo`, where `hi` is the nearest `f64` to it: a float
/// other than `hi` lies on `hi`'s side of the exact value (the exact value is nearer `hi` than
/// any other float), and `hi` itself on the side opposite `lo`.
fn versus_exact(y: f64, (hi, lo): (f64, f64)) -> std::cmp::Ordering {
    if y != hi {
        y.total_cmp(&hi)
    } else {
        0.0f64.total_cmp(&lo)
    }
}

/// Tally of [`check_roundings`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundingTally {
    /// Results (sums and products) whose exact value is a float: all four modes equal.
    pub exact: usize,
    /// Results between two floats: round down and up one ulp apart.
    pub inexact: usize,
    /// Results that break a rule, each counted once.
    pub violations: usize,
}

/// Checks the kernel's four roundings `[rn, rz, ru, rd]` of one exact value: round down and
/// up bracket it, equal when it is a float and one ulp apart otherwise; toward zero is round
/// down for a positive value and up for a negative one; to nearest is the CPU's `nearest`.
fn check_one<T: RoundingReal>(rounded: &[T], exact: (f64, f64), nearest: T, tally: &mut RoundingTally) {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let [rn, rz, ru, rd] = [rounded[0], rounded[1], rounded[2], rounded[3]];
    let bracketed = versus_exact(rd.into(), exact) != Greater && versus_exact(ru.into(), exact) != Less;
    let holds = if versus_exact(nearest.into(), exact) == Equal {
        tally.exact += 1;
        bracketed && rn == nearest && rz == nearest && ru == nearest && rd == nearest
    } else {
        tally.inexact += 1;
        let toward_zero = if exact.0 > 0.0 { rd } else { ru };
        bracketed && rd.next_up() == ru && rn == nearest && rz == toward_zero
    };
    tally.violations += usize::from(!holds);
}

/// Checks `directed_rounding`'s output (`ROUNDINGS` values per pair: the sum in four modes,
/// then the product) against the exact sums and products of `a` and `b`.
pub fn check_roundings<T: RoundingReal>(a: &[T], b: &[T], out: &[T]) -> RoundingTally {
    use book_kernels::ch3::intrinsics::ROUNDINGS;
    let mut tally = RoundingTally::default();
    for ((&a, &b), results) in a.iter().zip(b).zip(out.chunks_exact(ROUNDINGS)) {
        // The nearest roundings, by the CPU (IEEE 754).
        check_one(&results[..4], T::sum_exact(a, b), a + b, &mut tally);
        check_one(&results[4..], T::product_exact(a, b), a * b, &mut tally);
    }
    if out.len() != a.len() * ROUNDINGS {
        tally.violations += 1;
    }
    tally
}

/// `x` with a subnormal value replaced by a zero of its sign (PTX's `.ftz`).
fn flushed(x: f32) -> f32 {
    if x.is_subnormal() { 0.0f32.copysign(x) } else { x }
}

/// What `flush_to_zero` computes for `a` and `b`: `[a + b, a + b flushed, a * b, a * b
/// flushed]`, where flushed means subnormal operands and results read as zeros of their sign.
pub fn flush_to_zero(a: f32, b: f32) -> [f32; 4] {
    let (fa, fb) = (flushed(a), flushed(b));
    [a + b, flushed(fa + fb), a * b, flushed(fa * fb)]
}
