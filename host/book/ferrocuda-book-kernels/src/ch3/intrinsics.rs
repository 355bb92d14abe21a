//! Intrinsics (book §3.6.1, §3.6.2): fast math against accurate math, and a fused multiply-add
//! against a separately rounded multiply and add.
//!
//! - [`intrinsics_accurate`] / [`intrinsics_fast`]: `sum over k of sin(k x) exp(-k x / 8) / (k + x^2)`, with
//!   the correctly rounded `libm` functions and division (`div.rn.f32`), or with the hardware
//!   approximations CUDA C calls `__sinf`, `__expf`, `__fdividef` (`sin.approx`, `ex2.approx`,
//!   `div.approx`: the book's `-Mcuda=fastmath`).
//! - [`horner_fused`] / [`horner_unfused`]: a polynomial of degree [`DEGREE`] by Horner's rule,
//!   one `fma.rn.f32` per step, or `mul.rn.f32` then `add.rn.f32` (the book's `-Mcuda=nofma`):
//!   one rounding per step instead of two, and one instruction instead of two.
//! - [`directed_rounding`]: `a + b` and `a * b` in the four rounding modes, CUDA's
//!   `__fadd_rn/rz/ru/rd` and `__dadd_*`, `__fmul_*`, `__dmul_*` (PTX `add.rn/rz/rp/rm`).
//! - [`flush_to_zero`]: `a + b` and `a * b` with subnormals kept (IEEE) and flushed (`.ftz`,
//!   the book's `-Mcuda=flushz`).
//! - [`sincos_one_reduction`] / [`sin_cos_separate`]: sine and cosine from one shared range
//!   reduction (the book's `sincos`), or from `libm`'s `sinf` and `cosf`, each reducing anew.
use ferrocuda_device::elementary::Elementary;
use ferrocuda_device::prelude::*;

/// Terms of the sum in the math kernels: each element costs 8 sines, 8 exponentials, 8 divisions.
pub const TERMS: usize = 8;
/// Degree of the Horner kernels' polynomial.
pub const DEGREE: usize = 128;

/// Arguments of every kernel here: `y[i] = f(x[i])`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct IntrinsicsArgs<'a> {
    pub y: SliceMut<'a, f32>,
    pub x: Slice<'a, f32>,
}

/// `sum over k = 1..=TERMS of sin(k x) exp(-k x / 8) / (k + x^2)`, with the sine, exponential and
/// division given; the multiplies and adds are explicitly rounded so that only those three differ
/// between the variants and the simulator.
#[inline(always)]
fn terms(x: f32, sin: impl Fn(f32) -> f32, exp: impl Fn(f32) -> f32, div: impl Fn(f32, f32) -> f32) -> f32 {
    let x2 = math::mul_rn(x, x);
    let mut sum = 0.0f32;
    for k in 1..=TERMS {
        let kf = k as f32;
        let kx = math::mul_rn(kf, x);
        let num = math::mul_rn(sin(kx), exp(math::mul_rn(kx, -0.125)));
        sum = math::add_rn(sum, div(num, math::add_rn(kf, x2)));
    }
    sum
}

/// `terms` with `libm`'s `sinf` and `expf` and IEEE division.
#[kernel]
pub fn intrinsics_accurate(args: IntrinsicsArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        let y = terms(args.x.get(i), libm::sinf, libm::expf, |a, b| a / b);
        args.y.set(i, y);
    }
}

/// `terms` with `__sinf`, `__expf` and `__fdividef`.
#[kernel]
pub fn intrinsics_fast(args: IntrinsicsArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        let y = terms(args.x.get(i), math::sin_fast, math::exp_fast, math::div_fast);
        args.y.set(i, y);
    }
}

/// Coefficient `k` of the polynomial, `(-1)^k / (k + 1)` (the series of `ln(1 + x) / x`), rounded
/// to f32; the host's reference uses the same values.
pub const fn coefficient(k: usize) -> f32 {
    let c = 1.0 / (k as f32 + 1.0);
    if k.is_multiple_of(2) { c } else { -c }
}

/// The coefficients, lowest degree first.
pub const COEFFICIENTS: [f32; DEGREE + 1] = {
    let mut c = [0.0f32; DEGREE + 1];
    let mut k = 0;
    while k <= DEGREE {
        c[k] = coefficient(k);
        k += 1;
    }
    c
};

