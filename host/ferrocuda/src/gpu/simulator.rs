//! The simulator backend: launches run `ferrocuda_sim` on the host's cores, buffers are host
//! memory. A launch completes before `launch` returns; as on CUDA, a fault inside the kernel is
//! reported by the next synchronisation (or copy), a refused shape by the launch itself.
use super::error::{Error, Result};
use super::launch::LaunchShape;
use ferrocuda_device::launch::{Kernel, KernelArgs, ViewSpan};
use ferrocuda_sim::{self as sim, SimError};
use std::collections::BTreeMap;
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

/// The live simulator allocations of the process, start address to bytes: a launch's views must
/// lie inside them (the simulator dereferences them on the host).
static LIVE_ALLOCATIONS: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

fn live_allocations() -> std::sync::MutexGuard<'static, BTreeMap<usize, usize>> {
    // A poisoned lock only means a thread panicked between two map updates, which leave it valid.
    LIVE_ALLOCATIONS.lock().unwrap_or_else(|p| p.into_inner())
}

/// True when `start .. start + bytes` lies inside one live allocation (or is empty).
fn inside_live(live: &BTreeMap<usize, usize>, start: usize, bytes: usize) -> bool {
    bytes == 0
        || live
            .range(..=start)
            .next_back()
            .is_some_and(|(&first, &size)| start.checked_add(bytes).is_some_and(|end| end <= first + size))
}

/// `Err` unless `start .. start + bytes` lies inside one live simulator allocation.
pub(super) fn check_simulator_view(start: usize, bytes: usize) -> Result<()> {
    if inside_live(&live_allocations(), start, bytes) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "the view is not of the simulator's memory (a view of a CUDA buffer, or of memory that is not allocated)"
                .into(),
        ))
    }
}

/// Notes a new simulator allocation of `bytes` at `start`.
pub(super) fn register_allocation(start: usize, bytes: usize) {
    live_allocations().insert(start, bytes);
}

/// Notes that the simulator allocation at `start` is freed.
pub(super) fn unregister_allocation(start: usize) {
    live_allocations().remove(&start);
}

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
    pub(super) fn launch<K: Kernel<A>, A: KernelArgs>(
        &self,
        shape: LaunchShape,
        args: A,
        views: &[ViewSpan],
    ) -> Result<()> {
        // The views (listed by the launcher's checks), so that a fault names the argument an
        // index falls outside of.
        let views = views
            .iter()
            .map(|view| sim::ViewInfo {
                field: view.field,
                start: view.start,
                bytes: view.bytes,
            })
            .collect();
        let launch = shape.sim_launch(K::NAME, views);
        // SAFETY: `A: KernelArgs` is `DeviceCopy`: numbers and views, which the blocks' host
        // threads may share (the views' accessors are relaxed atomics).
        // SAFETY (also): `RUN` reads an `A` through the pointer to `args`, which lives until
        // the launch returns (the simulator runs every thread before it does).
        match unsafe { sim::launch_erased(&launch, K::RUN, (&raw const args).cast()) } {
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

    /// `Err` naming the first of `views` that is not inside one live simulator allocation: a
    /// view of a CUDA buffer (a device address, which the host must not dereference), or of
    /// memory freed or never allocated here.
    pub(super) fn check_views(&self, kernel: &str, views: &[ViewSpan]) -> Result<()> {
        let live = live_allocations();
        match views.iter().find(|view| !inside_live(&live, view.start, view.bytes)) {
            None => Ok(()),
            Some(view) => Err(Error::InvalidArgument(format!(
                "kernel `{kernel}`: its argument `{}` is not a view of the simulator's memory (a view of a CUDA buffer, or of memory that is not allocated): launch on the simulator with views of simulator buffers",
                view.field
            ))),
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
