//! SGEMM on the CPU with rayon, `C = A B` for row-major `A` (`m x k`) and `B` (`k x n`), and the
//! check of a GPU product against it.
//!
//! Different summation orders give different f32 results. Whatever the order, and with or
//! without fused multiply-adds, a computed dot product of length `k` differs from the exact one
//! by at most `gamma_k * sum |a_ip| |b_pj|`, `gamma_k = k u / (1 - k u)`, `u = 2^-24` (Higham,
//! *Accuracy and Stability of Numerical Algorithms*, §3.1). Two computed products, the GPU's and
//! this one, therefore differ by at most `2 gamma_k (|A| |B|)_ij`: the per-element tolerance.
use ferrocuda::gpu::{Error, Result};
use ferrocuda::verify::Check;
use rayon::prelude::*;

/// `C = A B` in f32, rows in parallel, each row accumulated in `p` order (i-p-j, vectorisable),
/// and `|A| |B|`, the scale of each element's rounding error. Refuses an `A` of other than
/// `m * k` elements or a `B` of other than `k * n`.
pub fn sgemm(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize)) -> Result<(Vec<f32>, Vec<f32>)> {
    let (a_len, b_len) = (m.checked_mul(k), k.checked_mul(n));
    if a_len != Some(a.len()) || b_len != Some(b.len()) || m.checked_mul(n).is_none() {
        return Err(Error::InvalidArgument(format!(
            "an {m} x {k} by {k} x {n} product needs A of m * k and B of k * n elements, not {} and {}",
            a.len(),
            b.len()
        )));
    }
    let mut c = vec![0.0f32; m * n];
    let mut scale = vec![0.0f32; m * n];
    c.par_chunks_mut(n.max(1))
        .zip(scale.par_chunks_mut(n.max(1)))
        .enumerate()
        .for_each(|(i, (c_row, scale_row))| {
            for p in 0..k {
                let a_ip = a[i * k + p];
                let b_row = &b[p * n..(p + 1) * n];
                for ((c, s), &b_pj) in c_row.iter_mut().zip(scale_row.iter_mut()).zip(b_row) {
                    *c += a_ip * b_pj;
                    *s += (a_ip * b_pj).abs();
                }
            }
        });
    Ok((c, scale))
}

/// `2 gamma_k` (see the module header), with `gamma_k` of the reference's f32 `|A||B|` padded by
/// its own rounding (a factor `1 + gamma_k`, absorbed by using `2.01`).
pub fn tolerance_factor(k: usize) -> f64 {
    let ku = k as f64 * f64::powi(2.0, -24);
    2.01 * ku / (1.0 - ku)
}

/// Compares a GPU product with the reference: element `ij` passes when
/// `|gpu - cpu| <= tolerance_factor(k) * scale_ij` (zero for `k = 0`: both must be exactly 0).
/// `max_rel_err` reports the largest error relative to that bound's scale, `|A||B|`. Lengths
/// come from `gpu`: an element missing from `cpu` or `scale` counts as a mismatch.
pub fn check(what: &str, gpu: &[f32], cpu: &[f32], scale: &[f32], k: usize) -> Check {
    let factor = tolerance_factor(k);
    let mut check = Check {
        what: what.to_string(),
        len: gpu.len(),
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        mismatches: gpu.len().saturating_sub(cpu.len().min(scale.len())) + cpu.len().saturating_sub(gpu.len()),
        first_mismatch: None,
    };
    for (i, ((&g, &c), &s)) in gpu.iter().zip(cpu).zip(scale).enumerate() {
        let (g, c, s) = (g as f64, c as f64, s as f64);
        let err = (g - c).abs();
        check.max_abs_err = check.max_abs_err.max(err);
        if s > 0.0 {
            check.max_rel_err = check.max_rel_err.max(err / s);
        }
        if err.is_nan() || err > factor * s {
            check.mismatches += 1;
            check.first_mismatch.get_or_insert((i, g, c));
        }
    }
    check
}
