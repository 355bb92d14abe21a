//! Floating-point arithmetic with the rounding the caller chooses.
//!
//! The NVPTX backend fuses `a * b + c` into one `fma.rn` wherever it can (as nvcc does by
//! default), so plain Rust arithmetic in a kernel may round once where the CPU rounds twice. The
//! book's §5.2.1 shows the consequence; these functions make the choice explicit:
//! [`fma`] always fuses, [`mul_add_unfused`] never does (PTX `mul.rn`/`add.rn` are never
//! contracted, PTX ISA §9.7.3.1). Approximate `*_fast` functions are CUDA C's `__sinf` family.
//! Directed rounding ([`add_rz`], [`add_ru`], [`add_rd`], [`mul_rz`], ...) is CUDA C's
//! `__fadd_rz` / `__dadd_ru` family (the book's §3.6.1), and [`add_ftz`] / [`mul_ftz`] are
//! `-ftz=true` (the book's `-Mcuda=flushz`) for one operation; the simulator rounds them exactly,
//! in software.
//! Beside them, [`dp4a`]: CUDA C's `__dp4a`, the integer dot product of four bytes, and
//! [`byte_perm`]: CUDA C's `__byte_perm`, any four of eight bytes in one instruction.
use super::arch;

/// A floating-point type with explicitly rounded operations.
pub trait Rounded: Copy {
    /// `a * b` rounded (`__fmul_rn`): never fused into a following add.
    fn mul_rn(a: Self, b: Self) -> Self;
    /// `a + b` rounded (`__fadd_rn`): never fused with a preceding multiply.
    fn add_rn(a: Self, b: Self) -> Self;
    /// `a * b + c` rounded once (`__fmaf_rn`).
    fn fma(a: Self, b: Self, c: Self) -> Self;
    /// `a * b` rounded, then `+ c` rounded (`__fadd_rn(__fmul_rn(a, b), c)`).
    fn mul_add_unfused(a: Self, b: Self, c: Self) -> Self;
    /// `a + b` rounded toward zero (`__fadd_rz`, `__dadd_rz`).
    fn add_rz(a: Self, b: Self) -> Self;
    /// `a + b` rounded up, toward +infinity (`__fadd_ru`, `__dadd_ru`).
    fn add_ru(a: Self, b: Self) -> Self;
    /// `a + b` rounded down, toward -infinity (`__fadd_rd`, `__dadd_rd`).
    fn add_rd(a: Self, b: Self) -> Self;
    /// `a * b` rounded toward zero (`__fmul_rz`, `__dmul_rz`).
    fn mul_rz(a: Self, b: Self) -> Self;
    /// `a * b` rounded up (`__fmul_ru`, `__dmul_ru`).
    fn mul_ru(a: Self, b: Self) -> Self;
    /// `a * b` rounded down (`__fmul_rd`, `__dmul_rd`).
    fn mul_rd(a: Self, b: Self) -> Self;
}

/// The directed roundings of `Rounded` for one type, each one `arch` function.
macro_rules! directed {
    ($($name:ident => $arch:ident),+ $(,)?) => {
        $(
            #[inline(always)]
            fn $name(a: Self, b: Self) -> Self {
                arch::$arch(a, b)
            }
        )+
    };
}
impl Rounded for f32 {
    #[inline(always)]
    fn mul_rn(a: Self, b: Self) -> Self {
        arch::mul_rn_f32(a, b)
    }
    #[inline(always)]
    fn add_rn(a: Self, b: Self) -> Self {
        arch::add_rn_f32(a, b)
    }
    #[inline(always)]
    fn fma(a: Self, b: Self, c: Self) -> Self {
        arch::fma_rn_f32(a, b, c)
    }
    #[inline(always)]
    fn mul_add_unfused(a: Self, b: Self, c: Self) -> Self {
        Self::add_rn(Self::mul_rn(a, b), c)
    }
    directed!(add_rz => add_rz_f32, add_ru => add_ru_f32, add_rd => add_rd_f32,
        mul_rz => mul_rz_f32, mul_ru => mul_ru_f32, mul_rd => mul_rd_f32);
}
impl Rounded for f64 {
    #[inline(always)]
    fn mul_rn(a: Self, b: Self) -> Self {
        arch::mul_rn_f64(a, b)
    }
    #[inline(always)]
    fn add_rn(a: Self, b: Self) -> Self {
        arch::add_rn_f64(a, b)
    }
    #[inline(always)]
    fn fma(a: Self, b: Self, c: Self) -> Self {
        arch::fma_rn_f64(a, b, c)
    }
    #[inline(always)]
    fn mul_add_unfused(a: Self, b: Self, c: Self) -> Self {
        Self::add_rn(Self::mul_rn(a, b), c)
    }
    directed!(add_rz => add_rz_f64, add_ru => add_ru_f64, add_rd => add_rd_f64,
        mul_rz => mul_rz_f64, mul_ru => mul_ru_f64, mul_rd => mul_rd_f64);
}

