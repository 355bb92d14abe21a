//! Twiddle factors `exp(-2 pi i m / n)`, computed on the host in `f64` and rounded once to the
//! plan's precision.
//!
//! Accuracy: the angle is reduced exactly (integer arithmetic) to an octant, `|a| <= pi / 4`,
//! where `f64`'s `sin_cos` is within 1 ulp; the octant's symmetry then only swaps and negates.
//! So each `f64` factor is within about 1 ulp of the exact value, and each `f32` factor is the
//! exact value correctly rounded (but in the rare case where the `f64` value lies within 1 ulp of
//! an `f32` rounding boundary).
use super::Complex;
use ferrocuda_device::complex::ComplexScalar;
use std::f64::consts::PI;

/// `(cos, sin)` of `-2 pi m / n`, `m < n`, accurate to about 1 ulp.
pub fn exp_minus_2pi_i(m: u64, n: u64) -> (f64, f64) {
    let m = m % n;
    // 8m = octant n + rem: the angle 2 pi m / n = octant pi / 4 + pi rem / (4 n), exactly.
    let (octant, rem) = ((8 * m as u128) / n as u128, (8 * m as u128) % n as u128);
    let (quadrant, cos_sin) = if octant % 2 == 0 {
        // quadrant pi / 2 + a, a = pi rem / (4n) in [0, pi / 4).
        let (s, c) = (PI * rem as f64 / (4.0 * n as f64)).sin_cos();
        (octant / 2, (c, s))
    } else {
        // (quadrant) pi / 2 - b, b = pi (n - rem) / (4n) in (0, pi / 4].
        let (s, c) = (PI * (n as u128 - rem) as f64 / (4.0 * n as f64)).sin_cos();
        (octant.div_ceil(2), (c, -s))
    };
    let (c, s) = cos_sin;
    // Rotate by `quadrant` quarter turns: (cos, sin) of the whole angle.
    let (cos, sin) = match quadrant % 4 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    };
    (cos, -sin)
}

/// `exp(-2 pi i m / n)` for `m` in `0..count`, rounded to `T`.
pub fn table<T: ComplexScalar>(n: u64, count: u64) -> Vec<Complex<T>> {
    (0..count)
        .map(|m| {
            let (re, im) = exp_minus_2pi_i(m, n);
            Complex::new(T::from_f64(re), T::from_f64(im))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_and_has_unit_modulus() {
        for n in [1u64, 2, 3, 8, 1000, 4096, 1 << 20] {
            for m in (0..n).step_by((n / 997).max(1) as usize) {
                let (re, im) = exp_minus_2pi_i(m, n);
                // std's reference rounds the angle first (up to 4.4e-16 off near 2 pi), so it is
                // the less accurate of the two: 1e-15 bounds both errors together.
                let angle = -2.0 * PI * m as f64 / n as f64;
                let (d_re, d_im) = (re - angle.cos(), im - angle.sin());
                assert!(d_re.abs() < 1e-15 && d_im.abs() < 1e-15, "{m}/{n}: {d_re:e} {d_im:e}");
                assert!((re * re + im * im - 1.0).abs() < 3e-16, "|w| of {m}/{n}");
            }
        }
        assert_eq!(exp_minus_2pi_i(1, 4), (0.0, -1.0));
        assert_eq!(exp_minus_2pi_i(2, 4), (-1.0, -0.0));
    }
}
