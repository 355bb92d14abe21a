//! The copies of multi-GPU border exchange: asynchronous 2-D copies between a device and pinned
//! host memory (`cudaMemcpy2DAsync`), 2-D copies between device buffers of one or two GPUs
//! (peer-to-peer where the GPUs allow it), peer access, and one stream waiting for another's
//! event (`cudaStreamWaitEvent`), which orders work across GPUs without blocking the host.
//!
//! On the simulator every copy runs when it is issued, as in [`super::stream`].
use super::memory::{Pinned, Storage};
use super::stream::{Side, memcpy_2d_params, mixed};
use super::{Backend, Copy2d, DeviceBuffer, Element, Error, Event, Gpu, PinnedBuffer, Result, Stream};
use cudarc::driver::sys;
use cudarc::driver::{DevicePtr, DevicePtrMut};

impl Gpu {
    /// `cudaMemcpy2DAsync` device to host: the section `copy` of `device` into the pinned
    /// buffer `host`, on `stream`; returns once it is queued. The next host access to `host`
    /// waits for it.
    pub fn download_2d_async<T: Element>(
        &self,
        stream: &Stream,
        device: &DeviceBuffer<T>,
        host: &mut PinnedBuffer<T>,
        copy: Copy2d,
    ) -> Result<()> {
        copy.check(device.len(), host.len())?;
        self.check_simulator_fault()?;
        match (&self.backend, stream.cuda(), &mut host.pinned, &device.storage) {
            (Backend::Cuda(cuda), Some(s), Pinned::Cuda(pinned), Storage::Cuda(slice)) => {
                let base = pinned.as_mut_ptr().map_err(Error::cuda("writing pinned host memory"))?;
                let (src, _record) = slice.device_ptr(s);
                let src = src + (copy.src_offset * size_of::<T>()) as sys::CUdeviceptr;
                // SAFETY: `check` placed `dst_offset` inside the pinned allocation.
                let dst = unsafe { base.add(copy.dst_offset) };
                let params = memcpy_2d_params::<T>(copy, Side::Device(src), Side::Host(dst.cast()));
                memcpy_2d_async(cuda, s, &params, "cudaMemcpy2DAsync device to host")?;
                host.mark_pending(s)
            }
            (Backend::Sim(_), None, Pinned::Host(values), _) => {
                copy.apply(device.host().ok_or_else(mixed)?, values);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy2DAsync` host to device: the section `copy` of the pinned buffer `host` into
    /// `device`, on `stream`; returns once it is queued. `host` must not change until the copy
    /// has run: its next host access waits for it.
    pub fn upload_2d_async<T: Element>(
        &self,
        stream: &Stream,
        host: &PinnedBuffer<T>,
        device: &mut DeviceBuffer<T>,
        copy: Copy2d,
    ) -> Result<()> {
        copy.check(host.len(), device.len())?;
        self.check_simulator_fault()?;
        match (&self.backend, stream.cuda(), &host.pinned, &mut device.storage) {
            (Backend::Cuda(cuda), Some(s), Pinned::Cuda(pinned), Storage::Cuda(slice)) => {
                let base = pinned.as_ptr().map_err(Error::cuda("reading pinned host memory"))?;
                // SAFETY: `check` placed `src_offset` inside the pinned allocation.
                let src = unsafe { base.add(copy.src_offset) };
                let (dst, _record) = slice.device_ptr_mut(s);
                let dst = dst + (copy.dst_offset * size_of::<T>()) as sys::CUdeviceptr;
                let params = memcpy_2d_params::<T>(copy, Side::Host(src.cast_mut().cast()), Side::Device(dst));
                memcpy_2d_async(cuda, s, &params, "cudaMemcpy2DAsync host to device")?;
                host.mark_pending(s)
            }
            (Backend::Sim(_), None, Pinned::Host(values), _) => {
                copy.apply(values, device.host_mut().ok_or_else(mixed)?);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy2DAsync` device to device: the section `copy` of `src` into `dst`, on this
    /// GPU's `stream`. The buffers may belong to different GPUs of this process
    /// (`cuMemcpy3DPeerAsync`): the copy then runs peer to peer when
    /// [`Gpu::enable_peer_access`] succeeded, and is staged through the host by the driver
    /// otherwise.
    pub fn copy_2d_async<T: Element>(
        &self,
        stream: &Stream,
        src: &DeviceBuffer<T>,
        dst: &mut DeviceBuffer<T>,
        copy: Copy2d,
    ) -> Result<()> {
        copy.check(src.len(), dst.len())?;
        self.check_simulator_fault()?;
        let across = contexts_across_devices(src, dst);
        match (&self.backend, stream.cuda(), &src.storage, &mut dst.storage) {
            (Backend::Cuda(cuda), Some(s), Storage::Cuda(from), Storage::Cuda(to)) => {
                let (from, _r) = from.device_ptr(s);
                let (to, _w) = to.device_ptr_mut(s);
                let from = from + (copy.src_offset * size_of::<T>()) as sys::CUdeviceptr;
                let to = to + (copy.dst_offset * size_of::<T>()) as sys::CUdeviceptr;
                let params = memcpy_2d_params::<T>(copy, Side::Device(from), Side::Device(to));
                match across {
                    Some((src_ctx, dst_ctx)) => {
                        let peer = memcpy_2d_peer_params(&params, src_ctx, dst_ctx);
                        cuda.context
                            .bind_to_thread()
                            .map_err(Error::cuda("binding the context"))?;
                        // SAFETY: as in `memcpy_2d_async`; both contexts are the buffers' own,
                        // live while the buffers are.
                        unsafe { sys::cuMemcpy3DPeerAsync(&peer, s.cu_stream()) }
                            .result()
                            .map_err(Error::cuda("cudaMemcpy2DAsync between devices (cuMemcpy3DPeerAsync)"))
                    }
                    None => memcpy_2d_async(cuda, s, &params, "cudaMemcpy2DAsync device to device"),
                }
            }
            (Backend::Sim(_), None, Storage::Host(_), Storage::Host(_)) => {
                copy.apply(src.host().ok_or_else(mixed)?, dst.host_mut().ok_or_else(mixed)?);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// Lets this GPU's copies and kernels reach `peer`'s memory directly (`cuCtxEnablePeerAccess`, and
    /// `cuMemPoolSetAccess` on `peer`'s stream-ordered pool, where the buffers come from).
    /// Returns whether peer access is on: false on the simulator, for the same device, or when
    /// the two GPUs cannot reach each other (their copies are then staged through the host).
    pub fn enable_peer_access(&self, peer: &Gpu) -> Result<bool> {
        let (Backend::Cuda(cuda), Backend::Cuda(other)) = (&self.backend, &peer.backend) else {
            return Ok(false);
        };
        if cuda.context.ordinal() == other.context.ordinal() {
            return Ok(false);
        }
        let mut can = 0;
        // SAFETY: `can` is a valid out-pointer; both devices are live handles of the driver.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, cuda.context.cu_device(), other.context.cu_device()) }
            .result()
            .map_err(Error::cuda("cuDeviceCanAccessPeer"))?;
        if can == 0 {
            return Ok(false);
        }
        cuda.context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context"))?;
        // SAFETY: this GPU's context is current (above) and `other`'s context is live.
        match unsafe { sys::cuCtxEnablePeerAccess(other.context.cu_ctx(), 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
            e => return Err(Error::cuda("cuCtxEnablePeerAccess")(cudarc::driver::DriverError(e))),
        }
        set_pool_access(other, cuda, sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE)?;
        Ok(true)
    }

    /// Makes `stream`'s later work wait until `event` (recorded on any GPU of this process) has
    /// happened, without blocking the host (`cudaStreamWaitEvent`).
    pub fn stream_wait_event(&self, stream: &Stream, event: &Event) -> Result<()> {
        match (stream.cuda(), event.cuda()) {
            (Some(s), Some(e)) => s.wait(e).map_err(Error::cuda("cudaStreamWaitEvent")),
            (None, None) => self.check_simulator_fault(),
            _ => Err(mixed()),
        }
    }
}

/// The contexts of `src` and `dst` when they differ (buffers of two physical GPUs; logical
/// devices of one GPU share its primary context), else `None`.
///
/// A 2-D copy between two GPUs' buffers goes through `cuMemcpy3DPeer(Async)`, which names
/// both contexts and is staged by the driver when the GPUs have no access to each other's
/// memory: `cuMemcpy2D` relies on unified addressing alone, and fails with
/// `CUDA_ERROR_INVALID_VALUE` on stream-ordered pool memory another GPU may not reach.
pub(super) fn contexts_across_devices<T: Element>(
    src: &DeviceBuffer<T>,
    dst: &DeviceBuffer<T>,
) -> Option<(sys::CUcontext, sys::CUcontext)> {
    match (&src.storage, &dst.storage) {
        (Storage::Cuda(from), Storage::Cuda(to)) => {
            let (src_ctx, dst_ctx) = (from.context().cu_ctx(), to.context().cu_ctx());
            (src_ctx != dst_ctx).then_some((src_ctx, dst_ctx))
        }
        _ => None,
    }
}

/// `params` (a 2-D copy) as a one-slice 3-D peer copy between `src_ctx` and `dst_ctx`.
pub(super) fn memcpy_2d_peer_params(
    params: &sys::CUDA_MEMCPY2D,
    src_ctx: sys::CUcontext,
    dst_ctx: sys::CUcontext,
) -> sys::CUDA_MEMCPY3D_PEER {
    sys::CUDA_MEMCPY3D_PEER {
        srcXInBytes: params.srcXInBytes,
        srcY: params.srcY,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: params.srcMemoryType,
        srcHost: params.srcHost,
        srcDevice: params.srcDevice,
        srcArray: params.srcArray,
        srcContext: src_ctx,
        srcPitch: params.srcPitch,
        // One slice: the height of a slice only matters between slices.
        srcHeight: params.Height,
        dstXInBytes: params.dstXInBytes,
        dstY: params.dstY,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: params.dstMemoryType,
        dstHost: params.dstHost,
        dstDevice: params.dstDevice,
        dstArray: params.dstArray,
        dstContext: dst_ctx,
        dstPitch: params.dstPitch,
        dstHeight: params.Height,
        WidthInBytes: params.WidthInBytes,
        Height: params.Height,
        Depth: 1,
    }
}

/// Whether `accessor` may reach the memory of `owner`'s default stream-ordered pool
/// (`cuMemPoolGetAccess`), as [`set_pool_access`] grants it with peer access.
pub(super) fn pool_access_granted(owner: sys::CUdevice, accessor: &super::CudaDevice) -> Result<bool> {
    let pool = default_pool(owner)?;
    let mut location = sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: accessor.context.ordinal() as i32,
    };
    let mut flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
    // SAFETY: valid out-pointer and location; `pool` is a live device's default pool.
    unsafe { sys::cuMemPoolGetAccess(&mut flags, pool, &mut location) }
        .result()
        .map_err(Error::cuda("cuMemPoolGetAccess"))?;
    Ok(flags != sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE)
}

fn memcpy_2d_async(
    cuda: &super::CudaDevice,
    stream: &cudarc::driver::CudaStream,
    params: &sys::CUDA_MEMCPY2D,
    call: &str,
) -> Result<()> {
    cuda.context
        .bind_to_thread()
        .map_err(Error::cuda("binding the context"))?;
    // SAFETY: `params` describes a section that `Copy2d::check` placed inside both live buffers;
    // a device buffer is freed in stream order after the copy, and a pinned one waits for its
    // pending copies before any host access or free (`mark_pending`).
    unsafe { sys::cuMemcpy2DAsync_v2(params, stream.cu_stream()) }
        .result()
        .map_err(Error::cuda(call))
}

/// Grants (`PROT_READWRITE`) or withdraws (`PROT_NONE`) `accessor`'s access to the memory of
/// `owner`'s default stream-ordered pool (`cuMemPoolSetAccess`).
///
/// Buffers come from that pool (`cuMemAllocAsync`), and peer access to pool memory is the
/// pool's to give: `cuCtxEnablePeerAccess` maps only `cuMemAlloc`'s memory. Without this, on
/// two H100s `cuMemcpy` and `cuMemcpy2D` between the devices' buffers failed with
/// `CUDA_ERROR_INVALID_VALUE`, and `cuMemcpyPeer` was staged through the host (36 GB/s over
/// 18 NVLinks).
pub(super) fn set_pool_access(
    owner: &super::CudaDevice,
    accessor: &super::CudaDevice,
    flags: sys::CUmemAccess_flags,
) -> Result<()> {
    let pool = default_pool(owner.context.cu_device())?;
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: accessor.context.ordinal() as i32,
        },
        flags,
    };
    // SAFETY: `pool` is the owner's default pool, which lives as long as its device, and
    // `access` one valid descriptor of a device that can reach the owner (checked by callers).
    unsafe { sys::cuMemPoolSetAccess(pool, &access, 1) }
        .result()
        .map_err(Error::cuda("cuMemPoolSetAccess"))
}

/// `device`'s default stream-ordered pool (`cuDeviceGetDefaultMemPool`), where its buffers
/// come from; it lives as long as the device.
pub(super) fn default_pool(device: sys::CUdevice) -> Result<sys::CUmemoryPool> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: `pool` is a valid out-pointer and the device a live handle.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, device) }
        .result()
        .map_err(Error::cuda("cuDeviceGetDefaultMemPool"))?;
    Ok(pool)
}
