//! The host runtime: every call into cudarc goes through this module, which is the only home of
//! the `unsafe` kernel launch.
//!
//! Layers, as in cudarc: cudarc's `result`/`sys` (raw driver calls) below, then this safe layer:
//! [`Gpu`] (a device, its stream and its kernels), [`LaunchShape`] and typed launches, device
//! buffers and their kernel views ([`memory`]), pinned host buffers, and event timing.
mod device;
mod error;
mod launch;
pub mod memory;
mod timing;

pub use device::{DeviceProperties, device_count, driver_version};
pub use error::{Error, Result};
pub use launch::{LaunchShape, Module};
pub use memory::{DeviceBuffer, KernelView, PinnedBuffer, same_len};
pub use timing::Timer;

use crate::ptx;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// One GPU: its context, a stream, and this library's kernels loaded for its architecture.
///
/// ```no_run
/// use ferrocuda::Gpu;
/// let gpu = Gpu::new(0)?;
/// println!("{} (sm_{})", gpu.properties().name, gpu.properties().compute_capability_number());
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Module,
    properties: DeviceProperties,
}

impl Gpu {
    /// Opens device `ordinal` (0-based) and loads the embedded PTX for its architecture.
    ///
    /// Fails with one clear error when there is no driver, no such GPU, or no PTX that runs on it.
    pub fn new(ordinal: usize) -> Result<Self> {
        let properties = DeviceProperties::query(ordinal)?;
        let cc = properties.compute_capability_number();
        let module = ptx::for_compute_capability(cc).ok_or_else(|| Error::NoPtxForDevice {
            compute_capability: cc,
            built: ptx::MODULES.iter().map(|m| m.arch).collect::<Vec<_>>().join(", "),
        })?;
        let context =
            CudaContext::new(ordinal).map_err(Error::cuda(format!("creating a context on device {ordinal}")))?;
        // SAFETY: this library orders all work explicitly: each driver launches, copies and
        // synchronises on the stream it names, so cudarc's implicit cross-stream events are not
        // needed, and they would add event records to every timed launch.
        unsafe { context.disable_event_tracking() };
        let stream = context.default_stream();
        let kernels = Module::load(&context, module.ptx, &format!("the embedded {} PTX", module.arch))?;
        Ok(Self {
            context,
            stream,
            kernels,
            properties,
        })
    }

    /// The device's properties.
    pub fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    /// The cudarc context, for what this library does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream this `Gpu`'s calls use (the context's default stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A new stream on this device.
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        self.context.new_stream().map_err(Error::cuda("cuStreamCreate"))
    }

    /// This library's kernels, loaded for this device.
    pub fn kernels(&self) -> &Module {
        &self.kernels
    }

    /// Loads another PTX module (a CUDA C twin compiled by nvcc, say) on this device.
    pub fn load_module(&self, ptx: &str, what: &str) -> Result<Module> {
        Module::load(&self.context, ptx, what)
    }

    /// Launches one of this library's kernels on this `Gpu`'s stream; see [`Module::launch`].
    pub fn launch<K: gpu_kernels::launch::Kernel<A>, A: Copy>(
        &self,
        kernel: K,
        shape: LaunchShape,
        args: A,
    ) -> Result<()> {
        self.kernels.launch(&self.stream, kernel, shape, args)
    }

    /// Waits until all work on this `Gpu`'s stream has finished; an asynchronous kernel fault
    /// surfaces here, named with the last kernel launched.
    pub fn synchronize(&self) -> Result<()> {
        let call = match self.kernels.last_launched() {
            Some(name) => format!("synchronizing after kernel `{name}`"),
            None => "synchronizing the stream".to_string(),
        };
        self.stream.synchronize().map_err(Error::cuda(call))
    }
}
