//! `mbarrier` (PTX ISA §9.7.13.15) on a barrier word in shared memory, by its shared-window
//! address. `init` and `arrive` in their sm_80 form (`.shared`, PTX ISA 7.0: an sm_80 module's
//! PTX is older than 7.8, which `.shared::cta` needs); `try_wait` is sm_90's (PTX 7.8), in a
//! module for an older architecture it traps; `expect_tx` needs PTX ISA 8.0, which only the
//! sm_90a modules are (an sm_90 module is 7.8: ptxas refused it there), elsewhere it traps.
use core::arch::asm;

/// `mbarrier.init.shared.b64`.
///
/// # Safety
/// `word` is an 8-byte-aligned word of this launch's shared memory.
#[inline(always)]
pub unsafe fn mbarrier_init(word: *mut u64, count: u32) {
    let window = super::shared_window_address(word.cast());
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("mbarrier.init.shared.b64 [{w}], {c};", w = in(reg32) window, c = in(reg32) count, options(nostack))
    };
}

/// `mbarrier.arrive.shared.b64` (the state it returns dropped).
///
/// # Safety
/// As [`mbarrier_init`].
#[inline(always)]
pub unsafe fn mbarrier_arrive(word: *mut u64) {
    let window = super::shared_window_address(word.cast());
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!(
            "{{ .reg .b64 %state; mbarrier.arrive.shared.b64 %state, [{w}]; }}",
            w = in(reg32) window, options(nostack)
        )
    };
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64` (PTX ISA 8.0: sm_90a modules).
///
/// # Safety
/// As [`mbarrier_init`].
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(word: *mut u64, bytes: u32) {
    #[cfg(target_feature = "sm_90a")]
    {
        let window = super::shared_window_address(word.cast());
        // SAFETY: forwarded to the caller.
        unsafe {
            asm!(
                "{{ .reg .b64 %state; mbarrier.arrive.expect_tx.shared::cta.b64 %state, [{w}], {b}; }}",
                w = in(reg32) window, b = in(reg32) bytes, options(nostack)
            )
        };
    }
    #[cfg(not(target_feature = "sm_90a"))]
    {
        let _ = (word, bytes);
        super::trap()
    }
}

/// `mbarrier.try_wait.parity.shared::cta.b64` (sm_90): whether the phase of parity `parity`
/// has completed (the instruction waits a while in hardware before it says no).
///
/// # Safety
/// As [`mbarrier_init`].
#[inline(always)]
pub unsafe fn mbarrier_try_wait_parity(word: *mut u64, parity: u32) -> bool {
    #[cfg(target_feature = "sm_90")]
    {
        let window = super::shared_window_address(word.cast());
        let done: u32;
        // SAFETY: forwarded to the caller.
        unsafe {
            asm!(
                "{{ .reg .pred %p; mbarrier.try_wait.parity.shared::cta.b64 %p, [{w}], {parity}; selp.u32 {d}, 1, 0, %p; }}",
                w = in(reg32) window, parity = in(reg32) parity, d = out(reg32) done, options(nostack)
            )
        };
        done != 0
    }
    #[cfg(not(target_feature = "sm_90"))]
    {
        let _ = (word, parity);
        super::trap()
    }
}
