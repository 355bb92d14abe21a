//! The pi examples on the CPU (book §5.2, §5.2.1, §5.3), with rayon: the count of points inside
//! the quarter circle under both roundings of `x² + y²`, and the points they disagree on.
//!
//! Written with the host's own arithmetic, independent of the kernels: Rust never contracts
//! `x * x + y * y` on the host, and `mul_add` is the correctly rounded fused multiply-add.
use crate::reference::HostFloat;
use rayon::prelude::*;

/// `f32` or `f64` for the pi references: both roundings of `x² + y²`.
pub trait PiReference: HostFloat {
    /// `x * x + y * y`: each product rounded, then the sum (the book's CPU).
    fn norm2_separate(x: Self, y: Self) -> Self {
        x * x + y * y
    }
    /// `fma(y, y, x * x)` (the book's GPU with FMA, Table 5.1).
    fn norm2_fma(x: Self, y: Self) -> Self {
        y.mul_add(y, x * x)
    }
}

impl<T: HostFloat> PiReference for T {}

/// `norm2(x, y) <= 1`: the point is inside the quarter circle.
fn inside<T: PiReference>(norm2: T) -> bool {
    norm2 <= T::from_f64(1.0)
}

/// The points of the book's layout: `x(i) = xy[i]`, `y(i) = xy[i + N]`, for `xy` of `2N`
/// uniforms (a trailing odd element belongs to no point).
fn points<T: PiReference>(xy: &[T]) -> impl IndexedParallelIterator<Item = (T, T)> + '_ {
    let (x, y) = xy.split_at(xy.len() / 2);
    x.par_iter().zip(y).map(|(&x, &y)| (x, y))
}

/// The number of points with `norm2(x, y) <= 1`.
pub fn count_inside<T: PiReference>(xy: &[T], norm2: fn(T, T) -> T) -> u64 {
    points(xy).filter(|&(x, y)| inside(norm2(x, y))).count() as u64
}

/// The 0-based indices of the points the two roundings put on different sides of the circle,
/// ascending.
pub fn mismatches<T: PiReference>(xy: &[T]) -> Vec<u64> {
    points(xy)
        .enumerate()
        .filter(|&(_, (x, y))| inside(T::norm2_separate(x, y)) != inside(T::norm2_fma(x, y)))
        .map(|(i, _)| i as u64)
        .collect()
}
