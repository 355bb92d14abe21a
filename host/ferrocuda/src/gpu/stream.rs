//! Streams, events recorded on them, and the copies of the book's §3.1: asynchronous copies of
//! ranges of pinned buffers, synchronous copies of ranges (many small `cudaMemcpy`s), and 2-D
//! copies of array sections (`cudaMemcpy2D`).
//!
//! Streams are created as `cudaStreamCreate` creates them (`CU_STREAM_DEFAULT`, "blocking"): the
//! legacy default stream, which every other call of this library uses, waits for their work and
//! they wait for its work. So an event recorded on the default stream times work on all of
//! them, as the book's `start`/`stop` events in stream 0 do, and a buffer freed (in stream order,
//! on the default stream) is never freed under a copy or kernel still running on a stream.
//!
//! A buffer's free is also ordered after the work of the other devices' streams
//! ([`order_after_live_streams`]): a kernel on one GPU can use another GPU's buffer (peer access).
//!
//! On the simulator every operation runs to completion when it is issued, in issue order, and an
//! event is the host clock at that moment: results are those of CUDA, overlap never happens.
use super::memory::{Pinned, Storage};
use super::{Backend, Error, Gpu, Result};
use super::{DeviceBuffer, Element, PinnedBuffer};
use cudarc::driver::sys::{self, CUevent_flags, CUmemorytype};
use cudarc::driver::{CudaEvent, CudaStream, DevicePtr, DevicePtrMut, result};
use std::ops::Range;
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

/// The legacy default stream of each open CUDA context of the process: an event recorded on one
/// completes after all the work queued before it on every stream of its context (they are all
/// blocking streams), so these few streams stand for all of a context's work.
static CONTEXT_STREAMS: Mutex<Vec<Weak<CudaStream>>> = Mutex::new(Vec::new());

fn context_streams() -> std::sync::MutexGuard<'static, Vec<Weak<CudaStream>>> {
    // A poisoned lock only means a thread panicked between two list updates, which leave it valid.
    CONTEXT_STREAMS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Notes the legacy default stream of a newly opened CUDA device.
pub(super) fn register_context_stream(stream: &Arc<CudaStream>) {
    let mut streams = context_streams();
    streams.retain(|s| s.strong_count() > 0);
    streams.push(Arc::downgrade(stream));
}

/// Waits until the work queued so far on every open CUDA device has finished: a host access to
/// memory any device's kernel may use (managed memory, reachable from every device), or its free.
pub(super) fn synchronize_live_contexts() -> Result<()> {
    let streams: Vec<Arc<CudaStream>> = context_streams().iter().filter_map(Weak::upgrade).collect();
    for stream in streams {
        stream.context().synchronize().map_err(Error::cuda(
            "synchronizing a device before a host access to memory it may use",
        ))?;
    }
    Ok(())
}

/// Makes `free_on` (a buffer's stream, on which its free is then queued) wait for all the work
/// queued so far in every other open context, so no kernel of another device still uses the
/// memory when it is freed. Work of `free_on`'s own context is ordered already: the free runs on
/// the legacy default stream, which waits for every blocking stream of its context.
pub(super) fn order_after_live_streams(free_on: &CudaStream) -> Result<()> {
    let own = free_on.context().cu_ctx();
    let others: Vec<Arc<CudaStream>> = context_streams()
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|s| s.context().cu_ctx() != own)
        .collect();
    for other in others {
        let after = other.record_event(None).map_err(Error::cuda("cudaEventRecord"))?;
        free_on.wait(&after).map_err(Error::cuda("cudaStreamWaitEvent"))?;
    }
    Ok(())
}

/// A stream of work that runs in issue order, concurrently with other streams' work (the book's
/// `stream(i)`); on the simulator, a label: its work runs when issued.
///
/// Dropping it waits for its work to finish.
///
/// ```
/// let gpu = ferrocuda::Gpu::from_env(0)?;
/// let (n, chunk) = (1 << 20, 1 << 18);
/// let streams = (0..4).map(|_| gpu.new_stream()).collect::<Result<Vec<_>, _>>()?;
/// let mut a = gpu.pinned::<f32>(n)?;
/// a.as_mut_slice()?.fill(1.0);
/// let mut a_d = gpu.zeros::<f32>(n)?;
/// let mut b = gpu.pinned::<f32>(n)?;
/// // Each chunk's copy in and copy out run in its own stream, overlapping the others' (a
/// // kernel between them goes through `LoadedKernels::launch_on`).
/// for (i, s) in streams.iter().enumerate() {
///     let range = i * chunk..(i + 1) * chunk;
///     gpu.upload_async(s, &a, &mut a_d, range.clone())?;
///     gpu.download_async(s, &a_d, &mut b, range)?;
/// }
/// // Reading the pinned buffer waits for the copies into it.
/// assert!(b.as_slice()?.iter().all(|&x| x == 1.0));
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct Stream {
    inner: StreamInner,
}

