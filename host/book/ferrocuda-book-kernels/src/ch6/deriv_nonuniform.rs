//! The derivatives on a stretched (nonuniform) grid (book §6.1.4): the kernels of `deriv.rs`
//! with per-point coefficients `ax(i) = 4/5 dsinv scale(i)`, .. (`dsinv = mx - 1`, `scale(i) =
//! ds/dx` at point i), read from four arrays of `m` values per direction, either in the constant
//! bank (the book's `constant` arrays `ax_c(mx) .. dz_c(mz)`) or in global memory (its `device`
//! arrays).
//!
//! Where a warp's lanes need different coefficients the two places behave differently: the
//! constant cache serves one address per request and serialises the others (x: 32 points per
//! warp, 32 addresses; y and z with 4-wide tiles: 8; with 32-wide tiles: one), while L1 serves a
//! warp's 32 addresses in one request.
use super::deriv::{
    Coefficients, DerivArgs, L_PENCILS, S_PENCILS, STENCIL, Y, Z, deriv_x_body, deriv_yz_body, extents,
};
use ferrocuda_device::constant::{CONSTANT_BANK_WORDS, ConstantValue, constant_load};
use ferrocuda_device::prelude::*;

/// Constant-bank word of the coefficient arrays of the direction being differentiated: `a(0..m)`,
/// `b(0..m)`, `c(0..m)`, `d(0..m)`, values of `T` (one word each in f32, two in f64). Even, for
/// f64. The host writes the direction's arrays before its launches.
pub const NONUNIFORM_WORD: usize = 256;

/// The most points per line whose coefficient arrays fit in the constant bank, for values of
/// `words` 4-byte words: 4032 in f32, 2016 in f64.
pub const fn max_constant_points(words: usize) -> usize {
    (CONSTANT_BANK_WORDS - NONUNIFORM_WORD) / (4 * words)
}

/// Arguments of the kernels whose coefficients are in global memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(f, df))]
pub struct DerivGlobalArgs<'a, T> {
    /// The function, `mx * my * mz` values.
    pub f: Slice<'a, T>,
    /// Its derivative, as many values.
    pub df: SliceMut<'a, T>,
    /// The direction's four coefficient arrays, `a(0..m), b(0..m), c(0..m), d(0..m)`: `4 m`
    /// values, `m` the extent along the derivative.
    pub coeffs: Slice<'a, T>,
    pub mx: u32,
    pub my: u32,
    pub mz: u32,
}

/// Coefficient arrays of a line of `m` points in the constant bank, from [`NONUNIFORM_WORD`].
#[derive(Clone, Copy)]
pub struct ConstantArrays {
    m: usize,
}

impl<T: ConstantValue> Coefficients<T> for ConstantArrays {
    #[inline(always)]
    fn at(&self, n: usize) -> [T; 4] {
        core::array::from_fn(|k| constant_load(NONUNIFORM_WORD + (k * self.m + n) * T::WORDS))
    }
}

/// Coefficient arrays of a line of `m` points in global memory.
#[derive(Clone, Copy)]
pub struct GlobalArrays<'a, T> {
    coeffs: Slice<'a, T>,
    m: usize,
}

impl<'a, T> GlobalArrays<'a, T> {
    /// The arrays in `coeffs`, after checking that it holds `4 m` values (traps otherwise): the
    /// one test that keeps every read in bounds.
    #[inline(always)]
    pub fn new(coeffs: Slice<'a, T>, m: usize) -> Self {
        if coeffs.len() != 4 * m {
            ferrocuda_device::global::bounds_failure()
        }
        Self { coeffs, m }
    }
}

impl<T: Element> Coefficients<T> for GlobalArrays<'_, T> {
    #[inline(always)]
    fn at(&self, n: usize) -> [T; 4] {
        // SAFETY: `n < m` (each kernel's points lie on the line) and `coeffs` holds `4 m` values
        // (`GlobalArrays::new`).
        core::array::from_fn(|k| unsafe { self.coeffs.get_unchecked(k * self.m + n) })
    }
}

/// The x derivative on the stretched grid, tile `mx x 4`, coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_x_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, S_PENCILS, STENCIL>(args.f, args.df, e, ConstantArrays { m: e.0 as usize });
}

/// The x derivative on the stretched grid, tile `mx x 32`, coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_x_l_pencils_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, L_PENCILS, STENCIL>(args.f, args.df, e, ConstantArrays { m: e.0 as usize });
}

/// The y derivative on the stretched grid, tile `4 x my`, coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_y_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, S_PENCILS>(args.f, args.df, e, ConstantArrays { m: e.1 as usize });
}

/// The y derivative on the stretched grid, tile `32 x my`, coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_y_l_pencils_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, L_PENCILS>(args.f, args.df, e, ConstantArrays { m: e.1 as usize });
}

/// The z derivative on the stretched grid, tile `4 x mz` (x-z), coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_z_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, S_PENCILS>(args.f, args.df, e, ConstantArrays { m: e.2 as usize });
}

/// The z derivative on the stretched grid, tile `32 x mz` (x-z), coefficients in the constant bank.
#[kernel(f32, f64)]
pub fn deriv_z_l_pencils_nonuniform_constant<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, L_PENCILS>(args.f, args.df, e, ConstantArrays { m: e.2 as usize });
}

/// The x derivative on the stretched grid, tile `mx x 4`, coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_x_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, S_PENCILS, STENCIL>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.0 as usize));
}

/// The x derivative on the stretched grid, tile `mx x 32`, coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_x_l_pencils_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, L_PENCILS, STENCIL>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.0 as usize));
}

/// The y derivative on the stretched grid, tile `4 x my`, coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_y_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, S_PENCILS>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.1 as usize));
}

/// The y derivative on the stretched grid, tile `32 x my`, coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_y_l_pencils_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, L_PENCILS>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.1 as usize));
}

/// The z derivative on the stretched grid, tile `4 x mz` (x-z), coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_z_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, S_PENCILS>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.2 as usize));
}

/// The z derivative on the stretched grid, tile `32 x mz` (x-z), coefficients in global memory.
#[kernel(f32, f64)]
pub fn deriv_z_l_pencils_nonuniform_global<T: Real + ConstantValue>(args: DerivGlobalArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, L_PENCILS>(args.f, args.df, e, GlobalArrays::new(args.coeffs, e.2 as usize));
}
