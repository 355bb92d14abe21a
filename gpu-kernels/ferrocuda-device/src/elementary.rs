//! Elementary functions rounded the same on the GPU and on the CPU: the logarithm, square root
//! and `sin(pi x)`, `cos(pi x)` that Box-Muller needs (`random`), and the exponential of the
//! Monte Carlo option pricer (`kernels::ch5::bs_european_mc`), so that their results match the
//! CPU references bit for bit.
//!
//! Neither `libm` nor plain float arithmetic would: the NVPTX backend (and ptxas, for `mul.f32`
//! followed by `add.f32`) contracts `a * b + c` into one `fma`, where the CPU rounds twice. Here
//! every product that feeds a sum goes through [`crate::math::fma`] (`fma.rn` on the GPU,
//! a correctly rounded `fma` on the CPU), and the rest is `+ - * / sqrt` alone, which IEEE 754
//! rounds correctly on both. The `f32` polynomials are minimax fits (the Remez exchange algorithm
//! on the relative error, in doubles from 40-digit function values, then rounded to `f32`), the `f64` ones
//! truncated Taylor series; either way the approximation error is far below half an ulp, and the
//! rest is rounding.
//!
//! Accuracy against `std` (glibc), measured by this module's tests over about a million inputs
//! each, in `f32` and `f64`: [`Elementary::ln`] within 1 ulp, [`Elementary::sincospi`] within
//! 2 ulps.
use crate::math::{Rounded, fma, mul_rn};

/// `f32` or `f64`: the elementary functions of Box-Muller, identical on the GPU and the CPU.
pub trait Elementary: Rounded {
    /// The natural logarithm of a positive, normal, finite `self` (no subnormals, zero,
    /// infinity or NaN: Box-Muller's uniforms are at least 2^-53).
    ///
    /// Cost: 11 fused multiply-adds in `f32`; one division and 14 in `f64`.
    fn ln(self) -> Self;
    /// `(sin(pi self), cos(pi self))`, for `|self| <= 2^21` (`f32`) or `2^50` (`f64`), where
    /// the rounding of `2 self` to an integer (by adding and subtracting 1.5 2^23 or 1.5 2^52)
    /// is exact.
    ///
    /// Cost: no division; 8 (`f32`) or 18 (`f64`) fused multiply-adds.
    fn sincospi(self) -> (Self, Self);
    /// `(sin(self), cos(self))` with one range reduction shared by both (CUDA's `sincosf` /
    /// `sincos`, the book's §3.6.1), within an ulp (`f32`) or two (`f64`) of the exact values.
    /// Identical on the GPU and the CPU for `|self| <= 2^20`; beyond that, `libm`'s separate
    /// `sin` and `cos` (whose own reduction is exact for any argument).
    ///
    /// Cost: 4 fused multiply-adds for the reduction, then 12 (`f32`) or 16 (`f64`) `f64` ones
    /// for both polynomials, against two reductions for `sin` and `cos` called apart.
    fn sincos(self) -> (Self, Self);
    /// The correctly rounded square root (`sqrt.rn` on the GPU).
    fn sqrt(self) -> Self;
}

/// `p(x) = coefficients[0] + x (coefficients[1] + x (...))`, by Horner's rule with one rounding
/// per step. The loop has a constant trip count, so it unrolls into straight `fma.rn`s.
#[inline(always)]
fn horner<T: Rounded, const N: usize>(x: T, coefficients: &[T; N]) -> T {
    let mut p = coefficients[N - 1];
    let mut k = N - 1;
    while k > 0 {
        k -= 1;
        p = fma(p, x, coefficients[k]);
    }
    p
}

