//! Reductions by one thread, sequentially (CUB's `ThreadReduce`).
use super::ReduceOp;

/// Combines the `N` values with `O`, left to right.
///
/// Call from: any thread. Result: in the calling thread. Cost: `N - 1` operations, no
/// communication.
#[inline(always)]
pub fn thread_reduce<T: Copy, O: ReduceOp<T>, const N: usize>(values: [T; N]) -> T {
    values.into_iter().fold(O::identity(), O::combine)
}

/// Adds `x` into a Kahan-compensated running sum `(sum, compensation)`.
///
/// Call from: any thread. Cost: four floating-point operations (none may be reassociated; the
/// device library's arithmetic is not, and LLVM never reassociates without fast-math flags).
#[inline(always)]
pub fn kahan_add<T: Copy + core::ops::Add<Output = T> + core::ops::Sub<Output = T>>(
    (sum, compensation): (T, T),
    x: T,
) -> (T, T) {
    let y = x - compensation;
    let t = sum + y;
    (t, (t - sum) - y)
}
