//! Device buffers (CUDA allocations, or host memory on the simulator), the kernel views made
//! from them, and pinned host buffers.
pub use super::element::{Element, Repr};
pub(super) use super::element::{reprs, reprs_mut, unreprs, unreprs_mut};
use super::simulator::AllocatedBytes;
use super::{Backend, Error, Gpu, Result};
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, PinnedHostSlice};
use ferrocuda_device::global::{Slice, SliceMut};
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

/// `len` elements of `T` in device memory: a CUDA allocation, or, on the simulator, host memory
/// aligned as `cudaMalloc`'s (256 bytes).
///
/// Dropping it is safe at any time: on CUDA the free is queued after all the work queued so far
/// on every stream of the process that could use it (each launch borrows the buffers it uses
/// until it is queued, so every launch using it is queued before the drop); on the simulator a
/// launch has finished when `launch` returns.
pub struct DeviceBuffer<T> {
    pub(super) storage: Storage<T>,
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Storage::Cuda(slice) = &self.storage {
            // cudarc's drop of the slice then queues the free on `slice.stream()`, after these
            // waits. An error (a fault of an earlier kernel) is reported by the next
            // synchronisation of the device.
            let _ = super::stream::order_after_live_streams(slice.stream());
            // cudarc's drop frees on the stream's handle in the current context, and the legacy
            // default stream's handle is the same in every context: make the buffer's current.
            let _ = slice.stream().context().bind_to_thread();
        }
    }
}

pub(super) enum Storage<T> {
    Cuda(CudaSlice<Repr<T>>),
    Host(HostAllocation<T>),
}

/// A zeroed, 256-byte-aligned host allocation standing in for device memory.
pub(super) struct HostAllocation<T> {
    ptr: NonNull<T>,
    len: usize,
    /// The simulator's count of allocated bytes, which this allocation's `len * size_of::<T>()`
    /// bytes were added to, and are taken from when dropped.
    counted: AllocatedBytes,
}

/// `cudaMalloc`'s alignment: the vectorised kernels rely on 16.
const HOST_ALIGN: usize = 256;

impl<T> HostAllocation<T> {
    fn zeroed(len: usize, counted: AllocatedBytes) -> Result<Self> {
        let layout = Self::layout(len)?;
        // SAFETY: the layout has a non-zero size (at least one alignment unit).
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or_else(|| {
            Error::OutOfMemory(format!(
                "cannot allocate {} ({} bytes) of simulator memory: the simulator's device memory is this host's, which has {} available",
                super::host_memory::Bytes(layout.size() as u64),
                layout.size(),
                super::host_memory::Bytes(super::host_memory::host_available_bytes())
            ))
        })?;
        counted.fetch_add(len * size_of::<T>(), Ordering::Relaxed);
        super::simulator::register_allocation(ptr.as_ptr() as usize, len * size_of::<T>());
        Ok(Self { ptr, len, counted })
    }

    fn layout(len: usize) -> Result<Layout> {
        len.checked_mul(size_of::<T>())
            .and_then(|bytes| Layout::from_size_align(bytes.max(HOST_ALIGN), HOST_ALIGN).ok())
            .ok_or_else(|| Error::InvalidArgument(format!("{len} elements do not fit in memory")))
    }
}

impl<T> Drop for HostAllocation<T> {
    fn drop(&mut self) {
        super::simulator::unregister_allocation(self.ptr.as_ptr() as usize);
        if let Ok(layout) = Self::layout(self.len) {
            // SAFETY: allocated by `zeroed` with this very layout.
            unsafe { dealloc(self.ptr.as_ptr().cast(), layout) }
        }
        self.counted.fetch_sub(self.len * size_of::<T>(), Ordering::Relaxed);
    }
}

// SAFETY: the allocation is owned plain data, like a `Vec<T>`.
unsafe impl<T: Send> Send for HostAllocation<T> {}
// SAFETY: as above; shared access hands out only views, whose use follows the kernels' contract.
unsafe impl<T: Sync> Sync for HostAllocation<T> {}

