//! Managed (unified) memory: one allocation the host and the kernels both address
//! (`cudaMallocManaged`), migrated between them page by page on demand, or ahead of use by a
//! prefetch (`cudaMemPrefetchAsync`), with placement hints (`cudaMemAdvise`).
//!
//! Host access cannot race a kernel: the host slices come from `&mut self` methods that first
//! wait for every kernel and copy queued on the device (`cuCtxSynchronize`), and a view for a
//! kernel borrows the buffer (`KernelView`) while it is made. As with [`DeviceBuffer`]'s views, a
//! view is a device address without a lifetime: launching with a view made earlier while a host
//! slice of the same buffer is alive is the caller's to avoid.
//!
//! On the simulator, managed memory is host memory like every simulated buffer: a prefetch or
//! a hint has nothing to move and returns at once, and a host access reports the fault of an
//! earlier kernel as CUDA's synchronisation would.
use super::memory::DeviceBuffer;
use super::simulator::{FaultSlot, take_fault};
use super::{Backend, Element, Error, Gpu, KernelView, Result};
use cudarc::driver::sys::{self, CUdevice_attribute as Attr, CUmem_advise, CUmemLocationType};
use cudarc::driver::{CudaContext, CudaStream, result};
use ferrocuda_device::global::{Slice, SliceMut};
use std::marker::PhantomData;
use std::sync::Arc;

/// `len` elements of `T` in managed memory: addressed by kernels (as a kernel argument through
/// [`KernelView`]) and by the host (through [`as_slice`](Self::as_slice) and
/// [`as_mut_slice`](Self::as_mut_slice), which wait for the device first).
///
/// ```
/// use ferrocuda::{Gpu, KernelView};
/// let gpu = Gpu::from_env(0)?;
/// let mut x = gpu.managed_from(&[1.0f32, 2.0, 3.0])?;
/// x.prefetch_to_device()?; // a no-op on the simulator
/// let _view = x.view_mut(); // what a kernel's `*Args` takes
/// x.prefetch_to_host()?;
/// x.as_mut_slice()?[0] = 5.0; // waits for the device, then the host writes in place
/// assert_eq!(x.as_slice()?, &[5.0, 2.0, 3.0]);
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct ManagedBuffer<T> {
    storage: Storage<T>,
}

enum Storage<T> {
    Cuda(ManagedAllocation<T>),
    /// The simulator's: host memory, and where its launches leave their faults.
    Sim {
        buffer: DeviceBuffer<T>,
        faults: FaultSlot,
    },
}

/// A `cuMemAllocManaged` allocation, freed when dropped, once the device is idle.
struct ManagedAllocation<T> {
    address: sys::CUdeviceptr,
    len: usize,
    context: Arc<CudaContext>,
    /// The stream prefetches and hints are queued on: the `Gpu`'s own.
    stream: Arc<CudaStream>,
    /// `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`: the device and the host may touch the
    /// memory at once, and prefetching is possible.
    concurrent_access: bool,
    _element: PhantomData<T>,
}

impl<T> Drop for ManagedAllocation<T> {
    fn drop(&mut self) {
        // A kernel of any device may still use the memory (managed memory is reachable from
        // every device); errors cannot be returned from `drop` (a fault of an earlier kernel
        // shows at the device's next synchronisation).
        if self.context.synchronize().is_ok() && super::stream::synchronize_live_contexts().is_ok() {
            // SAFETY: allocated by `cuMemAllocManaged` in this context, freed only here, once,
            // after every kernel and prefetch of every device using it has finished (above).
            let _ = unsafe { result::memory_free(self.address) };
        }
    }
}

/// A placement hint for managed memory (`cudaMemAdvise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Mostly read: the device and the host may each keep a read-only copy, so reads fault once
    /// and not again (a write drops the other copies).
    ReadMostly,
    /// Keep the pages on the GPU when possible; the host's accesses map them rather than move
    /// them.
    PreferDevice,
    /// Keep the pages in host memory when possible; the GPU's accesses map them.
    PreferHost,
    /// The GPU keeps a mapping to the pages wherever they are, so its first access does not fault.
    AccessedByDevice,
}

impl Gpu {
    /// Allocates `len` zeroed elements of managed memory (`cudaMallocManaged`, attached
    /// globally), zeroed by the host, so its pages start in host memory.
    ///
    /// Fails with one sentence when the device has no managed memory.
    pub fn managed<T: Element>(&self, len: usize) -> Result<ManagedBuffer<T>> {
        let storage = match &self.backend {
            Backend::Cuda(cuda) => Storage::Cuda(ManagedAllocation::zeroed(
                &cuda.context,
                &cuda.stream,
                self.properties.ordinal,
                len,
            )?),
            Backend::Sim(sim) => Storage::Sim {
                buffer: self.zeros(len)?,
                faults: sim.fault_slot(),
            },
        };
        Ok(ManagedBuffer { storage })
    }

