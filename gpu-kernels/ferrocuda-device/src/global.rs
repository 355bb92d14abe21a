//! Views of global memory passed to kernels: a device pointer and a length, like the book's
//! assumed-shape `a(:)` arrays, whose `size(a)` the kernels use for their bounds tests.
//!
//! The host builds them from its device buffers (`ferrocuda::KernelView::view` and `view_mut`),
//! and a view borrows its buffer: `Slice<'a, T>` as `&'a [T]` does, `SliceMut<'a, T>` as
//! `&'a mut [T]` does, so a view cannot outlive its buffer, and a buffer cannot have a writable
//! view and any other view at once (the borrow checker refuses both). A writable view is `Copy`,
//! as kernels copy their arguments to every thread, so the host launcher refuses a launch whose
//! writable views overlap (`ferrocuda::LoadedKernels::launch`). Indexing checks the bound and traps
//! when it fails; a kernel that has already tested `i < len()` pays nothing, as LLVM drops the
//! second test.
//!
//! ```compile_fail,E0505
//! # use ferrocuda_device::global::Slice;
//! # struct Buffer(Vec<f32>);
//! # impl Buffer { fn view(&self) -> Slice<'_, f32> { unsafe { Slice::from_raw_parts(self.0.as_ptr(), self.0.len()) } } }
//! let buffer = Buffer(vec![0.0; 4]);
//! let view = buffer.view();
//! drop(buffer); // error: `buffer` is borrowed by `view`
//! let _ = view.len();
//! ```

use crate::launch::DeviceCopy;
use core::marker::PhantomData;

mod wide;
pub use wide::Element4;

/// A value that lives in device memory: what a device buffer holds (`ferrocuda::DeviceBuffer<T>`)
/// and a view reads and writes, with loads and stores that name the global state space on the
/// GPU (`ld.global`, `st.global`), plain ones on the host.
///
/// Implemented for the primitive numbers and for [`Complex`](crate::complex::Complex) of `f32`
/// and `f64`. One trait for both sides, so that code generic over the element type bounds it
/// once, on the host and in a kernel.
///
/// # Safety
/// `Self` is plain data: no padding, no pointers, every bit pattern (all zeros included) a valid
/// value, and the same layout on the host and the device; `load` and `store` read and write
/// exactly `size_of::<Self>()` bytes at `address`. Host code zero-fills and copies buffers of it
/// on that promise, so an implementation is `unsafe impl`; a plain `impl` does not compile:
///
/// ```compile_fail,E0200
/// use ferrocuda_device::global::Element;
/// use ferrocuda_device::launch::DeviceCopy;
/// #[derive(Clone, Copy)]
/// struct Celsius(f32);
/// // SAFETY: one `f32`, plain data.
/// unsafe impl DeviceCopy for Celsius {}
/// impl Element for Celsius {
///     unsafe fn load(address: *const Self) -> Self {
///         unsafe { address.read() }
///     }
///     unsafe fn store(address: *mut Self, value: Self) {
///         unsafe { address.write(value) }
///     }
/// }
/// ```
pub unsafe trait Element: DeviceCopy + Send + Sync + 'static {
    /// Reads `*address`.
    ///
    /// # Safety
    /// `address` is valid for reads and aligned (on the GPU: a global-memory address).
    unsafe fn load(address: *const Self) -> Self;
    /// Writes `*address`.
    ///
    /// # Safety
    /// `address` is valid for writes and aligned (on the GPU: a global-memory address).
    unsafe fn store(address: *mut Self, value: Self);
}

macro_rules! element {
    ($($t:ty => $bits:ty, $load:ident, $store:ident;)*) => {$(
        // SAFETY: a primitive number: no padding or pointers, every bit pattern valid, one
        // layout on host and device; the access moves `$bits`, of `$t`'s size.
        unsafe impl Element for $t {
            #[inline(always)]
            unsafe fn load(address: *const Self) -> Self {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { crate::arch::$load(address.cast()) }.to_ne_bytes())
            }
            #[inline(always)]
            unsafe fn store(address: *mut Self, value: Self) {
                let bits = <$bits>::from_ne_bytes(value.to_ne_bytes());
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                unsafe { crate::arch::$store(address.cast(), bits) }
            }
        }
    )*};
}

