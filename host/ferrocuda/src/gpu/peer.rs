//! Several devices in one process (book §4.1): logical devices placed round-robin on the GPUs
//! present, where each runs and how much memory it has free (`cudaMemGetInfo`), peer access
//! (`cudaDeviceCanAccessPeer`, `cudaDeviceDisablePeerAccess`; enabling it is in `transfer.rs`)
//! and the copies between devices: 1-D (`cudaMemcpyPeer(Async)`) and 2-D (`cudaMemcpy2D`).
//!
//! Logical devices on one physical GPU are handles of its primary context (cudarc's
//! `CudaContext::new` retains it per handle): they share its memory, its legacy default stream
//! and its peer mappings, and a copy between them is a copy within one GPU. On the simulator
//! each logical device is an independent simulator, with its own nominal memory.
use super::memory::Storage;
use super::stream::{Side, memcpy_2d, memcpy_2d_params, mixed};
use super::transfer::{contexts_across_devices, memcpy_2d_peer_params};
use super::{Backend, BackendChoice, Copy2d, DeviceBuffer, Element, Error, Gpu, Result, Stream};
use cudarc::driver::sys;
use cudarc::driver::{DevicePtr, DevicePtrMut};

impl Gpu {
    /// Opens `n` logical devices: logical device `i` on GPU `i % device_count()` (round-robin, so
    /// with fewer GPUs than `n` several share one), or `n` independent simulators. `Auto` chooses
    /// the simulator when there is no driver or no GPU.
    ///
    /// ```
    /// let devices = ferrocuda::Gpu::open_logical(ferrocuda::BackendChoice::Sim, 3)?;
    /// assert_eq!(devices[2].logical_index(), 2);
    /// assert!(!devices[0].shares_device_with(&devices[1])); // independent simulators
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn open_logical(choice: BackendChoice, n: usize) -> Result<Vec<Gpu>> {
        if n == 0 {
            return Err(Error::InvalidArgument(
                "at least one logical device is needed, not 0".into(),
            ));
        }
        let cuda_count = match choice {
            BackendChoice::Sim => 0,
            BackendChoice::Cuda => match super::device_count()? {
                0 => return Err(Error::NoDevice),
                count => count,
            },
            BackendChoice::Auto => match super::device_count() {
                Ok(count) => count,
                Err(Error::NoDriver | Error::NoDevice) => 0,
                Err(e) => return Err(e),
            },
        };
        (0..n)
            .map(|i| {
                let mut gpu = if cuda_count == 0 {
                    Gpu::simulator_checked()?
                } else {
                    Gpu::new(i % cuda_count)?
                };
                gpu.logical_index = i;
                Ok(gpu)
            })
            .collect()
    }

    /// This handle's index among the logical devices it was opened with (0 for `Gpu::new`).
    pub fn logical_index(&self) -> usize {
        self.logical_index
    }

    /// The CUDA ordinal of the physical GPU this handle runs on; `None` on the simulator.
    pub fn physical_ordinal(&self) -> Option<usize> {
        match &self.backend {
            Backend::Cuda(cuda) => Some(cuda.context.ordinal()),
            Backend::Sim(_) => None,
        }
    }

    /// True when both handles run on the same physical GPU (never for two simulators, which
    /// are independent).
    pub fn shares_device_with(&self, other: &Gpu) -> bool {
        matches!((self.physical_ordinal(), other.physical_ordinal()), (Some(a), Some(b)) if a == b)
    }

    /// Where this handle runs, for output: `logical device 1 on GPU 0 (NVIDIA H100 80GB HBM3)`,
    /// or `logical device 1 on its own simulator (...)`.
    pub fn placement(&self) -> String {
        match self.physical_ordinal() {
            Some(ordinal) => format!(
                "logical device {} on GPU {ordinal} ({})",
                self.logical_index, self.properties.name
            ),
            None => format!(
                "logical device {} on its own simulator ({})",
                self.logical_index, self.properties.name
            ),
        }
    }

