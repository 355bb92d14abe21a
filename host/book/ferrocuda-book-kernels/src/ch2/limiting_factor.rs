//! Base, memory-only and math-only kernels, to find what limits a kernel (book §2.2,
//! `limitingFactor`). The `_fast` variants use the hardware sine, as `-Mcuda=fastmath` does.
use ferrocuda_device::prelude::*;

/// Arguments of [`base`], [`base_fast`] and [`memory`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct LimitingFactorArgs<'a> {
    /// Output.
    pub a: SliceMut<'a, f32>,
    /// Input, as long as `a`.
    pub b: Slice<'a, f32>,
}

impl LimitingFactorArgs<'_> {
    /// The elements written: the shorter view's length (one bounds test for both views).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    /// True when there is nothing to do.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Arguments of [`math`](fn@math) and [`math_fast`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct MathArgs<'a> {
    /// Output, written only when `sin(b) * flag == 1`, which never holds for `flag = 0`.
    pub a: SliceMut<'a, f32>,
    /// The sine's argument.
    pub b: f32,
    /// 0 at run time; the compiler cannot know it, so it must compute the sine.
    pub flag: i32,
}

/// `a[i] = sin(b[i])`: the memory traffic of [`memory`] and the math of [`math`](fn@math).
#[kernel]
pub fn base(args: LimitingFactorArgs<'_>) {
    let i = global_idx_x();
    if i < args.len() {
        args.a.set(i, args.b.get(i).sin());
    }
}

/// [`base`] with the hardware sine (`__sinf`).
#[kernel]
pub fn base_fast(args: LimitingFactorArgs<'_>) {
    let i = global_idx_x();
    if i < args.len() {
        args.a.set(i, math::sin_fast(args.b.get(i)));
    }
}

/// `a[i] = b[i]`: the memory traffic alone.
#[kernel]
pub fn memory(args: LimitingFactorArgs<'_>) {
    let i = global_idx_x();
    if i < args.len() {
        args.a.set(i, args.b.get(i));
    }
}

/// `v = sin(b); if v * flag == 1 { a[i] = v }`: the math alone, the store never happens.
#[kernel]
pub fn math(args: MathArgs<'_>) {
    let i = global_idx_x();
    let v = args.b.sin();
    if i < args.a.len() && v * args.flag as f32 == 1.0 {
        args.a.set(i, v);
    }
}

/// [`math`](fn@math) with the hardware sine (`__sinf`).
#[kernel]
pub fn math_fast(args: MathArgs<'_>) {
    let i = global_idx_x();
    let v = math::sin_fast(args.b);
    if i < args.a.len() && v * args.flag as f32 == 1.0 {
        args.a.set(i, v);
    }
}
