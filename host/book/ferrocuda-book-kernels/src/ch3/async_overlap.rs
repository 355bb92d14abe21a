//! The kernel of `testAsync` (book §3.1.3, module `kernels_m`): an "obfuscated way of
//! calculating the value 1.0", sized so its time is comparable to the copies around it on the
//! book's GPUs. The file is `async_overlap.rs` because `async` is a Rust keyword.
use ferrocuda_device::elementary::Elementary;
use ferrocuda_device::prelude::*;

/// Arguments of [`kernel`](fn@kernel).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AsyncArgs<'a> {
    /// The whole array `a`; each launch updates its own chunk.
    pub a: SliceMut<'a, f32>,
    /// First element of this launch's chunk (the book's `offset`).
    pub offset: u32,
}

/// `i = offset + global index; a[i] += sqrt(sin(i)^2 + cos(i)^2)`: adds 1, within rounding.
///
/// Launch: `chunk / 256` blocks of 256 threads per chunk, as the book; traps past the array's
/// end (the book has no bounds test: its chunks are multiples of the block).
///
/// One `sincosf` computes both, as nvcc turns CUDA C's `sinf(x)` and `cosf(x)` of one `x` into
/// one `sincosf` (book §3.6.1); it is `libm`'s, identical on the GPU and the simulator. The
/// squares and their sum are rounded one by one (`mul_rn`, `add_rn`), so the GPU does not fuse
/// them and the simulator's result is the GPU's.
#[kernel]
pub fn kernel(args: AsyncArgs<'_>) {
    let i = args.offset as usize + global_idx_x();
    let x = i as f32;
    let (s, c) = libm::sincosf(x);
    let one = Elementary::sqrt(math::add_rn(math::mul_rn(s, s), math::mul_rn(c, c)));
    args.a.update(i, |a| math::add_rn(a, one));
}
