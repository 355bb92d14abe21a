//! Device buffers, the kernel views made from them, and pinned host buffers.
use super::{Error, Gpu, Result};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, HostSlice, PinnedHostSlice, ValidAsZeroBits};
use gpu_kernels::memory::{Slice, SliceMut};

/// A device allocation of `len` elements of `T` (cudarc's `CudaSlice`): freed, in stream order,
/// when dropped.
pub type DeviceBuffer<T> = CudaSlice<T>;

/// Views of a device buffer to put in a kernel's `*Args`.
pub trait KernelView<T> {
    /// A read-only view of the whole buffer.
    fn view(&self) -> Slice<T>;
    /// A writable view of the whole buffer; the `&mut` borrow says no other view writes it now.
    fn view_mut(&mut self) -> SliceMut<T>;
}

impl<T: Copy> KernelView<T> for CudaSlice<T> {
    fn view(&self) -> Slice<T> {
        let (address, _guard) = self.device_ptr(self.stream());
        // SAFETY: `address` is the start of this live allocation of `len()` elements; the view
        // is used by launches on this buffer's stream, ordered before its stream-ordered free.
        unsafe { Slice::from_raw_parts(address as *const T, self.len()) }
    }

    fn view_mut(&mut self) -> SliceMut<T> {
        let len = self.len();
        let stream = self.stream().clone();
        let (address, _guard) = self.device_ptr_mut(&stream);
        // SAFETY: as in `view`, and the unique borrow means no other view of it is made now.
        unsafe { SliceMut::from_raw_parts(address as *mut T, len) }
    }
}

impl Gpu {
    /// Allocates `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.stream().alloc_zeros(len).map_err(Error::cuda(format!(
            "allocating {} bytes on the device",
            len * size_of::<T>()
        )))
    }

    /// Copies `host` to a new device buffer (blocking for pageable memory, as `a_d = a`).
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        self.stream().clone_htod(host).map_err(Error::cuda(format!(
            "copying {} bytes host to device",
            std::mem::size_of_val(host)
        )))
    }

    /// Copies `host` into the existing device buffer `device` (same length).
    ///
    /// From pageable memory (`&[T]`, `Vec<T>`) the call returns once the data is staged; from a
    /// [`PinnedBuffer`]'s `raw()` it is asynchronous, ordered on the stream.
    pub fn upload_into<T: DeviceRepr, H: HostSlice<T> + ?Sized>(
        &self,
        host: &H,
        device: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        check_same_len(host.len(), device.len())?;
        self.stream().memcpy_htod(host, device).map_err(Error::cuda(format!(
            "copying {} bytes host to device",
            host.len() * size_of::<T>()
        )))
    }

    /// Copies a device buffer back to a new `Vec` (waits for the work before it, as `a = a_d`).
    pub fn download<T: DeviceRepr>(&self, device: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.stream().clone_dtoh(device).map_err(Error::cuda(format!(
            "copying {} bytes device to host",
            device.num_bytes()
        )))
    }

    /// Copies a device buffer into `host` (same length).
    ///
    /// Into a [`PinnedBuffer`]'s `raw_mut()` the copy is asynchronous: synchronise before reading.
    pub fn download_into<T: DeviceRepr, H: HostSlice<T> + ?Sized>(
        &self,
        device: &DeviceBuffer<T>,
        host: &mut H,
    ) -> Result<()> {
        check_same_len(host.len(), device.len())?;
        self.stream().memcpy_dtoh(device, host).map_err(Error::cuda(format!(
            "copying {} bytes device to host",
            device.num_bytes()
        )))
    }

    /// `cudaMemcpy` device to device, queued on this `Gpu`'s stream.
    pub fn copy_device_to_device<T: DeviceRepr>(&self, from: &DeviceBuffer<T>, to: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len(from.len(), to.len())?;
        self.stream().memcpy_dtod(from, to).map_err(Error::cuda(format!(
            "copying {} bytes device to device",
            from.num_bytes()
        )))
    }

    /// Allocates `len` elements of page-locked host memory, the source and target of fast and
    /// asynchronous copies.
    pub fn pinned<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        // SAFETY: cuMemHostAlloc leaves the memory uninitialised; it is zeroed below before anyone
        // reads it, and all-zero bits are a valid `T`.
        let mut buffer = unsafe { self.context().alloc_pinned::<T>(len) }.map_err(Error::cuda(format!(
            "allocating {} bytes of pinned host memory",
            len * size_of::<T>()
        )))?;
        let bytes = buffer.as_mut_ptr().map_err(Error::cuda("mapping pinned host memory"))?;
        // SAFETY: `bytes` points to `len` elements of this allocation; all-zero is a valid `T`.
        unsafe { std::ptr::write_bytes(bytes, 0, len) };
        Ok(PinnedBuffer(buffer))
    }
}

/// Page-locked host memory (`cudaMallocHost`).
pub struct PinnedBuffer<T>(PinnedHostSlice<T>);

impl<T: ValidAsZeroBits> PinnedBuffer<T> {
    /// The elements.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.0.as_slice().map_err(Error::cuda("reading pinned host memory"))
    }

    /// The elements, writable.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.0.as_mut_slice().map_err(Error::cuda("writing pinned host memory"))
    }

    /// The cudarc buffer, the source of asynchronous copies (`Gpu::upload_into`).
    pub fn raw(&self) -> &PinnedHostSlice<T> {
        &self.0
    }

    /// The cudarc buffer, the target of asynchronous copies (`Gpu::download_into`).
    pub fn raw_mut(&mut self) -> &mut PinnedHostSlice<T> {
        &mut self.0
    }
}

fn check_same_len(a: usize, b: usize) -> Result<()> {
    same_len("a copy", &[a, b]).map(|_| ())
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
