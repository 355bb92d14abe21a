//! The CPU simulator's versions of the PTX wrappers in `nvptx.rs`, with the same names and
//! signatures: special registers read the simulated thread's coordinates, barriers and warp
//! operations meet the block's other coroutines, atomics are host atomics, and global loads and
//! stores are relaxed host atomics of the element's width (`memory.rs` says why).
//!
//! Every global access first asks the simulator for the calling simulated thread
//! (`sim::global_access`, `sim::global_atomic`): from host code outside a kernel it panics
//! instead of reading, since a view there may hold a device address of the CUDA backend.
use crate::atomic::Scope;
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering, fence};
use ferrocuda_sim_abi::{self as sim, Access, WarpOp};
use memory::{Word, load_words, store_words};
pub use memory::{relaxed_load, relaxed_store};

/// Stops with a fault naming the size of a device variable no word holds (1, 2, 4, 8 bytes).
#[cold]
#[inline(never)]
pub fn variable_size_failure(bytes: usize) -> ! {
    sim::fault(format_args!("a device variable holds 1, 2, 4 or 8 bytes, not {bytes}"))
}

mod async_copy;
mod mbarrier;
mod memory;
mod mma;
mod rounding;
mod tensor_copy;
mod wgmma;
pub use async_copy::*;
pub use mbarrier::*;
pub use mma::*;
pub use rounding::*;
pub use tensor_copy::*;
pub use wgmma::*;

/// `%tid`.
#[inline(always)]
pub fn thread_idx() -> [u32; 3] {
    sim::thread_idx()
}
/// `%ctaid`.
#[inline(always)]
pub fn block_idx() -> [u32; 3] {
    sim::block_idx()
}
/// `%ntid`.
#[inline(always)]
pub fn block_dim() -> [u32; 3] {
    sim::block_dim()
}
/// `%nctaid`.
#[inline(always)]
pub fn grid_dim() -> [u32; 3] {
    sim::grid_dim()
}
/// `%laneid`.
#[inline(always)]
pub fn lane_id() -> u32 {
    sim::lane_id()
}

/// `bar.sync 0`.
///
/// # Safety
/// Every non-exited thread of the block reaches this barrier (the simulator reports a fault
/// when not).
#[inline(always)]
#[track_caller]
pub unsafe fn barrier_sync() {
    sim::barrier(core::panic::Location::caller())
}
/// `membar.cta`.
#[inline(always)]
pub fn fence_block() {
    sim::thread_fence();
    fence(Ordering::SeqCst)
}
/// `membar.gl`.
#[inline(always)]
pub fn fence_device() {
    sim::thread_fence();
    fence(Ordering::SeqCst)
}
/// `membar.sys`.
#[inline(always)]
pub fn fence_system() {
    sim::thread_fence();
    fence(Ordering::SeqCst)
}
/// `%clock64`: the host's time-stamp counter.
#[inline(always)]
pub fn clock64() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `rdtsc` has no precondition on x86-64.
    return unsafe { core::arch::x86_64::_rdtsc() };
    #[cfg(not(target_arch = "x86_64"))]
    return global_timer();
}
/// `%globaltimer`: nanoseconds since the Unix epoch.
#[inline(always)]
pub fn global_timer() -> u64 {
    sim::global_timer()
}
/// `nanosleep.u32`: a spin-loop hint (the thread polling is a host thread; the one it waits for
/// runs on another).
#[inline(always)]
pub fn nanosleep(_ns: u32) {
    core::hint::spin_loop()
}
/// An index out of bounds of the view or tile at `address`: a fault naming the kernel argument
/// it belongs to (or the shared tile), the index, the length and the caller's source line.
#[track_caller]
pub fn index_fault(address: usize, element_bytes: usize, index: usize, len: usize) -> ! {
    sim::index_fault(address, element_bytes, index, len, core::panic::Location::caller())
}
/// `trap`: stops the launch with a fault naming this thread.
#[inline(always)]
pub fn trap() -> ! {
    sim::fault(format_args!(
        "the kernel trapped (an index out of bounds of a view or tile, or a panic)"
    ))
}

