//! STREAM on the CPU: the triad element, and the arrays after the benchmark loop.
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// `a + b * scalar` rounded once, as the triad kernel computes it.
pub fn triad_element<T: Real>(a: T, b: T, scalar: T) -> T {
    T::from_f64(b.to_f64().mul_add(scalar.to_f64(), a.to_f64()))
}

/// One element after `iterations` rounds of STREAM's loop, `c = a; b = s*c; c = a + b;
/// a = b + s*c`; returns `(a, b, c)`.
pub fn sequence_element<T: Real>(mut a: T, mut b: T, mut c: T, scalar: T, iterations: usize) -> (T, T, T) {
    for _ in 0..iterations {
        c = a;
        b = scalar * c;
        c = a + b;
        a = triad_element(b, c, scalar);
    }
    (a, b, c)
}

/// The three arrays after `iterations` rounds of the loop (each element evolves alone). Refuses
/// arrays of different lengths.
pub fn sequence<T: Real + Send + Sync>(a: &[T], b: &[T], c: &[T], scalar: T, iterations: usize) -> Result<[Vec<T>; 3]> {
    if a.len() != b.len() || a.len() != c.len() {
        return Err(Error::InvalidArgument(format!(
            "STREAM's arrays have one length, not {}, {} and {}",
            a.len(),
            b.len(),
            c.len()
        )));
    }
    let (mut ra, mut rb, mut rc) = (Vec::new(), Vec::new(), Vec::new());
    let results: Vec<(T, T, T)> = (0..a.len())
        .into_par_iter()
        .map(|i| sequence_element(a[i], b[i], c[i], scalar, iterations))
        .collect();
    for (x, y, z) in results {
        ra.push(x);
        rb.push(y);
        rc.push(z);
    }
    Ok([ra, rb, rc])
}

/// `c[i] = a[i] + b[i] * scalar`, fused, for `i` below the shorter of `a` and `b`.
pub fn triad<T: Real + Send + Sync>(a: &[T], b: &[T], scalar: T) -> Vec<T> {
    a.par_iter()
        .zip(b)
        .map(|(&a, &b)| triad_element(a, b, scalar))
        .collect()
}
