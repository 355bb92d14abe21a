//! The multi-block increment's launch (book §1.3.2), which `ch1-increment-multiblock` runs and
//! `ch2-timing` times: `ceil(n / threads)` blocks, each thread adding `b` to its element behind a
//! bounds test.
use book_kernels::ch1::increment_multiblock::{IncrementArgs, IncrementMultiblock};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};

/// The book's threads per block, `tPB`.
pub const THREADS_PER_BLOCK: u32 = 256;

/// `a_d[i] += b` with `ceil(n / threads_per_block)` blocks.
pub fn increment(gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32, threads_per_block: u32) -> Result<()> {
    let shape = LaunchShape::cover_1d(a_d.len(), threads_per_block)?;
    crate::kernels(gpu)?.launch(IncrementMultiblock, shape, IncrementArgs { a: a_d.view_mut(), b })
}
