//! The simulator's directed rounding and flush to zero: exact, in software.
//!
//! The host computes `a + b` and `a * b` rounded to nearest; the exact result differs from that
//! by an error whose sign says which neighbour a directed rounding picks: none when the error is
//! zero, the next float up or down otherwise. The error's sign is computed exactly: the
//! error-free transformation TwoSum for additions (Knuth, TAOCP vol. 2, §4.2.2: `s + err` equals
//! `a + b` exactly whenever `s` is finite), the `f64` product for `f32` products (24 + 24 bits
//! fit in 53), and the 106-bit integer product of the significands for `f64` products (an `fma`
//! residual would lose its sign where the product is subnormal).
use core::cmp::Ordering;

/// Where a directed rounding sends an inexact result.
#[derive(Clone, Copy)]
enum Direction {
    TowardZero,
    Up,
    Down,
}

macro_rules! directed {
    ($t:ty, $add_rz:ident, $add_ru:ident, $add_rd:ident, $mul_rz:ident, $mul_ru:ident, $mul_rd:ident,
     $round:ident, $add_error:ident, $mul_error:path) => {
        /// `nearest` (the round-to-nearest result) moved to its neighbour in `direction` when the
        /// exact result lies on that side of it (`exact_vs_nearest`). The exact result has the
        /// sign of `nearest`, also where `nearest` overflowed to infinity or underflowed to zero.
        fn $round(nearest: $t, exact_vs_nearest: Ordering, direction: Direction) -> $t {
            let direction = match direction {
                Direction::TowardZero if nearest.is_sign_positive() => Direction::Down,
                Direction::TowardZero => Direction::Up,
                d => d,
            };
            match (direction, exact_vs_nearest) {
                (Direction::Up, Ordering::Greater) => nearest.next_up(),
                (Direction::Down, Ordering::Less) => nearest.next_down(),
                _ => nearest,
            }
        }

        /// How `a + b` (exact) compares with its nearest float `s`.
        fn $add_error(a: $t, b: $t, s: $t) -> Ordering {
            if s.is_infinite() {
                // Finite operands: an overflow, so the exact sum is finite, below +inf or above -inf.
                return if s > 0.0 {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
            // TwoSum: `err` is exactly `a + b - s`.
            let b_virtual = s - a;
            let a_virtual = s - b_virtual;
            let err = (a - a_virtual) + (b - b_virtual);
            err.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
        }

        #[doc = concat!("`add.rz` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $add_rz(a: $t, b: $t) -> $t {
            add(a, b, Direction::TowardZero)
        }
        #[doc = concat!("`add.rp` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $add_ru(a: $t, b: $t) -> $t {
            add(a, b, Direction::Up)
        }
        #[doc = concat!("`add.rm` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $add_rd(a: $t, b: $t) -> $t {
            add(a, b, Direction::Down)
        }
        #[doc = concat!("`mul.rz` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $mul_rz(a: $t, b: $t) -> $t {
            mul(a, b, Direction::TowardZero)
        }
        #[doc = concat!("`mul.rp` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $mul_ru(a: $t, b: $t) -> $t {
            mul(a, b, Direction::Up)
        }
        #[doc = concat!("`mul.rm` for `", stringify!($t), "`: exact, in software.")]
        #[inline(always)]
        pub fn $mul_rd(a: $t, b: $t) -> $t {
            mul(a, b, Direction::Down)
        }

        /// `a + b` rounded in `direction`.
        fn add(a: $t, b: $t, direction: Direction) -> $t {
            let s = a + b;
            if !a.is_finite() || !b.is_finite() || s.is_nan() {
                return s;
            }
            if s == 0.0 && matches!(direction, Direction::Down) {
                // An exact zero sum is +0 in every mode but this one, where it is -0 unless
                // both operands are +0 (IEEE 754 §6.3).
                return if a.is_sign_positive() && b.is_sign_positive() {
                    0.0
                } else {
                    -0.0
                };
            }
            $round(s, $add_error(a, b, s), direction)
        }

        /// `a * b` rounded in `direction`.
        fn mul(a: $t, b: $t, direction: Direction) -> $t {
            let p = a * b;
            if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
                return p;
            }
            $round(p, $mul_error(a, b, p), direction)
        }
    };
}

