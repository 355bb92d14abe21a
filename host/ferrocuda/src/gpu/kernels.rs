//! Kernel sets: the PTX of one kernel crate, one module per architecture, embedded at build time
//! ([`KernelSet`], [`include_kernels!`](crate::include_kernels)), and the handle through which a
//! set's kernels launch on either backend ([`LoadedKernels`]).
//!
//! The library's own kernels, the book's and a user's go through this one path: on CUDA,
//! [`Gpu::load`] loads the module for the device's architecture once and keeps it; on the CPU
//! simulator it loads nothing, and a launch runs the kernel's body (`Kernel::RUN`) on the host.
use super::cuda::Module;
use super::error::{Error, Result};
use super::launch::LaunchShape;
use super::{Backend, Gpu, Stream};
use crate::ptx::Linkage;
use ferrocuda_device::launch::{Kernel, KernelArgs, ViewSpan};
use std::sync::{Arc, OnceLock};

/// The PTX of one kernel crate, one module per architecture, as `ferrocuda_builder`'s `embed`
/// wrote it; make one with [`include_kernels!`](crate::include_kernels).
#[derive(Debug)]
pub struct KernelSet {
    name: &'static str,
    modules: &'static [(&'static str, u32, &'static str)],
    /// The symbols its PTX defines and declares, read on first use.
    linkage: OnceLock<Linkage<'static>>,
}

/// One architecture's module of a [`KernelSet`].
#[derive(Clone, Copy, Debug)]
pub struct PtxModule {
    /// `sm_90`, ...
    pub arch: &'static str,
    /// 90 for sm_90.
    pub compute_capability: u32,
    /// The PTX text.
    pub ptx: &'static str,
}

impl PtxModule {
    /// Whether it is built for an architecture's own feature set (`sm_90a`), whose instructions
    /// no other compute capability has.
    pub fn arch_specific(&self) -> bool {
        self.arch.ends_with('a')
    }
}

impl KernelSet {
    /// A set named `name` (the kernel crate's library name) of `(arch, compute capability, PTX)`
    /// modules; [`include_kernels!`](crate::include_kernels) calls this.
    pub const fn new(name: &'static str, modules: &'static [(&'static str, u32, &'static str)]) -> Self {
        Self {
            name,
            modules,
            linkage: OnceLock::new(),
        }
    }

    /// The kernel crate's library name (`my_kernels`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Every module, in the order they were built (`FERROCUDA_ARCHS`).
    pub fn modules(&self) -> impl Iterator<Item = PtxModule> + '_ {
        self.modules.iter().map(|&(arch, compute_capability, ptx)| PtxModule {
            arch,
            compute_capability,
            ptx,
        })
    }

    /// The module a device of compute capability `cc` (90 for 9.0) should load: the newest
    /// architecture not newer than the device, whose PTX the driver compiles for it. A module of
    /// an architecture's own feature set (`sm_90a`) runs on that compute capability only, and is
    /// preferred there to the plain one.
    pub fn for_compute_capability(&self, cc: u32) -> Option<PtxModule> {
        self.modules()
            .filter(|m| m.compute_capability <= cc && (!m.arch_specific() || m.compute_capability == cc))
            .max_by_key(|m| (m.compute_capability, m.arch_specific()))
    }

    /// The symbols the set's PTX defines for other sets and those it needs from them
    /// ([`crate::ptx::linkage`]), read once from its first module (every architecture's module
    /// has the same).
    pub fn linkage(&self) -> &Linkage<'static> {
        self.linkage.get_or_init(|| {
            self.modules()
                .next()
                .map(|m| crate::ptx::linkage(m.ptx))
                .unwrap_or_default()
        })
    }

    /// The architectures built, as a list for messages (`sm_80, sm_90`).
    pub fn archs(&self) -> String {
        self.modules().map(|m| m.arch).collect::<Vec<_>>().join(", ")
    }
}

/// The [`KernelSet`] that `ferrocuda_builder::PtxBuilder::new(..).embed()` wrote for the kernel
/// crate whose library name is `$name`, from the calling crate's build script.
///
/// ```ignore
/// static KERNELS: ferrocuda::KernelSet = ferrocuda::include_kernels!("my_kernels");
/// ```
#[macro_export]
macro_rules! include_kernels {
    ($name:literal) => {
        $crate::KernelSet::new($name, &include!(concat!(env!("OUT_DIR"), "/", $name, ".kernels.rs")))
    };
}

