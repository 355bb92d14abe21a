//! Atomic read-modify-write on global or shared memory (CUDA C's `atomicAdd` family).
//!
//! Each takes a generic address, which may point into global or shared memory, and returns the
//! old value. Ordering is relaxed, as in CUDA C; the [`Scope`] says which threads the operation
//! is atomic with respect to (CUDA C's `atomicAdd_block`, `atomicAdd`, `atomicAdd_system`; PTX's
//! `.cta`, `.gpu`, `.sys`, PTX ISA §8.5 and §9.7.13.5).
//!
//! | operation | types |
//! | --- | --- |
//! | add, sub | `i32`, `u32`, `i64`, `u64`, `f32`, `f64` |
//! | min, max | `i32`, `u32`, `i64`, `u64` |
//! | and, or, xor | `i32`, `u32`, `i64`, `u64` |
//! | exch, cas | `i32`, `u32`, `i64`, `u64`, `f32`, `f64` |
//!
//! On a view or a shared tile, `view.atomic(i)` is an [`AtomicRef`] to element `i` (bounds
//! checked): `args.count.atomic(0).add(1)`, `tile.atomic(k).block().max(x)`,
//! `flags.atomic(j).system().exch(1)`.
use super::arch;
use core::marker::PhantomData;

/// Which threads an atomic operation is atomic with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The threads of the calling block (`.cta`, CUDA C's `_block` atomics).
    Block,
    /// Every thread of the GPU (`.gpu`, CUDA C's plain atomics): the default.
    Device,
    /// Every thread of every GPU and the host (`.sys`, CUDA C's `_system` atomics), for memory
    /// they share.
    System,
}

/// Types with `atomicAdd` (and a subtraction as the add of the negation).
pub trait AtomicAdd: Copy {
    /// Adds `value` to `*address` atomically at `scope`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_add_at(address: *mut Self, value: Self, scope: Scope) -> Self;
    /// `-value` (wrapping for integers).
    fn negate(value: Self) -> Self;
}
/// Types with `atomicMin`/`atomicMax`.
pub trait AtomicMinMax: Copy {
    /// Stores the least of `*address` and `value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_min_at(address: *mut Self, value: Self, scope: Scope) -> Self;
    /// Stores the greatest of `*address` and `value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_max_at(address: *mut Self, value: Self, scope: Scope) -> Self;
}
/// Types with `atomicAnd`/`atomicOr`/`atomicXor`.
pub trait AtomicBitwise: Copy {
    /// `*address &= value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_and_at(address: *mut Self, value: Self, scope: Scope) -> Self;
    /// `*address |= value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_or_at(address: *mut Self, value: Self, scope: Scope) -> Self;
    /// `*address ^= value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_xor_at(address: *mut Self, value: Self, scope: Scope) -> Self;
}
/// Types with `atomicExch`/`atomicCAS`.
pub trait AtomicExchange: Copy {
    /// Stores `value`; returns the old value.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_exch_at(address: *mut Self, value: Self, scope: Scope) -> Self;
    /// Stores `new` if the value's bits equal `compare`'s; returns the old value either way.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn atomic_cas_at(address: *mut Self, compare: Self, new: Self, scope: Scope) -> Self;
}

/// The bits of a 4- or 8-byte value as the unsigned word the PTX instruction takes.
macro_rules! bits {
    ($v:expr, $bits:ty) => {
        <$bits>::from_ne_bytes($v.to_ne_bytes())
    };
}

macro_rules! impl_add {
    ($($t:ty => $bits:ty, $f:path, $neg:expr;)*) => {$(
        impl AtomicAdd for $t {
            #[inline(always)]
            unsafe fn atomic_add_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { $f(address.cast(), bits!(value, $bits), scope) }.to_ne_bytes())
            }
            #[inline(always)]
            fn negate(value: Self) -> Self {
                $neg(value)
            }
        }
    )*};
}
impl_add! {
    i32 => i32, arch::atom_add_s32, i32::wrapping_neg;
    u32 => u32, arch::atom_add_u32, u32::wrapping_neg;
    // Two's complement: the sum's bits do not depend on the sign.
    i64 => u64, arch::atom_add_u64, i64::wrapping_neg;
    u64 => u64, arch::atom_add_u64, u64::wrapping_neg;
    f32 => f32, arch::atom_add_f32, |x: f32| -x;
    f64 => f64, arch::atom_add_f64, |x: f64| -x;
}

