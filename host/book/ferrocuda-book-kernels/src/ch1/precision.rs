//! One kernel source in single and double precision (book §1.4.1.1, the `precision_m` module).
use ferrocuda_device::prelude::*;

/// Arguments of [`precision_axpy`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PrecisionAxpyArgs<'a, T> {
    /// Input.
    pub x: Slice<'a, T>,
    /// Updated in place.
    pub y: SliceMut<'a, T>,
    /// The scale.
    pub a: T,
}

/// `y[i] = a * x[i] + y[i]` in the precision `T`, instantiated as `precision_axpy_f32` and
/// `precision_axpy_f64` from this one source, as the book switches `fp_kind`.
///
/// The multiply-add is fused explicitly, so the CPU reference can match it bit for bit.
#[kernel(f32, f64)]
pub fn precision_axpy<T: Real + math::Rounded>(args: PrecisionAxpyArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.y.len().min(args.x.len()) {
        args.y.update(i, |y| math::fma(args.a, args.x.get(i), y));
    }
}
