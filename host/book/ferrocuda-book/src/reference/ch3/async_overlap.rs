//! `testAsync`'s kernel on the CPU (book §3.1.3), with the host's own `sin_cos` (not the `libm`
//! routine the kernel runs), so it checks the kernel rather than repeating it.
use rayon::prelude::*;

/// `a[i] += sqrt(sin(i)^2 + cos(i)^2)` for every element: adds 1 within rounding.
pub fn kernel(a: &mut [f32]) {
    a.par_iter_mut().enumerate().for_each(|(i, a)| {
        let (s, c) = (i as f32).sin_cos();
        *a += (s * s + c * c).sqrt();
    });
}