enum StreamInner {
    /// A stream this `Stream` created and destroys; the `CudaStream` wraps it without owning it.
    Cuda {
        stream: Arc<CudaStream>,
    },
    Sim,
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let StreamInner::Cuda { stream } = &self.inner {
            // Errors cannot be returned from `drop`; a fault shows at the next synchronisation.
            let _ = stream.synchronize();
            // SAFETY: the raw stream was created by `Gpu::new_stream` and is destroyed only here,
            // once; its work has finished (above), and the `CudaStream` wrapping it does not own
            // it (`wrap_borrowed_stream`); borrowers of this `Stream` (an `NcclComm`) are gone.
            let _ = unsafe { result::stream::destroy(stream.cu_stream()) };
        }
    }
}

impl Stream {
    pub(super) fn cuda(&self) -> Option<&Arc<CudaStream>> {
        match &self.inner {
            StreamInner::Cuda { stream } => Some(stream),
            StreamInner::Sim => None,
        }
    }
}

/// A moment in a stream's work: on CUDA an event recorded with timing, on the simulator the host
/// clock when it was recorded.
pub struct Event {
    inner: EventInner,
}

enum EventInner {
    Cuda(CudaEvent),
    Host(Instant),
}

impl Event {
    pub(super) fn cuda(&self) -> Option<&CudaEvent> {
        match &self.inner {
            EventInner::Cuda(event) => Some(event),
            EventInner::Host(_) => None,
        }
    }

    /// Milliseconds from this event to `later` (waits for both: `cudaEventElapsedTime`).
    pub fn elapsed_ms(&self, later: &Event) -> Result<f64> {
        match (&self.inner, &later.inner) {
            (EventInner::Cuda(start), EventInner::Cuda(end)) => start
                .elapsed_ms(end)
                .map(f64::from)
                .map_err(Error::cuda("cudaEventElapsedTime")),
            (EventInner::Host(start), EventInner::Host(end)) => {
                Ok(end.saturating_duration_since(*start).as_secs_f64() * 1e3)
            }
            _ => Err(Error::InvalidArgument(
                "two events of different backends cannot be compared".into(),
            )),
        }
    }
}

/// One `cudaMemcpy2D`: `height` rows of `width` elements, from the rows starting at `src_offset`
/// every `src_pitch` elements to those starting at `dst_offset` every `dst_pitch` elements.
///
/// The book's arguments, in elements: the first element of each side (`src_offset`,
/// `dst_offset`), its leading dimension (`*_pitch`), and the section's extents. In row-major
/// storage a row is the contiguous run; in the book's column-major Fortran it is a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy2d {
    pub src_offset: usize,
    pub src_pitch: usize,
    pub dst_offset: usize,
    pub dst_pitch: usize,
    pub width: usize,
    pub height: usize,
}

impl Copy2d {
    /// Checks the section lies inside buffers of `src_len` and `dst_len` elements.
    pub(super) fn check(&self, src_len: usize, dst_len: usize) -> Result<()> {
        let last = |offset: usize, pitch: usize| {
            (self.height.max(1) - 1)
                .checked_mul(pitch)
                .and_then(|rows| rows.checked_add(offset))
                .and_then(|start| start.checked_add(self.width))
        };
        let fits = |offset, pitch, len| self.width <= pitch && last(offset, pitch).is_some_and(|end| end <= len);
        if self.width == 0 || self.height == 0 {
            return Err(Error::InvalidArgument(
                "a 2-D copy needs a width and a height of at least 1".into(),
            ));
        }
        if !fits(self.src_offset, self.src_pitch, src_len) || !fits(self.dst_offset, self.dst_pitch, dst_len) {
            return Err(Error::InvalidArgument(format!(
                "the 2-D copy {self:?} does not fit a source of {src_len} and a destination of {dst_len} elements (or a width exceeds its pitch)"
            )));
        }
        Ok(())
    }

    /// Performs the copy between host slices (the simulator's copies, and the CPU's side of
    /// each): row by row, as `cudaMemcpy2D` does.
    pub(super) fn apply<T: Copy>(&self, src: &[T], dst: &mut [T]) {
        for (s, d) in self.src_rows().zip(self.dst_rows()) {
            dst[d].copy_from_slice(&src[s]);
        }
    }

