//! Atomic instructions: `atom` on generic addresses (global or shared), the shared-window
//! `atom.shared.add`, the reply-free `red.global.add`, and compare-and-swap (PTX ISA §9.7.13.5).
use crate::atomic::Scope;
use core::arch::asm;

/// `atom{.relaxed.scope}.{op}.{ty}` on a generic address, which may point into global or shared
/// memory (PTX ISA §9.7.13.5): relaxed ordering at the [`Scope`]'s `.cta`, `.gpu` (the
/// instruction's default, CUDA C's `atomicAdd`) or `.sys`. The scope is a constant at each call,
/// so one instruction remains.
macro_rules! atom {
    ($($name:ident: $op:literal $ptx:literal $t:ty, $reg:ident;)*) => {$(
        #[doc = concat!("`atom.", $op, ".", $ptx, "` at `scope`: returns the old value.")]
        ///
        /// # Safety
        /// `address` is valid for reads and writes, and aligned.
        #[inline(always)]
        pub unsafe fn $name(address: *mut $t, value: $t, scope: Scope) -> $t {
            let old: $t;
            // SAFETY: forwarded to the caller.
            unsafe {
                match scope {
                    Scope::Block => asm!(
                        concat!("atom.relaxed.cta.", $op, ".", $ptx, " {}, [{}], {};"),
                        out($reg) old, in(reg64) address, in($reg) value, options(nostack)
                    ),
                    Scope::Device => asm!(
                        concat!("atom.", $op, ".", $ptx, " {}, [{}], {};"),
                        out($reg) old, in(reg64) address, in($reg) value, options(nostack)
                    ),
                    Scope::System => asm!(
                        concat!("atom.relaxed.sys.", $op, ".", $ptx, " {}, [{}], {};"),
                        out($reg) old, in(reg64) address, in($reg) value, options(nostack)
                    ),
                }
            };
            old
        }
    )*};
}
atom! {
    atom_add_u32: "add" "u32" u32, reg32;
    atom_add_s32: "add" "s32" i32, reg32;
    atom_add_u64: "add" "u64" u64, reg64;
    atom_add_f32: "add" "f32" f32, reg32;
    atom_add_f64: "add" "f64" f64, reg64;
    atom_min_u32: "min" "u32" u32, reg32;
    atom_min_s32: "min" "s32" i32, reg32;
    atom_min_u64: "min" "u64" u64, reg64;
    atom_min_s64: "min" "s64" i64, reg64;
    atom_max_u32: "max" "u32" u32, reg32;
    atom_max_s32: "max" "s32" i32, reg32;
    atom_max_u64: "max" "u64" u64, reg64;
    atom_max_s64: "max" "s64" i64, reg64;
    atom_and_b32: "and" "b32" u32, reg32;
    atom_and_b64: "and" "b64" u64, reg64;
    atom_or_b32: "or" "b32" u32, reg32;
    atom_or_b64: "or" "b64" u64, reg64;
    atom_xor_b32: "xor" "b32" u32, reg32;
    atom_xor_b64: "xor" "b64" u64, reg64;
    atom_exch_b32: "exch" "b32" u32, reg32;
    atom_exch_b64: "exch" "b64" u64, reg64;
}

/// The 32-bit shared-window address of `address` (`cvta.to.shared`, then its low 32 bits:
/// shared memory is far smaller). Pure, so LLVM computes it once for a tile's base and ptxas
/// adds indices to it with 32-bit arithmetic.
#[inline(always)]
fn shared_window<T>(address: *mut T) -> u32 {
    let window: u32;
    // SAFETY: pure address arithmetic; nothing is accessed.
    unsafe {
        asm!(
            "{{ .reg .u64 %window; cvta.to.shared.u64 %window, {a}; cvt.u32.u64 {w}, %window; }}",
            a = in(reg64) address as u64, w = out(reg32) window, options(pure, nomem, nostack)
        )
    };
    window
}