/// `a * b`, rounded on its own: a later `+` cannot fuse with it.
#[inline(always)]
pub fn mul_rn<T: Rounded>(a: T, b: T) -> T {
    T::mul_rn(a, b)
}
/// `a + b`, rounded on its own: it cannot fuse with an earlier `*`.
#[inline(always)]
pub fn add_rn<T: Rounded>(a: T, b: T) -> T {
    T::add_rn(a, b)
}
/// `a * b + c` with one rounding.
#[inline(always)]
pub fn fma<T: Rounded>(a: T, b: T, c: T) -> T {
    T::fma(a, b, c)
}
/// `a * b + c` with two roundings, as a CPU without FMA computes it.
#[inline(always)]
pub fn mul_add_unfused<T: Rounded>(a: T, b: T, c: T) -> T {
    T::mul_add_unfused(a, b, c)
}
/// `a + b` rounded toward zero: the float of largest magnitude not beyond the exact sum
/// (`add.rz`, PTX ISA §9.7.3.1).
#[inline(always)]
pub fn add_rz<T: Rounded>(a: T, b: T) -> T {
    T::add_rz(a, b)
}
/// `a + b` rounded up: the least float not below the exact sum (`add.rp`).
#[inline(always)]
pub fn add_ru<T: Rounded>(a: T, b: T) -> T {
    T::add_ru(a, b)
}
/// `a + b` rounded down: the greatest float not above the exact sum (`add.rm`).
#[inline(always)]
pub fn add_rd<T: Rounded>(a: T, b: T) -> T {
    T::add_rd(a, b)
}
/// `a * b` rounded toward zero (`mul.rz`, PTX ISA §9.7.3.3).
#[inline(always)]
pub fn mul_rz<T: Rounded>(a: T, b: T) -> T {
    T::mul_rz(a, b)
}
/// `a * b` rounded up (`mul.rp`).
#[inline(always)]
pub fn mul_ru<T: Rounded>(a: T, b: T) -> T {
    T::mul_ru(a, b)
}
/// `a * b` rounded down (`mul.rm`).
#[inline(always)]
pub fn mul_rd<T: Rounded>(a: T, b: T) -> T {
    T::mul_rd(a, b)
}
/// `a + b` rounded to nearest with subnormals flushed: a subnormal operand counts as a zero of
/// its sign, and a subnormal result becomes one (`add.rn.ftz.f32`; the GPU has no `.ftz` for
/// `f64`). What nvcc's `-ftz=true` does to every `f32` operation.
#[inline(always)]
pub fn add_ftz(a: f32, b: f32) -> f32 {
    arch::add_rn_ftz_f32(a, b)
}
/// `a * b` rounded to nearest with subnormals flushed (`mul.rn.ftz.f32`), as [`add_ftz`].
#[inline(always)]
pub fn mul_ftz(a: f32, b: f32) -> f32 {
    arch::mul_rn_ftz_f32(a, b)
}
/// `__sinf`: hardware sine (`sin.approx.ftz.f32`), absolute error about 2^-21.4 on [-pi, pi],
/// growing outside it.
#[inline(always)]
pub fn sin_fast(x: f32) -> f32 {
    arch::sin_approx_f32(x)
}
/// `__cosf`: hardware cosine (`cos.approx.ftz.f32`).
#[inline(always)]
pub fn cos_fast(x: f32) -> f32 {
    arch::cos_approx_f32(x)
}
/// `__expf`: `2^(x log2 e)` through `ex2.approx.ftz.f32`.
#[inline(always)]
pub fn exp_fast(x: f32) -> f32 {
    arch::ex2_approx_f32(x * core::f32::consts::LOG2_E)
}
/// `__logf`: `log2(x) ln 2` through `lg2.approx.ftz.f32`.
#[inline(always)]
pub fn ln_fast(x: f32) -> f32 {
    arch::lg2_approx_f32(x) * core::f32::consts::LN_2
}
/// `__fdividef`: `a / b` through `div.approx.ftz.f32`, about 2 ulp (0 for `|b|` in
/// 2^126..2^128, where CUDA's `__fdividef` also returns 0).
#[inline(always)]
pub fn div_fast(a: f32, b: f32) -> f32 {
    arch::div_approx_f32(a, b)
}