macro_rules! impl_min_max {
    ($($t:ty, $min:path, $max:path;)*) => {$(
        impl AtomicMinMax for $t {
            #[inline(always)]
            unsafe fn atomic_min_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $min(address, value, scope) }
            }
            #[inline(always)]
            unsafe fn atomic_max_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: forwarded to the caller.
                unsafe { $max(address, value, scope) }
            }
        }
    )*};
}
impl_min_max! {
    i32, arch::atom_min_s32, arch::atom_max_s32;
    u32, arch::atom_min_u32, arch::atom_max_u32;
    i64, arch::atom_min_s64, arch::atom_max_s64;
    u64, arch::atom_min_u64, arch::atom_max_u64;
}

macro_rules! impl_bitwise {
    ($($t:ty => $bits:ty, $and:path, $or:path, $xor:path;)*) => {$(
        impl AtomicBitwise for $t {
            #[inline(always)]
            unsafe fn atomic_and_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { $and(address.cast(), bits!(value, $bits), scope) }.to_ne_bytes())
            }
            #[inline(always)]
            unsafe fn atomic_or_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: as above.
                <$t>::from_ne_bytes(unsafe { $or(address.cast(), bits!(value, $bits), scope) }.to_ne_bytes())
            }
            #[inline(always)]
            unsafe fn atomic_xor_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: as above.
                <$t>::from_ne_bytes(unsafe { $xor(address.cast(), bits!(value, $bits), scope) }.to_ne_bytes())
            }
        }
    )*};
}
impl_bitwise! {
    i32 => u32, arch::atom_and_b32, arch::atom_or_b32, arch::atom_xor_b32;
    u32 => u32, arch::atom_and_b32, arch::atom_or_b32, arch::atom_xor_b32;
    i64 => u64, arch::atom_and_b64, arch::atom_or_b64, arch::atom_xor_b64;
    u64 => u64, arch::atom_and_b64, arch::atom_or_b64, arch::atom_xor_b64;
}

macro_rules! impl_exchange {
    ($($t:ty => $bits:ty, $exch:path, $cas:path;)*) => {$(
        impl AtomicExchange for $t {
            #[inline(always)]
            unsafe fn atomic_exch_at(address: *mut Self, value: Self, scope: Scope) -> Self {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { $exch(address.cast(), bits!(value, $bits), scope) }.to_ne_bytes())
            }
            #[inline(always)]
            unsafe fn atomic_cas_at(address: *mut Self, compare: Self, new: Self, scope: Scope) -> Self {
                // SAFETY: as above.
                let old = unsafe { $cas(address.cast(), bits!(compare, $bits), bits!(new, $bits), scope) };
                <$t>::from_ne_bytes(old.to_ne_bytes())
            }
        }
    )*};
}
impl_exchange! {
    i32 => u32, arch::atom_exch_b32, arch::atom_cas_b32;
    u32 => u32, arch::atom_exch_b32, arch::atom_cas_b32;
    f32 => u32, arch::atom_exch_b32, arch::atom_cas_b32;
    i64 => u64, arch::atom_exch_b64, arch::atom_cas_b64;
    u64 => u64, arch::atom_exch_b64, arch::atom_cas_b64;
    f64 => u64, arch::atom_exch_b64, arch::atom_cas_b64;
}

/// `atomicAdd(address, value)`: adds atomically at device scope, returns the old value.
///
/// # Safety
/// `address` is aligned and valid for reads and writes in global or shared memory.
#[inline(always)]
pub unsafe fn atomic_add<T: AtomicAdd>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_add_at(address, value, Scope::Device) }
}
/// `atomicMin(address, value)`: stores the minimum atomically, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min<T: AtomicMinMax>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_min_at(address, value, Scope::Device) }
}
/// `atomicMax(address, value)`: stores the maximum atomically, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max<T: AtomicMinMax>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_max_at(address, value, Scope::Device) }
}
/// `atomicExch(address, value)`: stores `value`, returns the old value.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_exch<T: AtomicExchange>(address: *mut T, value: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_exch_at(address, value, Scope::Device) }
}
/// `atomicCAS(address, compare, new)`: stores `new` if the value equals `compare`; returns the
/// old value either way.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_cas<T: AtomicExchange>(address: *mut T, compare: T, new: T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { T::atomic_cas_at(address, compare, new, Scope::Device) }
}

use crate::global::{Element, SliceMut};
use crate::shared::Tile1d;

/// Element `i` of a view or a shared tile, for atomic operations at a [`Scope`] (device scope
/// unless [`AtomicRef::block`] or [`AtomicRef::system`] says otherwise). Made by
/// [`SliceMut::atomic`] and [`Tile1d::atomic`], which check the index; it borrows the view.
#[derive(Clone, Copy, Debug)]
pub struct AtomicRef<'a, T> {
    address: *mut T,
    scope: Scope,
    /// In shared memory: the simulator checks each operation against the block's shared memory.
    shared: bool,
    _view: PhantomData<&'a T>,
}