macro_rules! elementary {
    (
        $t:ident, $bits:ty, $int:ty,
        mantissa_bits: $mantissa:literal, bias: $bias:literal, sqrt_half_bits: $sqrt_half:literal,
        ln2: ($ln2_hi:literal, $ln2_lo:literal), ln_1p: $ln_1p:path,
        pi: $pi:expr, sin: $sin:expr, cos: $cos:expr, sincos: $sincos:path,
        round_magic: $magic:literal, sqrt: $sqrt_gpu:path, $sqrt_cpu:path
    ) => {
        impl Elementary for $t {
            #[inline(always)]
            fn ln(self) -> Self {
                use $ln_1p as ln_1p_reduced;
                // self = 2^k m with m in [sqrt(1/2), sqrt(2)): adding 1 - sqrt(1/2) to the bits
                // carries into the exponent exactly when the significand is at least sqrt(2).
                let one_bits = (1.0 as $t).to_bits();
                let shifted = self.to_bits().wrapping_add(one_bits - $sqrt_half);
                let k = ((shifted >> $mantissa) as $int - $bias) as $t;
                let m = <$t>::from_bits((shifted & ((1 << $mantissa) - 1)) + $sqrt_half);
                // f is exact (Sterbenz).
                let ln_m = ln_1p_reduced(m - 1.0);
                // k ln 2 in two parts: k * LN2_HI is exact (its low bits are zero).
                fma(k, $ln2_hi, fma(k, $ln2_lo, ln_m))
            }

            #[inline(always)]
            fn sincospi(self) -> (Self, Self) {
                // q = 2 self rounded to the nearest integer (ties to even, by the magic-number
                // addition), then r = self - q/2 in [-1/4, 1/4], exact: both are multiples of
                // ulp(self).
                let twice = self + self;
                let shifted = twice + $magic;
                let q = shifted - $magic;
                let r = fma(-0.5, q, self);
                let r2 = r * r;
                // sin(pi r) = r (pi + r^2 P(r^2)), cos(pi r) = 1 + r^2 Q(r^2): Horner's rule
                // throughout, the fewest operations (pi's own rounding costs under half an ulp).
                let sin = r * fma(r2, horner(r2, &$sin), $pi);
                let cos = fma(r2, horner(r2, &$cos), 1.0);
                // Quadrant q mod 4: (sin, cos) -> (sin, cos), (cos, -sin), (-sin, -cos), (-cos, sin).
                // The low bits of `shifted`'s significand are q's (the magic number's are 0).
                let quadrant = shifted.to_bits() as u32;
                let (s, c) = if quadrant & 1 == 0 { (sin, cos) } else { (cos, sin) };
                let s = if quadrant & 2 == 0 { s } else { -s };
                let c = if quadrant.wrapping_add(1) & 2 == 0 { c } else { -c };
                (s, c)
            }

            #[inline(always)]
            fn sincos(self) -> (Self, Self) {
                $sincos(self)
            }

            #[inline(always)]
            fn sqrt(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                {
                    // `llvm.sqrt`, which the NVPTX backend lowers to `sqrt.rn` (IEEE, as the
                    // CPU's); `libm`'s would be an integer loop on the GPU.
                    $sqrt_gpu(self)
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    $sqrt_cpu(self)
                }
            }
        }
    };
}

/// `ln(1 + f)` for `f` in [sqrt(1/2) - 1, sqrt(2) - 1], exact `f`, in `f32`: `f - f^2/2 +
/// f^3 Q(f)` with `Q` the degree-7 minimax (Remez, relative error) polynomial, within 2^-27 of
/// the result; no division.
#[inline(always)]
fn ln_1p_f32(f: f32) -> f32 {
    const Q: [f32; 8] = [
        0.333_333_3,
        -0.250_008_2,
        0.200_012_27,
        -0.166_233_57,
        0.142_017_59,
        -0.131_601_83,
        0.127_615_75,
        -0.076_344_94,
    ];
    let half_f = 0.5 * f;
    let head = fma(-half_f, f, f);
    fma((f * f) * f, horner(f, &Q), head)
}

