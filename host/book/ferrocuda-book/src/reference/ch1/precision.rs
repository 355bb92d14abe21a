//! `y = a*x + y`, fused as the kernel computes it.
use crate::reference::HostFloat;
use rayon::prelude::*;

/// `y[i] = fma(a, x[i], y[i])` in `T`, for `i` below the shorter of `x` and `y`.
pub fn axpy<T: HostFloat>(a: T, x: &[T], y: &mut [T]) {
    y.par_iter_mut().zip(x).for_each(|(y, &x)| *y = a.mul_add(x, *y));
}
