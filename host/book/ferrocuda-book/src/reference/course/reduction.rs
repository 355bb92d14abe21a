//! The sum the course's reductions are checked against: in f64, with rayon.
use rayon::prelude::*;

/// The sum of the f32 values in f64 (exact for the example's 0/1 values).
pub fn sum(input: &[f32]) -> f64 {
    input.par_iter().map(|&v| f64::from(v)).sum()
}
