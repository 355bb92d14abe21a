//! Views of global memory passed to kernels: a device pointer and a length, like the book's
//! assumed-shape `a(:)` arrays, whose `size(a)` the kernels use for their bounds tests.
//!
//! The host builds them from its device buffers (`ferrocuda::gpu::DeviceBuffer::as_slice`), so a
//! view never outlives nor exceeds the allocation. Indexing checks the bound and traps when it
//! fails; a kernel that has already tested `i < len()` pays nothing, as LLVM drops the second test.

use core::marker::PhantomData;

/// A read-only view of `len` elements of global memory.
#[repr(C)]
#[derive(Debug)]
pub struct Slice<T> {
    ptr: *const T,
    len: usize,
}

/// A view of `len` elements of global memory that the kernel may write.
///
/// Threads may write different elements concurrently; two threads writing one element without
/// an atomic is a data race, as in CUDA C.
#[repr(C)]
#[derive(Debug)]
pub struct SliceMut<T> {
    ptr: *mut T,
    len: usize,
    _owns: PhantomData<T>,
}

impl<T> Clone for Slice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slice<T> {}
impl<T> Clone for SliceMut<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SliceMut<T> {}

impl<T: Copy> Slice<T> {
    /// A view of `len` elements starting at the device address `ptr`.
    ///
    /// # Safety
    /// `ptr` is a device address valid for reads of `len` elements of `T` for as long as any
    /// kernel launched with this view runs.
    pub const unsafe fn from_raw_parts(ptr: *const T, len: usize) -> Self {
        Self { ptr, len }
    }

    /// Number of elements.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when the view has no element.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element.
    pub const fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// Element `i`; traps when `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        if i >= self.len {
            bounds_failure()
        }
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { *self.ptr.add(i) }
    }
}

impl<T: Copy> SliceMut<T> {
    /// A writable view of `len` elements starting at the device address `ptr`.
    ///
    /// # Safety
    /// `ptr` is a device address valid for reads and writes of `len` elements of `T` for as long
    /// as any kernel launched with this view runs, and nothing else writes it meanwhile.
    pub const unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _owns: PhantomData,
        }
    }

    /// Number of elements.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when the view has no element.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element.
    pub const fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }

    /// Element `i`; traps when `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        if i >= self.len {
            bounds_failure()
        }
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { *self.ptr.add(i) }
    }

    /// Stores `value` in element `i`; traps when `i >= len()`.
    #[inline(always)]
    pub fn set(&self, i: usize, value: T) {
        if i >= self.len {
            bounds_failure()
        }
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` writable.
        unsafe { *self.ptr.add(i) = value }
    }

    /// Replaces element `i` by `f(element)`; traps when `i >= len()`.
    #[inline(always)]
    pub fn update(&self, i: usize, f: impl FnOnce(T) -> T) {
        self.set(i, f(self.get(i)));
    }
}

/// Stops the kernel on an out-of-bounds index: `trap` on the GPU (no panic message, so no
/// formatting code in the PTX), a panic on the host.
#[cold]
#[inline(never)]
pub(crate) fn bounds_failure() -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::device::arch::trap();
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("index out of bounds of a kernel view");
}
