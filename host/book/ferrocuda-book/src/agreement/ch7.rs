//! Book chapter 7's elementwise kernels (§7.1-§7.4) on both backends, on seeded inputs of
//! awkward lengths: the sign flip, the spectral derivative's multiplications and the Poisson
//! kernels exactly (single roundings, no multiply-add to contract), the convolution's complex
//! product within a few f32 epsilons (the GPU contracts `a b - c d` into an FMA).
use super::{Comparison, flatten};
use crate::examples::ch7::fft_convolution::THREADS_PER_BLOCK as CONVOLVE_THREADS;
use crate::examples::ch7::{Ch7Float, THREADS_PER_BLOCK};
use book_kernels::ch7::poisson::{ComplexToRealArgs, RealToComplexArgs, SolvePoissonArgs};
use book_kernels::ch7::spectral::{AlternateSignArgs, ConvolvePlanes, ConvolvePlanesArgs, SpectralDerivativeArgs};
use ferrocuda::fft::Complex;
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::Tolerance;

/// Every chapter-7 kernel; the generic ones in f32 and f64.
pub(super) fn ch7(c: &mut Comparison) -> Result<()> {
    typed::<f32>(c)?;
    typed::<f64>(c)?;
    // One f32 product and one FMA apart, on values below 4: a few epsilons of 4.
    let tolerance = Tolerance {
        abs: 4.0 * 4.0 * f32::EPSILON as f64,
        rel: 0.0,
    };
    c.compare("convolve_planes", tolerance, |gpu| {
        let n = 1000;
        let a_d = gpu.upload(&values::<f32>(n, 1))?;
        let mut b_d = gpu.upload(&values::<f32>(n, 2))?;
        let args = ConvolvePlanesArgs {
            a: a_d.view(),
            b: b_d.view_mut(),
            scale: 1.0 / 3.0,
        };
        crate::kernels(gpu)?.launch(ConvolvePlanes, LaunchShape::cover_1d(n, CONVOLVE_THREADS)?, args)?;
        Ok(flatten(gpu.download(&b_d)?))
    })
}

/// Seeded complex values in [-1, 1).
fn values<T: Ch7Float>(n: usize, seed: usize) -> Vec<Complex<T>> {
    let v = |i: usize| T::from_f64(((i * 7919 + seed * 104_729) % 2003) as f64 / 1001.5 - 1.0);
    (0..n).map(|i| Complex::new(v(2 * i), v(2 * i + 1))).collect()
}

fn typed<T: Ch7Float>(c: &mut Comparison) -> Result<()> {
    let name = if T::EPSILON < 1e-10 { "f64" } else { "f32" };
    let (nx, ny) = (48, 33);
    c.compare(&format!("alternate_sign_{name}"), Tolerance::EXACT, |gpu| {
        let mut data_d = gpu.upload(&values::<T>(nx * ny, 3))?;
        let args = AlternateSignArgs {
            data: data_d.view_mut(),
            nx: nx as u32,
        };
        T::alternate_sign(gpu, LaunchShape::cover_1d(nx * ny, THREADS_PER_BLOCK)?, args)?;
        Ok(flatten(gpu.download(&data_d)?))
    })?;
    for order in [1, 2] {
        c.compare(
            &format!("spectral_derivative_{name}_order{order}"),
            Tolerance::EXACT,
            |gpu| {
                let n = 257;
                let mut data_d = gpu.upload(&values::<T>(n, 4))?;
                let kx: Vec<T> = (0..n).map(|i| T::from_f64(i as f64 - 128.0)).collect();
                let kx_d = gpu.upload(&kx)?;
                let args = SpectralDerivativeArgs {
                    data: data_d.view_mut(),
                    kx: kx_d.view(),
                    n: T::from_f64(n as f64),
                    order,
                };
                T::spectral_derivative(gpu, LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?, args)?;
                Ok(flatten(gpu.download(&data_d)?))
            },
        )?;
    }
    c.compare(&format!("poisson_kernels_{name}"), Tolerance::EXACT, |gpu| {
        poisson::<T>(gpu, nx, ny)
    })
}

/// `real_to_complex`, `solve_poisson` and `complex_to_real` in a row, the book's launches.
fn poisson<T: Ch7Float>(gpu: &Gpu, nx: usize, ny: usize) -> Result<Vec<T>> {
    let rhs: Vec<T> = values::<T>(nx * ny, 5).into_iter().map(|c| c.re).collect();
    let rhs_d = gpu.upload(&rhs)?;
    let waves = |n: usize| -> Vec<T> {
        (0..n)
            .map(|i| T::from_f64(6.25 * (i as f64 - (n / 2) as f64) + 0.5))
            .collect()
    };
    let (kx_d, ky_d) = (gpu.upload(&waves(nx))?, gpu.upload(&waves(ny))?);
    let mut phi_d = gpu.zeros::<Complex<T>>(nx * ny)?;
    let mut u_d = gpu.zeros::<T>(nx * ny)?;
    let args = RealToComplexArgs {
        input: rhs_d.view(),
        output: phi_d.view_mut(),
    };
    T::real_to_complex(gpu, LaunchShape::new((64, 1, 1), (128, 1, 1)), args)?;
    let args = SolvePoissonArgs {
        phi: phi_d.view_mut(),
        kx: kx_d.view(),
        ky: ky_d.view(),
    };
    T::solve_poisson(gpu, LaunchShape::cover_2d(nx, ny, (16, 16))?, args)?;
    let args = ComplexToRealArgs {
        input: phi_d.view(),
        output: u_d.view_mut(),
        ref_sol: phi_d.view(),
        scale: T::from_f64((nx * ny) as f64),
    };
    T::complex_to_real(gpu, LaunchShape::cover_1d(nx * ny, 256)?, args)?;
    let mut out = flatten(gpu.download(&phi_d)?);
    out.extend(gpu.download(&u_d)?);
    Ok(out)
}
