//! The intrinsics examples in f64, the yardstick both f32 variants are measured against, and in
//! f32 as the accurate kernel rounds (for the tests).
use book_kernels::ch3::intrinsics::{COEFFICIENTS, DEGREE, TERMS};
use ferrocuda::footprint::try_with_capacity;
use ferrocuda::gpu::Result;
use rayon::prelude::*;

/// `items` in a new `Vec` of `len`, allocated fallibly.
fn collect<T: Send>(len: usize, items: impl IndexedParallelIterator<Item = T>) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len)?;
    v.par_extend(items);
    Ok(v)
}

/// `sum over k = 1..=TERMS of sin(k x) exp(-k x / 8) / (k + x^2)` in f64.
pub fn terms_f64(x: &[f32]) -> Result<Vec<f64>> {
    collect(
        x.len(),
        x.par_iter().map(|&x| {
            let x = x as f64;
            (1..=TERMS)
                .map(|k| {
                    let kx = k as f64 * x;
                    kx.sin() * (-kx / 8.0).exp() / (k as f64 + x * x)
                })
                .sum()
        }),
    )
}

/// The same sum in f32 with `libm`'s `sinf`, `expf` and IEEE division, each operation rounded
/// as in `intrinsics_accurate`.
pub fn terms_f32(x: &[f32]) -> Result<Vec<f32>> {
    collect(
        x.len(),
        x.par_iter().map(|&x| {
            let x2 = x * x;
            let mut sum = 0.0f32;
            for k in 1..=TERMS {
                let kf = k as f32;
                let kx = kf * x;
                let num = libm::sinf(kx) * libm::expf(kx * -0.125);
                sum += num / (kf + x2);
            }
            sum
        }),
    )
}

/// The Horner kernels' polynomial in f64, from the same f32 coefficients.
pub fn horner_f64(x: &[f32]) -> Result<Vec<f64>> {
    collect(
        x.len(),
        x.par_iter().map(|&x| {
            let x = x as f64;
            (0..DEGREE)
                .rev()
                .fold(COEFFICIENTS[DEGREE] as f64, |y, k| y * x + COEFFICIENTS[k] as f64)
        }),
    )
}

/// The polynomial in f32, fused (`fused`: one rounding per step) or not (two), as the kernels.
pub fn horner_f32(x: &[f32], fused: bool) -> Result<Vec<f32>> {
    collect(
        x.len(),
        x.par_iter().map(|&x| {
            (0..DEGREE).rev().fold(COEFFICIENTS[DEGREE], |y, k| {
                if fused {
                    libm::fmaf(y, x, COEFFICIENTS[k])
                } else {
                    y * x + COEFFICIENTS[k]
                }
            })
        }),
    )
}
