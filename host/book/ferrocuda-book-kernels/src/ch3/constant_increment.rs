//! Constant memory (book §3.2.5, `incrementTest` with `integer, constant :: b`): the increment
//! `b` read from a `__constant__` variable the host sets, from a kernel parameter, or from global
//! memory; then coefficients every thread reads (a broadcast) from each of the three places.
//!
//! Where each read lands in PTX: the constant bank with `ld.const` (book: `ld.const.u32`), the
//! parameter with `ld.param` (parameters live in constant bank 0, `c[0x0][..]` in SASS), global
//! memory with `ld.global` (read-only: `ld.global.nc`).
use ferrocuda_device::constant::constant_load;
use ferrocuda_device::prelude::*;

/// The constant-bank word holding `b` (the book's `integer, constant :: b`).
pub const B_WORD: usize = 0;
/// Coefficients of the polynomial kernels.
pub const COEFFS: usize = 64;
/// The constant-bank words holding the coefficients: `COEFF_WORD .. COEFF_WORD + COEFFS`.
pub const COEFF_WORD: usize = 16;

/// Arguments of [`increment_constant`]: only the array, as in the book.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ConstantIncrementArgs<'a> {
    pub a: SliceMut<'a, i32>,
}

/// Arguments of [`increment_global`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct GlobalIncrementArgs<'a> {
    pub a: SliceMut<'a, i32>,
    /// One element: the increment.
    pub b: Slice<'a, i32>,
}

/// `a[i] += b`, `b` from the constant bank (word [`B_WORD`]); one block of `a.len()` threads or
/// more, as in the book (with a bounds test).
#[kernel]
pub fn increment_constant(args: ConstantIncrementArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let b: i32 = constant_load(B_WORD);
        args.a.update(i, |x| x + b);
    }
}

/// `a[i] += b[0]`: the increment from global memory.
#[kernel]
pub fn increment_global(args: GlobalIncrementArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let b = args.b.get(0);
        args.a.update(i, |x| x + b);
    }
}

/// Arguments of [`poly_constant`]: coefficients in the constant bank.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PolyArgs<'a> {
    pub y: SliceMut<'a, f32>,
    pub x: Slice<'a, f32>,
}

/// Arguments of [`poly_param`]: coefficients in the parameter block.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PolyParamArgs<'a> {
    pub y: SliceMut<'a, f32>,
    pub x: Slice<'a, f32>,
    pub c: [f32; COEFFS],
}

/// Arguments of [`poly_global`]: coefficients in global memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PolyGlobalArgs<'a> {
    pub y: SliceMut<'a, f32>,
    pub x: Slice<'a, f32>,
    /// [`COEFFS`] coefficients.
    pub c: Slice<'a, f32>,
}

/// Horner's rule over the coefficients `coeff(0), ..., coeff(COEFFS - 1)`, highest degree
/// first, one explicit fma per step (so the simulator rounds as the GPU does).
/// Spelled out (`unroll!`), so that every coefficient index is a constant: a rolled loop would
/// index the parameter block at run time, which makes LLVM copy it to local memory.
#[inline(always)]
fn horner(x: f32, coeff: impl Fn(usize) -> f32) -> f32 {
    const { assert!(COEFFS == 64) };
    let mut y = 0.0f32;
    unroll!(hi in [0, 1, 2, 3, 4, 5, 6, 7] => {
        unroll!(lo in [0, 1, 2, 3, 4, 5, 6, 7] => {
            y = math::fma(y, x, coeff(8 * hi + lo));
        });
    });
    y
}

/// `y[i] = p(x[i])`, the coefficients read from the constant bank: every lane reads the same
/// word at each step, one broadcast per warp.
#[kernel]
pub fn poly_constant(args: PolyArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        args.y.set(i, horner(args.x.get(i), |k| constant_load(COEFF_WORD + k)));
    }
}

/// [`poly_constant`] with the coefficients in the kernel's parameter block (`ld.param`).
#[kernel]
pub fn poly_param(args: PolyParamArgs<'_>) {
    let i = global_idx_x();
    if i < args.y.len() {
        args.y.set(i, horner(args.x.get(i), |k| args.c[k]));
    }
}

/// [`poly_constant`] with the coefficients in global memory (`ld.global`, served from L1 after
/// the first warp).
#[kernel]
pub fn poly_global(args: PolyGlobalArgs<'_>) {
    // One test for all coefficients, so the loop's reads carry no bounds test of their own.
    if args.c.len() < COEFFS {
        ferrocuda_device::global::bounds_failure()
    }
    let i = global_idx_x();
    if i < args.y.len() {
        args.y.set(i, horner(args.x.get(i), |k| args.c.get(k)));
    }
}
