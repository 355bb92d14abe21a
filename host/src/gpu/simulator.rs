//! The simulator backend: launches run `ferrocuda_sim` on the host's cores, buffers are host
//! memory. A launch completes before `launch` returns; as on CUDA, a fault inside the kernel is
//! reported by the next synchronisation (or copy), a refused shape by the launch itself.
use super::error::{Error, Result};
use super::launch::LaunchShape;
use ferrocuda_device::launch::{Kernel, KernelArgs};
use ferrocuda_sim::{self as sim, SimError};
use std::sync::Mutex;

/// The CPU simulator as a device.
#[derive(Default)]
pub struct SimDevice {
    /// A fault of an earlier launch, not yet reported.
    pending: Mutex<Option<Error>>,
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

    /// Reports (once) the fault of an earlier launch.
    pub(super) fn take_fault(&self) -> Result<()> {
        match self.pending.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }
}