mod single {
    use super::{Direction, Ordering};
    directed!(
        f32, add_rz_f32, add_ru_f32, add_rd_f32, mul_rz_f32, mul_ru_f32, mul_rd_f32, round, add_error, mul_error
    );

    /// How `a * b` (exact: the `f64` product of two `f32`s is exact and finite) compares with its
    /// nearest float `p`.
    fn mul_error(a: f32, b: f32, p: f32) -> Ordering {
        let exact = a as f64 * b as f64;
        exact.partial_cmp(&(p as f64)).unwrap_or(Ordering::Equal)
    }
}
pub use single::*;

mod double {
    use super::{Direction, Ordering};
    directed!(
        f64, add_rz_f64, add_ru_f64, add_rd_f64, mul_rz_f64, mul_ru_f64, mul_rd_f64, round, add_error, mul_error
    );

    /// `x = significand * 2^exponent`, for finite `x`.
    fn split(x: f64) -> (u128, i32) {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = u128::from(bits & ((1 << 52) - 1));
        if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        }
    }

    /// How `a * b` (exact: the 106-bit product of the significands) compares with its nearest
    /// float `p`, for finite nonzero `a` and `b`.
    fn mul_error(a: f64, b: f64, p: f64) -> Ordering {
        let magnitude = if p.is_infinite() {
            Ordering::Less
        } else if p == 0.0 {
            Ordering::Greater
        } else {
            let ((ma, ea), (mb, eb), (mp, ep)) = (split(a), split(b), split(p));
            compare_scaled(ma * mb, ea + eb, mp, ep)
        };
        // The comparison of magnitudes, turned into one of values.
        if p.is_sign_positive() {
            magnitude
        } else {
            magnitude.reverse()
        }
    }

    /// `m1 * 2^e1` against `m2 * 2^e2`, both significands nonzero: each shifted so that its
    /// leading one is bit 127, then the leading bits' weights and the significands compared.
    fn compare_scaled(m1: u128, e1: i32, m2: u128, e2: i32) -> Ordering {
        let (z1, z2) = (m1.leading_zeros(), m2.leading_zeros());
        (e1 - z1 as i32)
            .cmp(&(e2 - z2 as i32))
            .then((m1 << z1).cmp(&(m2 << z2)))
    }
}
pub use double::*;