    /// `(free, total)` device memory, bytes (`cudaMemGetInfo`, this GPU's context bound), after
    /// waiting for the GPU's work. On the simulator: a nominal total, less the bytes this
    /// simulator's live buffers hold.
    ///
    /// Buffers are allocated from the device's stream-ordered pool (`cuMemAllocAsync`), which
    /// keeps freed memory reserved, invisible to `cuMemGetInfo`, and hands it to the next
    /// allocation: a placement check would then see no drop. So the pool is first trimmed
    /// (`cuMemPoolTrimTo(pool, 0)`), and the free figure counts the live buffers only.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        match &self.backend {
            Backend::Cuda(cuda) => {
                cuda.context
                    .bind_to_thread()
                    .map_err(Error::cuda("binding the context"))?;
                cuda.context
                    .synchronize()
                    .map_err(Error::cuda("synchronizing before cuMemGetInfo"))?;
                let pool = super::transfer::default_pool(cuda.context.cu_device())?;
                // SAFETY: `pool` is the device's default pool, which lives as long as the device;
                // trimming releases only memory no allocation holds.
                unsafe { sys::cuMemPoolTrimTo(pool, 0) }
                    .result()
                    .map_err(Error::cuda("cuMemPoolTrimTo"))?;
                cudarc::driver::result::mem_get_info().map_err(Error::cuda("cuMemGetInfo"))
            }
            Backend::Sim(sim) => Ok(sim.memory_info()),
        }
    }

    /// Whether this GPU's kernels and copies can reach `peer`'s memory directly
    /// (`cudaDeviceCanAccessPeer`): false for the same physical GPU (nothing to map) and on the
    /// simulator.
    pub fn can_access_peer(&self, peer: &Gpu) -> Result<bool> {
        let (Backend::Cuda(cuda), Backend::Cuda(other)) = (&self.backend, &peer.backend) else {
            return Ok(false);
        };
        if self.shares_device_with(peer) {
            return Ok(false);
        }
        let mut can = 0;
        // SAFETY: `can` is a valid out-pointer; both devices are live handles of the driver.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, cuda.context.cu_device(), other.context.cu_device()) }
            .result()
            .map_err(Error::cuda("cuDeviceCanAccessPeer"))?;
        Ok(can != 0)
    }

    /// Stops this GPU's direct access to `peer`'s memory (`cudaDeviceDisablePeerAccess`): later
    /// copies between them are staged through the host. Succeeds when it was not enabled, for
    /// the same physical GPU and on the simulator.
    pub fn disable_peer_access(&self, peer: &Gpu) -> Result<()> {
        let (Backend::Cuda(cuda), Backend::Cuda(other)) = (&self.backend, &peer.backend) else {
            return Ok(());
        };
        if self.shares_device_with(peer) {
            return Ok(());
        }
        cuda.context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context"))?;
        // SAFETY: this GPU's context is current (above) and `other`'s context is live.
        match unsafe { sys::cuCtxDisablePeerAccess(other.context.cu_ctx()) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => {}
            e => return Err(Error::cuda("cuCtxDisablePeerAccess")(cudarc::driver::DriverError(e))),
        }
        if self.can_access_peer(peer)? {
            super::transfer::set_pool_access(other, cuda, sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE)?;
        }
        Ok(())
    }

    /// `cudaMemcpyPeer(dst, self, src, src_gpu, n)`: all of `src` (on `src_gpu`) into `dst` (on
    /// this GPU), returning once the copy has finished. Peer to peer when access is enabled,
    /// staged through the host by the driver otherwise; a device-to-device copy when both
    /// handles share one GPU.
    pub fn copy_peer<T: Element>(&self, dst: &mut DeviceBuffer<T>, src_gpu: &Gpu, src: &DeviceBuffer<T>) -> Result<()> {
        self.peer_copy(None, PeerCall::Peer, dst, src_gpu, src)
    }

    /// The book's `b_d = a_d` between devices: `cudaMemcpy` with `cudaMemcpyDefault` (the driver's
    /// `cuMemcpy`, which finds both devices from the unified addresses), all of `src` (on
    /// `src_gpu`) into `dst` (on this GPU); returns once the copy has finished.
    pub fn copy_unified<T: Element>(
        &self,
        dst: &mut DeviceBuffer<T>,
        src_gpu: &Gpu,
        src: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.peer_copy(None, PeerCall::Unified, dst, src_gpu, src)
    }

    /// `cudaMemcpyPeerAsync`: as [`Gpu::copy_peer`], queued on `stream` (of either GPU);
    /// returns once it is queued.
    pub fn copy_peer_async<T: Element>(
        &self,
        stream: &Stream,
        dst: &mut DeviceBuffer<T>,
        src_gpu: &Gpu,
        src: &DeviceBuffer<T>,
    ) -> Result<()> {
        self.peer_copy(Some(stream), PeerCall::Peer, dst, src_gpu, src)
    }

    fn peer_copy<T: Element>(
        &self,
        stream: Option<&Stream>,
        call: PeerCall,
        dst: &mut DeviceBuffer<T>,
        src_gpu: &Gpu,
        src: &DeviceBuffer<T>,
    ) -> Result<()> {
        super::same_len("a peer copy", &[src.len(), dst.len()])?;
        self.check_simulator_fault()?;
        src_gpu.check_simulator_fault()?;
        let bytes = src.num_bytes();
        match (&self.backend, &src_gpu.backend, &src.storage, &mut dst.storage) {
            (Backend::Cuda(cuda), Backend::Cuda(from_gpu), Storage::Cuda(from), Storage::Cuda(to)) => {
                let raw_stream = match stream {
                    Some(s) => Some(s.cuda().ok_or_else(mixed)?.cu_stream()),
                    None => None,
                };
                let (from, _r) = from.device_ptr(&from_gpu.stream);
                let (to, _w) = to.device_ptr_mut(&cuda.stream);
                let (dst_ctx, src_ctx) = (cuda.context.cu_ctx(), from_gpu.context.cu_ctx());
                cuda.context
                    .bind_to_thread()
                    .map_err(Error::cuda("binding the context"))?;
                let same_context = dst_ctx == src_ctx;
                // `cuMemcpy` reads the source through unified addressing, which needs this GPU's
                // access to the source's pool (granted with peer access); without it the book's
                // `b_d = a_d` is staged by the driver, as `cudaMemcpy` stages `cudaMalloc`'s
                // memory: `cuMemcpyPeer`.
                let call = match call {
                    PeerCall::Unified
                        if !same_context
                            && !super::transfer::pool_access_granted(from_gpu.context.cu_device(), cuda)? =>
                    {
                        PeerCall::Peer
                    }
                    call => call,
                };
                // SAFETY: both buffers are live allocations of `bytes` bytes (lengths checked
                // above) in the named contexts; a device buffer is freed in stream order after
                // work queued before the free, and the synchronous calls return once the copy
                // has finished.
                let (status, call) = unsafe {
                    match (raw_stream, same_context) {
                        (None, _) if call == PeerCall::Unified => (sys::cuMemcpy(to, from, bytes), "cuMemcpy"),
                        (None, true) => (sys::cuMemcpyDtoD_v2(to, from, bytes), "cuMemcpyDtoD"),
                        (None, false) => (sys::cuMemcpyPeer(to, dst_ctx, from, src_ctx, bytes), "cuMemcpyPeer"),
                        (Some(s), true) => (sys::cuMemcpyDtoDAsync_v2(to, from, bytes, s), "cuMemcpyDtoDAsync"),
                        (Some(s), false) => (
                            sys::cuMemcpyPeerAsync(to, dst_ctx, from, src_ctx, bytes, s),
                            "cuMemcpyPeerAsync",
                        ),
                    }
                };
                status.result().map_err(Error::cuda(call))?;
                if raw_stream.is_none() {
                    // A copy between device buffers may return before it has run; the
                    // synchronous form waits, on both sides' streams, as its name promises.
                    for side in [&cuda.stream, &from_gpu.stream] {
                        side.synchronize()
                            .map_err(Error::cuda(format!("synchronizing after {call}")))?;
                    }
                }
                Ok(())
            }
            (Backend::Sim(_), Backend::Sim(_), Storage::Host(_), Storage::Host(_))
                if stream.is_none_or(|s| s.cuda().is_none()) =>
            {
                dst.host_mut()
                    .ok_or_else(mixed)?
                    .copy_from_slice(src.host().ok_or_else(mixed)?);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy2D` device to device: the section `copy` of `src` into `dst`, which may belong
    /// to another GPU of this process (then `cuMemcpy3DPeer`: peer to peer when access is
    /// enabled, staged by the driver otherwise), on this GPU's stream; returns once the copy has
    /// finished. The asynchronous form is [`Gpu::copy_2d_async`].
    pub fn copy_2d<T: Element>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>, copy: Copy2d) -> Result<()> {
        copy.check(src.len(), dst.len())?;
        self.check_simulator_fault()?;
        let across = contexts_across_devices(src, dst);
        match (&self.backend, &src.storage, &mut dst.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(from), Storage::Cuda(to)) => {
                let (from, _r) = from.device_ptr(&cuda.stream);
                let (to, _w) = to.device_ptr_mut(&cuda.stream);
                let from = from + (copy.src_offset * size_of::<T>()) as sys::CUdeviceptr;
                let to = to + (copy.dst_offset * size_of::<T>()) as sys::CUdeviceptr;
                let params = memcpy_2d_params::<T>(copy, Side::Device(from), Side::Device(to));
                match across {
                    Some((src_ctx, dst_ctx)) => {
                        let peer = memcpy_2d_peer_params(&params, src_ctx, dst_ctx);
                        cuda.context
                            .bind_to_thread()
                            .map_err(Error::cuda("binding the context"))?;
                        // SAFETY: `Copy2d::check` placed the section inside both live buffers,
                        // whose own contexts `peer` names.
                        unsafe { sys::cuMemcpy3DPeer(&peer) }
                            .result()
                            .map_err(Error::cuda("cudaMemcpy2D between devices (cuMemcpy3DPeer)"))?;
                    }
                    None => memcpy_2d(cuda, &params, "cudaMemcpy2D device to device")?,
                }
                // `cuMemcpy2D` between device buffers may return before the copy has run.
                cuda.stream
                    .synchronize()
                    .map_err(Error::cuda("synchronizing after cudaMemcpy2D device to device"))
            }
            (Backend::Sim(_), Storage::Host(_), Storage::Host(_)) => {
                copy.apply(src.host().ok_or_else(mixed)?, dst.host_mut().ok_or_else(mixed)?);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }
}

/// Which driver call a synchronous copy between devices makes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PeerCall {
    /// `cuMemcpyPeer` (`cuMemcpyDtoD` within one context).
    Peer,
    /// `cuMemcpy`, unified addressing.
    Unified,
}