element! {
    u8 => u8, ld_global_u8, st_global_u8;
    i8 => u8, ld_global_u8, st_global_u8;
    u16 => u16, ld_global_u16, st_global_u16;
    i16 => u16, ld_global_u16, st_global_u16;
    u32 => u32, ld_global_b32, st_global_b32;
    i32 => u32, ld_global_b32, st_global_b32;
    f32 => f32, ld_global_f32, st_global_f32;
    u64 => u64, ld_global_b64, st_global_b64;
    i64 => u64, ld_global_b64, st_global_b64;
    f64 => f64, ld_global_f64, st_global_f64;
}

/// A read-only view of `len` elements of global memory, borrowed from its buffer for `'a`.
///
/// The layout is the kernel parameter's: an address and a length (the borrow is a zero-sized
/// marker), so the PTX entry point reads the same bytes the host writes.
#[repr(C)]
#[derive(Debug)]
pub struct Slice<'a, T> {
    ptr: *const T,
    len: usize,
    _buffer: PhantomData<&'a [T]>,
}

/// A view of `len` elements of global memory that the kernel may write.
///
/// It borrows its buffer mutably for `'a`. Threads may write different elements concurrently;
/// two threads writing one element without an atomic is a data race, as in CUDA C: a wrong
/// answer on the GPU and on the simulator, which the simulator's race checks report.
///
/// It is `Copy` (each thread of a launch gets a copy of its arguments), so a host program can
/// copy one writable view into two fields, or take two overlapping [`SliceMut::subview`]s: the
/// host launcher refuses such a launch, naming the two fields.
#[repr(C)]
#[derive(Debug)]
pub struct SliceMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _buffer: PhantomData<&'a mut [T]>,
}

impl<T> Clone for Slice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slice<'_, T> {}
impl<T> Clone for SliceMut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SliceMut<'_, T> {}

impl<'a, T> Slice<'a, T> {
    /// A view of `len` elements starting at the device address `ptr`, for the lifetime `'a` the
    /// caller chooses.
    ///
    /// # Safety
    /// `ptr` is a device address valid for reads of `len` elements of `T` for `'a` and for as
    /// long as any kernel launched with this view runs: the memory is not freed before such a
    /// launch has finished (a `ferrocuda` buffer orders its free after every queued launch).
    pub const unsafe fn from_raw_parts(ptr: *const T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _buffer: PhantomData,
        }
    }

    /// A view of no element, for an argument a launch does not use: every access to it is out
    /// of bounds, so its (dangling, aligned) address is never read.
    pub const fn empty() -> Self {
        Self {
            ptr: core::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            _buffer: PhantomData,
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
    pub const fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// The elements `range` of this view as a view of their own (CUDA C's `a + start` with its
    /// length), or `None` when `range` does not lie inside it: how a host hands one chunk of a
    /// buffer to a kernel.
    pub fn subview(&self, range: core::ops::Range<usize>) -> Option<Self> {
        (range.start <= range.end && range.end <= self.len).then(|| Self {
            ptr: self.ptr.wrapping_add(range.start),
            len: range.end - range.start,
            _buffer: PhantomData,
        })
    }
}

impl<T: Element> Slice<'_, T> {
    /// Element `i`; traps when `i >= len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load(self.ptr.add(i)) }
    }
}

impl<T: Element> Slice<'_, T> {
    /// Element `i` without the bound test on the GPU, for a full tile whose bounds the kernel
    /// established once (CUB's `FullTile`); the simulator still tests it.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        check_index_on_host(i, self.len);
        // SAFETY: `i < len` (the caller's contract), readable by the constructor's contract.
        unsafe { T::load(self.ptr.add(i)) }
    }
}