/// `ln(1 + f)` as [`ln_1p_f32`], in `f64`: `2 atanh(s)` with `s = f / (2 + f)`, `|s| <= 0.1716`,
/// written `f - f^2/2 + s (f^2/2 + R)`, `R = 2 s^2/3 + 2 s^4/5 + ...` (fdlibm's arrangement,
/// which keeps the leading term exact) with the Taylor terms up to `s^20`, the first left out
/// below 2^-59 of the result.
#[inline(always)]
fn ln_1p_f64(f: f64) -> f64 {
    const ATANH: [f64; 10] = [
        2.0 / 3.0,
        2.0 / 5.0,
        2.0 / 7.0,
        2.0 / 9.0,
        2.0 / 11.0,
        2.0 / 13.0,
        2.0 / 15.0,
        2.0 / 17.0,
        2.0 / 19.0,
        2.0 / 21.0,
    ];
    let s = f / (2.0 + f);
    let z = s * s;
    let half_f = 0.5 * f;
    let half_f_squared_plus_r = fma(z, horner(z, &ATANH), half_f * f);
    let head = fma(-half_f, f, f);
    fma(s, half_f_squared_plus_r, head)
}

/// Largest `|x|` that [`sincos_reduced`] takes: `k = x 2/pi` below 2^20, so `k pi/2` in three
/// parts leaves out `k 2^-160`.
const SINCOS_REDUCTION_MAX: f64 = 1_048_576.0;

/// `pi/2` as the sum of three `f64`s (the nearest one, then the nearest to each remainder).
const PI_OVER_2: [f64; 3] = [
    f64::from_bits(0x3ff9_21fb_5444_2d18),
    f64::from_bits(0x3c91_a626_3314_5c07),
    f64::from_bits(0xb91f_1976_b7ed_8fbc),
];

/// `(sin x, cos x)` for `|x| <= SINCOS_REDUCTION_MAX`: one reduction `x = k pi/2 + r`,
/// `|r| <= pi/4`, then `sin r = r + r^3 P(r^2)` and `cos r = 1 + r^2 Q(r^2)` (Taylor
/// coefficients `sin` and `cos`, lowest degree first), exchanged and negated by `k mod 4`.
///
/// The reduction is Cody and Waite's in three `fma`s: for `k >= 1`, `x - k PI_OVER_2[0]` is a
/// multiple of 2^-53 below 1 in magnitude, so exact; the next step is exact too where the
/// result is small (where cancellation would hurt), and the third rounds once, relatively.
#[inline(always)]
fn sincos_reduced<const S: usize, const C: usize>(x: f64, sin: &[f64; S], cos: &[f64; C]) -> (f64, f64) {
    // k = x 2/pi rounded to an integer by the magic-number addition (1.5 2^52: ulp 1).
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    if x == 0.0 {
        // sin(-0) = -0, which the reduction's last step, -0 + +0, would turn into +0.
        return (x, 1.0);
    }
    let shifted = fma(x, core::f64::consts::FRAC_2_PI, MAGIC);
    let k = shifted - MAGIC;
    let r = fma(-k, PI_OVER_2[0], x);
    let r = fma(-k, PI_OVER_2[1], r);
    let r = fma(-k, PI_OVER_2[2], r);
    let r2 = mul_rn(r, r);
    let sin_r = fma(mul_rn(r2, r), horner(r2, sin), r);
    let cos_r = fma(r2, horner(r2, cos), 1.0);
    // The low bits of `shifted`'s significand are k's (the magic number's are 0): quadrant k mod
    // 4 maps (sin r, cos r) to (sin r, cos r), (cos r, -sin r), (-sin r, -cos r), (-cos r, sin r).
    let quadrant = shifted.to_bits() as u32;
    let (s, c) = if quadrant & 1 == 0 {
        (sin_r, cos_r)
    } else {
        (cos_r, sin_r)
    };
    let s = if quadrant & 2 == 0 { s } else { -s };
    let c = if quadrant.wrapping_add(1) & 2 == 0 { c } else { -c };
    (s, c)
}

/// Taylor coefficients of sin(r)/r - 1 and cos(r) - 1 in powers of r^2, up to r^17 and r^16:
/// `sincos_f64` takes all eight, `sincos_f32` the first six.
const SIN_TAYLOR: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];
const COS_TAYLOR: [f64; 8] = [
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
];
/// The first six of [`SIN_TAYLOR`] and [`COS_TAYLOR`], for `sincos_f32`.
const SIN_TAYLOR_F32: &[f64; 6] = first_six(&SIN_TAYLOR);
const COS_TAYLOR_F32: &[f64; 6] = first_six(&COS_TAYLOR);

