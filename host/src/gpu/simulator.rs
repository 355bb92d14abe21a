//! The simulator backend: launches run `ferrocuda_sim` on the host's cores, buffers are host
//! memory. A launch completes before `launch` returns; as on CUDA, a fault inside the kernel is
//! reported by the next synchronisation (or copy), a refused shape by the launch itself.
use super::error::{Error, Result};
use super::launch::LaunchShape;
use ferrocuda_device::launch::{Kernel, KernelArgs};
use ferrocuda_sim::{self as sim, SimError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The nominal memory of one simulator, bytes (16 GiB): the total [`super::Gpu::memory_info`]
/// reports, from which its live device allocations are subtracted.
pub const SIM_NOMINAL_MEMORY_BYTES: usize = 16 << 30;

/// Bytes of device memory a simulator's live buffers hold; shared with the buffers, which give
/// theirs back when dropped.
pub(super) type AllocatedBytes = Arc<AtomicUsize>;

/// A fault of an earlier launch, not yet reported; shared with the buffers whose host access
/// reports it (managed memory).
pub(super) type FaultSlot = Arc<Mutex<Option<Error>>>;

/// The CPU simulator as a device.
#[derive(Default)]
pub struct SimDevice {
    /// A fault of an earlier launch, not yet reported.
    pending: FaultSlot,
    /// Bytes held by this simulator's live device buffers.
    allocated: AllocatedBytes,
    /// The L1/shared preferences and carveouts set, recorded (no cache to split).
    cache: Mutex<super::cache_config::SimCacheState>,
}

impl SimDevice {
    /// Runs kernel `K` over `shape` with `args`.
    pub(super) fn launch<K: Kernel<A>, A: KernelArgs + 'static>(&self, shape: LaunchShape, args: A) -> Result<()> {
        match sim::launch(&shape.sim_launch(K::NAME), K::RUN, args) {
            Ok(()) => Ok(()),
            Err(e @ SimError::InvalidLaunch(_)) => Err(Error::Simulator(e)),
            Err(e @ SimError::Fault(_)) => {
                self.pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(Error::Simulator(e));
                Ok(())
            }
        }
    }

    /// The counter of this simulator's allocated bytes, for a new buffer to add to.
    pub(super) fn allocated(&self) -> AllocatedBytes {
        self.allocated.clone()
    }

    /// `(free, total)` bytes: the nominal memory less the live buffers' bytes.
    pub(super) fn memory_info(&self) -> (usize, usize) {
        let used = self.allocated.load(Ordering::Relaxed);
        (SIM_NOMINAL_MEMORY_BYTES.saturating_sub(used), SIM_NOMINAL_MEMORY_BYTES)
    }

    /// Reports (once) the fault of an earlier launch.
    pub(super) fn take_fault(&self) -> Result<()> {
        take_fault(&self.pending)
    }

    /// The recorded L1/shared preferences and carveouts.
    pub(super) fn cache_state(&self) -> std::sync::MutexGuard<'_, super::cache_config::SimCacheState> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The slot in which a launch leaves its fault.
    pub(super) fn fault_slot(&self) -> FaultSlot {
        self.pending.clone()
    }
}

/// Reports (once) the fault left in `slot`.
pub(super) fn take_fault(slot: &FaultSlot) -> Result<()> {
    match slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(fault) => Err(fault),
        None => Ok(()),
    }
}