/// The kernels of one [`KernelSet`] on one [`Gpu`]: every launch of a kernel goes through here,
/// on CUDA and on the simulator alike, with no backend branch in the caller.
///
/// Before each launch it checks what a GPU would not report clearly: views the argument struct
/// declares equal in length (`#[kernel_args(same_len(..))]`) and the shape against the device's
/// limits, each refused with an error naming the kernel.
#[derive(Clone)]
pub struct LoadedKernels<'g> {
    pub(super) gpu: &'g Gpu,
    /// The kernel sets whose kernels these are (several when linked, [`Gpu::link`]); none for
    /// PTX compiled elsewhere.
    pub(super) sets: Vec<&'static KernelSet>,
    /// `None` on the simulator, which runs kernel bodies without PTX.
    pub(super) module: Option<Arc<Module>>,
}

impl Gpu {
    /// The kernels of `set` on this device: on CUDA its module for the device's architecture,
    /// loaded on first use and kept; on the simulator, nothing to load.
    ///
    /// Fails with one sentence when the set has no PTX the device can run, or when its PTX uses
    /// functions or variables of another set (`extern` declarations): those sets load together,
    /// through [`Gpu::link`]. The simulator refuses such a set as the driver does.
    pub fn load(&self, set: &'static KernelSet) -> Result<LoadedKernels<'_>> {
        let module = match &self.backend {
            Backend::Cuda(cuda) => Some(cuda.module_named(set.name(), || {
                let ptx = self.ptx_for_device(set)?;
                let what = format!("the {} PTX of `{}`", ptx.arch, set.name());
                cuda.load_module(ptx.ptx, &what).map_err(|error| {
                    let driver = error.cuda_error_name().unwrap_or_else(|| error.to_string());
                    super::link::unresolved_alone(set, &format!(" (the driver refused {what}: {driver})"))
                        .unwrap_or(error)
                })
            })?),
            Backend::Sim(_) => match super::link::unresolved_alone(set, "") {
                Some(error) => return Err(error),
                None => None,
            },
        };
        Ok(LoadedKernels {
            gpu: self,
            sets: vec![set],
            module,
        })
    }

    /// The module of `set` this device loads: the newest architecture not newer than it.
    pub(super) fn ptx_for_device(&self, set: &KernelSet) -> Result<PtxModule> {
        let cc = self.properties.compute_capability_number();
        set.for_compute_capability(cc).ok_or_else(|| Error::NoPtxForDevice {
            kernels: set.name(),
            compute_capability: cc,
            built: set.archs(),
        })
    }

    /// A PTX text compiled elsewhere (a CUDA C twin from nvcc, say), loaded as a kernel set whose
    /// entry points launch with the same typed handles; CUDA only.
    pub fn load_ptx(&self, ptx: &str, what: &str) -> Result<LoadedKernels<'_>> {
        match &self.backend {
            Backend::Cuda(cuda) => Ok(LoadedKernels {
                gpu: self,
                sets: Vec::new(),
                module: Some(Arc::new(cuda.load_module(ptx, what)?)),
            }),
            Backend::Sim(_) => Err(Error::NeedsCuda(format!("loading {what}"))),
        }
    }
}

impl<'g> LoadedKernels<'g> {
    /// The device these kernels run on.
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// The CUDA module, on CUDA.
    pub(crate) fn module(&self) -> Option<&Module> {
        self.module.as_deref()
    }

    /// Launches kernel `K` with `args` (`kernel<<<grid, block, shared>>>(args)`); returns once it
    /// is queued (on the simulator: once it has run).
    ///
    /// The `K: Kernel<A>` bound makes a launch with the wrong arguments a compile error, and the
    /// views in `args` borrow their buffers, so none can be dropped before this call has queued
    /// the launch (and a buffer's free waits for every launch queued before it). Views of
    /// unequal length where the arguments declare them equal, two writable views of overlapping
    /// memory, or a shape beyond the device's limits, are an error here; a fault while the
    /// kernel runs is returned by the next synchronisation or copy, as in CUDA.
    pub fn launch<K: Kernel<A>, A: KernelArgs>(&self, kernel: K, shape: LaunchShape, args: A) -> Result<()> {
        let views = self.check::<K, A>(&shape, &args)?;
        match (&self.gpu.backend, &self.module) {
            (Backend::Cuda(cuda), Some(module)) => module.launch(&cuda.stream, kernel, shape, args),
            (Backend::Sim(sim), _) => sim.launch::<K, A>(shape, args, &views),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
        }
    }

    /// [`LoadedKernels::launch_on`] on `stream`, or [`LoadedKernels::launch`] on the GPU's own
    /// stream for `None`: for an API that lets its caller pick the stream.
    pub fn launch_maybe_on<K: Kernel<A>, A: KernelArgs>(
        &self,
        stream: Option<&Stream>,
        kernel: K,
        shape: LaunchShape,
        args: A,
    ) -> Result<()> {
        match stream {
            Some(stream) => self.launch_on(stream, kernel, shape, args),
            None => self.launch(kernel, shape, args),
        }
    }

