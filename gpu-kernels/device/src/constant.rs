//! Constant memory: CUDA C's `__constant__` (book §3.2.5; CUDA C++ Programming Guide, "Device
//! Memory Space Specifiers").
//!
//! Rust cannot put a static in PTX's `.const` state space, so the module declares one constant
//! array, the constant bank (`ferrocuda_constant_bank`, [`CONSTANT_BANK_BYTES`]), in PTX
//! (`device/arch/nvptx.rs`). Kernels read 4-byte words of it with `ld.const`; the host writes it
//! between launches (`Gpu::write_constant`, through `cuModuleGetGlobal`). Each example that uses
//! it names the words it owns, as a `__constant__` variable would be named.
//!
//! A warp whose lanes all read one address is served by one broadcast from the constant cache;
//! lanes reading different addresses are serialised, so the bank suits values every thread
//! shares (a scalar, coefficients), not per-thread data.
use super::arch;

/// Bytes in the constant bank (of the 64 KiB of constant memory a module may hold).
pub const CONSTANT_BANK_BYTES: usize = 4096;
// The simulator keeps its own bank; both must hold the same words.
#[cfg(not(target_arch = "nvptx64"))]
const _: () = assert!(CONSTANT_BANK_BYTES == ferrocuda_sim::CONSTANT_BANK_BYTES);
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

/// Word `word` (4 bytes each) of the constant bank, read with `ld.const`; traps when `word` lies
/// outside the bank.
#[inline(always)]
pub fn constant_load<T: ConstantWord>(word: usize) -> T {
    if word >= CONSTANT_BANK_BYTES / 4 {
        crate::global::bounds_failure()
    }
    // SAFETY: `4 * word + 4 <= CONSTANT_BANK_BYTES`, checked above, and a multiple of 4.
    T::from_word(unsafe { arch::ld_const_b32(4 * word) })
}