/// The base of the block's dynamic shared memory.
#[inline(always)]
pub fn dynamic_shared_base<T>() -> *mut T {
    sim::shared_base().cast()
}
/// The bytes of dynamic shared memory this launch provides.
#[inline(always)]
pub fn dynamic_shared_bytes() -> usize {
    sim::dynamic_shared_bytes()
}
/// A checked shared-memory read.
///
/// A plain read, not an atomic: a block's shared memory is touched only by the block's threads,
/// coroutines that run one at a time on the one host thread that runs the block, so two accesses
/// never overlap in time, and a race between two simulated threads is no data race of the host
/// (the race detector reports it). An atomic would need `T`'s bytes as integers, which a `T` with
/// padding does not have.
///
/// # Safety
/// `address` lies in this launch's dynamic shared memory (checked: a fault otherwise), aligned
/// for `T`.
#[inline(always)]
#[track_caller]
pub unsafe fn shared_load<T: Copy>(address: *const T) -> T {
    let checked = sim::shared_access(address.cast(), size_of::<T>(), Access::Read);
    // SAFETY: `shared_access` checked that the bytes lie in the block's shared buffer, which only
    // this host thread touches (see above); aligned by the caller's contract.
    unsafe { checked.cast::<T>().read() }
}
/// A checked shared-memory write: a plain write, as [`shared_load`] says why.
///
/// # Safety
/// `address` lies in this launch's dynamic shared memory (checked: a fault otherwise), aligned
/// for `T`.
#[inline(always)]
#[track_caller]
pub unsafe fn shared_store<T: Copy>(address: *mut T, value: T) {
    let checked = sim::shared_access(address.cast(), size_of::<T>(), Access::Write);
    // SAFETY: as in `shared_load`.
    unsafe { checked.cast::<T>().write(value) }
}
/// Checks an atomic read-modify-write of shared memory before it happens.
#[inline(always)]
#[track_caller]
pub fn shared_atomic_access(address: *const u8, bytes: usize) {
    sim::shared_access(address, bytes, Access::ReadWrite);
}

macro_rules! shfl {
    ($name:ident, $op:ident) => {
        /// A simulated `shfl.sync`; see `nvptx.rs`.
        ///
        /// # Safety
        /// Every lane named in `mask` executes this same instruction (checked: a fault otherwise).
        #[inline(always)]
        pub unsafe fn $name(mask: u32, value: u32, lane_or_delta: u32, clamp: u32) -> u32 {
            sim::warp_exchange(WarpOp::$op(lane_or_delta, clamp), mask, value)
        }
    };
}
shfl!(shfl_up_b32, Up);
shfl!(shfl_down_b32, Down);
shfl!(shfl_bfly_b32, Bfly);
shfl!(shfl_idx_b32, Idx);

/// A simulated `vote.sync.ballot.b32`.
///
/// # Safety
/// Every lane named in `mask` executes this same instruction (checked: a fault otherwise).
#[inline(always)]
pub unsafe fn vote_ballot(mask: u32, predicate: bool) -> u32 {
    sim::warp_exchange(WarpOp::Ballot, mask, predicate as u32)
}
/// A simulated `bar.warp.sync`: waits for every lane of `mask`, and orders their memory
/// accesses (the race detector's warp rule).
///
/// # Safety
/// Every lane named in `mask` executes a `bar.warp.sync` with this mask (checked: a fault
/// otherwise).
#[inline(always)]
pub unsafe fn bar_warp_sync(mask: u32) {
    sim::warp_exchange(WarpOp::SyncWarp, mask, 0);
}
/// A simulated `activemask.b32`: the lanes of the warp that reach it together.
#[inline(always)]
pub fn active_mask() -> u32 {
    sim::active_mask()
}

