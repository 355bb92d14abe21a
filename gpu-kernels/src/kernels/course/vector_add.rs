//! Vector addition (IT4I course, hands-on 2, `vecAddKernel`).
use crate::prelude::*;

/// Arguments of [`vec_add_kernel`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VecAddArgs {
    pub a: Slice<f32>,
    pub b: Slice<f32>,
    /// Output, as long as `a` and `b`.
    pub c: SliceMut<f32>,
}

/// `c[i] = a[i] + b[i]` for `i < n`.
#[kernel]
pub fn vec_add_kernel(args: VecAddArgs) {
    let i = global_idx_x();
    if i < args.c.len() {
        args.c.set(i, args.a.get(i) + args.b.get(i));
    }
}
