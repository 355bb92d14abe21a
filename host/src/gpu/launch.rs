//! Typed kernel launches with explicit grid, block and shared-memory sizes.
use super::error::{Error, Result};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use gpu_kernels::launch::Kernel;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// Grid, block and dynamic shared memory of one launch, always stated, never defaulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
}

impl LaunchShape {
    /// `ceil(n / threads)` blocks of `threads` threads: one thread per element of `n`.
    ///
    /// ```
    /// let shape = ferrocuda::LaunchShape::cover_1d(1000, 256)?;
    /// assert_eq!((shape.grid.0, shape.block.0), (4, 256));
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn cover_1d(n: usize, threads: u32) -> Result<Self> {
        if threads == 0 {
            return Err(Error::InvalidArgument("a block needs at least one thread".into()));
        }
        let blocks = n.div_ceil(threads as usize).max(1);
        let blocks = u32::try_from(blocks).map_err(|_| {
            Error::InvalidArgument(format!(
                "{n} elements need {blocks} blocks of {threads}, more than a grid holds"
            ))
        })?;
        Ok(Self::new((blocks, 1, 1), (threads, 1, 1)))
    }

    /// Blocks of `block` threads covering an `nx x ny` array, one thread per element.
    pub fn cover_2d(nx: usize, ny: usize, block: (u32, u32)) -> Result<Self> {
        if block.0 == 0 || block.1 == 0 {
            return Err(Error::InvalidArgument("a block needs at least one thread".into()));
        }
        let gx = u32::try_from(nx.div_ceil(block.0 as usize).max(1));
        let gy = u32::try_from(ny.div_ceil(block.1 as usize).max(1));
        match (gx, gy) {
            (Ok(gx), Ok(gy)) => Ok(Self::new((gx, gy, 1), (block.0, block.1, 1))),
            _ => Err(Error::InvalidArgument(format!(
                "a {nx} x {ny} array needs more blocks than a grid holds"
            ))),
        }
    }

    /// A shape with no dynamic shared memory.
    pub const fn new(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Self {
        Self {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// The same shape with `bytes` of dynamic shared memory per block.
    pub const fn with_shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.0 * self.block.1 * self.block.2
    }
}

impl fmt::Display for LaunchShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, b) = (self.grid, self.block);
        write!(f, "grid {}x{}x{}, block {}x{}x{}", g.0, g.1, g.2, b.0, b.1, b.2)?;
        if self.shared_bytes > 0 {
            write!(f, ", {} B shared", self.shared_bytes)?;
        }
        Ok(())
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
    pub(super) fn load(context: &Arc<CudaContext>, ptx: &str, what: &str) -> Result<Self> {
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

    fn function(&self, name: &'static str) -> Result<CudaFunction> {
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
