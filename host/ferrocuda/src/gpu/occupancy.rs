//! Occupancy: how many blocks of a kernel a multiprocessor holds at once, and the opt-in to more
//! dynamic shared memory than the default 48 KiB per block (book §3.5: the occupancy that the
//! book read from the profiler, and its shared-memory trick to hold one block per multiprocessor).
use super::{Backend, Error, Gpu, LoadedKernels, Result};
use ferrocuda_device::launch::{Kernel, KernelArgs};

/// Shared memory the driver reserves per resident block on compute capability 8.0 and newer
/// (CUDA C Programming Guide, "Shared Memory" of each architecture: 1 KB per thread block).
const RESERVED_SHARED_BYTES_PER_BLOCK: u32 = 1024;

impl LoadedKernels<'_> {
    /// Blocks of kernel `K` that one multiprocessor holds at once with blocks of `threads`
    /// threads and `shared_bytes` of dynamic shared memory each.
    ///
    /// On CUDA this is the driver's answer (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, which
    /// counts the kernel's registers). The simulator has no multiprocessors: it answers from the
    /// limits it reports (threads, blocks and shared memory per multiprocessor of compute
    /// capability 9.0), without registers, so kernels light on registers get the GPU's answer.
    ///
    /// ```
    /// use ferrocuda::Gpu;
    /// use ferrocuda::kernels::reduce::{ReduceArgs, ReduceSum};
    /// let gpu = Gpu::simulator();
    /// let kernels = gpu.load(&ferrocuda::ptx::LIBRARY)?;
    /// let blocks = kernels.max_active_blocks_per_multiprocessor::<_, ReduceArgs<f32, f32>>(ReduceSum, 256, 0)?;
    /// assert_eq!(blocks, 8); // 2048 threads per multiprocessor
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn max_active_blocks_per_multiprocessor<K: Kernel<A>, A: KernelArgs>(
        &self,
        _kernel: K,
        threads: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        if threads == 0 {
            return Err(Error::InvalidArgument("a block needs at least one thread".into()));
        }
        match (&self.gpu().backend, self.module()) {
            (Backend::Cuda(_), Some(module)) => module
                .function(K::NAME)?
                .occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)
                .map_err(Error::cuda(format!(
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor for `{}` ({threads} threads, {shared_bytes} B shared)",
                    K::NAME
                ))),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Sim(_), _) => {
                let p = self.gpu().properties();
                let by_threads = p.max_threads_per_multiprocessor / threads;
                let by_shared = match shared_bytes {
                    0 => u32::MAX,
                    s => p.shared_mem_per_multiprocessor_bytes / (s + RESERVED_SHARED_BYTES_PER_BLOCK),
                };
                Ok(p.max_blocks_per_multiprocessor.min(by_threads).min(by_shared))
            }
        }
    }

    /// Lets kernel `K` launch with up to `bytes` of dynamic shared memory per block: above the
    /// default 48 KiB, CUDA requires the opt-in `cuFuncSetAttribute(..,
    /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)`, up to the device's
    /// `shared_mem_per_block_optin_bytes`. The limit only ever rises: a smaller `bytes` than an
    /// earlier call's (or launch's) leaves it, so threads launching one kernel with different
    /// sizes cannot undo each other's opt-in. The simulator takes up to that limit without opt-in.
    pub fn allow_shared_bytes<K: Kernel<A>, A: KernelArgs>(&self, _kernel: K, bytes: u32) -> Result<()> {
        let limit = self.gpu().properties().shared_mem_per_block_optin_bytes;
        if bytes > limit {
            return Err(Error::InvalidArgument(format!(
                "{bytes} bytes of shared memory per block is more than this device's {limit}"
            )));
        }
        match (&self.gpu().backend, self.module()) {
            (Backend::Cuda(_), Some(module)) => module.allow_shared_bytes(K::NAME, bytes),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Sim(_), _) => Ok(()),
        }
    }
}

impl Gpu {
    /// The fraction of a multiprocessor's thread slots that `blocks` resident blocks of `threads`
    /// threads fill: the book's occupancy.
    pub fn occupancy(&self, blocks: u32, threads: u32) -> f64 {
        f64::from(blocks * threads) / f64::from(self.properties.max_threads_per_multiprocessor.max(1))
    }
}