const fn first_six(terms: &[f64; 8]) -> &[f64; 6] {
    match terms.first_chunk::<6>() {
        Some(six) => six,
        None => panic!("eight terms hold six"),
    }
}

/// `Elementary::sincos` for `f32`, in `f64` (as `libm`'s `sinf` is): Taylor terms up to r^13
/// and r^12, the first left out below 2^-41 of the result, so rounding to `f32` is all but
/// always correct.
#[inline(always)]
fn sincos_f32(x: f32) -> (f32, f32) {
    let wide = f64::from(x);
    if wide.abs() > SINCOS_REDUCTION_MAX {
        return (libm::sinf(x), libm::cosf(x));
    }
    let (s, c) = sincos_reduced(wide, SIN_TAYLOR_F32, COS_TAYLOR_F32);
    (s as f32, c as f32)
}

/// `Elementary::sincos` for `f64`: Taylor terms up to r^17 and r^16, the first left out below
/// 2^-58 of the result.
#[inline(always)]
fn sincos_f64(x: f64) -> (f64, f64) {
    if x.abs() > SINCOS_REDUCTION_MAX {
        return (libm::sin(x), libm::cos(x));
    }
    sincos_reduced(x, &SIN_TAYLOR, &COS_TAYLOR)
}

elementary!(
    f32, u32, i32,
    mantissa_bits: 23, bias: 127, sqrt_half_bits: 0x3f35_04f3,
    ln2: (0.693_115_23, 3.194_618_3e-5), ln_1p: ln_1p_f32,
    pi: core::f32::consts::PI,
    // Minimax (Remez, relative error) on |r| <= 1/4: sin(pi r) = r (pi + r^2 P(r^2)) within
    // 2^-28 of the result, cos(pi r) = 1 + r^2 Q(r^2) within 2^-33.
    sin: [-5.167_709, 2.549_805_2, -0.589_418_8],
    cos: [-4.934_802, 4.058_707_7, -1.335_050_6, 0.231_364_24],
    sincos: sincos_f32,
    round_magic: 12_582_912.0, sqrt: core::intrinsics::sqrtf32, libm::sqrtf
);

elementary!(
    f64, u64, i64,
    mantissa_bits: 52, bias: 1023, sqrt_half_bits: 0x3fe6_a09e_667f_3bcd,
    ln2: (0.693_146_705_627_441_4, 4.749_325_039_031_672_3e-7), ln_1p: ln_1p_f64,
    // Taylor series: (-1)^j pi^(2j+1) / (2j+1)!, j = 1..9, and (-1)^j pi^(2j) / (2j)!,
    // j = 1..10; the first term left out is below 2^-56 of the result on |r| <= 1/4.
    pi: core::f64::consts::PI,
    sin: [
        -5.167_712_780_049_97, 2.550_164_039_877_345_4, -0.599_264_529_320_792_1, 8.214_588_661_112_823e-2,
        -7.370_430_945_714_350_8e-3, 4.663_028_057_676_125_6e-4, -2.191_535_344_783_021_6e-5,
        7.952_054_001_475_513e-7,
    ],
    cos: [
        -4.934_802_200_544_679, 4.058_712_126_416_768, -1.335_262_768_854_589_5, 0.235_330_630_358_893_2,
        -2.580_689_139_001_406e-2, 1.929_574_309_403_923e-3, -1.046_381_049_248_457e-4,
        4.303_069_587_032_947e-6, -1.387_895_246_221_377_2e-7,
    ],
    sincos: sincos_f64,
    round_magic: 6_755_399_441_055_744.0, sqrt: core::intrinsics::sqrtf64, libm::sqrt
);