macro_rules! atom_int {
    ($($name:ident: $atomic:ty, $t:ty, $method:ident;)*) => {$(
        /// A host atomic in place of the PTX `atom` (every scope is the whole process here);
        /// returns the old value.
        ///
        /// # Safety
        /// `address` is valid for reads and writes, and aligned.
        #[inline(always)]
        pub unsafe fn $name(address: *mut $t, value: $t, _: Scope) -> $t {
            sim::global_atomic();
            // SAFETY: forwarded to the caller; the atomic type has the layout of `$t`.
            unsafe { <$atomic>::from_ptr(address) }.$method(value, Ordering::Relaxed)
        }
    )*};
}
atom_int! {
    atom_add_u32: AtomicU32, u32, fetch_add;
    atom_add_s32: AtomicI32, i32, fetch_add;
    atom_add_u64: AtomicU64, u64, fetch_add;
    atom_min_u32: AtomicU32, u32, fetch_min;
    atom_min_s32: AtomicI32, i32, fetch_min;
    atom_min_u64: AtomicU64, u64, fetch_min;
    atom_min_s64: AtomicI64, i64, fetch_min;
    atom_max_u32: AtomicU32, u32, fetch_max;
    atom_max_s32: AtomicI32, i32, fetch_max;
    atom_max_u64: AtomicU64, u64, fetch_max;
    atom_max_s64: AtomicI64, i64, fetch_max;
    atom_and_b32: AtomicU32, u32, fetch_and;
    atom_and_b64: AtomicU64, u64, fetch_and;
    atom_or_b32: AtomicU32, u32, fetch_or;
    atom_or_b64: AtomicU64, u64, fetch_or;
    atom_xor_b32: AtomicU32, u32, fetch_xor;
    atom_xor_b64: AtomicU64, u64, fetch_xor;
    atom_exch_b32: AtomicU32, u32, swap;
    atom_exch_b64: AtomicU64, u64, swap;
}
/// A host atomic in place of `atom.shared.add.u32` on element `index` of the `u32`s at `base`;
/// returns the old value.
///
/// # Safety
/// Element `index` of `base` is valid for reads and writes, and aligned.
#[inline(always)]
pub unsafe fn atom_shared_add_u32(base: *mut u32, index: usize, value: u32) -> u32 {
    // SAFETY: forwarded to the caller.
    unsafe { atom_add_u32(base.add(index), value, Scope::Device) }
}

/// A host atomic in place of `red.shared.or.b32` on element `index` of the `u32`s at `base`.
///
/// # Safety
/// Element `index` of `base` is valid for reads and writes, and aligned.
#[inline(always)]
pub unsafe fn red_shared_or_b32(base: *mut u32, index: usize, value: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { atom_or_b32(base.add(index), value, Scope::Device) };
}

/// A host atomic add in place of the PTX `red.global.add.u32`; returns nothing.
///
/// # Safety
/// `address` is valid for reads and writes, and aligned.
#[inline(always)]
pub unsafe fn red_global_add_u32(address: *mut u32, value: u32) {
    sim::global_atomic();
    // SAFETY: forwarded to the caller; `AtomicU32` has the layout of `u32`.
    unsafe { AtomicU32::from_ptr(address) }.fetch_add(value, Ordering::Relaxed);
}

macro_rules! atom_float_add {
    ($name:ident, $atomic:ty, $t:ty) => {
        /// A compare-and-swap loop in place of the PTX `atom.add` on floats; returns the old value.
        ///
        /// # Safety
        /// `address` is valid for reads and writes, and aligned.
        #[inline(always)]
        pub unsafe fn $name(address: *mut $t, value: $t, _: Scope) -> $t {
            sim::global_atomic();
            // SAFETY: forwarded to the caller; the atomic type has the size of `$t`.
            let bits = unsafe { <$atomic>::from_ptr(address.cast()) };
            let update = |old| Some((<$t>::from_bits(old) + value).to_bits());
            let Ok(old) = bits.fetch_update(Ordering::Relaxed, Ordering::Relaxed, update) else {
                unreachable!("the update always succeeds")
            };
            <$t>::from_bits(old)
        }
    };
}
atom_float_add!(atom_add_f32, AtomicU32, f32);
atom_float_add!(atom_add_f64, AtomicU64, f64);

