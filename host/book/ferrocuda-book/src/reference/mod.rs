//! CPU references, with rayon, one module per example id (as in `examples`).
pub mod ch1;
pub mod ch2;
pub mod ch3;
pub mod ch5;
pub mod ch6;
pub mod ch7;
pub mod course;
pub mod stream;
pub mod tutorial;

use ferrocuda::footprint::try_with_capacity;
use ferrocuda::gpu::Result;
use rayon::prelude::*;

/// `items` in a new `Vec`, allocated fallibly (never an allocation abort).
pub(crate) fn try_collect<T: Send>(items: impl IndexedParallelIterator<Item = T>) -> Result<Vec<T>> {
    let mut v = try_with_capacity(items.len())?;
    items.collect_into_vec(&mut v);
    Ok(v)
}

/// A copy of `s`, allocated fallibly.
pub(crate) fn try_copy<T: Clone>(s: &[T]) -> Result<Vec<T>> {
    let mut v = try_with_capacity(s.len())?;
    v.extend_from_slice(s);
    Ok(v)
}

/// `f32` or `f64` as the references compute in it: `std`'s fused multiply-add and `libm`'s
/// elementary functions (the same on every host), independent of the kernels' own.
pub trait HostFloat: ferrocuda::device::real::Real + Into<f64> + Send + Sync {
    /// Machine epsilon, as f64.
    const MACHINE_EPSILON: f64;
    /// `self * a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Arc sine.
    fn asin(self) -> Self;
    /// Exponential.
    fn exp(self) -> Self;
}

macro_rules! host_float {
    ($($t:ident: $cos:path, $asin:path, $exp:path;)*) => {$(
        impl HostFloat for $t {
            const MACHINE_EPSILON: f64 = $t::EPSILON as f64;
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
            fn cos(self) -> Self {
                $cos(self)
            }
            fn asin(self) -> Self {
                $asin(self)
            }
            fn exp(self) -> Self {
                $exp(self)
            }
        }
    )*};
}
host_float! {
    f32: libm::cosf, libm::asinf, libm::expf;
    f64: libm::cos, libm::asin, libm::exp;
}