    /// The source elements of each row.
    pub(super) fn src_rows(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.height).map(|r| {
            let start = self.src_offset + r * self.src_pitch;
            start..start + self.width
        })
    }

    /// The destination elements of each row.
    pub(super) fn dst_rows(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.height).map(|r| {
            let start = self.dst_offset + r * self.dst_pitch;
            start..start + self.width
        })
    }
}

/// Checks `range` lies inside buffers of `lens` elements.
fn check_range(what: &str, range: &Range<usize>, lens: &[usize]) -> Result<()> {
    if range.start > range.end || lens.iter().any(|&len| range.end > len) {
        return Err(Error::InvalidArgument(format!(
            "{what} of elements {range:?} does not fit buffers of {lens:?} elements"
        )));
    }
    Ok(())
}

impl Gpu {
    /// A new stream (`cudaStreamCreate`); on the simulator, one whose work runs when issued.
    pub fn new_stream(&self) -> Result<Stream> {
        match &self.backend {
            Backend::Cuda(cuda) => {
                cuda.context
                    .bind_to_thread()
                    .map_err(Error::cuda("binding the context"))?;
                // A blocking stream, as `cudaStreamCreate` makes (see the module header for why).
                let raw = result::stream::create(result::stream::StreamKind::Default)
                    .map_err(Error::cuda("cuStreamCreate"))?;
                // SAFETY: `raw` is a live stream of this context; the wrapper does not destroy it,
                // and it lives inside the `Stream`, whose `drop` destroys `raw` after its last use.
                let stream = unsafe { cuda.context.wrap_borrowed_stream(raw) };
                Ok(Stream {
                    inner: StreamInner::Cuda { stream },
                })
            }
            Backend::Sim(_) => Ok(Stream {
                inner: StreamInner::Sim,
            }),
        }
    }

    /// Records a timing event on `stream`, or on this `Gpu`'s own stream (the legacy default
    /// stream, which waits for every stream's earlier work) for `None`. The event is created in
    /// the stream's context, so it belongs to the device whose work it times (book §4.1: events
    /// belong to the device current at their creation), whichever `Gpu` records it.
    pub fn record_event(&self, stream: Option<&Stream>) -> Result<Event> {
        match &self.backend {
            Backend::Cuda(cuda) => {
                let on = match stream {
                    Some(s) => s.cuda().ok_or_else(mixed)?,
                    None => &cuda.stream,
                };
                let event = on
                    .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(Error::cuda("cudaEventRecord"))?;
                Ok(Event {
                    inner: EventInner::Cuda(event),
                })
            }
            Backend::Sim(_) => Ok(Event {
                inner: EventInner::Host(Instant::now()),
            }),
        }
    }

    /// Waits until all work queued on `stream` has finished.
    pub fn synchronize_stream(&self, stream: &Stream) -> Result<()> {
        match stream.cuda() {
            Some(s) => s.synchronize().map_err(Error::cuda("cudaStreamSynchronize")),
            None => self.check_simulator_fault(),
        }
    }

