//! Atomic read-modify-write on global or shared memory (CUDA C's `atomicAdd` family).
//!
//! Each takes a generic address, which may point into global or shared memory, and returns the
//! old value. Ordering is relaxed at device scope, as in CUDA C.
use super::arch;

/// Types with `atomicAdd`: `i32`, `u32`, `u64`, `f32`, `f64`.
pub trait AtomicAdd: Copy {
    /// See [`atomic_add`].
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_add(address: *mut Self, value: Self) -> Self;
}
/// Types with `atomicMin`/`atomicMax`: `i32`, `u32`, `u64`.
pub trait AtomicMinMax: Copy {
    /// See [`atomic_min`].
    ///
    /// # Safety
    /// As [`atomic_min`].
    unsafe fn atomic_min(address: *mut Self, value: Self) -> Self;
    /// See [`atomic_max`].
    ///
    /// # Safety
    /// As [`atomic_max`].
    unsafe fn atomic_max(address: *mut Self, value: Self) -> Self;
}
/// Types with `atomicExch`/`atomicCAS`: `u32`, `u64`.
pub trait AtomicExchange: Copy {
    /// See [`atomic_exch`].
    ///
    /// # Safety
    /// As [`atomic_exch`].
    unsafe fn atomic_exch(address: *mut Self, value: Self) -> Self;
    /// See [`atomic_cas`].
    ///
    /// # Safety
    /// As [`atomic_cas`].
    unsafe fn atomic_cas(address: *mut Self, compare: Self, new: Self) -> Self;
}

macro_rules! impl_add {
    ($t:ty, $f:path) => {
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn atomic_add(address: *mut Self, value: Self) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $f(address, value) }
            }
        }
    };
}
impl_add!(i32, arch::atom_add_s32);
impl_add!(u32, arch::atom_add_u32);
impl_add!(u64, arch::atom_add_u64);
impl_add!(f32, arch::atom_add_f32);
impl_add!(f64, arch::atom_add_f64);

macro_rules! impl_min_max {
    ($t:ty, $min:path, $max:path) => {
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn atomic_min(address: *mut Self, value: Self) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $min(address, value) }
            }
            #[inline(always)]
            unsafe fn atomic_max(address: *mut Self, value: Self) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $max(address, value) }
            }
        }
    };
}
impl_min_max!(i32, arch::atom_min_s32, arch::atom_max_s32);
impl_min_max!(u32, arch::atom_min_u32, arch::atom_max_u32);
impl_min_max!(u64, arch::atom_min_u64, arch::atom_max_u64);

macro_rules! impl_exchange {
    ($t:ty, $exch:path, $cas:path) => {
        impl AtomicExchange for $t {
            #[inline(always)]
            unsafe fn atomic_exch(address: *mut Self, value: Self) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $exch(address, value) }
            }
            #[inline(always)]
            unsafe fn atomic_cas(address: *mut Self, compare: Self, new: Self) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $cas(address, compare, new) }
            }
        }
    };
}
impl_exchange!(u32, arch::atom_exch_b32, arch::atom_cas_b32);
impl_exchange!(u64, arch::atom_exch_b64, arch::atom_cas_b64);

/// `atomicAdd(address, value)`: adds atomically, returns the old value.
///
/// # Safety
/// `address` is aligned and valid for reads and writes in global or shared memory.
#[inline(always)]
pub unsafe fn atomic_add<T: AtomicAdd>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_add(address, value) }
}
/// `atomicMin(address, value)`: stores the minimum atomically, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min<T: AtomicMinMax>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_min(address, value) }
}
/// `atomicMax(address, value)`: stores the maximum atomically, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max<T: AtomicMinMax>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_max(address, value) }
}
/// `atomicExch(address, value)`: stores `value`, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_exch<T: AtomicExchange>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_exch(address, value) }
}
/// `atomicCAS(address, compare, new)`: stores `new` if the value equals `compare`; returns the
/// old value either way.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_cas<T: AtomicExchange>(address: *mut T, compare: T, new: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_cas(address, compare, new) }
}

use crate::global::{Element, SliceMut};
use crate::shared::Tile1d;

impl<T: AtomicAdd + Element> SliceMut<'_, T> {
    /// `atomicAdd(&self[i], value)`; traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_add(&self, i: usize, value: T) -> T {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { atomic_add(self.element_ptr(i), value) }
    }
}
impl SliceMut<'_, u32> {
    /// `atomicAdd(&self[i], value)` with its old value unused, as nvcc compiles such a call: the
    /// reply-free `red.global.add.u32`, where [`SliceMut::atomic_add`] waits for the old value;
    /// traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_add_no_return(&self, i: usize, value: u32) {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { arch::red_global_add_u32(self.element_ptr(i), value) }
    }
}
impl<T: AtomicMinMax + Element> SliceMut<'_, T> {
    /// `atomicMin(&self[i], value)`; traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_min(&self, i: usize, value: T) -> T {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { atomic_min(self.element_ptr(i), value) }
    }
    /// `atomicMax(&self[i], value)`; traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_max(&self, i: usize, value: T) -> T {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { atomic_max(self.element_ptr(i), value) }
    }
}
impl<T: AtomicExchange + Element> SliceMut<'_, T> {
    /// `atomicExch(&self[i], value)`; traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_exch(&self, i: usize, value: T) -> T {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { atomic_exch(self.element_ptr(i), value) }
    }
    /// `atomicCAS(&self[i], compare, new)`; traps when `i` is out of bounds.
    #[inline(always)]
    pub fn atomic_cas(&self, i: usize, compare: T, new: T) -> T {
        // SAFETY: `element_ptr` checked the bound; the view is valid global memory.
        unsafe { atomic_cas(self.element_ptr(i), compare, new) }
    }
}
impl<T: AtomicAdd + Copy> Tile1d<T> {
    /// `atomicAdd` on element `i` of a shared tile; traps when `i` is out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn atomic_add(&self, i: usize, value: T) -> T {
        let address = self.element_ptr(i);
        arch::shared_atomic_access(address.cast(), size_of::<T>());
        // SAFETY: `element_ptr` checked the bound; the tile lies in the launch's shared memory.
        unsafe { atomic_add(address, value) }
    }
}
impl Tile1d<u32> {
    /// `atomicAdd` on element `i` of a shared tile of `u32`, as the shared-space
    /// `atom.shared.add.u32` (what nvcc emits for a `__shared__` array), where
    /// [`Tile1d::atomic_add`] takes a generic address; traps when `i` is out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn atomic_add_shared(&self, i: usize, value: u32) -> u32 {
        let address = self.element_ptr(i);
        arch::shared_atomic_access(address.cast(), size_of::<u32>());
        // SAFETY: `element_ptr` checked the bound; the tile lies in the launch's shared memory.
        unsafe { arch::atom_shared_add_u32(self.base_ptr(), i, value) }
    }

    /// [`Tile1d::atomic_add_shared`] without the bound test, for counting loops whose indices
    /// the kernel bounds by construction (a histogram's `base + byte`): the test would cost a
    /// compare and a branch per count. The simulator still checks the access against the
    /// launch's shared memory.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn atomic_add_shared_unchecked(&self, i: usize, value: u32) -> u32 {
        // SAFETY: `i < len` (the caller's contract).
        let address = unsafe { self.element_ptr_unchecked(i) };
        arch::shared_atomic_access(address.cast(), size_of::<u32>());
        // SAFETY: inside the tile, which lies in the launch's shared memory.
        unsafe { arch::atom_shared_add_u32(self.base_ptr(), i, value) }
    }
}
