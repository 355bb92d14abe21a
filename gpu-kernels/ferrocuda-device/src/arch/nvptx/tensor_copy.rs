//! The bulk tensor copy (`cp.async.bulk.tensor`, PTX ISA §9.7.9.25.5), the async-proxy fence and
//! `setmaxnreg`: PTX ISA 8.0 instructions, built in an sm_90a module (PTX 8.0); in a module for
//! another architecture they trap.
#[cfg(target_feature = "sm_90a")]
use core::arch::asm;

/// `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`: copies
/// the box at coordinates (`c0` innermost, `c1`) of the tensor map at `map` to `destination`,
/// counting its bytes on the barrier at `barrier` as they land. `_box` (rows, columns, element
/// bytes) is the map's, which the simulator's copy needs and the GPU reads from the map. Traps
/// unless `c0` times the element size is a multiple of 16 bytes (the copy engine's rule).
///
/// # Safety
/// `destination` is shared memory aligned and sized for the box as the map swizzles it;
/// `map` the generic address of a tensor map in global memory; `barrier` an mbarrier word of
/// shared memory; nothing touches the destination until the barrier's phase completes.
#[inline(always)]
pub unsafe fn bulk_tensor_load_2d(
    destination: *mut u8,
    map: *const u64,
    c0: i32,
    c1: i32,
    barrier: *mut u64,
    _box: [usize; 3],
) {
    #[cfg(target_feature = "sm_90a")]
    {
        // The copy engine faults on a box whose rows do not start 16-byte aligned: stop here
        // instead, as the simulator does.
        if (c0 as isize * _box[2] as isize) % 16 != 0 {
            super::trap()
        }
        let destination = super::shared_window_address(destination);
        let barrier = super::shared_window_address(barrier.cast());
        // SAFETY: forwarded to the caller.
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c0}, {c1}}}], [{b}];",
                d = in(reg32) destination, m = in(reg64) map, c0 = in(reg32) c0, c1 = in(reg32) c1,
                b = in(reg32) barrier, options(nostack)
            )
        };
    }
    #[cfg(not(target_feature = "sm_90a"))]
    {
        let _ = (destination, map, c0, c1, barrier);
        super::trap()
    }
}

/// `prefetch.tensormap [map]`.
///
/// # Safety
/// `map` is the generic address of a tensor map.
#[inline(always)]
pub unsafe fn prefetch_tensor_map(map: *const u64) {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("prefetch.tensormap [{m}];", m = in(reg64) map, options(nostack, preserves_flags))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    {
        let _ = map;
        super::trap()
    }
}

/// `fence.proxy.async.shared::cta`.
#[inline(always)]
pub fn fence_proxy_async_shared() {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: a fence; no operand.
    unsafe {
        asm!("fence.proxy.async.shared::cta;", options(nostack, preserves_flags))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}

/// `setmaxnreg.dec.sync.aligned.u32 N`.
///
/// # Safety
/// Every thread of the warpgroup executes it, converged; the entry declares `.maxntid`.
#[inline(always)]
pub unsafe fn setmaxnreg_dec<const N: u32>() {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack, preserves_flags))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}

/// `setmaxnreg.inc.sync.aligned.u32 N`.
///
/// # Safety
/// As [`setmaxnreg_dec`].
#[inline(always)]
pub unsafe fn setmaxnreg_inc<const N: u32>() {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack, preserves_flags))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}
