//! Asynchronous copies from global to shared memory: `cp.async` and its groups (PTX ISA
//! §9.7.9.25, sm_80+).
use core::arch::asm;

/// `cp.async.cg.shared.global [dst], [src], 16;`: starts copying 16 bytes from global memory to
/// shared memory, bypassing L1 (`.cg`, the only cache operator allowed for 16 bytes). The copy
/// joins the thread's current group, committed by [`cp_async_commit_group`]; its bytes are
/// visible to this thread after [`cp_async_wait_group`] has waited for the group, and to the rest
/// of the block after a barrier that follows that wait.
///
/// # Safety
/// `dst` is a generic address inside this launch's dynamic shared memory and `src` one of global
/// memory valid for 16 bytes of reads, both 16-byte aligned; nothing else writes `dst`, nor reads
/// it before the wait, and nothing writes `src` before the wait.
#[inline(always)]
pub unsafe fn cp_async_cg_16(dst: *mut u8, src: *const u8) {
    let dst = super::shared_window_address(dst);
    // SAFETY: forwarded to the caller; the window address names the same bytes.
    unsafe {
        asm!(
            "{{ .reg .u64 %g; cvta.to.global.u64 %g, {s}; cp.async.cg.shared.global [{d}], [%g], 16; }}",
            d = in(reg32) dst, s = in(reg64) src, options(nostack, preserves_flags)
        )
    };
}

/// `cp.async.commit_group;`: closes the thread's current group of copies (an empty group when
/// it started none, which [`cp_async_wait_group`] counts all the same).
#[inline(always)]
pub fn cp_async_commit_group() {
    // SAFETY: no operand; it only marks the copies issued so far.
    unsafe { asm!("cp.async.commit_group;", options(nostack, preserves_flags)) };
}

/// `cp.async.wait_group N;`: waits until at most `N` of the thread's committed groups are still
/// in flight (the most recent ones): the copies of every older group have landed. `N = 0` waits
/// for all (`cp.async.wait_all` without its implicit commit). Not `nomem`: the compiler keeps
/// shared-memory reads after it.
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    // SAFETY: no operand; it only waits.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack, preserves_flags)) };
}
