//! The CUDA backend: a context, its default stream, and PTX modules with typed launches. The
//! only home of the `unsafe` kernel launch.
use super::device::DeviceProperties;
use super::error::{Error, Result};
use super::launch::LaunchShape;
use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use ferrocuda_device::launch::{Kernel, KernelArgs};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Dynamic shared memory a kernel may use without opting in, bytes (every GPU since Volta).
const DEFAULT_SHARED_LIMIT_BYTES: u32 = 48 * 1024;

/// The kernel last launched on a device, to name it when a later synchronisation reports a fault.
type LastLaunched = Arc<Mutex<Option<&'static str>>>;

/// One CUDA device: its context, a stream, and the kernel sets loaded on it so far.
pub struct CudaDevice {
    /// The cuBLAS handle `ferrocuda::blas` keeps for this device (first, so that it is destroyed
    /// while the context lives).
    #[cfg(feature = "cublas")]
    pub(super) cublas: Mutex<Option<super::cublas::CachedHandle>>,
    pub(super) context: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    /// Loaded kernel sets by name (linked sets by their names joined with `+`): each set's
    /// module is loaded once per device.
    modules: Mutex<Vec<(String, Arc<Module>)>>,
    last_launched: LastLaunched,
}

impl CudaDevice {
    /// Opens device `ordinal` (properties already queried).
    pub(super) fn open(properties: &DeviceProperties) -> Result<Self> {
        let ordinal = properties.ordinal;
        let context =
            CudaContext::new(ordinal).map_err(Error::cuda(format!("creating a context on device {ordinal}")))?;
        // SAFETY: this library orders all work explicitly: each driver launches, copies and
        // synchronises on the stream it names, so cudarc's implicit cross-stream events are not
        // needed, and they would add event records to every timed launch.
        unsafe { context.disable_event_tracking() };
        let stream = context.default_stream();
        super::stream::register_context_stream(&stream);
        Ok(Self {
            #[cfg(feature = "cublas")]
            cublas: Mutex::new(None),
            context,
            stream,
            modules: Mutex::new(Vec::new()),
            last_launched: LastLaunched::default(),
        })
    }

    /// The module of the kernel set `name`, loaded by `load` on first use and kept.
    pub(super) fn module_named(&self, name: &str, load: impl FnOnce() -> Result<Module>) -> Result<Arc<Module>> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, module)) = modules.iter().find(|(loaded, _)| loaded == name) {
            return Ok(module.clone());
        }
        let module = Arc::new(load()?);
        modules.push((name.to_string(), module.clone()));
        Ok(module)
    }

    /// The kernel last launched on this device, if any.
    pub(super) fn last_launched(&self) -> Option<&'static str> {
        *self.last_launched.lock().unwrap_or_else(|p| p.into_inner())
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

    /// Loads a PTX module (a CUDA C twin compiled by nvcc, say) on this device.
    pub fn load_module(&self, ptx: &str, what: &str) -> Result<Module> {
        Module::load(&self.context, Ptx::from_src(ptx), what, self.last_launched.clone())
    }

    /// Loads a cubin (the driver's linker's output) on this device.
    pub(super) fn load_cubin(&self, cubin: Vec<u8>, what: &str) -> Result<Module> {
        Module::load(&self.context, Ptx::from_binary(cubin), what, self.last_launched.clone())
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
    /// Each function's `MAX_DYNAMIC_SHARED_SIZE_BYTES` as set so far: it only ever rises, so a
    /// thread launching with less cannot lower it under another thread about to launch with more.
    shared_limits: Mutex<HashMap<&'static str, u32>>,
    last_launched: LastLaunched,
}

impl Module {
    /// Loads a PTX text or a cubin (`cuModuleLoadData`, through cudarc).
    fn load(context: &Arc<CudaContext>, image: Ptx, what: &str, last_launched: LastLaunched) -> Result<Self> {
        let module = context.load_module(image).map_err(|error| {
            if error.0 == CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION {
                let driver = super::device::driver_version().map_or("?".into(), |(major, minor)| format!("{major}.{minor}"));
                Error::InvalidArgument(format!(
                    "loading {what}: its PTX is newer than this driver (CUDA {driver}) accepts: update the NVIDIA driver, or build the PTX with an older toolchain"
                ))
            } else {
                Error::Cuda { call: format!("loading {what}"), error }
            }
        })?;
        Ok(Self {
            module,
            what: what.to_string(),
            functions: Mutex::new(HashMap::new()),
            shared_limits: Mutex::new(HashMap::new()),
            last_launched,
        })
    }

    /// Lets kernel `name` launch with `bytes` of dynamic shared memory: raises its
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to `bytes` when it is lower, never lowers
    /// it. The attribute belongs to the function, which every thread shares; the lock makes the
    /// check and the raise one step.
    pub(super) fn allow_shared_bytes(&self, name: &'static str, bytes: u32) -> Result<()> {
        let mut limits = self.shared_limits.lock().unwrap_or_else(|p| p.into_inner());
        let limit = limits.entry(name).or_insert(DEFAULT_SHARED_LIMIT_BYTES);
        if bytes <= *limit {
            return Ok(());
        }
        self.function(name)?
            .set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                i32::try_from(bytes).unwrap_or(i32::MAX),
            )
            .map_err(Error::cuda(format!(
                "allowing kernel `{name}` {bytes} bytes of dynamic shared memory (cuFuncSetAttribute)"
            )))?;
        *limit = bytes;
        Ok(())
    }

    pub(super) fn function(&self, name: &'static str) -> Result<CudaFunction> {
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = functions.get(name) {
            return Ok(f.clone());
        }
        let f = self.module.load_function(name).map_err(|error| {
            if error.0 == CUresult::CUDA_ERROR_NOT_FOUND {
                Error::InvalidArgument(format!(
                    "kernel `{name}` is not in {}: launch it through the kernel set of the crate that defines it (`gpu.load(&THAT_SET)`), and mark it `#[kernel]`",
                    self.what
                ))
            } else {
                Error::Cuda { call: format!("looking up kernel `{name}` in {}", self.what), error }
            }
        })?;
        functions.insert(name, f.clone());
        Ok(f)
    }

    /// The cudarc module, for its globals (the constant bank, device variables).
    pub(super) fn cuda_module(&self) -> &Arc<CudaModule> {
        &self.module
    }

    /// What this module is, for messages (`the sm_90 PTX of `book_kernels``).
    pub(super) fn what(&self) -> &str {
        &self.what
    }

    /// Launches kernel `K` on `stream` with `args`; returns once it is queued.
    ///
    /// The `K: Kernel<A>` bound makes a launch with the wrong arguments a compile error. A launch
    /// error (a shape the device refuses) is returned here; a fault while the kernel runs is
    /// returned by the next synchronisation.
    pub(super) fn launch<K: Kernel<A>, A: KernelArgs>(
        &self,
        stream: &CudaStream,
        _kernel: K,
        shape: LaunchShape,
        args: A,
    ) -> Result<()> {
        let function = self.function(K::NAME)?;
        // Above 48 KiB a kernel must opt in (cudaFuncSetAttribute); `LaunchShape::check` has
        // already held the size to the device's opt-in limit.
        self.allow_shared_bytes(K::NAME, shape.shared_bytes)?;
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
