//! The accuracy of [`super`]'s functions against `std` (glibc) over about a million seeded
//! inputs each, in `f32` and `f64`, and the host's `fma` rounding once.
use super::*;
use std::vec::Vec;

/// Distance in ulps between two finite floats of one sign.
fn ulps_f32(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}
fn ulps_f64(a: f64, b: f64) -> u64 {
    if a == b {
        return 0;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return u64::MAX;
    }
    (a.to_bits() as i128 - b.to_bits() as i128).unsigned_abs() as u64
}
fn ulps_signed_f32(a: f32, b: f32) -> u32 {
    if a == b {
        0
    } else if a.is_sign_negative() != b.is_sign_negative() {
        u32::MAX
    } else {
        ulps_f32(a, b)
    }
}

/// A fixed pseudo-random sequence of 64-bit words (splitmix64), for sampling inputs.
fn words(count: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// The documented bound of `ln`, in ulps.
const LN_MAX_ULPS: u64 = 1;
/// The documented bound of `sincospi`, in ulps.
const SINCOSPI_MAX_ULPS_F32: u32 = 2;
const SINCOSPI_MAX_ULPS_F64: u64 = 2;

#[test]
fn ln_f32_within_an_ulp_of_std() {
    // Every Box-Muller input k 2^-24 for a stride of k, every power of two, both sides of
    // sqrt(2), and random normal floats of every exponent.
    let mut inputs: Vec<f32> = (1..=1u32 << 24).step_by(97).map(|k| k as f32 / 16_777_216.0).collect();
    inputs.extend((-126..128).map(|e| 2f32.powi(e)));
    inputs.extend(
        [core::f32::consts::SQRT_2, core::f32::consts::FRAC_1_SQRT_2]
            .iter()
            .flat_map(|&x| (-3..=3).map(move |d| f32::from_bits((x.to_bits() as i32 + d) as u32))),
    );
    inputs.extend(
        words(200_000, 1)
            .iter()
            .map(|&w| f32::from_bits(0x0080_0000 + (w as u32) % (0x7f80_0000 - 0x0080_0000))),
    );
    let worst = inputs
        .iter()
        .map(|&x| (ulps_signed_f32(x.ln(), Elementary::ln(x)), x))
        .max_by_key(|&(u, _)| u)
        .unwrap();
    assert!(worst.0 as u64 <= LN_MAX_ULPS, "ln({}) off by {} ulps", worst.1, worst.0);
    assert_eq!(Elementary::ln(1.0f32).to_bits(), 0);
}

#[test]
fn ln_f64_within_an_ulp_of_std() {
    let mut inputs: Vec<f64> = words(300_000, 2)
        .iter()
        .map(|&w| ((w >> 11) + 1) as f64 / 9_007_199_254_740_992.0)
        .collect();
    inputs.extend((-1022..1024).map(|e| 2f64.powi(e)));
    inputs.extend(
        [core::f64::consts::SQRT_2, core::f64::consts::FRAC_1_SQRT_2]
            .iter()
            .flat_map(|&x| (-3..=3).map(move |d| f64::from_bits((x.to_bits() as i64 + d) as u64))),
    );
    inputs.extend(
        words(300_000, 3)
            .iter()
            .map(|&w| f64::from_bits(0x0010_0000_0000_0000 + w % (0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000))),
    );
    // Near 1, where ln is smallest and its relative error largest.
    inputs.extend(
        words(100_000, 4)
            .iter()
            .map(|&w| 1.0 + ((w >> 11) as f64 - 4.5e15) * 1e-26),
    );
    let worst = inputs
        .iter()
        .map(|&x| (ulps_f64(x.ln(), Elementary::ln(x)), x))
        .max_by_key(|&(u, _)| u)
        .unwrap();
    assert!(worst.0 <= LN_MAX_ULPS, "ln({}) off by {} ulps", worst.1, worst.0);
}

#[test]
fn sincospi_f32_within_two_ulps_of_f64_sin_and_cos() {
    // The Box-Muller angles 2 k 2^-24 in half turns, and random |x| <= 2^21.
    let mut inputs: Vec<f32> = (1..=1u32 << 24).step_by(61).map(|k| k as f32 / 8_388_608.0).collect();
    inputs.extend(
        words(200_000, 5)
            .iter()
            .map(|&w| ((w >> 42) as f32 - 2_097_152.0) * 2f32.powi(-((w & 31) as i32))),
    );
    let mut worst = (0, 0.0);
    for &x in &inputs {
        let (s, c) = x.sincospi();
        let angle = core::f64::consts::PI * x as f64;
        // The f64 reference is within 2^-29 relative of sin(pi x): its own error is far below
        // an f32 ulp, except where the result is tiny; compare those absolutely.
        for (got, want) in [(s, angle.sin()), (c, angle.cos())] {
            let ulps = if want.abs() < 1e-3 {
                ((got as f64 - want).abs() / f32::EPSILON as f64 * 2.0) as u32
            } else {
                ulps_signed_f32(got, want as f32)
            };
            if ulps > worst.0 {
                worst = (ulps, x);
            }
        }
    }
    assert!(
        worst.0 <= SINCOSPI_MAX_ULPS_F32,
        "sincospi({}) off by {} ulps",
        worst.1,
        worst.0
    );
    assert_eq!(0.5f32.sincospi(), (1.0, 0.0));
    assert_eq!(2.0f32.sincospi(), (0.0, 1.0));
    assert_eq!((-1.0f32).sincospi(), (0.0, -1.0));
}

#[test]
fn sincospi_f64_within_two_ulps_of_std() {
    let inputs: Vec<f64> = words(400_000, 6)
        .iter()
        .map(|&w| ((w >> 11) + 1) as f64 / 4_503_599_627_370_496.0)
        .collect();
    let mut worst = (0, 0.0);
    for &x in &inputs {
        let (s, c) = x.sincospi();
        // Reduce in half turns first (exact), so that pi r is small and split into two
        // doubles; sin(hi + lo) = sin(hi) + lo cos(hi) to well below an ulp.
        let q = (2.0 * x).round();
        let r = x - 0.5 * q;
        let hi = core::f64::consts::PI * r;
        let lo = core::f64::consts::PI.mul_add(r, -hi) + 1.224_646_799_147_353_2e-16 * r;
        let (sin_r, cos_r) = (hi.sin() + lo * hi.cos(), hi.cos() - lo * hi.sin());
        let (want_s, want_c) = match (q as i64).rem_euclid(4) {
            0 => (sin_r, cos_r),
            1 => (cos_r, -sin_r),
            2 => (-sin_r, -cos_r),
            _ => (-cos_r, sin_r),
        };
        for (got, want) in [(s, want_s), (c, want_c)] {
            let ulps = if want.abs() < 1e-6 {
                ((got - want).abs() / f64::EPSILON * 2.0) as u64
            } else {
                ulps_f64(got, want)
            };
            if ulps > worst.0 {
                worst = (ulps, x);
            }
        }
    }
    assert!(
        worst.0 <= SINCOSPI_MAX_ULPS_F64,
        "sincospi({}) off by {} ulps",
        worst.1,
        worst.0
    );
}

/// Inputs for `sincos`: random magnitudes of every binade up to 2^20, both signs, and the
/// floats next to multiples of pi/2, where the reduction cancels most.
fn sincos_inputs(count: usize, seed: u64) -> Vec<f64> {
    let mut inputs: Vec<f64> = words(count, seed)
        .iter()
        .map(|&w| {
            let magnitude = 2f64.powi((w % 45) as i32 - 24) * (1.0 + (w >> 12) as f64 / 2f64.powi(52));
            if w & 1 == 0 { magnitude } else { -magnitude }
        })
        .collect();
    inputs.extend((1..2000).map(|k| k as f64 * core::f64::consts::FRAC_PI_2));
    inputs.extend((0..2000).map(|k| (k as f64 * 524.287).min(SINCOS_REDUCTION_MAX)));
    inputs
}

#[test]
fn sincos_f32_within_an_ulp_of_std() {
    let mut worst = (0, 0.0f32);
    for x in sincos_inputs(400_000, 7).into_iter().map(|x| x as f32) {
        let (s, c) = x.sincos();
        let wide = f64::from(x);
        for (got, want) in [(s, wide.sin() as f32), (c, wide.cos() as f32)] {
            let ulps = ulps_signed_f32(got, want);
            if ulps > worst.0 {
                worst = (ulps, x);
            }
        }
    }
    assert!(worst.0 <= 1, "sincos({}) off by {} ulps", worst.1, worst.0);
    assert_eq!(0.0f32.sincos(), (0.0, 1.0));
    assert!((-0.0f32).sincos().0.is_sign_negative());
    // Beyond 2^20, libm's own sinf and cosf.
    assert_eq!(3e9f32.sincos(), (libm::sinf(3e9), libm::cosf(3e9)));
}

#[test]
fn sincos_f64_within_two_ulps_of_std() {
    let mut worst = (0, 0.0);
    for x in sincos_inputs(400_000, 8) {
        let (s, c) = x.sincos();
        for (got, want) in [(s, x.sin()), (c, x.cos())] {
            let ulps = ulps_f64(got, want);
            if ulps > worst.0 {
                worst = (ulps, x);
            }
        }
    }
    assert!(worst.0 <= 2, "sincos({}) off by {} ulps", worst.1, worst.0);
    assert!(f64::NAN.sincos().0.is_nan() && f64::INFINITY.sincos().1.is_nan());
}

#[test]
fn fma_is_one_rounding_on_the_host_outside_a_launch() {
    // (1 + eps)^2 - 1 = 2 eps + eps^2: fused, the eps^2 survives; rounded twice, it is lost.
    let x = 1.0f32 + f32::EPSILON;
    assert_eq!(fma(x, x, -1.0), 2.0 * f32::EPSILON + f32::EPSILON * f32::EPSILON);
    assert_eq!(x * x - 1.0, 2.0 * f32::EPSILON);
    let y = 1.0f64 + f64::EPSILON;
    assert_eq!(fma(y, y, -1.0), 2.0 * f64::EPSILON + f64::EPSILON * f64::EPSILON);
}