/// A subnormal `x` as a zero of its sign; anything else unchanged.
#[inline(always)]
fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() { 0.0f32.copysign(x) } else { x }
}
/// `add.rn.ftz.f32`: subnormal operands and results flushed to zeros of their sign.
#[inline(always)]
pub fn add_rn_ftz_f32(a: f32, b: f32) -> f32 {
    flush_f32(flush_f32(a) + flush_f32(b))
}
/// `mul.rn.ftz.f32`: subnormal operands and results flushed to zeros of their sign.
#[inline(always)]
pub fn mul_rn_ftz_f32(a: f32, b: f32) -> f32 {
    flush_f32(flush_f32(a) * flush_f32(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;

    /// The four roundings of `a op b`, against the exact result `exact` (an `f64` that holds it).
    fn assert_brackets_f32(op: &str, a: f32, b: f32, rounded: [f32; 4], exact: f64) {
        let [rn, rz, ru, rd] = rounded;
        let label = format!("{a:e} {op} {b:e}");
        assert!(rd as f64 <= exact && exact <= ru as f64, "{label}: {rd:e} .. {ru:e}");
        if rd as f64 == exact {
            assert!(rd == ru && rn == rd && rz == rd, "{label}: exact, yet {rounded:?}");
        } else {
            assert_eq!(rd.next_up(), ru, "{label}: not neighbours");
            assert!(rn == rd || rn == ru, "{label}");
            assert_eq!(rz, if exact > 0.0 { rd } else { ru }, "{label}: toward zero");
        }
    }

    #[test]
    fn f32_roundings_bracket_the_exact_f64_result() {
        let values = [
            1.0f32,
            -1.0,
            3.0,
            0.1,
            -0.7,
            1e-3,
            1.5e7,
            -2.5e-8,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-40,
            -3e-41,
            16_777_217.0,
        ];
        for &a in &values {
            for &b in &values {
                let add = [a + b, add_rz_f32(a, b), add_ru_f32(a, b), add_rd_f32(a, b)];
                // Exact in f64 unless the exponents differ by more than 29: skip those.
                let sum = a as f64 + b as f64;
                if sum - a as f64 == b as f64 && sum - b as f64 == a as f64 {
                    assert_brackets_f32("+", a, b, add, sum);
                }
                let mul = [a * b, mul_rz_f32(a, b), mul_ru_f32(a, b), mul_rd_f32(a, b)];
                assert_brackets_f32("*", a, b, mul, a as f64 * b as f64);
            }
        }
        // Overflow: toward zero and toward -inf stop at the largest float.
        assert_eq!(add_rz_f32(f32::MAX, f32::MAX), f32::MAX);
        assert_eq!(add_ru_f32(f32::MAX, f32::MAX), f32::INFINITY);
        assert_eq!(mul_rd_f32(f32::MAX, -2.0), f32::NEG_INFINITY);
        assert_eq!(mul_ru_f32(f32::MAX, -2.0), f32::MIN);
    }

    #[test]
    fn f64_roundings_of_known_exact_results() {
        // The f64 nearest 1/3 is (2^54 - 1) / 3 2^-54, so times 3 it is exactly 1 - 2^-54: halfway
        // between 1 - 2^-53 and 1.
        let third = 1.0f64 / 3.0;
        let exact_below_one = mul_rd_f64(third, 3.0) < 1.0 && mul_ru_f64(third, 3.0) == 1.0;
        assert!(exact_below_one);
        assert_eq!(mul_rz_f64(third, 3.0), mul_rd_f64(third, 3.0));
        assert_eq!(mul_rz_f64(-third, 3.0), -mul_rd_f64(third, 3.0));
        // Subnormal products: 2^-1074 * 0.75 is between 0 and the smallest subnormal.
        let tiny = f64::from_bits(1);
        assert_eq!(mul_rd_f64(tiny, 0.75), 0.0);
        assert_eq!(mul_ru_f64(tiny, 0.75), tiny);
        assert_eq!(mul_rz_f64(-tiny, 0.75), -0.0);
        assert_eq!(mul_rd_f64(-tiny, 0.75), -tiny);
        // Exact products and sums do not move.
        for (a, b) in [(1.5, 2.25), (tiny, 4.0), (-0.5, 1e300)] {
            for f in [mul_rz_f64, mul_ru_f64, mul_rd_f64] {
                assert_eq!(f(a, b), a * b);
            }
        }
        for f in [add_rz_f64, add_ru_f64, add_rd_f64] {
            assert_eq!(f(0.5, 0.25), 0.75);
        }
        assert!(add_rd_f64(0.5, -0.5).is_sign_negative() && add_rz_f64(0.5, -0.5).is_sign_positive());
        // 1 + 2^-60 lies strictly between 1 and its successor.
        let small = 2f64.powi(-60);
        assert_eq!(add_ru_f64(1.0, small), 1.0f64.next_up());
        assert_eq!(add_rd_f64(1.0, small), 1.0);
        assert_eq!(add_rz_f64(-1.0, -small), -1.0);
        assert_eq!(add_rd_f64(-1.0, -small), (-1.0f64).next_down());
        assert_eq!(add_rz_f64(f64::MAX, f64::MAX), f64::MAX);
    }

    #[test]
    fn ftz_flushes_subnormal_operands_and_results() {
        let denormal = 1e-40f32;
        assert!(denormal.is_subnormal());
        assert_eq!(add_rn_ftz_f32(denormal, 0.0), 0.0);
        assert_eq!(denormal + 0.0, denormal);
        assert_eq!(mul_rn_ftz_f32(-denormal, 1.0).to_bits(), (-0.0f32).to_bits());
        // Normal operands, subnormal result: flushed too.
        let half_min = mul_rn_ftz_f32(f32::MIN_POSITIVE, 0.5);
        assert_eq!(half_min, 0.0);
        assert_eq!(add_rn_ftz_f32(1.0, 2.0), 3.0);
    }
}