/// `__float2uint_rz`: `x` rounded toward zero, saturated to `0..=u32::MAX`, NaN to 0, which is
/// what Rust's `x as u32` computes, in one `cvt.rzi.u32.f32` (PTX saturates its conversions):
/// `as` costs four more instructions on the GPU, LLVM's generic saturation around the
/// conversion.
///
/// ```
/// use ferrocuda_device::math::f32_to_u32_rz;
/// assert_eq!(f32_to_u32_rz(2.9), 2);
/// assert_eq!(f32_to_u32_rz(-1.0), 0);
/// assert_eq!(f32_to_u32_rz(f32::NAN), 0);
/// assert_eq!(f32_to_u32_rz(1e20), u32::MAX);
/// ```
#[inline(always)]
pub fn f32_to_u32_rz(x: f32) -> u32 {
    arch::cvt_rzi_u32_f32(x)
}

/// `__dp4a` (unsigned): `c` plus the dot product of the four bytes of `a` with the four bytes of
/// `b`, `c + a.byte[0] * b.byte[0] + ... + a.byte[3] * b.byte[3]`, wrapping at 2^32.
///
/// One `dp4a.u32.u32` (PTX ISA, integer arithmetic instructions; sm_61 and newer): four
/// multiply-adds of bytes in one instruction, for 8-bit image filters (course-convolution) and
/// byte sums (`b = 0x01010101`).
///
/// ```
/// use ferrocuda_device::math::dp4a;
/// assert_eq!(dp4a(0x0403_0201, 0x0101_0101, 10), 20); // 10 + 1 + 2 + 3 + 4
/// assert_eq!(dp4a(0xff00_00ff, 0x0200_0003, 0), 3 * 255 + 2 * 255);
/// ```
#[inline(always)]
pub fn dp4a(a: u32, b: u32, c: u32) -> u32 {
    arch::dp4a_u32(a, b, c)
}

/// `__byte_perm(x, y, selector)`: byte `i` of the result is byte `selector >> 4i & 7` of the
/// eight bytes `y:x` (bytes 0..4 of `x`, then 4..8 of `y`); when bit `4i + 3` of `selector` is
/// set, it is instead that byte's top bit repeated (PTX's sign-replicate mode).
///
/// One `prmt.b32` (PTX ISA, data movement instructions): it extracts or spreads bytes where
/// shifts and masks take two or three instructions, and LLVM does not fold it into bit-field
/// extracts (which ptxas expands into a shift and a sign-extend) as it folds `(x >> 8) & 3`.
///
/// ```
/// use ferrocuda_device::math::byte_perm;
/// assert_eq!(byte_perm(0x4433_2211, 0, 0x4442), 0x33); // byte 2 of x, zero-extended
/// assert_eq!(byte_perm(0x4433_2211, 0, 0x4341), 0x0044_0022); // bytes 1 and 3 as 16-bit halves
/// assert_eq!(byte_perm(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
/// assert_eq!(byte_perm(0x0000_0080, 0, 0x8888), 0xffff_ffff); // sign of byte 0
/// ```
#[inline(always)]
pub fn byte_perm(x: u32, y: u32, selector: u32) -> u32 {
    arch::prmt_b32(x, y, selector)
}