    /// Launches kernel `K` with `args` on `stream` (`<<<grid, block, shared, stream>>>`).
    pub fn launch_on<K: Kernel<A>, A: KernelArgs>(
        &self,
        stream: &Stream,
        kernel: K,
        shape: LaunchShape,
        args: A,
    ) -> Result<()> {
        let views = self.check::<K, A>(&shape, &args)?;
        match (&self.gpu.backend, &self.module, stream.cuda()) {
            (Backend::Cuda(_), Some(module), Some(s)) => module.launch(s, kernel, shape, args),
            (Backend::Sim(sim), None, None) => sim.launch::<K, A>(shape, args, &views),
            _ => Err(super::stream::mixed()),
        }
    }

    /// Refuses kernel `name` of crate `krate`, which uses the instructions of `required`
    /// (`sm_90a`), when the module loaded for it was built without them (where they trap). The
    /// simulator runs them on any machine.
    fn check_architecture(&self, name: &str, krate: &str, required: &str) -> Result<()> {
        if self.gpu.is_simulator() {
            return Ok(());
        }
        let Some(set) = self.sets.iter().find(|set| set.name() == krate) else {
            // PTX compiled elsewhere: whatever it holds is what it was built with.
            return Ok(());
        };
        let loaded = self.gpu.ptx_for_device(set)?;
        if loaded.arch == required {
            return Ok(());
        }
        Err(Error::InvalidLaunch(format!(
            "kernel `{name}` uses instructions of {required} (Hopper's wgmma), and the module of `{krate}` loaded on \
             this {} is built for {} without them: build with FERROCUDA_ARCHS listing {required}, on a GPU of \
             compute capability 9.0",
            self.gpu.properties().name,
            loaded.arch
        )))
    }

    fn check<K: Kernel<A>, A: KernelArgs>(&self, shape: &LaunchShape, args: &A) -> Result<Vec<ViewSpan>> {
        if !self.sets.is_empty() && !self.sets.iter().any(|set| set.name() == K::CRATE) {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` is defined in `{}`, not in the kernel set `{}`: launch it through `gpu.load(..)` of `{}`'s set",
                K::NAME,
                K::CRATE,
                super::link::set_names(&self.sets),
                K::CRATE
            )));
        }
        args.check_lengths()
            .map_err(|mismatch| Error::InvalidArgument(format!("kernel `{}`: {mismatch}", K::NAME)))?;
        let mut views = Vec::new();
        args.views(&mut |span| views.push(span));
        if let Some((a, b)) = ViewSpan::first_writable_overlap(&views) {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: its arguments `{}` and `{}` are writable views of overlapping memory: one launch \
                 may not write memory through two views (pass one view, or subviews that do not overlap)",
                K::NAME,
                a.field,
                b.field,
            )));
        }
        if let Backend::Sim(sim) = &self.gpu.backend {
            sim.check_views(K::NAME, &views)?;
        }
        if let Some(required) = K::REQUIRES {
            self.check_architecture(K::NAME, K::CRATE, required)?;
        }
        let threads = shape.block.0 * shape.block.1 * shape.block.2;
        if !K::LAUNCH_BOUNDS.allows(threads) {
            let max = K::LAUNCH_BOUNDS.max_threads;
            return Err(Error::InvalidLaunch(format!(
                "launch of kernel `{}` ({shape}): blocks of {threads} threads, more than its launch bound of {max} \
                 (`#[kernel(max_threads = {max})]`)",
                K::NAME
            )));
        }
        shape
            .check(self.gpu.properties())
            .map_err(|why| Error::InvalidLaunch(format!("launch of kernel `{}` ({shape}): {why}", K::NAME)))?;
        Ok(views)
    }
}

#[cfg(test)]
mod tests {
    use super::KernelSet;

    static SET: KernelSet = KernelSet::new("k", &[("sm_80", 80, ""), ("sm_90", 90, ""), ("sm_90a", 90, "")]);
    static ONLY_90A: KernelSet = KernelSet::new("k", &[("sm_90a", 90, "")]);

    /// The newest module not newer than the device; `sm_90a` on 9.0 only, and there first.
    #[test]
    fn arch_specific_modules_load_on_their_own_compute_capability() {
        let arch = |set: &KernelSet, cc| set.for_compute_capability(cc).map(|m| m.arch);
        assert_eq!(arch(&SET, 90), Some("sm_90a"));
        assert_eq!(arch(&SET, 100), Some("sm_90"));
        assert_eq!(arch(&SET, 89), Some("sm_80"));
        assert_eq!(arch(&SET, 75), None);
        assert_eq!(arch(&ONLY_90A, 90), Some("sm_90a"));
        assert_eq!(arch(&ONLY_90A, 100), None);
    }
}
