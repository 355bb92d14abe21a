//! The constant-memory examples: `a + b`, and the polynomial by Horner's rule with one fused
//! multiply-add per step, as the kernels round.
use rayon::prelude::*;

/// `a[i] + b`, wrapping on overflow as the GPU's 32-bit add does.
pub fn increment(a: &[i32], b: i32) -> Vec<i32> {
    a.par_iter().map(|&x| x.wrapping_add(b)).collect()
}

/// `y[i] = p(x[i])`, `coeffs` highest degree first, `y <- fma(y, x, c)`.
pub fn poly(x: &[f32], coeffs: &[f32]) -> Vec<f32> {
    x.par_iter()
        .map(|&x| coeffs.iter().fold(0.0f32, |y, &c| libm::fmaf(y, x, c)))
        .collect()
}
