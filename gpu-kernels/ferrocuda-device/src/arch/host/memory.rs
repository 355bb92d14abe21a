//! The simulator's global-memory loads and stores: relaxed atomics of the element's width.
//!
//! The blocks of a launch run on different host threads (rayon), so two GPU threads of different
//! blocks that touch one element without an atomic, one of them writing (a race: legal CUDA, with
//! an unspecified result), are two host threads touching it at once. As plain reads and writes
//! that would be a data race, undefined behaviour of the simulator's whole process; as relaxed
//! atomics it is a defined access whose value is one of those written, a wrong answer as on the
//! GPU. On x86-64 and AArch64 a relaxed atomic load or store of up to 8 bytes is the instruction a
//! plain one is (`mov`, `ldr`/`str`): what it costs is only the merging and vectorising of
//! neighbouring accesses it forbids, which a simulated thread's few accesses rarely offered.
//!
//! A 16-byte access (`v4.b32`, `v2.b64`) is four or two word atomics, as PTX's memory model
//! defines it: "a set of equivalent memory operations with a scalar data-type, executed in an
//! unspecified order on the elements in the vector" (PTX ISA §8.2.2, Vector Data-types).
//!
//! One race stays outside Rust's model: racing accesses of *different* widths to the same bytes,
//! one of them a write (a kernel writing a buffer through a `Slice<u8>` while another block reads
//! it through `words()`, or 4-byte stores against a 16-byte load of 8-byte words). Rust allows
//! racing mixed-size atomic reads only (rust-lang/rust#128778). On x86-64, as on the GPU, such a
//! kernel reads each byte as one of the stores left it, but the language does not define it; to
//! define it every access would have to be made of byte atomics, at a cost the fast path cannot
//! carry.
//!
//! Shared memory needs none of this: a block's shared memory is touched only by that block's
//! threads, which are coroutines of the one host thread that runs the block (its `BlockCtx` is not
//! `Sync`), one at a time, so its plain accesses never overlap in time (see `shared_load`).
use core::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

/// A word that global memory is read and written in, with its atomic twin.
pub(crate) trait Word: Copy {
    /// A relaxed atomic load of `*address`.
    ///
    /// # Safety
    /// `address` is valid for reads and writes (a simulator buffer: host memory, writable) and
    /// aligned for the type.
    unsafe fn load_relaxed(address: *const Self) -> Self;
    /// A relaxed atomic store of `value` at `address`.
    ///
    /// # Safety
    /// `address` is valid for writes and aligned for the type.
    unsafe fn store_relaxed(address: *mut Self, value: Self);
}

macro_rules! word {
    ($($t:ty => $atomic:ty;)*) => {$(
        // `from_ptr` needs the atomic's alignment; the callers' contracts give the integer's.
        const _: () = assert!(align_of::<$atomic>() == align_of::<$t>());
        impl Word for $t {
            #[inline(always)]
            unsafe fn load_relaxed(address: *const Self) -> Self {
                // SAFETY: valid and aligned (the caller's contract; the assertion above: the
                // alignments agree); the atomic has the size and bit validity of `$t`. Every
                // other access of global memory by a running kernel is atomic too, so this one
                // races with no non-atomic access.
                unsafe { <$atomic>::from_ptr(address.cast_mut()) }.load(Ordering::Relaxed)
            }
            #[inline(always)]
            unsafe fn store_relaxed(address: *mut Self, value: Self) {
                // SAFETY: as in `load_relaxed`.
                unsafe { <$atomic>::from_ptr(address) }.store(value, Ordering::Relaxed)
            }
        }
    )*};
}

word! {
    u8 => AtomicU8;
    u16 => AtomicU16;
    u32 => AtomicU32;
    u64 => AtomicU64;
}

/// `N` consecutive words at `address`, each a relaxed atomic load.
///
/// # Safety
/// `address` is valid for reads and writes of `N` words and aligned for one.
#[inline(always)]
pub(crate) unsafe fn load_words<W: Word, const N: usize>(address: *const W) -> [W; N] {
    // SAFETY: word `k < N` lies in the range the caller gives.
    core::array::from_fn(|k| unsafe { W::load_relaxed(address.add(k)) })
}

/// Stores `words` at `address`, each a relaxed atomic store.
///
/// # Safety
/// `address` is valid for writes of `N` words and aligned for one.
#[inline(always)]
pub(crate) unsafe fn store_words<W: Word, const N: usize>(address: *mut W, words: [W; N]) {
    for (k, word) in words.into_iter().enumerate() {
        // SAFETY: word `k < N` lies in the range the caller gives.
        unsafe { W::store_relaxed(address.add(k), word) }
    }
}

/// A relaxed atomic load of a 1-, 2-, 4- or 8-byte value (a device variable's cell), with no
/// kernel check: the cell is host memory, which host code reads between launches too.
///
/// # Safety
/// `address` is valid for reads and writes and aligned for `T`, a plain number (every bit
/// pattern of its size is a valid `T`, no padding).
#[inline(always)]
pub unsafe fn relaxed_load<T: Copy>(address: *const T) -> T {
    // SAFETY: in each arm `T` has the word's size and alignment (a plain number of that size),
    // the caller's contract makes the address valid, and a word's bits are a valid `T`.
    unsafe {
        match size_of::<T>() {
            1 => core::mem::transmute_copy(&u8::load_relaxed(address.cast())),
            2 => core::mem::transmute_copy(&u16::load_relaxed(address.cast())),
            4 => core::mem::transmute_copy(&u32::load_relaxed(address.cast())),
            8 => core::mem::transmute_copy(&u64::load_relaxed(address.cast())),
            bytes => crate::arch::variable_size_failure(bytes),
        }
    }
}

/// A relaxed atomic store of a 1-, 2-, 4- or 8-byte value, as [`relaxed_load`].
///
/// # Safety
/// As [`relaxed_load`], for writes.
#[inline(always)]
pub unsafe fn relaxed_store<T: Copy>(address: *mut T, value: T) {
    // SAFETY: as in `relaxed_load`, in each arm.
    unsafe {
        match size_of::<T>() {
            1 => u8::store_relaxed(address.cast(), core::mem::transmute_copy(&value)),
            2 => u16::store_relaxed(address.cast(), core::mem::transmute_copy(&value)),
            4 => u32::store_relaxed(address.cast(), core::mem::transmute_copy(&value)),
            8 => u64::store_relaxed(address.cast(), core::mem::transmute_copy(&value)),
            bytes => crate::arch::variable_size_failure(bytes),
        }
    }
}