impl<T> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Cuda(slice) => slice.len(),
            Storage::Host(host) => host.len,
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

    /// The CUDA allocation, for what this library does not wrap; `None` on the simulator.
    pub fn as_cuda(&self) -> Option<&CudaSlice<Repr<T>>> {
        match &self.storage {
            Storage::Cuda(slice) => Some(slice),
            Storage::Host(_) => None,
        }
    }

    /// The CUDA allocation, writable; `None` on the simulator.
    pub fn as_cuda_mut(&mut self) -> Option<&mut CudaSlice<Repr<T>>> {
        match &mut self.storage {
            Storage::Cuda(slice) => Some(slice),
            Storage::Host(_) => None,
        }
    }

    pub(super) fn host(&self) -> Option<&[T]> {
        match &self.storage {
            // SAFETY: `len` initialised (zeroed, then written only as `T`) elements.
            Storage::Host(h) => Some(unsafe { std::slice::from_raw_parts(h.ptr.as_ptr(), h.len) }),
            Storage::Cuda(_) => None,
        }
    }

    pub(super) fn host_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.storage {
            // SAFETY: as in `host`, and the `&mut` borrow is unique.
            Storage::Host(h) => Some(unsafe { std::slice::from_raw_parts_mut(h.ptr.as_ptr(), h.len) }),
            Storage::Cuda(_) => None,
        }
    }
}

/// Views of a device buffer to put in a kernel's `*Args`.
///
/// A view borrows the buffer for as long as it lives, as `&[T]` and `&mut [T]` borrow a `Vec`:
/// the buffer cannot be dropped while a view of it exists, and a writable view excludes every
/// other view of the buffer.
///
/// ```compile_fail,E0499
/// # use ferrocuda::{Gpu, KernelView};
/// # fn demo(gpu: &Gpu) -> ferrocuda::Result<()> {
/// let mut buffer = gpu.zeros::<f32>(4)?;
/// let a = buffer.view_mut();
/// let b = buffer.view_mut(); // error: `buffer` is already borrowed mutably by `a`
/// # let _ = (a, b); Ok(()) }
/// ```
pub trait KernelView<T> {
    /// A read-only view of the whole buffer, borrowing it.
    fn view(&self) -> Slice<'_, T>;
    /// A writable view of the whole buffer, borrowing it mutably: no other view of the buffer
    /// exists while it does.
    fn view_mut(&mut self) -> SliceMut<'_, T>;
}

impl<T: Copy> KernelView<T> for DeviceBuffer<T> {
    fn view(&self) -> Slice<'_, T> {
        let len = self.len();
        let address = match &self.storage {
            Storage::Cuda(slice) => slice.device_ptr(slice.stream()).0 as *const T,
            Storage::Host(h) => h.ptr.as_ptr().cast_const(),
        };
        // SAFETY: `address` is the start of this allocation of `len` elements, which the view's
        // borrow keeps alive; launches using the view are queued while it lives, and the
        // buffer's free is ordered after every stream's queued work (`Drop`); on the simulator
        // launches complete before `launch` returns.
        unsafe { Slice::from_raw_parts(address, len) }
    }

    fn view_mut(&mut self) -> SliceMut<'_, T> {
        let len = self.len();
        let address = match &mut self.storage {
            Storage::Cuda(slice) => {
                let stream = slice.stream().clone();
                slice.device_ptr_mut(&stream).0 as *mut T
            }
            Storage::Host(h) => h.ptr.as_ptr(),
        };
        // SAFETY: as in `view`, and the unique borrow excludes every other view while it lives.
        unsafe { SliceMut::from_raw_parts(address, len) }
    }
}