    /// A managed buffer holding a copy of `host` (written by the host, so its pages start in
    /// host memory).
    pub fn managed_from<T: Element>(&self, host: &[T]) -> Result<ManagedBuffer<T>> {
        let mut buffer = self.managed(host.len())?;
        buffer.as_mut_slice()?.copy_from_slice(host);
        Ok(buffer)
    }
}

impl<T: Element> ManagedAllocation<T> {
    fn zeroed(context: &Arc<CudaContext>, stream: &Arc<CudaStream>, ordinal: usize, len: usize) -> Result<Self> {
        let attribute = |a: Attr, name: &str| {
            context
                .attribute(a)
                .map_err(Error::cuda(format!("cuDeviceGetAttribute({name})")))
        };
        if attribute(Attr::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "managed memory")? == 0 {
            return Err(Error::InvalidArgument(format!(
                "device {ordinal} does not support managed memory (cudaMallocManaged): use device buffers and explicit copies"
            )));
        }
        let concurrent_access = attribute(
            Attr::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
            "concurrent managed access",
        )? != 0;
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::InvalidArgument(format!("{len} elements do not fit in memory")))?;
        context.bind_to_thread().map_err(Error::cuda("binding the context"))?;
        // `cuMemAllocManaged` refuses 0 bytes; an empty buffer holds one byte it never shows.
        // SAFETY: the context is current (above); the flag is one the call accepts.
        let address = unsafe { result::malloc_managed(bytes.max(1), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL) }
            .map_err(Error::cuda(format!("cudaMallocManaged of {bytes} bytes")))?;
        let allocation = Self {
            address,
            len,
            context: context.clone(),
            stream: stream.clone(),
            concurrent_access,
            _element: PhantomData,
        };
        // SAFETY: `bytes` bytes at `address` are this fresh allocation, addressable by the host
        // (managed memory), and no kernel knows of it yet.
        unsafe { std::ptr::write_bytes(address as *mut u8, 0, bytes) };
        Ok(allocation)
    }

    /// `cuMemPrefetchAsync` of the whole buffer to `location`, on the `Gpu`'s stream.
    fn prefetch(&self, location: sys::CUmemLocation, to: &str) -> Result<()> {
        if !self.concurrent_access {
            return Err(Error::InvalidArgument(format!(
                "prefetching managed memory to the {to} needs a device with concurrent managed access (Pascal or newer, on Linux), and device {} has none: its managed memory moves at launch and synchronisation instead",
                self.context.ordinal()
            )));
        }
        if self.len == 0 {
            return Ok(());
        }
        self.context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context"))?;
        // SAFETY: the range is exactly this live managed allocation, which outlives the queued
        // prefetch (its drop waits for the device); the stream belongs to this context.
        unsafe {
            result::mem_prefetch_async(
                self.address,
                self.len * size_of::<T>(),
                location,
                self.stream.cu_stream(),
            )
        }
        .map_err(Error::cuda(format!("cudaMemPrefetchAsync to the {to}")))
    }
}

/// A `CUmemLocation`: the GPU `ordinal`, or the host for `None`.
fn location(ordinal: Option<usize>) -> sys::CUmemLocation {
    let (type_, id) = match ordinal {
        Some(ordinal) => (CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, ordinal as i32),
        // The id is ignored for the host.
        None => (CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST, 0),
    };
    sys::CUmemLocation { type_, id }
}

