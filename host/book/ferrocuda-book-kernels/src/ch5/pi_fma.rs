//! ch5-pi-fma: the same count with `x² + y²` as the book's GPU computed it, `fma(y, y, x*x)`
//! (one rounding for the second square and the sum), which moves a handful of points that lie
//! within an ulp of the circle across it (book §5.2.1, Table 5.1).
use super::pi_cuf::{PiCountArgs, count_inside, norm2_separate};
use ferrocuda_device::math::{Rounded, fma, mul_rn};
use ferrocuda_device::prelude::*;

/// `x² + y²` as `fma(y, y, x*x)`: `x*x` rounded, then `y*y + x*x` rounded once (what the book's
/// GPU computed for the three points of Table 5.1).
#[inline(always)]
pub fn norm2_fma<T: Rounded>(x: T, y: T) -> T {
    fma(y, y, mul_rn(x, x))
}

/// The count of [`super::pi_cuf::pi_count`] with [`norm2_fma`].
///
/// Launch: as `pi_count`.
#[kernel(f32, f64)]
pub fn pi_count_fma<T: Real + Rounded>(args: PiCountArgs<'_, T>) {
    count_inside(args, norm2_fma::<T>)
}

/// Arguments of [`pi_fma_mismatches`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct MismatchArgs<'a, T> {
    /// `2N` uniforms, as in `PiCountArgs<'a>`.
    pub xy: Slice<'a, T>,
    /// One element: how many points the two roundings classify differently (zeroed by the host).
    pub count: SliceMut<'a, u32>,
    /// The first `indices.len()` such points' 0-based indices, in no particular order.
    pub indices: SliceMut<'a, u64>,
}

/// Lists the points that [`norm2_separate`] and [`norm2_fma`] put on different sides of the
/// circle: the rows of the book's Table 5.1.
///
/// Launch: any 1-D shape, no shared memory.
#[kernel(f32, f64)]
pub fn pi_fma_mismatches<T: Real + Rounded>(args: MismatchArgs<'_, T>) {
    let n = args.xy.len() / 2;
    let one = T::from_f64(1.0);
    for i in grid_stride_range(n) {
        let (x, y) = (args.xy.get(i), args.xy.get(i + n));
        if (norm2_separate(x, y) <= one) != (norm2_fma(x, y) <= one) {
            let slot = args.count.atomic_add(0, 1) as usize;
            if slot < args.indices.len() {
                args.indices.set(slot, i as u64);
            }
        }
    }
}
