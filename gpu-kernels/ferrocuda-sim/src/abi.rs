//! The simulator's side of `ferrocuda-sim-abi`: defines the symbols the device library calls
//! (`ferrocuda_sim_abi_*`), each forwarding to the function of the same short name below or in
//! the crate root. The list of entry points and their signatures is the interface crate's; this
//! module only says which function answers each.
use crate::fault;

pub(crate) use crate::mbarrier::{mbarrier_arrive, mbarrier_complete_tx, mbarrier_init, mbarrier_try_wait_parity};
pub(crate) use crate::ops::{dynamic_shared_bytes, shared_access_at};
pub(crate) use crate::{
    active_mask, barrier, block_dim, block_idx, constant_word, grid_dim, index_fault, lane_id, print, shared_base,
    thread_idx, warp_exchange,
};
pub(crate) use crate::{global_access_checked, global_atomic_checked, thread_fence_checked};

ferrocuda_sim_abi::export_simulator!(crate::abi);

/// A fault raised by the device library (a trap, a misaligned copy): formatted here, where there
/// is an allocator.
pub(crate) fn fault_with(message: core::fmt::Arguments<'_>) -> ! {
    fault(std::fmt::format(message))
}

/// `%globaltimer`: the host's clock, in nanoseconds since the Unix epoch.
pub(crate) fn global_timer() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