impl Gpu {
    /// Allocates `len` zeroed elements.
    pub fn zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let storage = match &self.backend {
            Backend::Cuda(cuda) => Storage::Cuda(cuda.stream.alloc_zeros(len).map_err(Error::cuda(format!(
                "allocating {} bytes on the device",
                len.saturating_mul(size_of::<T>())
            )))?),
            Backend::Sim(sim) => Storage::Host(HostAllocation::zeroed(len, sim.allocated())?),
        };
        Ok(DeviceBuffer { storage })
    }

    /// Copies `host` to a new device buffer (blocking, as the book's `a_d = a`).
    pub fn upload<T: Element>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buffer = self.zeros(host.len())?;
        self.upload_into(host, &mut buffer)?;
        Ok(buffer)
    }

    /// Copies `host` (pageable memory: not a pinned buffer's) to a new device buffer, in stream
    /// order, without waiting for the GPU: from pageable memory `cuMemcpyHtoDAsync` stages the
    /// bytes before it returns, so `host` may change at once. For small descriptions a library
    /// call places beside its launch (a tensor map), where waiting would idle the GPU.
    pub(crate) fn upload_queued<T: Element>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buffer = self.zeros(host.len())?;
        match (&self.backend, &mut buffer.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                cuda.stream
                    .memcpy_htod(reprs(host), slice)
                    .map_err(Error::cuda(format!(
                        "copying {} bytes host to device",
                        std::mem::size_of_val(host)
                    )))?
            }
            _ => buffer.host_mut().ok_or_else(mixed_backends)?.copy_from_slice(host),
        }
        Ok(buffer)
    }

    /// Copies `host` into the existing device buffer `device` (same length).
    pub fn upload_into<T: Element>(&self, host: &[T], device: &mut DeviceBuffer<T>) -> Result<()> {
        same_len("a copy", &[host.len(), device.len()])?;
        self.check_simulator_fault()?;
        match (&self.backend, &mut device.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                let what = || format!("copying {} bytes host to device", std::mem::size_of_val(host));
                cuda.stream
                    .memcpy_htod(reprs(host), slice)
                    .map_err(Error::cuda(what()))?;
                // From pageable memory the driver returns once the bytes are staged; from
                // page-locked memory (a `Pinned` buffer's slice) `cuMemcpyHtoDAsync` returns at
                // once, and the caller may then change `host`: wait, as the call promises.
                cuda.stream.synchronize().map_err(Error::cuda(what()))
            }
            _ => {
                device.host_mut().ok_or_else(mixed_backends)?.copy_from_slice(host);
                Ok(())
            }
        }
    }

    /// Copies a device buffer back to a new `Vec` (waits for the work before it, as `a = a_d`).
    pub fn download<T: Element>(&self, device: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let mut host = super::host_memory::try_vec(device.len(), zero::<T>())?;
        self.download_into(device, &mut host)?;
        Ok(host)
    }

    /// Copies a device buffer into `host` (same length).
    pub fn download_into<T: Element>(&self, device: &DeviceBuffer<T>, host: &mut [T]) -> Result<()> {
        same_len("a copy", &[host.len(), device.len()])?;
        self.check_simulator_fault()?;
        match (&self.backend, &device.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                let what = || format!("copying {} bytes device to host", device.num_bytes());
                cuda.stream
                    .memcpy_dtoh(slice, reprs_mut(host))
                    .map_err(Error::cuda(what()))?;
                // Into page-locked memory (a `Pinned` buffer's slice) `cuMemcpyDtoHAsync`
                // returns before the bytes arrive, and cudarc does not wait for a plain slice:
                // course-vector-add-multi read NaN from its pinned C. Wait, as the call promises.
                cuda.stream.synchronize().map_err(Error::cuda(what()))
            }
            _ => {
                host.copy_from_slice(device.host().ok_or_else(mixed_backends)?);
                Ok(())
            }
        }
    }

    /// Copies the elements `view` addresses to a new `Vec`, after the work queued before it:
    /// reads the output of a launch whose arguments still hold the buffer's writable view (a
    /// benchmark's launcher, say), which borrows the buffer itself.
    pub fn download_view<T: Element>(&self, view: Slice<'_, T>) -> Result<Vec<T>> {
        self.check_simulator_fault()?;
        let mut host = super::host_memory::try_vec(view.len(), zero::<T>())?;
        let bytes = std::mem::size_of_val(host.as_slice());
        match &self.backend {
            Backend::Cuda(cuda) => {
                refuse_simulator_view(view.as_ptr() as usize, bytes)?;
                let what = || format!("copying {bytes} bytes device to host");
                cuda.context.bind_to_thread().map_err(Error::cuda(what()))?;
                // SAFETY: the view's borrow keeps its `len` elements allocated; the copy is
                // queued after the launches that write them and waited for before returning.
                unsafe {
                    cudarc::driver::result::memcpy_dtoh_async(&mut host, view.as_ptr() as u64, cuda.stream.cu_stream())
                }
                .map_err(Error::cuda(what()))?;
                cuda.stream.synchronize().map_err(Error::cuda(what()))?;
            }
            Backend::Sim(_) => {
                super::simulator::check_simulator_view(view.as_ptr() as usize, bytes)?;
                // SAFETY: the view lies in a live simulator allocation (checked), whose launches
                // have all finished; `host` is a distinct allocation of `len` elements.
                unsafe { std::ptr::copy_nonoverlapping(view.as_ptr(), host.as_mut_ptr(), host.len()) }
            }
        }
        Ok(host)
    }

    /// Copies `host` into the elements `view` addresses (same length), after the work queued
    /// before it and before the work queued after: as [`Gpu::download_view`], for a buffer whose
    /// writable view a launch's arguments hold.
    pub fn upload_view<T: Element>(&self, host: &[T], view: SliceMut<'_, T>) -> Result<()> {
        same_len("a copy", &[host.len(), view.len()])?;
        self.check_simulator_fault()?;
        let bytes = std::mem::size_of_val(host);
        match &self.backend {
            Backend::Cuda(cuda) => {
                refuse_simulator_view(view.as_mut_ptr() as usize, bytes)?;
                let what = || format!("copying {bytes} bytes host to device");
                cuda.context.bind_to_thread().map_err(Error::cuda(what()))?;
                // SAFETY: the view's borrow keeps its elements allocated; the copy is stream
                // ordered with the launches and waited for before `host` may change.
                unsafe {
                    cudarc::driver::result::memcpy_htod_async(view.as_mut_ptr() as u64, host, cuda.stream.cu_stream())
                }
                .map_err(Error::cuda(what()))?;
                cuda.stream.synchronize().map_err(Error::cuda(what()))
            }
            Backend::Sim(_) => {
                super::simulator::check_simulator_view(view.as_mut_ptr() as usize, bytes)?;
                // SAFETY: the view lies in a live simulator allocation (checked) that no launch is
                // running on; `host` is another allocation of the same length.
                unsafe { std::ptr::copy_nonoverlapping(host.as_ptr(), view.as_mut_ptr(), host.len()) };
                Ok(())
            }
        }
    }

    /// `cudaMemcpy` device to device, queued on this `Gpu`'s stream.
    pub fn copy_device_to_device<T: Element>(&self, from: &DeviceBuffer<T>, to: &mut DeviceBuffer<T>) -> Result<()> {
        same_len("a copy", &[from.len(), to.len()])?;
        match (&self.backend, &from.storage, &mut to.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(from), Storage::Cuda(to)) => cuda.stream.memcpy_dtod(from, to).map_err(
                Error::cuda(format!("copying {} bytes device to device", from.num_bytes())),
            ),
            _ => {
                let source = from.host().ok_or_else(mixed_backends)?;
                to.host_mut().ok_or_else(mixed_backends)?.copy_from_slice(source);
                Ok(())
            }
        }
    }

    /// Allocates `len` zeroed elements of page-locked host memory (`cudaMallocHost`), the source
    /// and target of fast, asynchronous copies; ordinary memory on the simulator.
    ///
    /// The memory is cached, as `cudaMallocHost`'s (flags 0), not write-combined (cudarc's
    /// default): the examples read their results back from it, and host reads of write-combined
    /// memory are uncached, many times slower.
    pub fn pinned<T: Element>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        match &self.backend {
            Backend::Cuda(cuda) => {
                // SAFETY: cuMemHostAlloc leaves the memory uninitialised; it is zeroed below
                // before anyone reads it, and all-zero bits are a valid `T`.
                let mut buffer =
                    unsafe { cuda.context.alloc_pinned_with_flags::<Repr<T>>(len, 0) }.map_err(Error::cuda(
                        format!("allocating {} bytes of pinned host memory", len * size_of::<T>()),
                    ))?;
                let bytes = buffer.as_mut_ptr().map_err(Error::cuda("mapping pinned host memory"))?;
                // SAFETY: `bytes` points to `len` elements of this allocation; zero is a valid `T`.
                unsafe { std::ptr::write_bytes(bytes, 0, len) };
                Ok(PinnedBuffer::new(Pinned::Cuda(buffer)))
            }
            Backend::Sim(_) => Ok(PinnedBuffer::new(Pinned::Host(super::host_memory::try_vec(
                len,
                zero::<T>(),
            )?))),
        }
    }

    /// Copies a pinned buffer to the device: asynchronous on CUDA, ordered on the stream (the
    /// buffer's next host access waits for it).
    pub fn upload_pinned<T: Element>(&self, host: &PinnedBuffer<T>, device: &mut DeviceBuffer<T>) -> Result<()> {
        match (&self.backend, &host.pinned, &mut device.storage) {
            (Backend::Cuda(cuda), Pinned::Cuda(pinned), Storage::Cuda(slice)) => {
                same_len("a copy", &[pinned.len(), slice.len()])?;
                cuda.stream
                    .memcpy_htod(pinned, slice)
                    .map_err(Error::cuda("asynchronous copy host to device"))?;
                host.mark_pending(&cuda.stream)
            }
            (_, Pinned::Host(values), _) => self.upload_into(values, device),
            _ => Err(mixed_backends()),
        }
    }

    /// Copies a device buffer into a pinned buffer: asynchronous on CUDA (the buffer's next
    /// host access waits for it).
    pub fn download_pinned<T: Element>(&self, device: &DeviceBuffer<T>, host: &mut PinnedBuffer<T>) -> Result<()> {
        match (&self.backend, &device.storage, &mut host.pinned) {
            (Backend::Cuda(cuda), Storage::Cuda(slice), Pinned::Cuda(pinned)) => {
                same_len("a copy", &[pinned.len(), slice.len()])?;
                cuda.stream
                    .memcpy_dtoh(slice, pinned)
                    .map_err(Error::cuda("asynchronous copy device to host"))?;
                host.mark_pending(&cuda.stream)
            }
            (_, _, Pinned::Host(values)) => self.download_into(device, values),
            _ => Err(mixed_backends()),
        }
    }
}

