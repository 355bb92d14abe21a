//! The elementwise kernels of book §7.1-§7.3: the `(-1)^(i+1)` pre-multiplication that puts a
//! spectrum in natural order (§7.1), the spectral derivative's `i k` or `-k^2` (§7.2,
//! `fft_derivative`) and the convolution's pointwise product (§7.3, `fftOverlap`).
use ferrocuda_device::complex::{Complex, ComplexScalar};
use ferrocuda_device::prelude::*;

/// Arguments of [`alternate_sign`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AlternateSignArgs<'a, T: ComplexScalar> {
    /// Rows of `nx`, multiplied in place.
    pub data: SliceMut<'a, Complex<T>>,
    /// Row length (the array's length for 1-D).
    pub nx: u32,
}

/// `data[j][i] *= (-1)^(i + j)` (0-based; the book's 1-based `(-1)^(i+1)` in 1-D is the same
/// sign), so that a forward transform comes out with `k = 0` in the middle (Solomon & Breckon).
#[kernel(f32, f64)]
pub fn alternate_sign<T: ComplexScalar>(args: AlternateSignArgs<'_, T>) {
    let nx = args.nx as usize;
    for idx in grid_stride_range(args.data.len()) {
        if nx != 0 && ((idx % nx) + (idx / nx)) % 2 == 1 {
            args.data.update(idx, |c| Complex::new(-c.re, -c.im));
        }
    }
}

/// Arguments of [`spectral_derivative`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SpectralDerivativeArgs<'a, T: ComplexScalar> {
    /// The forward transform, replaced by the derivative's (normalized) transform.
    pub data: SliceMut<'a, Complex<T>>,
    /// The wavenumber of each element (`len == data.len()`).
    pub kx: Slice<'a, T>,
    /// The transform length, the normalization.
    pub n: T,
    /// 1: first derivative (`i k`), 2: second (`-k^2`).
    pub order: u32,
}

/// `data[i] = cmplx(0, kx(i)) * data[i] / n` (first derivative, as the book's CUF kernel:
/// the product `(0 + i k)(a + i b) = (-k b) + i (k a)` first, then each part divided by `n`),
/// or `data[i] = -kx(i)^2 * data[i] / n` (second derivative).
#[kernel(f32, f64)]
pub fn spectral_derivative<T: ComplexScalar>(args: SpectralDerivativeArgs<'_, T>) {
    for i in grid_stride_range(args.data.len().min(args.kx.len())) {
        let k = args.kx.get(i);
        let n = args.n;
        if args.order == 1 {
            args.data.update(i, |c| Complex::new(-(k * c.im) / n, (k * c.re) / n));
        } else {
            let factor = -(k * k);
            args.data
                .update(i, |c| Complex::new((factor * c.re) / n, (factor * c.im) / n));
        }
    }
}

/// Arguments of [`convolve_planes`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ConvolvePlanesArgs<'a> {
    /// The transform of series A.
    pub a: Slice<'a, Complex<f32>>,
    /// The transform of series B, replaced by `a * b * scale`.
    pub b: SliceMut<'a, Complex<f32>>,
    /// `1 / (nx ny)`.
    pub scale: f32,
}

/// `b = a * b * scale` elementwise (book §7.3's CUF kernel, complex single precision only as
/// the book's `fftOverlap`).
#[kernel]
pub fn convolve_planes(args: ConvolvePlanesArgs<'_>) {
    for i in grid_stride_range(args.b.len().min(args.a.len())) {
        let a = args.a.get(i);
        args.b.update(i, |b| (a * b).scale(args.scale));
    }
}
