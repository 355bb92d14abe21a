//! Barriers, memory fences and clocks.
use super::arch;

/// `__syncthreads()`: waits until every thread of the block reaches it, and makes their global
/// and shared writes visible to each other.
///
/// # Safety
/// Every non-exited thread of the block calls it the same number of times; a barrier inside
/// a branch that only some threads take hangs or corrupts the block.
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: forwarded to the caller.
    unsafe { arch::barrier_sync() }
}
/// `__threadfence_block()`: orders this thread's memory accesses as seen by its block.
#[inline(always)]
pub fn thread_fence_block() {
    arch::fence_block()
}
/// `__threadfence()`: orders this thread's memory accesses as seen by the whole device.
#[inline(always)]
pub fn thread_fence() {
    arch::fence_device()
}
/// `__threadfence_system()`: orders them as seen by the host and peer devices too.
#[inline(always)]
pub fn thread_fence_system() {
    arch::fence_system()
}
/// `clock64()`: the SM's cycle counter (per-SM; compare values from one SM only).
#[inline(always)]
pub fn clock64() -> u64 {
    arch::clock64()
}
/// `%globaltimer`: a nanosecond timer common to the device.
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    arch::global_timer()
}
