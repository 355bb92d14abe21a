//! `y = a*x + y`, fused as the kernel computes it.
use rayon::prelude::*;

/// `y[i] = fma(a, x[i], y[i])` in `f32`, for `i` below the shorter of `x` and `y`.
pub fn axpy_f32(a: f32, x: &[f32], y: &mut [f32]) {
    y.par_iter_mut().zip(x).for_each(|(y, &x)| *y = a.mul_add(x, *y));
}

/// `y[i] = fma(a, x[i], y[i])` in `f64`, for `i` below the shorter of `x` and `y`.
pub fn axpy_f64(a: f64, x: &[f64], y: &mut [f64]) {
    y.par_iter_mut().zip(x).for_each(|(y, &x)| *y = a.mul_add(x, *y));
}
