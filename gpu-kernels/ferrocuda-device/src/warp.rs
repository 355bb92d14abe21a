//! Warp shuffle and vote (CUDA C `__shfl_*_sync`, `__any_sync`, `__all_sync`, `__ballot_sync`).
//!
//! The `mask` names the participating lanes; every lane in it must execute the same call with
//! the same mask (PTX ISA §9.7.9.6, `shfl.sync`). That is a convergence contract, like
//! `sync_threads`' and `warp_sum`'s, and like them these functions are safe: a broken contract
//! gives a wrong value or a hang on the GPU (the instructions touch no memory), and a fault in the
//! simulator, never an access outside a view. `unsafe` in this library marks only contracts
//! whose breach can reach memory a view or tile does not allow (raw pointers, unchecked indices).
use super::arch;

/// All 32 lanes.
pub const FULL_MASK: u32 = 0xffff_ffff;
/// Threads per warp.
pub const WARP_SIZE: usize = 32;

/// A value a shuffle can move: 32-bit values in one `shfl`, 64-bit ones in two.
pub trait Shuffle: Copy {
    /// Applies a 32-bit shuffle to each 32-bit word of the value.
    fn shuffle_words(self, shfl: impl Fn(u32) -> u32) -> Self;
}
macro_rules! shuffle_32 {
    ($($t:ty),*) => {$(
        impl Shuffle for $t {
            #[inline(always)]
            fn shuffle_words(self, shfl: impl Fn(u32) -> u32) -> Self {
                <$t>::from_ne_bytes(shfl(u32::from_ne_bytes(self.to_ne_bytes())).to_ne_bytes())
            }
        }
    )*};
}
macro_rules! shuffle_64 {
    ($($t:ty),*) => {$(
        impl Shuffle for $t {
            #[inline(always)]
            fn shuffle_words(self, shfl: impl Fn(u32) -> u32) -> Self {
                let bits = u64::from_ne_bytes(self.to_ne_bytes());
                let lo = shfl(bits as u32) as u64;
                let hi = shfl((bits >> 32) as u32) as u64;
                <$t>::from_ne_bytes((lo | hi << 32).to_ne_bytes())
            }
        }
    )*};
}
shuffle_32!(u32, i32, f32);
shuffle_64!(u64, i64, f64);

/// `__shfl_down_sync`: the value of lane `lane + delta` (own value when that is past the warp).
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn shfl_down_sync<T: Shuffle>(mask: u32, value: T, delta: u32) -> T {
    // SAFETY: the contract is convergence only (the asm is `nomem`). Clamp 0x1f: the 32-lane segment.
    value.shuffle_words(|w| unsafe { arch::shfl_down_b32(mask, w, delta, 0x1f) })
}
/// `__shfl_down_sync` within the first `last_lane + 1` lanes: lane `l` gets lane `l + delta`'s
/// value when `l + delta <= last_lane`, its own otherwise (the `c` clamp operand of
/// `shfl.sync.down`), so a partial warp never reads an absent lane.
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn shfl_down_sync_clamped<T: Shuffle>(mask: u32, value: T, delta: u32, last_lane: u32) -> T {
    // SAFETY: the contract is convergence only (the asm is `nomem`): see the module doc.
    value.shuffle_words(|w| unsafe { arch::shfl_down_b32(mask, w, delta, last_lane & 0x1f) })
}
/// `__shfl_up_sync`: the value of lane `lane - delta` (own value below lane `delta`).
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn shfl_up_sync<T: Shuffle>(mask: u32, value: T, delta: u32) -> T {
    // SAFETY: the contract is convergence only (the asm is `nomem`). Clamp 0: the segment starts
    // at lane 0.
    value.shuffle_words(|w| unsafe { arch::shfl_up_b32(mask, w, delta, 0) })
}
/// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask` (a butterfly exchange).
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn shfl_xor_sync<T: Shuffle>(mask: u32, value: T, lane_mask: u32) -> T {
    // SAFETY: the contract is convergence only (the asm is `nomem`): see the module doc.
    value.shuffle_words(|w| unsafe { arch::shfl_bfly_b32(mask, w, lane_mask, 0x1f) })
}
/// `__shfl_sync`: the value of lane `src_lane` (a broadcast when all lanes pass the same one).
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn shfl_sync<T: Shuffle>(mask: u32, value: T, src_lane: u32) -> T {
    // SAFETY: the contract is convergence only (the asm is `nomem`): see the module doc.
    value.shuffle_words(|w| unsafe { arch::shfl_idx_b32(mask, w, src_lane, 0x1f) })
}
/// `__ballot_sync`: bit `i` set when lane `i` of `mask` passes a true `predicate`.
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn vote_ballot_sync(mask: u32, predicate: bool) -> u32 {
    // SAFETY: the contract is convergence only (the asm is `nomem`): see the module doc.
    unsafe { arch::vote_ballot(mask, predicate) }
}
/// `__any_sync`: true when some lane of `mask` passes a true `predicate`.
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn vote_any_sync(mask: u32, predicate: bool) -> bool {
    vote_ballot_sync(mask, predicate) != 0
}
/// `__all_sync`: true when every lane of `mask` passes a true `predicate`.
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU returns an undefined
/// value or hangs, and the simulator reports a fault.
#[inline(always)]
pub fn vote_all_sync(mask: u32, predicate: bool) -> bool {
    vote_ballot_sync(mask, predicate) == mask
}
/// `__syncwarp(mask)`: waits until every lane of `mask` reaches it, and orders the shared and
/// global memory accesses of those lanes before it against theirs after it. Under sm_70's
/// independent thread scheduling, lanes of one warp that exchange data through shared memory
/// need it (or a shuffle, a vote or `__syncthreads`) between the store and the load; running
/// in one warp does not order them (PTX ISA §9.7.13.3, `bar.warp.sync`).
///
/// Call from: every lane in `mask`, with the same `mask`. Otherwise the GPU may hang or leave
/// the accesses unordered (a race, a wrong value), and the simulator reports a fault.
#[inline(always)]
pub fn sync_warp(mask: u32) {
    // SAFETY: a convergence contract; `bar.warp.sync` moves no data, it only orders the lanes'
    // accesses, each of which was checked by its own view or tile.
    unsafe { arch::bar_warp_sync(mask) }
}
/// `__activemask()`: the lanes executing this call together.
#[inline(always)]
pub fn active_mask() -> u32 {
    arch::active_mask()
}
/// The calling thread's lane, 0..32.
#[inline(always)]
pub fn lane_id() -> usize {
    arch::lane_id() as usize
}
