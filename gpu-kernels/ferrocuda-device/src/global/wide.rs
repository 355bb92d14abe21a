//! Wide accesses to global memory: four elements in 16-byte accesses ([`Element4`], `get4`,
//! `set4`), and views that read the same bytes as wider words (`Slice<u8>::words`,
//! `Slice<f32>::pairs`), so a thread keeps more bytes in flight per instruction.
use super::{Element, Slice, SliceMut, bounds_failure};
use core::marker::PhantomData;

/// An element type whose four consecutive elements move in 16-byte accesses (one for 4-byte
/// elements, two for 8-byte ones): the widest a thread can load, which keeps the most bytes in
/// flight per instruction.
pub trait Element4: Element {
    /// Reads `address[0..4]`.
    ///
    /// # Safety
    /// `address` is valid for four reads and 16-byte aligned.
    unsafe fn load4(address: *const Self) -> [Self; 4];
    /// Writes `address[0..4]`.
    ///
    /// # Safety
    /// `address` is valid for four writes and 16-byte aligned.
    unsafe fn store4(address: *mut Self, values: [Self; 4]);
}

macro_rules! element4 {
    ($($t:ty => $bits:ty;)*) => {$(
        impl Element4 for $t {
            #[inline(always)]
            unsafe fn load4(address: *const Self) -> [Self; 4] {
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                let words = unsafe { <$bits as Wide>::load16(address.cast()) };
                words.map(|w| <$t>::from_ne_bytes(w.to_ne_bytes()))
            }
            #[inline(always)]
            unsafe fn store4(address: *mut Self, values: [Self; 4]) {
                let words = values.map(|v| <$bits>::from_ne_bytes(v.to_ne_bytes()));
                // SAFETY: forwarded to the caller; `$t` and `$bits` have one size.
                unsafe { <$bits as Wide>::store16(address.cast(), words) }
            }
        }
    )*};
}

/// Four words of 4 bytes (one `v4.b32` access) or of 8 bytes (two `v2.b64` accesses).
trait Wide: Copy {
    /// # Safety
    /// As [`Element4::load4`].
    unsafe fn load16(address: *const Self) -> [Self; 4];
    /// # Safety
    /// As [`Element4::store4`].
    unsafe fn store16(address: *mut Self, values: [Self; 4]);
}
impl Wide for u32 {
    #[inline(always)]
    unsafe fn load16(address: *const Self) -> [Self; 4] {
        // SAFETY: forwarded to the caller.
        unsafe { crate::arch::ld_global_v4_b32(address) }
    }
    #[inline(always)]
    unsafe fn store16(address: *mut Self, values: [Self; 4]) {
        // SAFETY: forwarded to the caller.
        unsafe { crate::arch::st_global_v4_b32(address, values) }
    }
}
impl Wide for u64 {
    #[inline(always)]
    unsafe fn load16(address: *const Self) -> [Self; 4] {
        // SAFETY: forwarded to the caller: 32 bytes, 16-byte aligned, read in two halves.
        let [a, b] = unsafe { crate::arch::ld_global_v2_b64(address) };
        // SAFETY: as above.
        let [c, d] = unsafe { crate::arch::ld_global_v2_b64(address.add(2)) };
        [a, b, c, d]
    }
    #[inline(always)]
    unsafe fn store16(address: *mut Self, values: [Self; 4]) {
        // SAFETY: forwarded to the caller, as in load16.
        unsafe {
            crate::arch::st_global_v2_b64(address, [values[0], values[1]]);
            crate::arch::st_global_v2_b64(address.add(2), [values[2], values[3]]);
        }
    }
}

element4! {
    u32 => u32;
    i32 => u32;
    f32 => u32;
    u64 => u64;
    i64 => u64;
    f64 => u64;
}