/// `y[i] = p(x[i])`, Horner's rule with one `fma.rn.f32` per step.
#[kernel]
pub fn horner_fused(args: IntrinsicsArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        let x = args.x.get(i);
        let mut y = COEFFICIENTS[DEGREE];
        for k in (0..DEGREE).rev() {
            y = math::fma(y, x, COEFFICIENTS[k]);
        }
        args.y.set(i, y);
    }
}

/// `y[i] = p(x[i])`, Horner's rule with `mul.rn.f32` then `add.rn.f32` per step (two roundings).
#[kernel]
pub fn horner_unfused(args: IntrinsicsArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        let x = args.x.get(i);
        let mut y = COEFFICIENTS[DEGREE];
        for k in (0..DEGREE).rev() {
            y = math::mul_add_unfused(y, x, COEFFICIENTS[k]);
        }
        args.y.set(i, y);
    }
}

/// Results per element of [`directed_rounding`]: `a + b` rounded to nearest, toward zero, up and
/// down, then `a * b` in the same four modes.
pub const ROUNDINGS: usize = 8;

/// Arguments of [`directed_rounding`]: `out[ROUNDINGS i + k]` is result `k` for `a[i]`, `b[i]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RoundingArgs<'a, T> {
    /// `ROUNDINGS` results per element of `a`.
    pub out: SliceMut<'a, T>,
    pub a: Slice<'a, T>,
    /// As long as `a`.
    pub b: Slice<'a, T>,
}

/// `a + b` and `a * b` in the four IEEE rounding modes.
#[kernel(f32, f64)]
pub fn directed_rounding<T: Real>(args: RoundingArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let (a, b) = (args.a.get(i), args.b.get(i));
        let results = [
            math::add_rn(a, b),
            math::add_rz(a, b),
            math::add_ru(a, b),
            math::add_rd(a, b),
            math::mul_rn(a, b),
            math::mul_rz(a, b),
            math::mul_ru(a, b),
            math::mul_rd(a, b),
        ];
        for (k, r) in results.into_iter().enumerate() {
            args.out.set(ROUNDINGS * i + k, r);
        }
    }
}

/// Results per element of [`flush_to_zero`]: `a + b` IEEE, `a + b` flushed, `a * b` IEEE,
/// `a * b` flushed.
pub const FLUSH_RESULTS: usize = 4;

/// Arguments of [`flush_to_zero`]: `out[FLUSH_RESULTS i + k]` is result `k` for `a[i]`, `b[i]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FlushArgs<'a> {
    /// `FLUSH_RESULTS` results per element of `a`.
    pub out: SliceMut<'a, f32>,
    pub a: Slice<'a, f32>,
    /// As long as `a`.
    pub b: Slice<'a, f32>,
}

/// `a + b` and `a * b` rounded to nearest, with subnormals kept (`add.rn.f32`) and flushed to
/// zero (`add.rn.ftz.f32`).
#[kernel]
pub fn flush_to_zero(args: FlushArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let (a, b) = (args.a.get(i), args.b.get(i));
        let results = [
            math::add_rn(a, b),
            math::add_ftz(a, b),
            math::mul_rn(a, b),
            math::mul_ftz(a, b),
        ];
        for (k, r) in results.into_iter().enumerate() {
            args.out.set(FLUSH_RESULTS * i + k, r);
        }
    }
}

/// Arguments of [`sincos_one_reduction`] and [`sin_cos_separate`]: `s[i] = sin(x[i])`,
/// `c[i] = cos(x[i])`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(s, c, x))]
pub struct SincosArgs<'a> {
    pub s: SliceMut<'a, f32>,
    pub c: SliceMut<'a, f32>,
    pub x: Slice<'a, f32>,
}

/// Sine and cosine from one range reduction (`Elementary::sincos`, CUDA's `sincosf`).
#[kernel]
pub fn sincos_one_reduction(args: SincosArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        let (s, c) = args.x.get(i).sincos();
        args.s.set(i, s);
        args.c.set(i, c);
    }
}

/// Sine and cosine from `libm`'s `sinf` and `cosf`, each with its own range reduction.
#[kernel]
pub fn sin_cos_separate(args: SincosArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        let x = args.x.get(i);
        args.s.set(i, libm::sinf(x));
        args.c.set(i, libm::cosf(x));
    }
}
