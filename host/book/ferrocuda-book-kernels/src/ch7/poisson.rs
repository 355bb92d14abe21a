//! The Poisson solver's kernels (book §7.4 and Appendix D.6, module `poisson_m`):
//! `real2complex1D`, `solve_poisson` and `complex2real`, around a 2-D C2C transform.
use ferrocuda_device::complex::{Complex, ComplexScalar};
use ferrocuda_device::prelude::*;

/// Arguments of [`real_to_complex`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RealToComplexArgs<'a, T: ComplexScalar> {
    /// The right-hand side.
    pub input: Slice<'a, T>,
    /// `(input, 0)`.
    pub output: SliceMut<'a, Complex<T>>,
}

/// `output = cmplx(input, 0)`, grid-stride over the array as one 1-D range (the book's
/// `real2complex1D<<<64,128>>>`).
#[kernel(f32, f64)]
pub fn real_to_complex<T: ComplexScalar>(args: RealToComplexArgs<'_, T>) {
    for i in grid_stride_range(args.output.len().min(args.input.len())) {
        args.output.set(i, Complex::new(args.input.get(i), T::default()));
    }
}

/// Arguments of [`solve_poisson`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SolvePoissonArgs<'a, T: ComplexScalar> {
    /// The transform of the right-hand side, `ny` rows of `nx`; replaced by the solution's.
    pub phi: SliceMut<'a, Complex<T>>,
    /// Wavenumbers along x (`nx` of them).
    pub kx: Slice<'a, T>,
    /// Wavenumbers along y (`ny` of them).
    pub ky: Slice<'a, T>,
}

/// `phi = -phi / (kx^2 + ky^2)`, with the divisor of the `(0, 0)` mode set to 1 (its value
/// is fixed afterwards by `complex2real`'s corner condition). One thread per element, 2-D.
#[kernel(f32, f64)]
pub fn solve_poisson<T: ComplexScalar>(args: SolvePoissonArgs<'_, T>) {
    let (i, j) = (global_idx_x(), global_idx_y());
    let (nx, ny) = (args.kx.len(), args.ky.len());
    if i < nx && j < ny && j * nx + i < args.phi.len() {
        let (kx, ky) = (args.kx.get(i), args.ky.get(j));
        let mut scale = kx * kx + ky * ky;
        if i == 0 && j == 0 {
            scale = T::from_f64(1.0);
        }
        args.phi
            .update(j * nx + i, |p| Complex::new(-p.re / scale, -p.im / scale));
    }
}

/// Arguments of [`complex_to_real`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ComplexToRealArgs<'a, T: ComplexScalar> {
    /// The unnormalized inverse transform.
    pub input: Slice<'a, Complex<T>>,
    /// `(real(input) - real(ref_sol)) / scale`.
    pub output: SliceMut<'a, T>,
    /// The reference value's location: element 0 of this slice (the book's `ref_sol`).
    pub ref_sol: Slice<'a, Complex<T>>,
    /// `N M`, the normalization.
    pub scale: T,
}

/// `output = (real(input) - real(ref_sol)) / (N M)`: normalizes and makes `u = 0` at the
/// corner. The book copies the corner to its own device variable first, so no thread reads a
/// value another overwrites; here `ref_sol` is that copy.
#[kernel(f32, f64)]
pub fn complex_to_real<T: ComplexScalar>(args: ComplexToRealArgs<'_, T>) {
    if args.ref_sol.is_empty() {
        return;
    }
    let reference = args.ref_sol.get(0).re;
    for i in grid_stride_range(args.output.len().min(args.input.len())) {
        args.output.set(i, (args.input.get(i).re - reference) / args.scale);
    }
}