macro_rules! atom_cas {
    ($name:ident, $atomic:ty, $t:ty) => {
        /// A host compare-and-swap in place of the PTX `atom.cas`; returns the old value.
        ///
        /// # Safety
        /// `address` is valid for reads and writes, and aligned.
        #[inline(always)]
        pub unsafe fn $name(address: *mut $t, compare: $t, new: $t, _: Scope) -> $t {
            sim::global_atomic();
            // SAFETY: forwarded to the caller; the atomic type has the layout of `$t`.
            let atomic = unsafe { <$atomic>::from_ptr(address) };
            atomic
                .compare_exchange(compare, new, Ordering::Relaxed, Ordering::Relaxed)
                .unwrap_or_else(|old| old)
        }
    };
}
atom_cas!(atom_cas_b32, AtomicU32, u32);
atom_cas!(atom_cas_b64, AtomicU64, u64);

/// `ld.volatile.global.b32`: a relaxed atomic load, which the compiler neither drops nor merges
/// with another (what a kernel spinning on a flag needs of `volatile`).
///
/// # Safety
/// `address` is valid for reads and 4-byte aligned.
#[inline(always)]
pub unsafe fn ld_volatile_global_b32(address: *const u32) -> u32 {
    // A relaxed atomic, to the cross-block race check too: no race itself, an acquire by the
    // block (and a release after a fence), as the flags of a look-back or a lock need.
    sim::global_atomic();
    // SAFETY: forwarded to the caller.
    unsafe { u32::load_relaxed(address) }
}
/// `st.volatile.global.b32`: a relaxed atomic store.
///
/// # Safety
/// `address` is valid for writes and 4-byte aligned.
#[inline(always)]
pub unsafe fn st_volatile_global_b32(address: *mut u32, value: u32) {
    // As `ld_volatile_global_b32`.
    sim::global_atomic();
    // SAFETY: forwarded to the caller.
    unsafe { u32::store_relaxed(address, value) }
}

/// `ld.volatile.global.b64`: a relaxed atomic load of 8 bytes, seen whole.
///
/// # Safety
/// `address` is valid for reads and 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_volatile_global_b64(address: *const u64) -> u64 {
    // As `ld_volatile_global_b32`.
    sim::global_atomic();
    // SAFETY: forwarded to the caller.
    unsafe { u64::load_relaxed(address) }
}
/// `st.volatile.global.b64`: a relaxed atomic store of 8 bytes.
///
/// # Safety
/// `address` is valid for writes and 8-byte aligned.
#[inline(always)]
pub unsafe fn st_volatile_global_b64(address: *mut u64, value: u64) {
    // As `ld_volatile_global_b32`.
    sim::global_atomic();
    // SAFETY: forwarded to the caller.
    unsafe { u64::store_relaxed(address, value) }
}

/// The global-memory loads and stores of `nvptx.rs`: relaxed host atomics of the type's width
/// (`memory.rs`), all of them coherent on the host, so `ld.global.nc` is an ordinary load too.
macro_rules! global_access {
    ($load:ident, $store:ident, $t:ty, $bits:ty) => {
        #[doc = concat!("`ld.global` of a `", stringify!($t), "`: a relaxed host atomic load.")]
        ///
        /// # Safety
        /// `address` is valid for reads and aligned for the type.
        #[inline(always)]
        pub unsafe fn $load(address: *const $t) -> $t {
            sim::global_access(address.cast(), size_of::<$t>(), Access::Read);
            // SAFETY: forwarded to the caller; `$bits` has the size and alignment of `$t`.
            <$t>::from_ne_bytes(unsafe { <$bits>::load_relaxed(address.cast()) }.to_ne_bytes())
        }
        #[doc = concat!("`st.global` of a `", stringify!($t), "`: a relaxed host atomic store.")]
        ///
        /// # Safety
        /// `address` is valid for writes and aligned for the type.
        #[inline(always)]
        pub unsafe fn $store(address: *mut $t, value: $t) {
            sim::global_access(address.cast(), size_of::<$t>(), Access::Write);
            let bits = <$bits>::from_ne_bytes(value.to_ne_bytes());
            // SAFETY: forwarded to the caller; `$bits` has the size and alignment of `$t`.
            unsafe { <$bits>::store_relaxed(address.cast(), bits) }
        }
    };
}
global_access!(ld_global_u8, st_global_u8, u8, u8);
global_access!(ld_global_u16, st_global_u16, u16, u16);
global_access!(ld_global_b32, st_global_b32, u32, u32);
global_access!(ld_global_f32, st_global_f32, f32, u32);
global_access!(ld_global_b64, st_global_b64, u64, u64);
global_access!(ld_global_f64, st_global_f64, f64, u64);