impl<'a, T> SliceMut<'a, T> {
    /// A writable view of `len` elements starting at the device address `ptr`, for the
    /// lifetime `'a` the caller chooses.
    ///
    /// # Safety
    /// `ptr` is a device address valid for reads and writes of `len` elements of `T` for `'a`
    /// and for as long as any kernel launched with this view runs (not freed before such a
    /// launch has finished), and no other view writes it meanwhile except the ones a launch
    /// is meant to share (the host launcher checks only views in one argument struct).
    pub const unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _buffer: PhantomData,
        }
    }

    /// A view of no element, for an argument a launch does not use: every access to it is out
    /// of bounds, so its (dangling, aligned) address is never written.
    pub const fn empty() -> Self {
        Self {
            ptr: core::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            _buffer: PhantomData,
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

    /// The elements `range` of this view as a writable view of their own, or `None` when
    /// `range` does not lie inside it (see [`Slice::subview`]). Two subviews that overlap may
    /// not go to one launch: the host launcher refuses it.
    pub fn subview(&self, range: core::ops::Range<usize>) -> Option<Self> {
        (range.start <= range.end && range.end <= self.len).then(|| Self {
            ptr: self.ptr.wrapping_add(range.start),
            len: range.end - range.start,
            _buffer: PhantomData,
        })
    }

    /// A read-only view of the same elements, for a launch that reads and writes one buffer
    /// (an in-place transform): each element a thread reads before another thread writes it
    /// is the kernel author's to order, as in CUDA C.
    pub const fn as_slice(&self) -> Slice<'a, T> {
        Slice {
            ptr: self.ptr.cast_const(),
            len: self.len,
            _buffer: PhantomData,
        }
    }
}

impl<T: Element> SliceMut<'_, T> {
    /// Element `i`; traps when `i >= len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load(self.ptr.add(i)) }
    }

    /// The address of element `i`, for atomics; traps when `i >= len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn element_ptr(&self, i: usize) -> *mut T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`: the result stays inside the view.
        unsafe { self.ptr.add(i) }
    }

    /// Stores `value` in element `i`; traps when `i >= len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set(&self, i: usize, value: T) {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` writable.
        unsafe { T::store(self.ptr.add(i), value) }
    }

    /// Stores `value` in element `i` without the bound test on the GPU, as
    /// [`Slice::get_unchecked`]; the simulator still tests it.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, value: T) {
        check_index_on_host(i, self.len);
        // SAFETY: `i < len` (the caller's contract), writable by the constructor's contract.
        unsafe { T::store(self.ptr.add(i), value) }
    }

    /// Replaces element `i` by `f(element)`; traps when `i >= len()`.
    #[inline(always)]
    pub fn update(&self, i: usize, f: impl FnOnce(T) -> T) {
        self.set(i, f(self.get(i)));
    }
}

// SAFETY: a device address and a length; the kernel reaches the memory only through the view's
// accessors (atomics on the simulator), within its length, for the borrow `'a` of its buffer.
unsafe impl<T> DeviceCopy for Slice<'_, T> {}
// SAFETY: as for `Slice`.
unsafe impl<T> DeviceCopy for SliceMut<'_, T> {}

