//! Increment every element of an array by a scalar, one block (book §1.3.1, `incrementTestGPU`).
use ferrocuda_device::prelude::*;

/// Arguments of [`increment`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct IncrementArgs<'a> {
    /// The array, updated in place.
    pub a: SliceMut<'a, i32>,
    /// The increment, passed by value (the book's `value` attribute).
    pub b: i32,
}

/// `a[threadIdx.x] += b`, launched as one block of `a.len()` threads.
///
/// As in the book there is no bounds test: thread `i` touches element `i`. A launch with more
/// threads than elements therefore stops with a trap at the first thread past the end, where
/// CUDA C would write out of bounds (ch1-error-handling shows it).
#[kernel]
pub fn increment(args: IncrementArgs<'_>) {
    let i = thread_idx_x();
    args.a.update(i, |x| x + args.b);
}
