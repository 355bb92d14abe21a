//! Floating-point instructions with an explicit rounding mode (PTX ISA §9.7.3): round to
//! nearest (`.rn`), toward zero (`.rz`), toward +infinity (`.rp`, CUDA C's `_ru`) and toward
//! -infinity (`.rm`, CUDA C's `_rd`), with subnormals kept or flushed to zero (`.ftz`), and the
//! approximate transcendental instructions.
use core::arch::asm;

/// Arithmetic with an explicit rounding mode, which ptxas never contracts (PTX ISA §9.7.3):
/// `mul.rn` then `add.rn` stay two roundings, `fma.rn` is one.
macro_rules! float_op {
    ($name:ident, $ptx:literal, $t:ty, $reg:ident, ($($arg:ident),+)) => {
        #[doc = concat!("`", $ptx, "`.")]
        #[inline(always)]
        pub fn $name($($arg: $t),+) -> $t {
            let out: $t;
            // SAFETY: pure arithmetic.
            unsafe {
                asm!(
                    concat!($ptx, " {}", $(float_op!(@comma $arg)),+, ";"),
                    out($reg) out, $(in($reg) $arg),+, options(pure, nomem, nostack)
                )
            };
            out
        }
    };
    (@comma $arg:ident) => { ", {}" };
}
float_op!(mul_rn_f32, "mul.rn.f32", f32, reg32, (a, b));
float_op!(add_rn_f32, "add.rn.f32", f32, reg32, (a, b));
float_op!(mul_rn_f64, "mul.rn.f64", f64, reg64, (a, b));
float_op!(add_rn_f64, "add.rn.f64", f64, reg64, (a, b));
/// `fma.rn.f32`, through LLVM's `llvm.fma.f32` rather than inline PTX: always one rounding, and
/// LLVM's cost model sees one cheap instruction, so loops of them unroll (an inline-asm fma counts
/// as an opaque call, which kept the 64 accumulators of a register-tiled matrix multiply in
/// local memory).
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}
/// `fma.rn.f64`, as [`fma_rn_f32`].
#[inline(always)]
pub fn fma_rn_f64(a: f64, b: f64, c: f64) -> f64 {
    core::intrinsics::fmaf64(a, b, c)
}
float_op!(sin_approx_f32, "sin.approx.ftz.f32", f32, reg32, (a));
float_op!(cos_approx_f32, "cos.approx.ftz.f32", f32, reg32, (a));
float_op!(ex2_approx_f32, "ex2.approx.ftz.f32", f32, reg32, (a));
float_op!(lg2_approx_f32, "lg2.approx.ftz.f32", f32, reg32, (a));

// Directed rounding, CUDA C's `__fadd_rz`, `__fadd_ru`, ... (PTX ISA §9.7.3.1 `add`, §9.7.3.3
// `mul`: `.rz`, `.rp`, `.rm` round the exact result toward zero, +infinity, -infinity).
float_op!(add_rz_f32, "add.rz.f32", f32, reg32, (a, b));
float_op!(add_ru_f32, "add.rp.f32", f32, reg32, (a, b));
float_op!(add_rd_f32, "add.rm.f32", f32, reg32, (a, b));
float_op!(mul_rz_f32, "mul.rz.f32", f32, reg32, (a, b));
float_op!(mul_ru_f32, "mul.rp.f32", f32, reg32, (a, b));
float_op!(mul_rd_f32, "mul.rm.f32", f32, reg32, (a, b));
float_op!(add_rz_f64, "add.rz.f64", f64, reg64, (a, b));
float_op!(add_ru_f64, "add.rp.f64", f64, reg64, (a, b));
float_op!(add_rd_f64, "add.rm.f64", f64, reg64, (a, b));
float_op!(mul_rz_f64, "mul.rz.f64", f64, reg64, (a, b));
float_op!(mul_ru_f64, "mul.rp.f64", f64, reg64, (a, b));
float_op!(mul_rd_f64, "mul.rm.f64", f64, reg64, (a, b));
// Flush to zero (`.ftz`, f32 only: PTX ISA §9.7.3): subnormal inputs and results become zeros
// of the same sign, nvcc's `-ftz=true` and the book's `-Mcuda=flushz`.
float_op!(add_rn_ftz_f32, "add.rn.ftz.f32", f32, reg32, (a, b));
float_op!(mul_rn_ftz_f32, "mul.rn.ftz.f32", f32, reg32, (a, b));

/// `div.approx.ftz.f32`: `__fdividef` (PTX ISA §9.7.3.8), about 2 ulp, `a * (1/b)` in hardware.
#[inline(always)]
pub fn div_approx_f32(a: f32, b: f32) -> f32 {
    let out: f32;
    // SAFETY: pure arithmetic.
    unsafe {
        asm!("div.approx.ftz.f32 {}, {}, {};", out(reg32) out, in(reg32) a, in(reg32) b, options(pure, nomem, nostack))
    };
    out
}