/// A view's memory, for the launch's overlap check: its address and `len` elements of `T`.
#[cfg(not(target_arch = "nvptx64"))]
fn span<T>(field: &'static str, address: usize, len: usize, writable: bool) -> crate::launch::ViewSpan {
    crate::launch::ViewSpan {
        field,
        start: address,
        bytes: len * size_of::<T>(),
        writable,
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T> crate::launch::HoldsViews for Slice<'_, T> {
    fn visit_views(&self, field: &'static str, visit: &mut dyn FnMut(crate::launch::ViewSpan)) {
        visit(span::<T>(field, self.ptr as usize, self.len, false))
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T> crate::launch::HoldsViews for SliceMut<'_, T> {
    fn visit_views(&self, field: &'static str, visit: &mut dyn FnMut(crate::launch::ViewSpan)) {
        visit(span::<T>(field, self.ptr as usize, self.len, true))
    }
}

/// Volatile access to 4- and 8-byte elements, for data other blocks update under a lock (the
/// book's §5.3.1) or publish behind a flag (a scan's tile descriptors): each access goes to
/// memory, none is merged, removed or served from a stale L1 line, and each is seen whole.
macro_rules! volatile_access {
    ($($t:ty => $bits:ty, $load:ident, $store:ident;)*) => {$(
        impl SliceMut<'_, $t> {
            /// Element `i`, read with `ld.volatile.global`; traps when `i >= len()`.
            #[inline(always)]
            pub fn get_volatile(&self, i: usize) -> $t {
                let address = self.element_ptr(i);
                // SAFETY: `element_ptr` checked the bound; readable by the constructor's contract.
                <$t>::from_ne_bytes(unsafe { crate::arch::$load(address.cast()) }.to_ne_bytes())
            }
            /// Stores `value` in element `i` with `st.volatile.global`; traps when `i >= len()`.
            #[inline(always)]
            pub fn set_volatile(&self, i: usize, value: $t) {
                let address = self.element_ptr(i);
                // SAFETY: `element_ptr` checked the bound; writable by the constructor's contract.
                unsafe { crate::arch::$store(address.cast(), <$bits>::from_ne_bytes(value.to_ne_bytes())) }
            }
        }
    )*};
}
volatile_access! {
    i32 => u32, ld_volatile_global_b32, st_volatile_global_b32;
    u32 => u32, ld_volatile_global_b32, st_volatile_global_b32;
    f32 => u32, ld_volatile_global_b32, st_volatile_global_b32;
    i64 => u64, ld_volatile_global_b64, st_volatile_global_b64;
    u64 => u64, ld_volatile_global_b64, st_volatile_global_b64;
    f64 => u64, ld_volatile_global_b64, st_volatile_global_b64;
}

/// An element type that can be read through the read-only data path (`ld.global.nc`, CUDA C's
/// `__ldg`): the texture cache of the book's §3.2.3, unified with L1 since Maxwell.
pub trait ReadOnlyElement: Element {
    /// Reads `*address` through the read-only path.
    ///
    /// # Safety
    /// As [`Element::load`]. A store to `*address` during the same launch may not be seen (the
    /// path is not coherent with the launch's stores): the value read is then the old or the new.
    unsafe fn load_nc(address: *const Self) -> Self;
}

macro_rules! read_only_element {
    ($($t:ty => $bits:ty, $load:ident;)*) => {$(
        impl ReadOnlyElement for $t {
            #[inline(always)]
            unsafe fn load_nc(address: *const Self) -> Self {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { crate::arch::$load(address.cast()) }.to_ne_bytes())
            }
        }
    )*};
}

read_only_element! {
    u32 => u32, ld_global_nc_b32;
    i32 => u32, ld_global_nc_b32;
    f32 => u32, ld_global_nc_b32;
    u64 => u64, ld_global_nc_b64;
    i64 => u64, ld_global_nc_b64;
    f64 => u64, ld_global_nc_b64;
}

impl<T: ReadOnlyElement> Slice<'_, T> {
    /// Element `i`, read through the read-only data path (`ld.global.nc`); traps when
    /// `i >= len()`.
    ///
    /// Use it for data no thread of the launch writes: the path is not coherent with the
    /// launch's own stores, so a value written during the launch may be read stale (a race, as
    /// reading it with [`Slice::get`] from another thread would be).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get_nc(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load_nc(self.ptr.add(i)) }
    }

    /// [`Slice::get_nc`] without the bound test on the GPU, for indices a kernel bounded once
    /// for the whole launch; the simulator still tests it.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_nc_unchecked(&self, i: usize) -> T {
        check_index_on_host(i, self.len);
        // SAFETY: `i < len` (the caller's contract), readable by the constructor's contract.
        unsafe { T::load_nc(self.ptr.add(i)) }
    }
}

impl<T: Element> SliceMut<'_, T> {
    /// [`SliceMut::get`] without the bound test on the GPU, as [`Slice::get_unchecked`]; the
    /// simulator still tests it.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        check_index_on_host(i, self.len);
        // SAFETY: `i < len` (the caller's contract), readable by the constructor's contract.
        unsafe { T::load(self.ptr.add(i)) }
    }
}

impl<T: ReadOnlyElement> SliceMut<'_, T> {
    /// Element `i` through the read-only data path (`ld.global.nc`), as [`Slice::get_nc`];
    /// traps when `i >= len()`.
    ///
    /// Only for an element that no thread of the launch writes before this read: the path is
    /// not coherent with the launch's own stores.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get_nc(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load_nc(self.ptr.add(i)) }
    }
}

