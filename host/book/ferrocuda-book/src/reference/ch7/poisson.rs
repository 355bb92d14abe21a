//! The CPU reference of ch7-poisson (book §7.4, Appendix D.6): the same spectral solve in f64
//! with rustfft, step for step as the GPU's (`real2complex`, forward, `solve_poisson`, inverse,
//! `complex2real` with the corner value subtracted).
use crate::reference::try_collect;
use ferrocuda::fft::cpu::{self, C64};
use ferrocuda::fft::{Direction, Shape};
use ferrocuda::gpu::{Error, Result};
use rayon::prelude::*;

/// `u` on `ny` rows of `nx` from the right-hand side `rhs` and the wavenumbers `kx` (`nx`) and
/// `ky` (`ny`).
pub fn solve(rhs: &[f64], kx: &[f64], ky: &[f64]) -> Result<Vec<f64>> {
    let (nx, ny) = (kx.len(), ky.len());
    if nx.checked_mul(ny) != Some(rhs.len()) {
        return Err(Error::InvalidArgument(format!(
            "a Poisson right-hand side of {} values is not {ny} rows of {nx}",
            rhs.len()
        )));
    }
    let shape = Shape::new(&[ny, nx], 1)?;
    let mut phi = try_collect(rhs.par_iter().map(|&v| C64::new(v, 0.0)))?;
    cpu::c2c(&shape, &mut phi, Direction::Forward)?;
    phi.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        for (i, p) in row.iter_mut().enumerate() {
            let scale = if i == 0 && j == 0 {
                1.0
            } else {
                kx[i] * kx[i] + ky[j] * ky[j]
            };
            *p = C64::new(-p.re / scale, -p.im / scale);
        }
    });
    cpu::c2c(&shape, &mut phi, Direction::Inverse)?;
    let corner = phi[0].re;
    let count = (nx * ny) as f64;
    try_collect(phi.par_iter().map(|p| (p.re - corner) / count))
}