/// Page-locked host memory on CUDA; ordinary host memory on the simulator.
///
/// Copies into or out of it may still run when they return (on CUDA they are asynchronous);
/// the buffer remembers that, and its next host access, or its drop, first waits for those
/// copies, and only for them: work on other streams (a kernel overlapping the copies) goes on.
pub struct PinnedBuffer<T> {
    pub(super) pinned: Pinned<T>,
    /// For each stream that queued a copy using the memory: an event recorded after its latest
    /// such copy (an event covers the earlier work of its stream), and whether it was recorded
    /// since the last wait. The event is recorded again, not created, for the next copy.
    pending: Mutex<Vec<PendingCopies>>,
}

/// The copies one stream queued with a pinned buffer: its raw handle (an address, compared
/// only) and the event after the latest.
struct PendingCopies {
    stream: usize,
    after: CudaEvent,
    waiting: bool,
}

pub(super) enum Pinned<T> {
    Cuda(PinnedHostSlice<Repr<T>>),
    Host(Vec<T>),
}

impl<T> PinnedBuffer<T> {
    fn new(pinned: Pinned<T>) -> Self {
        Self {
            pinned,
            pending: Mutex::new(Vec::new()),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.pinned {
            Pinned::Cuda(pinned) => pinned.len(),
            Pinned::Host(values) => values.len(),
        }
    }

    /// True when the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The streams' pending copies (a poisoned lock only means a thread panicked between two
    /// plain field updates, which leave the list valid).
    fn pending(&self) -> MutexGuard<'_, Vec<PendingCopies>> {
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Notes that a copy using the memory was queued on `stream`: call after queuing it.
    pub(super) fn mark_pending(&self, stream: &CudaStream) -> Result<()> {
        if !matches!(self.pinned, Pinned::Cuda(_)) {
            return Ok(());
        }
        let key = stream.cu_stream() as usize;
        let mut pending = self.pending();
        // The same handle in another context is another stream (one destroyed, one created).
        let same = |p: &&mut PendingCopies| p.stream == key && Arc::ptr_eq(p.after.context(), stream.context());
        match pending.iter_mut().find(same) {
            Some(copies) => {
                copies.after.record(stream).map_err(Error::cuda("cudaEventRecord"))?;
                copies.waiting = true;
            }
            None => {
                let after = stream.record_event(None).map_err(Error::cuda("cudaEventRecord"))?;
                pending.push(PendingCopies {
                    stream: key,
                    after,
                    waiting: true,
                });
            }
        }
        Ok(())
    }

    /// Waits for the copies queued with the memory that may still run.
    fn settle(&self) -> Result<()> {
        // A copy queued meanwhile (from another thread holding `&self`) waits for the lock, so
        // it is never lost: at worst waited for now.
        for copies in self.pending().iter_mut().filter(|p| p.waiting) {
            copies
                .after
                .synchronize()
                .map_err(Error::cuda("waiting for the copies of a pinned buffer"))?;
            copies.waiting = false;
        }
        Ok(())
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // The memory must outlive every copy queued with it; an error here (a fault of an
        // earlier kernel) is reported by the next synchronisation of the device.
        let _ = self.settle();
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// The elements, once every copy queued with the buffer has finished.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.settle()?;
        match &self.pinned {
            Pinned::Cuda(pinned) => pinned
                .as_slice()
                .map(unreprs)
                .map_err(Error::cuda("reading pinned host memory")),
            Pinned::Host(values) => Ok(values),
        }
    }

    /// The elements, writable, once every copy queued with the buffer has finished.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.settle()?;
        match &mut self.pinned {
            Pinned::Cuda(pinned) => pinned
                .as_mut_slice()
                .map(unreprs_mut)
                .map_err(Error::cuda("writing pinned host memory")),
            Pinned::Host(values) => Ok(values),
        }
    }
}

/// The all-zero value of `T`.
fn zero<T: Element>() -> T {
    // SAFETY: `Element` requires `ValidAsZeroBits`.
    unsafe { std::mem::zeroed() }
}

/// `Err` when `start .. start + bytes` is simulator memory, which a CUDA copy must not be given.
fn refuse_simulator_view(start: usize, bytes: usize) -> Result<()> {
    match super::simulator::check_simulator_view(start, bytes) {
        Ok(()) if bytes > 0 => Err(mixed_backends()),
        _ => Ok(()),
    }
}

fn mixed_backends() -> Error {
    Error::InvalidArgument("a buffer of one backend (CUDA or simulator) was used with a `Gpu` of the other".into())
}

/// The common length of the buffers of one launch, or an error naming `what` when they differ
/// (the elementwise kernels process the shortest view, so a mismatch would silently skip data).
pub fn same_len(what: &str, lens: &[usize]) -> Result<usize> {
    match lens.split_first() {
        Some((&first, rest)) if rest.iter().all(|&l| l == first) => Ok(first),
        _ => Err(Error::InvalidArgument(format!(
            "{what} needs buffers of one length, not {lens:?}"
        ))),
    }
}
