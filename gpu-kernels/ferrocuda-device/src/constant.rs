//! Constant memory: CUDA C's `__constant__` (book §3.2.5; CUDA C++ Programming Guide, "Device
//! Memory Space Specifiers").
//!
//! Rust cannot put a static in PTX's `.const` state space, so the module declares one constant
//! array, the constant bank (`ferrocuda_constant_bank`, [`CONSTANT_BANK_BYTES`]), in PTX
//! (`device/arch/nvptx.rs`). Kernels read 4-byte values of it with `ld.const.b32` and 8-byte values
//! (`f64`, `u64`, at an even word) with `ld.const.b64`; the host writes it between launches
//! (`LoadedKernels::write_constant`, through `cuModuleGetGlobal`). Each example that uses it names the
//! words it owns, as a `__constant__` variable would be named.
//!
//! The bank is the whole 64 KiB a module may hold in constant memory (CUDA C Programming Guide,
//! "Device Memory Space Specifiers"), so that per-point coefficient arrays fit as well as scalars:
//! ch6-deriv's stretched grid keeps four arrays per direction there (book §6.1.4).
//!
//! A warp whose lanes all read one address is served by one broadcast from the constant cache;
//! lanes reading different addresses are serialised, so the bank suits values every thread
//! shares (a scalar, coefficients), not per-thread data.
use super::arch;

/// Bytes in the constant bank: all 64 KiB of constant memory a module may hold.
pub const CONSTANT_BANK_BYTES: usize = 65536;
/// 4-byte words in the constant bank.
pub const CONSTANT_BANK_WORDS: usize = CONSTANT_BANK_BYTES / 4;
// The simulator keeps its own bank; both must hold the same words.
#[cfg(not(target_arch = "nvptx64"))]
const _: () = assert!(CONSTANT_BANK_BYTES == ferrocuda_sim_abi::CONSTANT_BANK_BYTES);
/// The bank's PTX symbol, which the host looks up.
pub const CONSTANT_BANK_SYMBOL: &str = "ferrocuda_constant_bank";

/// A 4-byte value the constant bank holds, by its bits.
pub trait ConstantWord: Copy {
    /// The value of these bits.
    fn from_word(bits: u32) -> Self;
    /// This value's bits.
    fn to_word(self) -> u32;
}
impl ConstantWord for u32 {
    fn from_word(bits: u32) -> Self {
        bits
    }
    fn to_word(self) -> u32 {
        self
    }
}
impl ConstantWord for i32 {
    fn from_word(bits: u32) -> Self {
        bits as i32
    }
    fn to_word(self) -> u32 {
        self as u32
    }
}
impl ConstantWord for f32 {
    fn from_word(bits: u32) -> Self {
        f32::from_bits(bits)
    }
    fn to_word(self) -> u32 {
        self.to_bits()
    }
}

/// A value the constant bank holds, 4 or 8 bytes: what [`constant_load`] reads and
/// `LoadedKernels::write_constant` writes. Every [`ConstantWord`] is one (a word); `f64` and `u64` take
/// two words, low first, starting at an even word (8-byte aligned, as `ld.const.b64` needs).
pub trait ConstantValue: Copy {
    /// 4-byte words the value takes: 1 or 2.
    const WORDS: usize;
    /// The value's words, low first; only the first [`ConstantValue::WORDS`] are meaningful.
    fn to_words(self) -> [u32; 2];
    /// The value at `byte_offset` of the bank.
    ///
    /// # Safety
    /// `byte_offset + 4 * WORDS <= CONSTANT_BANK_BYTES`, and a multiple of `4 * WORDS`.
    unsafe fn load_at(byte_offset: usize) -> Self;
}
impl<T: ConstantWord> ConstantValue for T {
    const WORDS: usize = 1;
    fn to_words(self) -> [u32; 2] {
        [self.to_word(), 0]
    }
    #[inline(always)]
    unsafe fn load_at(byte_offset: usize) -> Self {
        // SAFETY: forwarded to the caller.
        T::from_word(unsafe { arch::ld_const_b32(byte_offset) })
    }
}
impl ConstantValue for u64 {
    const WORDS: usize = 2;
    fn to_words(self) -> [u32; 2] {
        [self as u32, (self >> 32) as u32]
    }
    #[inline(always)]
    unsafe fn load_at(byte_offset: usize) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { arch::ld_const_b64(byte_offset) }
    }
}
impl ConstantValue for f64 {
    const WORDS: usize = 2;
    fn to_words(self) -> [u32; 2] {
        self.to_bits().to_words()
    }
    #[inline(always)]
    unsafe fn load_at(byte_offset: usize) -> Self {
        // SAFETY: forwarded to the caller.
        f64::from_bits(unsafe { arch::ld_const_b64(byte_offset) })
    }
}

/// The value at word `word` (4 bytes each) of the constant bank, read with `ld.const.b32`, or
/// `ld.const.b64` for an 8-byte value; traps when the value lies outside the bank, or when an
/// 8-byte value does not start at an even word.
#[inline(always)]
pub fn constant_load<T: ConstantValue>(word: usize) -> T {
    if word >= CONSTANT_BANK_WORDS + 1 - T::WORDS || !word.is_multiple_of(T::WORDS) {
        crate::global::bounds_failure()
    }
    // SAFETY: `4 * (word + WORDS) <= CONSTANT_BANK_BYTES` and `4 * word` is a multiple of
    // `4 * WORDS`, both checked above.
    unsafe { T::load_at(4 * word) }
}
