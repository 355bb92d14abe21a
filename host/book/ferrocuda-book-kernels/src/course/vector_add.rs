//! Vector addition (IT4I course, hands-on 2, `vecAddKernel`).
use ferrocuda_device::prelude::*;

/// Arguments of [`vec_add_kernel`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, b, c))]
pub struct VecAddArgs<'a> {
    pub a: Slice<'a, f32>,
    pub b: Slice<'a, f32>,
    /// Output, as long as `a` and `b`.
    pub c: SliceMut<'a, f32>,
}

impl VecAddArgs<'_> {
    /// The elements written: the shortest view's length (one bounds test for all three views).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.c.len().min(self.a.len()).min(self.b.len())
    }

    /// True when there is nothing to do.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `c[i] = a[i] + b[i]` for `i < n`.
#[kernel]
pub fn vec_add_kernel(args: VecAddArgs<'_>) {
    let i = global_idx_x();
    if i < args.len() {
        args.c.set(i, args.a.get(i) + args.b.get(i));
    }
}
