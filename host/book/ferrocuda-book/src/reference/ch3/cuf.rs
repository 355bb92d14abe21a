//! The CUF kernel loops (book §3.7): the increment (1-D and 2-D alike, element by element) and
//! the sum.
use rayon::prelude::*;

/// `a[i] + b`, wrapping on overflow as the GPU's 32-bit add does.
pub use super::constant_increment::increment;

/// The sum of `a`, exactly (in 64 bits).
pub fn sum(a: &[i32]) -> i64 {
    a.par_iter().map(|&x| i64::from(x)).sum()
}