impl<'a> Slice<'a, u8> {
    /// The view's whole 4-byte words as `u32`s, when it starts 4-byte aligned (always, for a whole
    /// allocation): byte `4*w + k` is bits `8k .. 8k+8` of word `w` (little-endian, as the GPU
    /// and x86 are), so kernels can read bytes 4 or 16 at a time.
    #[inline(always)]
    pub fn words(&self) -> Option<Slice<'a, u32>> {
        (self.ptr as usize).is_multiple_of(4).then_some(Slice {
            ptr: self.ptr.cast(),
            len: self.len / 4,
            _buffer: PhantomData,
        })
    }
}

impl<'a> Slice<'a, f32> {
    /// The view's whole pairs of elements as `u64`s, when it starts 8-byte aligned (always, for
    /// a whole allocation): element `2p` is the low half of pair `p`, element `2p + 1` the high
    /// half (little-endian), so kernels can move two elements in one 8-byte access.
    #[inline(always)]
    pub fn pairs(&self) -> Option<Slice<'a, u64>> {
        (self.ptr as usize).is_multiple_of(8).then_some(Slice {
            ptr: self.ptr.cast(),
            len: self.len / 2,
            _buffer: PhantomData,
        })
    }
}

impl<'a> SliceMut<'a, f32> {
    /// The view's whole pairs of elements as `u64`s, when it starts 8-byte aligned, as
    /// [`Slice::pairs`].
    #[inline(always)]
    pub fn pairs(&self) -> Option<SliceMut<'a, u64>> {
        (self.ptr as usize).is_multiple_of(8).then_some(SliceMut {
            ptr: self.ptr.cast(),
            len: self.len / 2,
            _buffer: PhantomData,
        })
    }
}

impl<'a> SliceMut<'a, u8> {
    /// The view's whole 4-byte words as `u32`s, when it starts 4-byte aligned, as
    /// [`Slice::words`]: kernels that write bytes 4 at a time (8-bit images) store one word.
    #[inline(always)]
    pub fn words(&self) -> Option<SliceMut<'a, u32>> {
        (self.ptr as usize).is_multiple_of(4).then_some(SliceMut {
            ptr: self.ptr.cast(),
            len: self.len / 4,
            _buffer: PhantomData,
        })
    }
}

impl<T: Element4> Slice<'_, T> {
    /// True when 16-byte accesses can start at element 0 (always, for a whole allocation).
    #[inline(always)]
    pub fn is_aligned16(&self) -> bool {
        (self.ptr as usize).is_multiple_of(16)
    }

    /// Elements `4*chunk .. 4*chunk + 4` in 16-byte accesses; traps when they are not all in
    /// bounds or the view is not 16-byte aligned.
    #[inline(always)]
    pub fn get4(&self, chunk: usize) -> [T; 4] {
        check_chunk4(self.ptr as usize, self.len, chunk);
        // SAFETY: in bounds and aligned, checked above; readable by the constructor's contract.
        unsafe { T::load4(self.ptr.add(4 * chunk)) }
    }
}

impl<T: Element4> SliceMut<'_, T> {
    /// True when 16-byte accesses can start at element 0 (always, for a whole allocation).
    #[inline(always)]
    pub fn is_aligned16(&self) -> bool {
        (self.ptr as usize).is_multiple_of(16)
    }

    /// Stores `values` in elements `4*chunk .. 4*chunk + 4` in 16-byte accesses; traps as
    /// [`Slice::get4`].
    #[inline(always)]
    pub fn set4(&self, chunk: usize, values: [T; 4]) {
        check_chunk4(self.ptr as usize, self.len, chunk);
        // SAFETY: in bounds and aligned, checked above; writable by the constructor's contract.
        unsafe { T::store4(self.ptr.add(4 * chunk), values) }
    }
}

/// Traps unless elements `4*chunk .. 4*chunk + 4` of a view at `address` of `len` elements are
/// in bounds and the view is 16-byte aligned.
#[inline(always)]
fn check_chunk4(address: usize, len: usize, chunk: usize) {
    if 4 * chunk + 4 > len || !address.is_multiple_of(16) {
        bounds_failure()
    }
}
