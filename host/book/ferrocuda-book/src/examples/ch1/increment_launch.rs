//! The increment's two launches, which `ch1-increment` and `ch1-increment-multiblock` run and
//! `ch2-timing` times: one block of `n` threads (book §1.3.1, `increment<<<1,n>>>`), and
//! `ceil(n / threads)` blocks, each thread adding `b` to its element behind a bounds test
//! (book §1.3.2).
use book_kernels::ch1::increment::{Increment, IncrementArgs as OneBlockArgs};
use book_kernels::ch1::increment_multiblock::{IncrementArgs, IncrementMultiblock};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};

/// The most threads a block may have on every CUDA GPU so far (compute capability 2.0 to 12.x):
/// the largest array one block covers.
pub const MAX_THREADS_PER_BLOCK: usize = 1024;

/// `a_d[i] += b` with one block of `a_d.len()` threads (at most the device's threads per block).
pub fn increment_one_block(gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32) -> Result<()> {
    let n = a_d.len();
    let max = gpu.properties().max_threads_per_block as usize;
    if n == 0 || n > max {
        return Err(Error::InvalidArgument(format!(
            "one block covers 1 to {max} elements, not {n}: ch1-increment-multiblock (or ch2-timing --launch multiblock) launches as many blocks as needed"
        )));
    }
    let args = OneBlockArgs { a: a_d.view_mut(), b };
    crate::kernels(gpu)?.launch(Increment, LaunchShape::new((1, 1, 1), (n as u32, 1, 1)), args)
}

/// The book's threads per block, `tPB`.
pub const THREADS_PER_BLOCK: u32 = 256;

/// `a_d[i] += b` with `ceil(n / threads_per_block)` blocks.
pub fn increment(gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32, threads_per_block: u32) -> Result<()> {
    let shape = LaunchShape::cover_1d(a_d.len(), threads_per_block)?;
    crate::kernels(gpu)?.launch(IncrementMultiblock, shape, IncrementArgs { a: a_d.view_mut(), b })
}
