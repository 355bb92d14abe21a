//! Barriers, memory fences and clocks.
use super::arch;

/// `__syncthreads()`: waits until every thread of the block reaches it, and makes their global
/// and shared writes visible to each other.
///
/// Call from: every non-exited thread of the block, the same number of times. A barrier inside a
/// branch that only some threads take hangs the block or lets it pass unsynchronised on the GPU
/// (a race, a wrong value), and the simulator reports a fault. A convergence contract, safe as
/// the shuffles are: `bar.sync` moves no data, and every access it orders is checked by its view
/// or tile (PTX ISA §9.7.13.1, `bar.sync`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync_threads() {
    // SAFETY: the contract is convergence only: breaking it misorders accesses that are each
    // within their view or tile, it cannot make one reach outside.
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

/// `__nanosleep(ns)`: suspends the calling thread for about `ns` nanoseconds (at most 1 ms), for
/// a thread that polls memory another block writes, so that its polls do not crowd the memory
/// system (sm_70).
#[inline(always)]
pub fn nanosleep(ns: u32) {
    arch::nanosleep(ns)
}