/// `e^x` rounded identically on the GPU and the CPU: within 1 ulp of `std`'s over the whole
/// range (`tests/ferrocuda-tests/ch5/bs_european_mc.rs` measures it).
///
/// `libm`'s `exp` would differ between the two in the last bit (the NVPTX backend contracts its
/// multiply-adds into FMAs) and spills its sign-indexed constants to local memory; here every
/// product that feeds a sum is an explicit [`fma`] and the rest is `+ - *`, which IEEE 754 rounds
/// the same everywhere. `x = k ln 2 + r` with `|r| <= ln(2)/2` (`k` rounded by adding a magic
/// number, `r` by two FMAs against `ln 2` in two parts), `e^r = 1 + r + r^2 P(r)` (Taylor's
/// coefficients up to `r^7/7!` in `f32`, `r^13/13!` in `f64`: the first left out is below
/// 2^-26, 2^-57 of the result), then `2^k` in two factors, so that overflow gives infinity and
/// underflow gradual zeros. NaN gives NaN.
///
/// A kernel calls it as `x.exp()` with the prelude imported, on the GPU and the simulator alike.
/// Without the import it fails to compile on both (E0599, naming this trait), never falling back
/// to std's `f32::exp` on the host: this crate's host build depends on no std crate
/// (`ferrocuda-sim-abi`), so a `no_std` kernel crate sees `core`'s methods only, as on nvptx.
///
/// ```compile_fail,E0599
/// #![no_std]
/// use ferrocuda_device as _; // the device library's whole host crate graph, loaded
/// pub fn f(x: f32) -> f32 {
///     x.exp() // error[E0599]: no method named `exp` found for type `f32`
/// }
/// ```
pub trait Exp: Rounded + crate::real::Real {
    /// `e^self`.
    fn exp(self) -> Self;
}

macro_rules! exp {
    ($t:ident, $bits:ident, mantissa_bits: $mantissa:literal, bias: $bias:literal,
     range: ($lowest:literal, $highest:literal), magic: $magic:literal,
     inv_ln2: $inv_ln2:expr, ln2: ($ln2_hi:expr, $ln2_lo:literal), taylor_terms: $terms:literal) => {
        impl Exp for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                // Beyond the range e^x is 0 or infinity in this type; clamping keeps `k` small
                // enough for two normal factors `2^a 2^b` (NaN fails both tests and stays).
                let x = if self < $lowest {
                    $lowest
                } else if self > $highest {
                    $highest
                } else {
                    self
                };
                // k = round(x / ln 2): the magic number's ulp is 1, so the sum rounds to an
                // integer, which the subtraction then recovers exactly.
                let k = fma(x, $inv_ln2, $magic) - $magic;
                let r = fma(-k, $ln2_lo, fma(-k, $ln2_hi, x));
                // 1/j! for j = 2..=terms, each rounded once (j! is exact in the type).
                const INVERSE_FACTORIALS: [$t; $terms - 1] = {
                    let (mut coefficients, mut factorial, mut j) = ([0.0; $terms - 1], 1.0, 2);
                    while j <= $terms {
                        factorial *= j as $t;
                        coefficients[j - 2] = 1.0 / factorial;
                        j += 1;
                    }
                    coefficients
                };
                // P(r) = 1/2! + r/3! + ... by Horner's rule, one rounding per step.
                let p = horner(r, &INVERSE_FACTORIALS);
                let e_r = 1.0 + fma(r * r, p, r);
                let k = k as i32;
                let a = k >> 1;
                let power_of_two = |e: i32| $t::from_bits(((e + $bias) as $bits) << $mantissa);
                mul_rn(mul_rn(e_r, power_of_two(a)), power_of_two(k - a))
            }
        }
    };
}

exp!(f32, u32, mantissa_bits: 23, bias: 127, range: (-104.0, 89.0), magic: 12_582_912.0,
     inv_ln2: core::f32::consts::LOG2_E, ln2: (core::f32::consts::LN_2, -1.904_654_2e-9), taylor_terms: 7);
exp!(f64, u64, mantissa_bits: 52, bias: 1023, range: (-746.0, 710.0), magic: 6_755_399_441_055_744.0,
     inv_ln2: core::f64::consts::LOG2_E,
     ln2: (core::f64::consts::LN_2, 2.319_046_813_846_299_6e-17),
     taylor_terms: 13);

#[cfg(test)]
mod tests;