/// `ld.global.v4.b32`: four relaxed atomic loads of one word each (PTX, too, makes a vector
/// access one access per element: `memory.rs`).
///
/// # Safety
/// `address` is valid for reads of 16 bytes and 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v4_b32(address: *const u32) -> [u32; 4] {
    sim::global_access(address.cast(), 16, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { load_words(address) }
}
/// `st.global.v4.b32`: four relaxed atomic stores of one word each.
///
/// # Safety
/// `address` is valid for writes of 16 bytes and 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v4_b32(address: *mut u32, v: [u32; 4]) {
    sim::global_access(address.cast(), 16, Access::Write);
    // SAFETY: forwarded to the caller.
    unsafe { store_words(address, v) }
}
/// `ld.global.v2.b64`: two relaxed atomic loads of one word each.
///
/// # Safety
/// `address` is valid for reads of 16 bytes and 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v2_b64(address: *const u64) -> [u64; 2] {
    sim::global_access(address.cast(), 16, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { load_words(address) }
}
/// `st.global.v2.b64`: two relaxed atomic stores of one word each.
///
/// # Safety
/// `address` is valid for writes of 16 bytes and 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v2_b64(address: *mut u64, v: [u64; 2]) {
    sim::global_access(address.cast(), 16, Access::Write);
    // SAFETY: forwarded to the caller.
    unsafe { store_words(address, v) }
}

/// `ld.global.nc.b32`: a relaxed atomic load (the host has no incoherent path).
///
/// # Safety
/// `address` is valid for reads and 4-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_b32(address: *const u32) -> u32 {
    sim::global_access(address.cast(), 4, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { u32::load_relaxed(address) }
}
/// `ld.global.nc.b64`: a relaxed atomic load (the host has no incoherent path).
///
/// # Safety
/// `address` is valid for reads and 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_b64(address: *const u64) -> u64 {
    sim::global_access(address.cast(), 8, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { u64::load_relaxed(address) }
}

/// `ld.global.cg.b32`: a relaxed atomic load (the simulator has no cache to bypass).
///
/// # Safety
/// `address` is valid for reads and 4-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_cg_b32(address: *const u32) -> u32 {
    sim::global_access(address.cast(), 4, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { u32::load_relaxed(address) }
}
/// `ld.global.cg.b64`: a relaxed atomic load.
///
/// # Safety
/// `address` is valid for reads and 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_cg_b64(address: *const u64) -> u64 {
    sim::global_access(address.cast(), 8, Access::Read);
    // SAFETY: forwarded to the caller.
    unsafe { u64::load_relaxed(address) }
}

/// The bound test of an `_unchecked` view access: made on the simulator, where it costs nothing
/// that matters and names the thread; the GPU leaves it to the caller's contract.
#[inline(always)]
pub fn check_unchecked_index(i: usize, len: usize) {
    if i >= len {
        trap()
    }
}

