//! The local-memory kernels' sums: `t[k] = x + k`, then 32 steps of `j -> (j * stride + 3) mod 32`
//! adding `t[j]`, in the kernels' order (so the f32 result is bit-identical).
use book_kernels::ch3::localmem::PRIVATE_LEN;
use rayon::prelude::*;

/// `a[i]` for `x[i]` and the walk's multiplier `stride`, for `i` below the shorter of `a` and
/// `x`.
pub fn localmem(a: &mut [f32], x: &[f32], stride: u32) {
    a.par_iter_mut().zip(x).for_each(|(a, &x)| {
        let (mut j, mut sum) = (0u32, 0.0f32);
        for _ in 0..PRIVATE_LEN {
            j = j.wrapping_mul(stride).wrapping_add(3) % PRIVATE_LEN as u32;
            sum += x + j as f32;
        }
        *a = sum;
    });
}
