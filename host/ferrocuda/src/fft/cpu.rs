//! The CPU reference of [`crate::fft`]: `rustfft` (complex) and `realfft` (real), in `f64`, with
//! cuFFT's layouts and conventions (unnormalised; R2C keeps `nx / 2 + 1` values per row).
//!
//! Multi-dimensional transforms apply the 1-D one along each axis, rows in parallel (rayon).
use super::{Direction, Shape};
use crate::gpu::{Error, Result};
use rayon::prelude::*;
use realfft::RealFftPlanner;
use realfft::num_complex::Complex as NumComplex;
use rustfft::FftPlanner;

/// A complex number of the reference (`num_complex::Complex<f64>`, rustfft's element).
pub type C64 = NumComplex<f64>;

/// `values` widened to the reference's `f64` complex numbers.
pub fn to_c64<T: super::FftFloat>(values: &[super::Complex<T>]) -> Vec<C64> {
    values.iter().map(|c| C64::new(c.re.to_f64(), c.im.to_f64())).collect()
}

/// `values` rounded to device complex numbers of `T`.
pub fn from_c64<T: super::FftFloat>(values: &[C64]) -> Vec<super::Complex<T>> {
    values
        .iter()
        .map(|c| super::Complex::new(T::from_f64(c.re), T::from_f64(c.im)))
        .collect()
}

fn check_len(what: &str, got: usize, expected: usize) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "the reference {what} of this shape takes {expected} values, not {got}"
        )))
    }
}

/// The complex transform of `batch` arrays of `shape` (row-major, innermost last), in place.
pub fn c2c(shape: &Shape, data: &mut [C64], direction: Direction) -> Result<()> {
    check_len("C2C", data.len(), shape.complex_len())?;
    let mut planner = FftPlanner::<f64>::new();
    let dims = shape.dims();
    for axis in 0..dims.len() {
        let fft = match direction {
            Direction::Forward => planner.plan_fft_forward(dims[axis]),
            Direction::Inverse => planner.plan_fft_inverse(dims[axis]),
        };
        along_axis(data, dims, axis, |line| fft.process(line));
    }
    Ok(())
}

/// Applies `f` to every line of `data` along `axis` (copying strided lines out and back).
fn along_axis(data: &mut [C64], dims: &[usize], axis: usize, f: impl Fn(&mut [C64]) + Sync + Send) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let block = n * inner;
    if inner == 1 {
        data.par_chunks_mut(n).for_each(f);
        return;
    }
    data.par_chunks_mut(block).for_each(|array| {
        let mut line = vec![C64::default(); n];
        for start in 0..inner {
            for (i, v) in line.iter_mut().enumerate() {
                *v = array[start + i * inner];
            }
            f(&mut line);
            for (i, v) in line.iter().enumerate() {
                array[start + i * inner] = *v;
            }
        }
    });
}

/// The real-to-complex transform of `batch` real arrays of `shape`: `nx / 2 + 1` values per row.
pub fn r2c(shape: &Shape, input: &[f64]) -> Result<Vec<C64>> {
    check_len("R2C", input.len(), shape.real_len())?;
    let nx = shape.nx();
    let half = nx / 2 + 1;
    let fft = RealFftPlanner::<f64>::new().plan_fft_forward(nx);
    let mut out = vec![C64::default(); shape.rows() * half];
    out.par_chunks_mut(half)
        .zip(input.par_chunks(nx))
        .try_for_each(|(spectrum, row)| {
            let mut row = row.to_vec();
            fft.process(&mut row, spectrum)
                .map_err(|e| Error::InvalidArgument(format!("realfft: {e}")))
        })?;
    // The outer axes are complex transforms of the half spectrum.
    let outer = shape.with_nx(half);
    outer_axes(&outer, &mut out, Direction::Forward);
    Ok(out)
}

/// The complex-to-real transform (unnormalised, `n` times the real array whose R2C is `input`).
/// As cuFFT, the imaginary parts of the values at `k = 0` and `k = nx / 2` are ignored.
pub fn c2r(shape: &Shape, input: &[C64]) -> Result<Vec<f64>> {
    let nx = shape.nx();
    let half = nx / 2 + 1;
    check_len("C2R", input.len(), shape.rows() * half)?;
    let mut spectrum = input.to_vec();
    let outer = shape.with_nx(half);
    outer_axes(&outer, &mut spectrum, Direction::Inverse);
    let fft = RealFftPlanner::<f64>::new().plan_fft_inverse(nx);
    let mut out = vec![0.0; shape.real_len()];
    out.par_chunks_mut(nx)
        .zip(spectrum.par_chunks_mut(half))
        .for_each(|(row, values)| {
            values[0].im = 0.0;
            if nx.is_multiple_of(2) {
                values[half - 1].im = 0.0;
            }
            // Infallible: the lengths are the plan's and the two imaginary parts are zero.
            let _ = fft.process(values, row);
        });
    Ok(out)
}

/// The complex transforms along every axis but the innermost.
fn outer_axes(shape: &Shape, data: &mut [C64], direction: Direction) {
    let mut planner = FftPlanner::<f64>::new();
    let dims = shape.dims();
    for axis in 0..dims.len() - 1 {
        let fft = match direction {
            Direction::Forward => planner.plan_fft_forward(dims[axis]),
            Direction::Inverse => planner.plan_fft_inverse(dims[axis]),
        };
        along_axis(data, dims, axis, |line| fft.process(line));
    }
}

/// `||got - want||_2 / ||want||_2` (the absolute norm when `want` is zero).
pub fn relative_l2_error(got: &[C64], want: &[C64]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (g, w) in got.iter().zip(want) {
        diff += (g - w).norm_sqr();
        norm += w.norm_sqr();
    }
    if norm == 0.0 { diff.sqrt() } else { (diff / norm).sqrt() }
}

/// `||got - want||_2 / ||want||_2` of real values.
pub fn relative_l2_error_real(got: &[f64], want: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (g, w) in got.iter().zip(want) {
        diff += (g - w) * (g - w);
        norm += w * w;
    }
    if norm == 0.0 { diff.sqrt() } else { (diff / norm).sqrt() }
}
