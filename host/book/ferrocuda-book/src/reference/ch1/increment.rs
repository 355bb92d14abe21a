//! `incrementTestCPU` (book §1.3.1): `a(i) = a(i) + b`; also the reference of the multi-block
//! and 2-D versions, which compute the same thing.
use rayon::prelude::*;

/// `a[i] += b` for every element, wrapping on overflow as the GPU's 32-bit add does.
pub fn increment(a: &mut [i32], b: i32) {
    a.par_iter_mut().for_each(|x| *x = x.wrapping_add(b));
}
