//! The CPU reference of ch7-fft-convolution (book §7.3): the circular 2-D convolution of each
//! plane of A with the same plane of B, by rustfft in f64, as `IFFT(FFT(A) FFT(B)) / (nx ny)`.
use crate::reference::try_copy;
use ferrocuda::fft::cpu::{self, C64};
use ferrocuda::fft::{Direction, Shape};
use ferrocuda::gpu::Result;
use rayon::prelude::*;

/// The convolutions of `planes` planes of `ny x nx`, plane after plane in `a` and `b`.
pub fn convolve(a: &[C64], b: &[C64], ny: usize, nx: usize, planes: usize) -> Result<Vec<C64>> {
    let shape = Shape::new(&[ny, nx], planes)?;
    let (mut fa, mut fb) = (try_copy(a)?, try_copy(b)?);
    cpu::c2c(&shape, &mut fa, Direction::Forward)?;
    cpu::c2c(&shape, &mut fb, Direction::Forward)?;
    let scale = 1.0 / (nx * ny) as f64;
    fb.par_iter_mut().zip(&fa).for_each(|(b, a)| *b = *a * *b * scale);
    cpu::c2c(&shape, &mut fb, Direction::Inverse)?;
    Ok(fb)
}