/// `atom.shared.add.u32` (PTX ISA §9.7.13.5) on element `index` of the `u32`s at `base`, by its
/// shared-window address: the shared-memory atomic unit directly, without the generic form's
/// test of which state space the address lies in, and with a 32-bit address (one add per
/// atomic, where a generic `base + 4 index` costs a 64-bit multiply-add and a move). Returns the
/// old value.
///
/// # Safety
/// `base` is a generic address inside this launch's shared memory, aligned, and element `index`
/// lies in it too.
#[inline(always)]
pub unsafe fn atom_shared_add_u32(base: *mut u32, index: usize, value: u32) -> u32 {
    let window = shared_window(base).wrapping_add((index as u32).wrapping_mul(4));
    let old: u32;
    // SAFETY: forwarded to the caller; the window address names the same shared bytes.
    unsafe {
        asm!(
            "atom.shared.add.u32 {o}, [{w}], {v};",
            w = in(reg32) window, v = in(reg32) value, o = out(reg32) old, options(nostack)
        )
    };
    old
}

/// `red.shared.or.b32` (PTX ISA §9.7.13.6) on element `index` of the `u32`s at `base`, by its
/// shared-window address, as [`atom_shared_add_u32`]; returns nothing.
///
/// # Safety
/// As [`atom_shared_add_u32`].
#[inline(always)]
pub unsafe fn red_shared_or_b32(base: *mut u32, index: usize, value: u32) {
    let window = shared_window(base).wrapping_add((index as u32).wrapping_mul(4));
    // SAFETY: forwarded to the caller; the window address names the same shared bytes.
    unsafe {
        asm!(
            "red.shared.or.b32 [{w}], {v};",
            w = in(reg32) window, v = in(reg32) value, options(nostack)
        )
    };
}

/// `red.global.add.u32` (PTX ISA §9.7.13.6): an atomic add that returns nothing, so the L2
/// performs it without a reply (nvcc's form of an `atomicAdd` whose result is unused).
///
/// # Safety
/// `address` is valid for reads and writes in global memory, and aligned.
#[inline(always)]
pub unsafe fn red_global_add_u32(address: *mut u32, value: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!(
            "red.global.add.u32 [{}], {};",
            in(reg64) address, in(reg32) value, options(nostack)
        )
    };
}

/// `atom{.relaxed.scope}.cas.b32` / `.b64` at the [`Scope`].
macro_rules! atom_cas {
    ($($name:ident: $ptx:literal $t:ty, $reg:ident;)*) => {$(
        #[doc = concat!("`atom.cas.", $ptx, "` at `scope`: stores `new` if the value equals `compare`; returns the old value.")]
        ///
        /// # Safety
        /// `address` is valid for reads and writes, and aligned.
        #[inline(always)]
        pub unsafe fn $name(address: *mut $t, compare: $t, new: $t, scope: Scope) -> $t {
            let old: $t;
            // SAFETY: forwarded to the caller.
            unsafe {
                match scope {
                    Scope::Block => asm!(
                        concat!("atom.relaxed.cta.cas.", $ptx, " {}, [{}], {}, {};"),
                        out($reg) old, in(reg64) address, in($reg) compare, in($reg) new, options(nostack)
                    ),
                    Scope::Device => asm!(
                        concat!("atom.cas.", $ptx, " {}, [{}], {}, {};"),
                        out($reg) old, in(reg64) address, in($reg) compare, in($reg) new, options(nostack)
                    ),
                    Scope::System => asm!(
                        concat!("atom.relaxed.sys.cas.", $ptx, " {}, [{}], {}, {};"),
                        out($reg) old, in(reg64) address, in($reg) compare, in($reg) new, options(nostack)
                    ),
                }
            };
            old
        }
    )*};
}
atom_cas! {
    atom_cas_b32: "b32" u32, reg32;
    atom_cas_b64: "b64" u64, reg64;
}
