//! The CPU reference of [`gemm`](super::gemm): every product summed in f64 (exact for BF16,
//! FP16 and TF32 operands of modest size), rows of `C` in parallel (rayon).
use super::{GemmElement, Layout};
use rayon::prelude::*;

/// A host matrix: `rows x cols` elements of `data`, laid out as `layout` says, `ld` apart.
#[derive(Clone, Copy, Debug)]
pub struct HostMatrix<'a, T> {
    pub data: &'a [T],
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    pub layout: Layout,
}

impl<T: Copy> HostMatrix<'_, T> {
    fn at(&self, r: usize, c: usize) -> T {
        match self.layout {
            Layout::RowMajor => self.data[r * self.ld + c],
            Layout::ColMajor => self.data[c * self.ld + r],
        }
    }
}

/// `C = alpha A B + beta C` on the CPU, `C` given as its data and (ld, layout); `tf32` reads f32
/// operands as the tensor cores do (the low 13 bits of each ignored). Panics when the shapes do
/// not agree or a matrix does not lie in its data (a reference for tests).
pub fn gemm_cpu<T: GemmElement>(
    alpha: f32,
    a: HostMatrix<'_, T>,
    b: HostMatrix<'_, T>,
    beta: f32,
    c: &mut [f32],
    (ldc, c_layout): (usize, Layout),
    tf32: bool,
) {
    assert_eq!(a.cols, b.rows, "A's columns and B's rows");
    let (m, n, k) = (a.rows, b.cols, a.cols);
    let value = |x: T| {
        let v = x.to_f64();
        if tf32 {
            f32::from_bits((v as f32).to_bits() & !0x1fff) as f64
        } else {
            v
        }
    };
    let products: Vec<f32> = (0..m * n)
        .into_par_iter()
        .map(|i| {
            let (r, j) = (i / n, i % n);
            let sum: f64 = (0..k).map(|kk| value(a.at(r, kk)) * value(b.at(kk, j))).sum();
            sum as f32
        })
        .collect();
    for r in 0..m {
        for j in 0..n {
            let at = match c_layout {
                Layout::RowMajor => r * ldc + j,
                Layout::ColMajor => j * ldc + r,
            };
            let product = alpha * products[r * n + j];
            c[at] = if beta == 0.0 { product } else { product + beta * c[at] };
        }
    }
}
