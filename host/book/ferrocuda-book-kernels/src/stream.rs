//! The STREAM kernels (PGI article "CUDA Fortran Device Kernels"; McCalpin's STREAM): copy,
//! scale, add, triad, one element per thread, in single and double precision.
//!
//! The article writes triad as `c(i) = a(i) + b(i)*scalar`; the multiply-add is fused
//! explicitly, so the CPU reference (`f64::mul_add`) matches bit for bit.
use ferrocuda_device::prelude::*;

/// Arguments of [`stream_copy`] and [`stream_scale`]: `out = in` or `out = scalar * in`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(input, output))]
pub struct UnaryArgs<'a, T> {
    /// Input.
    pub input: Slice<'a, T>,
    /// Output, as long as `input`.
    pub output: SliceMut<'a, T>,
    /// The scalar of `scale` (unused by `copy`).
    pub scalar: T,
}

/// Arguments of [`stream_add`] and [`stream_triad`]: `c = a + b` or `c = a + b * scalar`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(a, b, c))]
pub struct BinaryArgs<'a, T> {
    /// First input.
    pub a: Slice<'a, T>,
    /// Second input, as long as `a`.
    pub b: Slice<'a, T>,
    /// Output, as long as `a`.
    pub c: SliceMut<'a, T>,
    /// The scalar of `triad` (unused by `add`).
    pub scalar: T,
}

impl<T> UnaryArgs<'_, T> {
    /// The elements the kernels write: the shorter view's length. Testing an index against it
    /// once lets the compiler drop the per-view bounds tests (each is a compare and a branch
    /// per element, 1.5% of a 4-byte copy's time on an H100).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.output.len().min(self.input.len())
    }

    /// True when there is nothing to do.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> BinaryArgs<'_, T> {
    /// The elements the kernels write: the shortest view's length (see [`UnaryArgs::len`]).
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

/// `output[i] = input[i]`.
#[kernel(f32, f64)]
pub fn stream_copy<T: Real>(args: UnaryArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.len() {
        args.output.set(i, args.input.get(i));
    }
}

/// `output[i] = scalar * input[i]`.
#[kernel(f32, f64)]
pub fn stream_scale<T: Real>(args: UnaryArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.len() {
        args.output.set(i, args.scalar * args.input.get(i));
    }
}

/// `c[i] = a[i] + b[i]`.
#[kernel(f32, f64)]
pub fn stream_add<T: Real>(args: BinaryArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.len() {
        args.c.set(i, args.a.get(i) + args.b.get(i));
    }
}

/// `c[i] = a[i] + b[i] * scalar`, fused.
#[kernel(f32, f64)]
pub fn stream_triad<T: Real + math::Rounded>(args: BinaryArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.len() {
        args.c.set(i, math::fma(args.b.get(i), args.scalar, args.a.get(i)));
    }
}

/// The article's anti-pattern: each thread updates 4 consecutive elements, so a warp's accesses
/// are 16 bytes apart and each load uses a quarter of every memory transaction ("only 25% of the
/// memory throughput"). Launch `ceil(n / 4)` threads.
#[kernel(f32, f64)]
pub fn stream_triad_four_per_thread<T: Real + math::Rounded>(args: BinaryArgs<'_, T>) {
    let first = 4 * global_idx_x();
    for i in first..(first + 4).min(args.len()) {
        args.c.set(i, math::fma(args.b.get(i), args.scalar, args.a.get(i)));
    }
}

/// The vectorised kernels: thread `i` owns elements `4i .. 4i+4`, like the anti-pattern above,
/// but moves them in 16-byte accesses, so a warp's loads are contiguous 512-byte runs (1 KiB for
/// `f64`) and each thread keeps four times the bytes in flight. Launch `ceil(n / 4)` threads. A
/// partial last chunk, or views that are not 16-byte aligned, take the scalar path.
#[inline(always)]
fn for_chunk(n: usize, aligned: bool, vector: impl FnOnce(usize), scalar: impl Fn(usize)) {
    let chunk = global_idx_x();
    if 4 * chunk + 4 <= n && aligned {
        vector(chunk);
    } else {
        for i in 4 * chunk..(4 * chunk + 4).min(n) {
            scalar(i);
        }
    }
}

/// [`stream_copy`], four elements per thread in 16-byte accesses.
#[kernel(f32, f64)]
pub fn stream_copy_vec4<T: Real>(args: UnaryArgs<'_, T>) {
    let (input, output) = (args.input, args.output);
    for_chunk(
        args.len(),
        input.is_aligned16() && output.is_aligned16(),
        |c| output.set4(c, input.get4(c)),
        |i| output.set(i, input.get(i)),
    );
}

/// [`stream_scale`], four elements per thread in 16-byte accesses.
#[kernel(f32, f64)]
pub fn stream_scale_vec4<T: Real>(args: UnaryArgs<'_, T>) {
    let (input, output, s) = (args.input, args.output, args.scalar);
    for_chunk(
        args.len(),
        input.is_aligned16() && output.is_aligned16(),
        |c| output.set4(c, input.get4(c).map(|x| s * x)),
        |i| output.set(i, s * input.get(i)),
    );
}

/// [`stream_add`], four elements per thread in 16-byte accesses.
#[kernel(f32, f64)]
pub fn stream_add_vec4<T: Real>(args: BinaryArgs<'_, T>) {
    let (a, b, c) = (args.a, args.b, args.c);
    for_chunk(
        args.len(),
        a.is_aligned16() && b.is_aligned16() && c.is_aligned16(),
        |k| {
            let (x, y) = (a.get4(k), b.get4(k));
            c.set4(k, core::array::from_fn(|j| x[j] + y[j]));
        },
        |i| c.set(i, a.get(i) + b.get(i)),
    );
}

/// [`stream_triad`], four elements per thread in 16-byte accesses.
#[kernel(f32, f64)]
pub fn stream_triad_vec4<T: Real + math::Rounded>(args: BinaryArgs<'_, T>) {
    let (a, b, c, s) = (args.a, args.b, args.c, args.scalar);
    for_chunk(
        args.len(),
        a.is_aligned16() && b.is_aligned16() && c.is_aligned16(),
        |k| {
            let (x, y) = (a.get4(k), b.get4(k));
            c.set4(k, core::array::from_fn(|j| math::fma(y[j], s, x[j])));
        },
        |i| c.set(i, math::fma(b.get(i), s, a.get(i))),
    );
}