impl<T: Copy> AtomicRef<'_, T> {
    /// The same element, atomic with respect to the calling block only.
    #[inline(always)]
    pub fn block(self) -> Self {
        self.with_scope(Scope::Block)
    }
    /// The same element, atomic with respect to every GPU and the host.
    #[inline(always)]
    pub fn system(self) -> Self {
        self.with_scope(Scope::System)
    }
    /// The same element, atomic at `scope`.
    #[inline(always)]
    pub fn with_scope(self, scope: Scope) -> Self {
        Self { scope, ..self }
    }
    /// The scope of the operations.
    pub fn scope(&self) -> Scope {
        self.scope
    }
    /// The address, declared to the simulator as one atomic access when in shared memory.
    #[inline(always)]
    fn target(&self) -> *mut T {
        if self.shared {
            arch::shared_atomic_access(self.address.cast(), size_of::<T>());
        }
        self.address
    }
}

impl<T: AtomicAdd> AtomicRef<'_, T> {
    /// `atomicAdd`: returns the old value.
    #[inline(always)]
    pub fn add(&self, value: T) -> T {
        // SAFETY: a checked element of a live view or tile (the constructors), aligned.
        unsafe { T::atomic_add_at(self.target(), value, self.scope) }
    }
    /// `atomicSub`: returns the old value.
    #[inline(always)]
    pub fn sub(&self, value: T) -> T {
        self.add(T::negate(value))
    }
}
impl<T: AtomicMinMax> AtomicRef<'_, T> {
    /// `atomicMin`: returns the old value.
    #[inline(always)]
    pub fn min(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_min_at(self.target(), value, self.scope) }
    }
    /// `atomicMax`: returns the old value.
    #[inline(always)]
    pub fn max(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_max_at(self.target(), value, self.scope) }
    }
}
impl<T: AtomicBitwise> AtomicRef<'_, T> {
    /// `atomicAnd`: returns the old value.
    #[inline(always)]
    pub fn and(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_and_at(self.target(), value, self.scope) }
    }
    /// `atomicOr`: returns the old value.
    #[inline(always)]
    pub fn or(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_or_at(self.target(), value, self.scope) }
    }
    /// `atomicXor`: returns the old value.
    #[inline(always)]
    pub fn xor(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_xor_at(self.target(), value, self.scope) }
    }
}
impl<T: AtomicExchange> AtomicRef<'_, T> {
    /// `atomicExch`: stores `value`, returns the old value.
    #[inline(always)]
    pub fn exch(&self, value: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_exch_at(self.target(), value, self.scope) }
    }
    /// `atomicCAS`: stores `new` if the value's bits equal `compare`'s; returns the old value.
    #[inline(always)]
    pub fn cas(&self, compare: T, new: T) -> T {
        // SAFETY: as in `add`.
        unsafe { T::atomic_cas_at(self.target(), compare, new, self.scope) }
    }
}

impl<T: Element> SliceMut<'_, T> {
    /// Element `i` for atomic operations (device scope); traps when `i` is out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn atomic(&self, i: usize) -> AtomicRef<'_, T> {
        AtomicRef {
            address: self.element_ptr(i),
            scope: Scope::Device,
            shared: false,
            _view: PhantomData,
        }
    }
}

impl<T: Copy> Tile1d<T> {
    /// Element `i` of the shared tile for atomic operations (device scope; `.block()` is enough
    /// for shared memory, which only the block sees); traps when `i` is out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn atomic(&self, i: usize) -> AtomicRef<'_, T> {
        AtomicRef {
            address: self.element_ptr(i),
            scope: Scope::Device,
            shared: true,
            _view: PhantomData,
        }
    }
}

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

    /// `atomicOr` on element `i`, its result unused, as the shared-space `red.shared.or.b32`,
    /// without the bound test (see [`Tile1d::atomic_add_shared_unchecked`]): a warp's lanes
    /// gather a bit mask in one word, one instruction each.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn atomic_or_shared_unchecked(&self, i: usize, value: u32) {
        // SAFETY: `i < len` (the caller's contract).
        let address = unsafe { self.element_ptr_unchecked(i) };
        arch::shared_atomic_access(address.cast(), size_of::<u32>());
        // SAFETY: inside the tile, which lies in the launch's shared memory.
        unsafe { arch::red_shared_or_b32(self.base_ptr(), i, value) }
    }
}
