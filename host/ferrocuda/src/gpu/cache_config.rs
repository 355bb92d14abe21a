//! The split of each multiprocessor's on-chip memory between L1 and shared memory (book §3.3.1):
//! the context's and a kernel's preference (`cudaDeviceSetCacheConfig`, `cudaFuncSetCacheConfig`:
//! `cudaFuncCachePreferNone/Shared/L1/Equal`), and on compute capability 7.0 and newer a kernel's
//! preferred shared-memory carveout, a percentage of the largest shared-memory configuration
//! (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`). Both are hints: the driver picks the
//! configuration a launch runs with. The simulator has no cache to split: it records the values
//! and reads them back.
use super::{Backend, Error, Gpu, LoadedKernels, Result};
use cudarc::driver::sys::{CUfunc_cache, CUfunction_attribute_enum};
use ferrocuda_device::launch::{Kernel, KernelArgs};
use std::collections::HashMap;

/// A preferred L1/shared split (`cudaFuncCache*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CachePreference {
    /// `cudaFuncCachePreferNone`: no preference (the default).
    #[default]
    None,
    /// `cudaFuncCachePreferShared`: more shared memory (the book's 48 KB shared / 16 KB L1).
    Shared,
    /// `cudaFuncCachePreferL1`: more L1 (16 KB shared / 48 KB L1).
    L1,
    /// `cudaFuncCachePreferEqual`: equal parts (32 / 32 KB on compute capability 3.x).
    Equal,
}

impl CachePreference {
    /// All four, in the CUDA enumeration's order.
    pub const ALL: [CachePreference; 4] = [Self::None, Self::Shared, Self::L1, Self::Equal];

    /// The CUDA runtime's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "cudaFuncCachePreferNone",
            Self::Shared => "cudaFuncCachePreferShared",
            Self::L1 => "cudaFuncCachePreferL1",
            Self::Equal => "cudaFuncCachePreferEqual",
        }
    }

    fn to_cuda(self) -> CUfunc_cache {
        match self {
            Self::None => CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE,
            Self::Shared => CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED,
            Self::L1 => CUfunc_cache::CU_FUNC_CACHE_PREFER_L1,
            Self::Equal => CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL,
        }
    }

    fn from_cuda(value: CUfunc_cache) -> Self {
        match value {
            CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED => Self::Shared,
            CUfunc_cache::CU_FUNC_CACHE_PREFER_L1 => Self::L1,
            CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL => Self::Equal,
            _ => Self::None,
        }
    }
}

/// What the simulator records in place of the driver's state.
#[derive(Debug, Default)]
pub(super) struct SimCacheState {
    context: CachePreference,
    kernels: HashMap<&'static str, CachePreference>,
    carveouts: HashMap<&'static str, i32>,
}

/// The driver's value of a carveout never set: no preference.
pub const CARVEOUT_DEFAULT: i32 = -1;

impl Gpu {
    /// Sets the context's L1/shared preference (`cuCtxSetCacheConfig`, the book's
    /// `cudaDeviceSetCacheConfig`); the simulator records it.
    pub fn set_cache_config(&self, preference: CachePreference) -> Result<()> {
        match &self.backend {
            Backend::Cuda(dev) => dev
                .context
                .set_cache_config(preference.to_cuda())
                .map_err(Error::cuda(format!("cuCtxSetCacheConfig({})", preference.name()))),
            Backend::Sim(sim) => {
                sim.cache_state().context = preference;
                Ok(())
            }
        }
    }

    /// The context's L1/shared preference (`cuCtxGetCacheConfig`).
    ///
    /// ```
    /// use ferrocuda::gpu::{CachePreference, Gpu};
    /// let gpu = Gpu::simulator();
    /// gpu.set_cache_config(CachePreference::L1)?;
    /// assert_eq!(gpu.cache_config()?, CachePreference::L1);
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn cache_config(&self) -> Result<CachePreference> {
        match &self.backend {
            Backend::Cuda(dev) => dev
                .context
                .get_cache_config()
                .map(CachePreference::from_cuda)
                .map_err(Error::cuda("cuCtxGetCacheConfig".to_string())),
            Backend::Sim(sim) => Ok(sim.cache_state().context),
        }
    }
}