    /// `cudaMemcpyAsync(a_d(range), a(range), stream)`: copies elements `range` of the pinned
    /// buffer `host` to the same elements of `device`, on `stream`; returns once it is queued.
    ///
    /// `host` must not change until the copy has run: its next host access waits for it.
    pub fn upload_async<T: Element>(
        &self,
        stream: &Stream,
        host: &PinnedBuffer<T>,
        device: &mut DeviceBuffer<T>,
        range: Range<usize>,
    ) -> Result<()> {
        check_range("an asynchronous copy", &range, &[host.len(), device.len()])?;
        self.check_simulator_fault()?;
        match (&self.backend, stream.cuda(), &host.pinned, &mut device.storage) {
            (Backend::Cuda(_), Some(s), Pinned::Cuda(pinned), Storage::Cuda(slice)) => {
                let src = host_range(pinned.as_ptr(), &range)?;
                let mut dst = slice.slice_mut(range.clone());
                let (dst, _record) = dst.device_ptr_mut(s);
                // SAFETY: `src` is `range` of a live pinned allocation (checked above) that the
                // buffer keeps alive until its pending copies finish (`PinnedBuffer`'s drop and
                // host accesses wait for them); `dst` is the same range of a live device
                // allocation, freed in stream order after this copy (blocking streams).
                unsafe { result::memcpy_htod_async(dst, src, s.cu_stream()) }
                    .map_err(Error::cuda("cudaMemcpyAsync host to device"))?;
                host.mark_pending(s)
            }
            (Backend::Sim(_), None, Pinned::Host(values), _) => {
                device.host_mut().ok_or_else(mixed)?[range.clone()].copy_from_slice(&values[range]);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpyAsync(a(range), a_d(range), stream)`: copies elements `range` of `device` to
    /// the same elements of the pinned buffer `host`, on `stream`; returns once it is queued.
    ///
    /// The next host access to `host` waits for the copy.
    pub fn download_async<T: Element>(
        &self,
        stream: &Stream,
        device: &DeviceBuffer<T>,
        host: &mut PinnedBuffer<T>,
        range: Range<usize>,
    ) -> Result<()> {
        check_range("an asynchronous copy", &range, &[host.len(), device.len()])?;
        self.check_simulator_fault()?;
        match (&self.backend, stream.cuda(), &mut host.pinned, &device.storage) {
            (Backend::Cuda(_), Some(s), Pinned::Cuda(pinned), Storage::Cuda(slice)) => {
                let base = pinned_mut_ptr(pinned)?;
                let src = slice.slice(range.clone());
                let (src, _record) = src.device_ptr(s);
                // SAFETY: `range` lies inside the pinned allocation (checked above), which stays
                // alive and unread by the host until this copy has finished (`mark_pending`).
                let dst = unsafe { std::slice::from_raw_parts_mut(base.add(range.start), range.len()) };
                // SAFETY: `src` is the same range of a live device allocation, freed in stream
                // order after this copy; `dst` as above.
                unsafe { result::memcpy_dtoh_async(dst, src, s.cu_stream()) }
                    .map_err(Error::cuda("cudaMemcpyAsync device to host"))?;
                host.mark_pending(s)
            }
            (Backend::Sim(_), None, Pinned::Host(values), _) => {
                values[range.clone()].copy_from_slice(&device.host().ok_or_else(mixed)?[range]);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy(a_d(offset:), host)`: copies `host` (pageable or pinned memory) into
    /// `device` from element `offset`, and returns once the host may reuse `host`, as
    /// `cudaMemcpy` does. One call per transfer: the per-transfer cost of §3.1.2.
    pub fn upload_range<T: Element>(&self, host: &[T], device: &mut DeviceBuffer<T>, offset: usize) -> Result<()> {
        let range = offset..offset.saturating_add(host.len());
        check_range("a copy", &range, &[device.len()])?;
        self.check_simulator_fault()?;
        match (&self.backend, &mut device.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                cuda.context
                    .bind_to_thread()
                    .map_err(Error::cuda("binding the context"))?;
                let mut dst = slice.slice_mut(range);
                let (dst, _record) = dst.device_ptr_mut(&cuda.stream);
                // SAFETY: `dst` is `host.len()` elements of a live device allocation (checked
                // above); the copy is synchronous, so `host` is read before this returns.
                unsafe { result::memcpy_htod_sync(dst, host) }.map_err(Error::cuda(format!(
                    "cudaMemcpy of {} bytes host to device",
                    std::mem::size_of_val(host)
                )))
            }
            (Backend::Sim(_), _) => {
                device.host_mut().ok_or_else(mixed)?[range].copy_from_slice(host);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy2D` host to device: the section `copy` of `host` (pageable or pinned) into
    /// `device`, in one call; returns once the host may reuse `host`.
    pub fn upload_2d<T: Element>(&self, host: &[T], device: &mut DeviceBuffer<T>, copy: Copy2d) -> Result<()> {
        copy.check(host.len(), device.len())?;
        self.check_simulator_fault()?;
        match (&self.backend, &mut device.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                let (dst, _record) = slice.device_ptr_mut(&cuda.stream);
                // SAFETY: `check` placed `src_offset` inside `host`.
                let src = unsafe { host.as_ptr().add(copy.src_offset) };
                let dst = dst + (copy.dst_offset * size_of::<T>()) as sys::CUdeviceptr;
                let params = memcpy_2d_params::<T>(copy, Side::Host(src.cast_mut().cast()), Side::Device(dst));
                memcpy_2d(cuda, &params, "cudaMemcpy2D host to device")
            }
            (Backend::Sim(_), _) => {
                copy.apply(host, device.host_mut().ok_or_else(mixed)?);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    /// `cudaMemcpy2D` device to host: the section `copy` of `device` into `host`, in one call.
    pub fn download_2d<T: Element>(&self, device: &DeviceBuffer<T>, host: &mut [T], copy: Copy2d) -> Result<()> {
        copy.check(device.len(), host.len())?;
        self.check_simulator_fault()?;
        match (&self.backend, &device.storage) {
            (Backend::Cuda(cuda), Storage::Cuda(slice)) => {
                let (src, _record) = slice.device_ptr(&cuda.stream);
                let src = src + (copy.src_offset * size_of::<T>()) as sys::CUdeviceptr;
                // SAFETY: `check` placed `dst_offset` inside `host`.
                let dst = unsafe { host.as_mut_ptr().add(copy.dst_offset) };
                let params = memcpy_2d_params::<T>(copy, Side::Device(src), Side::Host(dst.cast()));
                memcpy_2d(cuda, &params, "cudaMemcpy2D device to host")
            }
            (Backend::Sim(_), _) => {
                copy.apply(device.host().ok_or_else(mixed)?, host);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }
}

/// `range` of the pinned allocation at `base`, as a slice for the driver call.
fn host_range<'a, T>(base: Result<*const T, cudarc::driver::DriverError>, range: &Range<usize>) -> Result<&'a [T]> {
    let base = base.map_err(Error::cuda("reading pinned host memory"))?;
    // SAFETY: the caller checked `range` lies inside the allocation at `base`; the slice is only
    // handed to the driver, which reads it asynchronously while the buffer stays alive.
    Ok(unsafe { std::slice::from_raw_parts(base.add(range.start), range.len()) })
}

fn pinned_mut_ptr<T>(pinned: &mut cudarc::driver::PinnedHostSlice<T>) -> Result<*mut T>
where
    T: cudarc::driver::ValidAsZeroBits,
{
    pinned.as_mut_ptr().map_err(Error::cuda("writing pinned host memory"))
}

/// One side of a 2-D copy: the address of its first element (a host side that is only read
/// is passed as `*mut` too; the driver takes it as `const` then).
pub(super) enum Side {
    Host(*mut std::ffi::c_void),
    Device(sys::CUdeviceptr),
}

pub(super) fn memcpy_2d_params<T>(copy: Copy2d, src: Side, dst: Side) -> sys::CUDA_MEMCPY2D {
    let bytes = size_of::<T>();
    // Every field set: the memory types are enums without a zero value, so a zeroed struct
    // would not be a valid one. The unused side of each end is null, the driver's "unused".
    let split = |side: Side| match side {
        Side::Host(h) => (CUmemorytype::CU_MEMORYTYPE_HOST, h, 0),
        Side::Device(d) => (CUmemorytype::CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), d),
    };
    let ((src_type, src_host, src_device), (dst_type, dst_host, dst_device)) = (split(src), split(dst));
    // The sides' addresses already point at the first element, so x and y start at 0.
    sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host.cast_const(),
        srcDevice: src_device,
        srcArray: std::ptr::null_mut(),
        srcPitch: copy.src_pitch * bytes,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: dst_device,
        dstArray: std::ptr::null_mut(),
        dstPitch: copy.dst_pitch * bytes,
        WidthInBytes: copy.width * bytes,
        Height: copy.height,
    }
}

pub(super) fn memcpy_2d(cuda: &super::CudaDevice, params: &sys::CUDA_MEMCPY2D, call: &str) -> Result<()> {
    cuda.context
        .bind_to_thread()
        .map_err(Error::cuda("binding the context"))?;
    // SAFETY: `params` describes a section that `Copy2d::check` placed inside both live buffers
    // (the host one borrowed by the caller for this synchronous call); `cuMemcpy2D` returns once
    // the host side may be reused, as `cudaMemcpy2D` does.
    unsafe { sys::cuMemcpy2D_v2(params) }
        .result()
        .map_err(Error::cuda(call))
}

pub(super) fn mixed() -> Error {
    Error::InvalidArgument(
        "a stream or buffer of one backend (CUDA or simulator) was used with a `Gpu` of the other".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_2d_bounds() {
        let c = Copy2d {
            src_offset: 5,
            src_pitch: 10,
            dst_offset: 0,
            dst_pitch: 4,
            width: 4,
            height: 3,
        };
        // The last source row ends at 2 * 10 + 5 + 4 = 29, the last destination row at 12.
        assert!(c.check(29, 12).is_ok());
        assert!(c.check(28, 12).is_err());
        assert!(c.check(29, 11).is_err());
        assert!(
            Copy2d { width: 5, ..c }.check(100, 100).is_err(),
            "width beyond the pitch"
        );
        assert!(Copy2d { height: 0, ..c }.check(100, 100).is_err());
        let rows: Vec<_> = c.src_rows().collect();
        assert_eq!(rows, vec![5..9, 15..19, 25..29]);
    }

    #[test]
    fn ranges_are_checked() {
        assert!(check_range("x", &(2..5), &[5, 6]).is_ok());
        assert!(check_range("x", &(2..6), &[5, 6]).is_err());
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 4..2;
        assert!(check_range("x", &backwards, &[5]).is_err());
    }
}
