//! The simulator's asynchronous copies (`cp.async`): the copy happens at once, through the
//! checked global read (relaxed atomic words, as every global load) and shared write, so the
//! simulator still finds a copy out of bounds and a race of its shared write with another
//! thread's access in the same barrier interval. The groups are not modelled: data read before
//! its `cp.async.wait_group` is already there in the simulator (a missing wait shows only on the
//! GPU).
use super::memory::load_words;
use ferrocuda_sim_abi::{self as sim, Access};

/// The simulated `cp.async.cg.shared.global [dst], [src], 16;`: a checked 16-byte copy now.
///
/// # Safety
/// As the GPU version: `dst` lies in this launch's shared memory (checked), `src` is valid for 16
/// bytes of reads, both 16-byte aligned (checked).
#[track_caller]
pub unsafe fn cp_async_cg_16(dst: *mut u8, src: *const u8) {
    if !(dst as usize).is_multiple_of(16) || !(src as usize).is_multiple_of(16) {
        sim::fault(format_args!(
            "cp.async of 16 bytes from {src:p} to {dst:p}: an address is not 16-byte aligned"
        ));
    }
    sim::global_access(src, 16, Access::Read);
    // SAFETY: valid for 16 bytes of reads (the caller's contract), 16-byte aligned (checked).
    // Relaxed atomic word loads, as every global load (`memory.rs`).
    let words: [u32; 4] = unsafe { load_words(src.cast()) };
    let checked = sim::shared_access(dst, 16, Access::Write);
    // SAFETY: `shared_access` checked that the 16 bytes lie in the block's shared buffer, which
    // only this host thread touches (`shared_load`); 16-byte aligned (checked).
    unsafe { checked.cast::<[u32; 4]>().write(words) };
}

/// The simulated `cp.async.commit_group`: nothing to do, the copies are done.
pub fn cp_async_commit_group() {}

/// The simulated `cp.async.wait_group N`: nothing to wait for, the copies are done.
pub fn cp_async_wait_group<const N: u32>() {}