impl LoadedKernels<'_> {
    /// Sets kernel `K`'s L1/shared preference (`cuFuncSetCacheConfig`, the book's
    /// `cudaFuncSetCacheConfig`); it overrides the context's for `K`'s launches. The driver
    /// offers no way to read it back; the simulator records it ([`LoadedKernels::kernel_cache_config`]).
    pub fn set_cache_config<K: Kernel<A>, A: KernelArgs>(&self, _kernel: K, preference: CachePreference) -> Result<()> {
        match (&self.gpu().backend, self.module()) {
            (Backend::Cuda(_), Some(module)) => module
                .function(K::NAME)?
                .set_function_cache_config(preference.to_cuda())
                .map_err(Error::cuda(format!(
                    "cuFuncSetCacheConfig(`{}`, {})",
                    K::NAME,
                    preference.name()
                ))),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Sim(sim), _) => {
                sim.cache_state().kernels.insert(K::NAME, preference);
                Ok(())
            }
        }
    }

    /// The preference the simulator recorded for `K` (`None` until set); `None` on CUDA, whose
    /// driver does not report it.
    pub fn kernel_cache_config<K: Kernel<A>, A: KernelArgs>(&self, _kernel: K) -> Option<CachePreference> {
        match &self.gpu().backend {
            Backend::Cuda(_) => None,
            Backend::Sim(sim) => Some(sim.cache_state().kernels.get(K::NAME).copied().unwrap_or_default()),
        }
    }

    /// Sets kernel `K`'s preferred shared-memory carveout: `percent` of the largest shared-memory
    /// configuration (0 to 100), or [`CARVEOUT_DEFAULT`] for none
    /// (`cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)`; compute capability 7.0 and newer).
    pub fn set_shared_carveout<K: Kernel<A>, A: KernelArgs>(&self, _kernel: K, percent: i32) -> Result<()> {
        if !(CARVEOUT_DEFAULT..=100).contains(&percent) {
            return Err(Error::InvalidArgument(format!(
                "a shared-memory carveout is a percentage from 0 to 100 (or -1 for the default), not {percent}"
            )));
        }
        let (major, minor) = self.gpu().properties().compute_capability;
        if major < 7 {
            return Err(Error::InvalidArgument(format!(
                "shared-memory carveouts need compute capability 7.0 or newer; this device has {major}.{minor}"
            )));
        }
        match (&self.gpu().backend, self.module()) {
            (Backend::Cuda(_), Some(module)) => module
                .function(K::NAME)?
                .set_attribute(
                    CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                    percent,
                )
                .map_err(Error::cuda(format!(
                    "cuFuncSetAttribute(`{}`, PREFERRED_SHARED_MEMORY_CARVEOUT = {percent})",
                    K::NAME
                ))),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Sim(sim), _) => {
                sim.cache_state().carveouts.insert(K::NAME, percent);
                Ok(())
            }
        }
    }

    /// Kernel `K`'s preferred shared-memory carveout as the driver reports it
    /// (`cuFuncGetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)`), [`CARVEOUT_DEFAULT`] until set.
    pub fn shared_carveout<K: Kernel<A>, A: KernelArgs>(&self, _kernel: K) -> Result<i32> {
        match (&self.gpu().backend, self.module()) {
            (Backend::Cuda(_), Some(module)) => module
                .function(K::NAME)?
                .get_attribute(CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
                .map_err(Error::cuda(format!(
                    "cuFuncGetAttribute(`{}`, PREFERRED_SHARED_MEMORY_CARVEOUT)",
                    K::NAME
                ))),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Sim(sim), _) => Ok(sim
                .cache_state()
                .carveouts
                .get(K::NAME)
                .copied()
                .unwrap_or(CARVEOUT_DEFAULT)),
        }
    }
}