impl<T: Element> ManagedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Cuda(m) => m.len,
            Storage::Sim { buffer, .. } => buffer.len(),
        }
    }

    /// True when the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len() * size_of::<T>()
    }

    /// True when [`prefetch_to_device`](Self::prefetch_to_device) and
    /// [`prefetch_to_host`](Self::prefetch_to_host) can run: on a device with concurrent
    /// managed access, and on the simulator (where they have nothing to do).
    pub fn can_prefetch(&self) -> bool {
        match &self.storage {
            Storage::Cuda(m) => m.concurrent_access,
            Storage::Sim { .. } => true,
        }
    }

    /// Waits until no kernel or copy can use the memory: every piece of work queued on the
    /// device has finished (on CUDA), and returns the fault of an earlier kernel, if any.
    fn settle(&self) -> Result<()> {
        match &self.storage {
            // Every device, not only the one that allocated it: a kernel on another GPU may
            // use the memory through a view.
            Storage::Cuda(m) => {
                m.context.synchronize().map_err(Error::cuda(
                    "synchronizing the device before a host access to managed memory",
                ))?;
                super::stream::synchronize_live_contexts()
            }
            Storage::Sim { faults, .. } => take_fault(faults),
        }
    }

    /// The elements, read by the host in place, once the device's queued work has finished
    /// (pages on the GPU migrate back as they are touched, unless prefetched to the host).
    ///
    /// `&mut self`, so no view for a new kernel can be made while the slice lives.
    pub fn as_slice(&mut self) -> Result<&[T]> {
        self.settle()?;
        Ok(match &self.storage {
            // SAFETY: `len` elements of this live managed allocation, host-addressable, zeroed
            // at allocation and written since only as `T`; the device is idle (`settle`) and the
            // borrow of `self` keeps new views from being made while the slice lives.
            Storage::Cuda(m) => unsafe { std::slice::from_raw_parts(m.address as *const T, m.len) },
            Storage::Sim { buffer, .. } => buffer.host().ok_or_else(simulator_buffer_expected)?,
        })
    }

    /// The elements, written by the host in place, once the device's queued work has finished.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.settle()?;
        Ok(match &mut self.storage {
            // SAFETY: as in `as_slice`, and the `&mut` borrow makes the slice the only access.
            Storage::Cuda(m) => unsafe { std::slice::from_raw_parts_mut(m.address as *mut T, m.len) },
            Storage::Sim { buffer, .. } => buffer.host_mut().ok_or_else(simulator_buffer_expected)?,
        })
    }

    /// A copy of the elements (after the device's queued work, as [`as_slice`](Self::as_slice)).
    pub fn to_vec(&mut self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Queues a migration of the whole buffer to the GPU (`cudaMemPrefetchAsync` to the
    /// device) on the `Gpu`'s stream, so the next kernel finds its pages there instead of
    /// faulting them in; returns at once. Nothing to do on the simulator.
    ///
    /// Fails with one sentence on a device without concurrent managed access.
    pub fn prefetch_to_device(&self) -> Result<()> {
        match &self.storage {
            Storage::Cuda(m) => m.prefetch(location(Some(m.context.ordinal())), "device"),
            Storage::Sim { .. } => Ok(()),
        }
    }

    /// Queues a migration of the whole buffer to host memory on the `Gpu`'s stream, after the
    /// kernels queued before it, so the host's reads do not fault page by page; returns at once.
    /// Nothing to do on the simulator.
    pub fn prefetch_to_host(&self) -> Result<()> {
        match &self.storage {
            Storage::Cuda(m) => m.prefetch(location(None), "host"),
            Storage::Sim { .. } => Ok(()),
        }
    }

    /// Gives the driver a placement hint for the whole buffer (`cudaMemAdvise`). Nothing to do
    /// on the simulator.
    pub fn advise(&self, advice: Advice) -> Result<()> {
        let Storage::Cuda(m) = &self.storage else {
            return Ok(());
        };
        if m.len == 0 {
            return Ok(());
        }
        let device = location(Some(m.context.ordinal()));
        let (hint, at) = match advice {
            Advice::ReadMostly => (CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY, device),
            Advice::PreferDevice => (CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device),
            Advice::PreferHost => (CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION, location(None)),
            Advice::AccessedByDevice => (CUmem_advise::CU_MEM_ADVISE_SET_ACCESSED_BY, device),
        };
        m.context.bind_to_thread().map_err(Error::cuda("binding the context"))?;
        // SAFETY: the range is exactly this live managed allocation; a hint moves no data.
        unsafe { result::mem_advise(m.address, m.len * size_of::<T>(), hint, at) }
            .map_err(Error::cuda(format!("cudaMemAdvise({advice:?})")))
    }
}

impl<T: Element> KernelView<T> for ManagedBuffer<T> {
    fn view(&self) -> Slice<'_, T> {
        match &self.storage {
            // SAFETY: `address` is this live managed allocation of `len` elements, which the
            // device addresses as it is; it is freed only after the device is idle (drop).
            Storage::Cuda(m) => unsafe { Slice::from_raw_parts(m.address as *const T, m.len) },
            Storage::Sim { buffer, .. } => buffer.view(),
        }
    }

    fn view_mut(&mut self) -> SliceMut<'_, T> {
        match &mut self.storage {
            // SAFETY: as in `view`; the unique borrow means no other view of it is made now.
            Storage::Cuda(m) => unsafe { SliceMut::from_raw_parts(m.address as *mut T, m.len) },
            Storage::Sim { buffer, .. } => buffer.view_mut(),
        }
    }
}

fn simulator_buffer_expected() -> Error {
    Error::InvalidArgument("a simulator buffer holds host memory".into())
}