/// An element type that can be loaded past L1, cached in L2 only (`ld.global.cg`, CUDA C's
/// `__ldcg`; the whole-program `-Xptxas -dlcm=cg`, the book's `-Mcuda=noL1`, §3.2.2.2).
pub trait L2Element: Element {
    /// Reads `*address` with `ld.global.cg`: coherent, like [`Element::load`].
    ///
    /// # Safety
    /// As [`Element::load`].
    unsafe fn load_cg(address: *const Self) -> Self;
}

macro_rules! l2_element {
    ($($t:ty => $load:ident;)*) => {$(
        impl L2Element for $t {
            #[inline(always)]
            unsafe fn load_cg(address: *const Self) -> Self {
                // SAFETY: forwarded to the caller; `$t` and the load's word have one size.
                <$t>::from_ne_bytes(unsafe { crate::arch::$load(address.cast()) }.to_ne_bytes())
            }
        }
    )*};
}
l2_element! { u32 => ld_global_cg_b32; f32 => ld_global_cg_b32; u64 => ld_global_cg_b64; f64 => ld_global_cg_b64; }

impl<T: L2Element> Slice<'_, T> {
    /// Element `i`, loaded past L1 (`ld.global.cg`); traps when `i >= len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get_cg(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load_cg(self.ptr.add(i)) }
    }
}

impl<T: L2Element> SliceMut<'_, T> {
    /// Element `i`, loaded past L1 (`ld.global.cg`), as [`Slice::get_cg`]; coherent with the
    /// launch's stores, so an in-place update may use it.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get_cg(&self, i: usize) -> T {
        check_index(i, self.len, self.ptr as usize, size_of::<T>());
        // SAFETY: `i < len`, and the constructor's contract makes `ptr..ptr+len` readable.
        unsafe { T::load_cg(self.ptr.add(i)) }
    }
}

/// Traps unless `i < len`: the one test of every checked access to the view of `len` elements
/// of `element_bytes` each at `address`.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
fn check_index(i: usize, len: usize, address: usize, element_bytes: usize) {
    if i >= len {
        index_failure(address, element_bytes, i, len)
    }
}

/// The test of an `_unchecked` access: made on the simulator, left to the caller's contract on
/// the GPU.
#[inline(always)]
fn check_index_on_host(i: usize, len: usize) {
    crate::arch::check_unchecked_index(i, len);
}

/// Stops the kernel on an out-of-bounds index, as a view does: `trap` on the GPU (no panic message, so no
/// formatting code in the PTX), a reported fault on the simulator.
#[cold]
#[inline(never)]
pub fn bounds_failure() -> ! {
    crate::arch::trap()
}

/// Stops the kernel on index `index` of the view or tile of `len` elements of `element_bytes`
/// each at `address`: `trap` on the GPU; on the simulator a fault naming the kernel argument the
/// view belongs to (or the shared tile), the index, the length and the kernel's source line.
///
/// On the GPU it is [`bounds_failure`] itself, inlined, so a checked access passes no arguments
/// to its cold path.
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[cfg_attr(not(target_arch = "nvptx64"), cold, inline(never), track_caller)]
pub fn index_failure(address: usize, element_bytes: usize, index: usize, len: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (address, element_bytes, index, len);
        bounds_failure()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::arch::index_fault(address, element_bytes, index, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subviews_lie_inside_their_view() {
        let data = [1u32, 2, 3, 4, 5];
        // SAFETY: the views address `data`, which outlives them; nothing reads through them here
        // but the address arithmetic.
        let (view, view_mut) = unsafe {
            (
                Slice::from_raw_parts(data.as_ptr(), data.len()),
                SliceMut::from_raw_parts(data.as_ptr().cast_mut(), data.len()),
            )
        };
        let middle = view.subview(1..4).expect("inside");
        assert_eq!((middle.len(), middle.as_ptr()), (3, data[1..].as_ptr()));
        assert_eq!(view.subview(5..5).map(|v| v.len()), Some(0));
        // A range that starts after it ends is refused, as slicing refuses it.
        let (start, end) = (3, 2);
        assert!(view.subview(4..6).is_none() && view.subview(start..end).is_none());
        let tail = view_mut.subview(2..5).expect("inside");
        assert_eq!((tail.len(), tail.as_mut_ptr().cast_const()), (3, data[2..].as_ptr()));
        assert!(view_mut.subview(0..6).is_none());
    }
}