/// `a * b` rounded (the host never contracts it).
#[inline(always)]
pub fn mul_rn_f32(a: f32, b: f32) -> f32 {
    a * b
}
/// `a + b` rounded.
#[inline(always)]
pub fn add_rn_f32(a: f32, b: f32) -> f32 {
    a + b
}
/// `a * b + c` rounded once.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    libm::fmaf(a, b, c)
}
/// `a * b` rounded.
#[inline(always)]
pub fn mul_rn_f64(a: f64, b: f64) -> f64 {
    a * b
}
/// `a + b` rounded.
#[inline(always)]
pub fn add_rn_f64(a: f64, b: f64) -> f64 {
    a + b
}
/// `a * b + c` rounded once.
#[inline(always)]
pub fn fma_rn_f64(a: f64, b: f64, c: f64) -> f64 {
    libm::fma(a, b, c)
}
/// `sin.approx.f32`, simulated by the accurate sine (within the approximation's error bound).
#[inline(always)]
pub fn sin_approx_f32(a: f32) -> f32 {
    libm::sinf(a)
}
/// `cos.approx.f32`, simulated by the accurate cosine.
#[inline(always)]
pub fn cos_approx_f32(a: f32) -> f32 {
    libm::cosf(a)
}
/// `ex2.approx.f32`, simulated by the accurate `exp2`.
#[inline(always)]
pub fn ex2_approx_f32(a: f32) -> f32 {
    libm::exp2f(a)
}
/// `lg2.approx.f32`, simulated by the accurate `log2`.
#[inline(always)]
pub fn lg2_approx_f32(a: f32) -> f32 {
    libm::log2f(a)
}
/// `cvt.rzi.u32.f32`: toward zero, saturated, NaN to 0, as Rust's `as` is.
#[inline(always)]
pub fn cvt_rzi_u32_f32(x: f32) -> u32 {
    x as u32
}
/// `dp4a.u32.u32`: `c` plus the dot product of the bytes of `a` and `b`, wrapping.
#[inline(always)]
pub fn dp4a_u32(a: u32, b: u32, c: u32) -> u32 {
    let (a, b) = (a.to_le_bytes(), b.to_le_bytes());
    (0..4).fold(c, |sum, k| sum.wrapping_add(u32::from(a[k]) * u32::from(b[k])))
}
/// `prmt.b32` (default mode): byte `i` of the result is byte `c >> 4i & 7` of `b:a`, or that
/// byte's top bit repeated when bit `4i + 3` of `c` is set.
#[inline(always)]
pub fn prmt_b32(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    (0..4).fold(0, |out, i| {
        let nibble = c >> (4 * i) & 0xf;
        let byte = bytes[(nibble & 7) as usize];
        let byte = if nibble & 8 == 0 {
            byte
        } else {
            0u8.wrapping_sub(byte >> 7)
        };
        out | u32::from(byte) << (8 * i)
    })
}
/// `div.approx.f32`, simulated by the correctly rounded division.
#[inline(always)]
pub fn div_approx_f32(a: f32, b: f32) -> f32 {
    a / b
}

/// `ld.const.b32` of the simulator's constant bank.
///
/// # Safety
/// `byte_offset + 4 <= CONSTANT_BANK_BYTES`, and a multiple of 4 (checked: a fault otherwise).
#[inline(always)]
pub unsafe fn ld_const_b32(byte_offset: usize) -> u32 {
    sim::constant_word(byte_offset)
}

/// Prints one NUL-terminated line: to the host's standard output in one write, or to the
/// launch's capture (`ferrocuda_sim::capture_output`).
#[inline(always)]
pub fn print_line(line_with_nul: &[u8]) {
    let text = line_with_nul.strip_suffix(&[0]).unwrap_or(line_with_nul);
    sim::print(text)
}

/// `ld.const.b64` of the simulator's constant bank: its two words, low first (little-endian, as
/// the GPU's bank holds the bytes the host wrote).
///
/// # Safety
/// `byte_offset + 8 <= CONSTANT_BANK_BYTES`, and a multiple of 8 (each word checked: a fault
/// otherwise).
#[inline(always)]
pub unsafe fn ld_const_b64(byte_offset: usize) -> u64 {
    let low = sim::constant_word(byte_offset);
    let high = sim::constant_word(byte_offset + 4);
    u64::from(low) | (u64::from(high) << 32)
}
