//! STREAM on the CPU: the triad element, and the arrays after the benchmark loop, a range of
//! elements at a time (each element evolves alone, so a chunk needs only its own initial values).
use crate::reference::try_collect;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::try_vec;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;
use std::ops::Range;

/// `a + b * scalar` rounded once, as the triad kernel computes it.
pub fn triad_element<T: Real>(a: T, b: T, scalar: T) -> T {
    T::from_f64(b.to_f64().mul_add(scalar.to_f64(), a.to_f64()))
}

/// `a + b * scalar` rounded twice, as McCalpin's C loop computes it on a CPU (Rust never fuses
/// it): the CPU STREAM's triad (`stream --cpu`), which a libm `fma` call would slow down.
pub fn triad_element_unfused<T: Real>(a: T, b: T, scalar: T) -> T {
    a + b * scalar
}

/// One element after `iterations` rounds of STREAM's loop, `c = a; b = s*c; c = a + b;
/// a = b + s*c`, the triad rounded as `triad` does; returns `(a, b, c)`.
pub fn sequence_element<T: Real>(
    mut a: T,
    mut b: T,
    mut c: T,
    scalar: T,
    iterations: usize,
    triad: impl Fn(T, T, T) -> T,
) -> (T, T, T) {
    for _ in 0..iterations {
        c = a;
        b = scalar * c;
        c = a + b;
        a = triad(b, c, scalar);
    }
    (a, b, c)
}

/// Elements `range` of the three arrays after `iterations` rounds of the loop, from the initial
/// values `initial(i) = (a[i], b[i], c[i])`, the triad rounded as `triad` does; the host holds
/// only `range.len()` elements per array.
pub fn sequence_range<T: Real + Send + Sync>(
    range: Range<usize>,
    initial: impl Fn(usize) -> (T, T, T) + Sync,
    scalar: T,
    iterations: usize,
    triad: impl Fn(T, T, T) -> T + Sync,
) -> Result<[Vec<T>; 3]> {
    let zero = T::from_f64(0.0);
    let len = range.len();
    let (mut ra, mut rb, mut rc) = (try_vec(len, zero)?, try_vec(len, zero)?, try_vec(len, zero)?);
    ra.par_iter_mut()
        .zip(rb.par_iter_mut())
        .zip(rc.par_iter_mut())
        .enumerate()
        .for_each(|(k, ((a, b), c))| {
            let (a0, b0, c0) = initial(range.start + k);
            (*a, *b, *c) = sequence_element(a0, b0, c0, scalar, iterations, &triad);
        });
    Ok([ra, rb, rc])
}

/// `c[i] = a[i] + b[i] * scalar`, fused; refuses arrays of different lengths.
pub fn triad<T: Real + Send + Sync>(a: &[T], b: &[T], scalar: T) -> Result<Vec<T>> {
    if a.len() != b.len() {
        return Err(Error::InvalidArgument(format!(
            "the triad's arrays have one length, not {} and {}",
            a.len(),
            b.len()
        )));
    }
    try_collect(a.par_iter().zip(b).map(|(&a, &b)| triad_element(a, b, scalar)))
}
