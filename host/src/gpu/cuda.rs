//! The CUDA backend: a context, its default stream, and PTX modules with typed launches. The
//! only home of the `unsafe` kernel launch.
use super::device::DeviceProperties;
use super::error::{Error, Result};
use super::launch::LaunchShape;
use crate::ptx;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use gpu_kernels::launch::Kernel;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One CUDA device: its context, a stream, and this library's kernels loaded for it.
pub struct CudaDevice {
    pub(super) context: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    pub(super) kernels: Module,
}

impl CudaDevice {
    /// Opens device `ordinal` (properties already queried) and loads the embedded PTX for it.
    pub(super) fn open(properties: &DeviceProperties) -> Result<Self> {
        let ordinal = properties.ordinal;
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
        })
    }

    /// The cudarc context, for what this library does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream this device's calls use (the context's default stream).
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
}

/// The `*Args` struct as one kernel parameter: its bytes are the `.param .b8 [size]` block
/// the PTX entry expects.
#[repr(transparent)]
struct ParamBlock<A>(A);

// SAFETY: `A` is a `#[repr(C)]`, `Copy` kernel-argument struct of plain values and device
// addresses (the `Kernel<A>` bound ties it to an entry point taking exactly `A`); the driver
// copies `size_of::<A>()` bytes from its address, which is all it needs.
unsafe impl<A: Copy> DeviceRepr for ParamBlock<A> {}

/// A loaded PTX module and the entry points looked up in it so far.
pub struct Module {
    module: Arc<CudaModule>,
    what: String,
    functions: Mutex<HashMap<&'static str, CudaFunction>>,
    last_launched: Mutex<Option<&'static str>>,
}

impl Module {
    fn load(context: &Arc<CudaContext>, ptx: &str, what: &str) -> Result<Self> {
        let module = context
            .load_module(Ptx::from_src(ptx))
            .map_err(Error::cuda(format!("loading {what}")))?;
        Ok(Self {
            module,
            what: what.to_string(),
            functions: Mutex::new(HashMap::new()),
            last_launched: Mutex::new(None),
        })
    }

    pub(super) fn function(&self, name: &'static str) -> Result<CudaFunction> {
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = functions.get(name) {
            return Ok(f.clone());
        }
        let f = self
            .module
            .load_function(name)
            .map_err(Error::cuda(format!("looking up kernel `{name}` in {}", self.what)))?;
        functions.insert(name, f.clone());
        Ok(f)
    }

    /// The cudarc module, for its globals (the constant bank).
    pub(super) fn cuda_module(&self) -> &Arc<CudaModule> {
        &self.module
    }

    pub(super) fn last_launched(&self) -> Option<&'static str> {
        *self.last_launched.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Launches kernel `K` on `stream` with `args`; returns once it is queued.
    ///
    /// The `K: Kernel<A>` bound makes a launch with the wrong arguments a compile error. A launch
    /// error (a shape the device refuses) is returned here; a fault while the kernel runs is
    /// returned by the next synchronisation.
    pub fn launch<K: Kernel<A>, A: Copy>(
        &self,
        stream: &CudaStream,
        _kernel: K,
        shape: LaunchShape,
        args: A,
    ) -> Result<()> {
        let function = self.function(K::NAME)?;
        let param = ParamBlock(args);
        let config = LaunchConfig {
            grid_dim: shape.grid,
            block_dim: shape.block,
            shared_mem_bytes: shape.shared_bytes,
        };
        *self.last_launched.lock().unwrap_or_else(|p| p.into_inner()) = Some(K::NAME);
        let mut builder = stream.launch_builder(&function);
        builder.arg(&param);
        // SAFETY: the entry point `K::NAME` takes exactly one parameter of type `A` (the
        // `#[kernel]` attribute generated both from one signature); the device views inside
        // `args` were built from live device buffers (`KernelView`), whose frees are ordered on
        // the stream after this launch.
        unsafe { builder.launch(config) }
            .map(|_| ())
            .map_err(Error::cuda(format!("launch of kernel `{}` ({shape})", K::NAME)))
    }
}
