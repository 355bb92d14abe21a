//! PTX instructions (PTX ISA 7.8, sm_70+), each wrapped once.
use core::arch::asm;
use core::arch::nvptx as intr;

mod async_copy;
mod atomic;
mod mbarrier;
mod mma;
mod rounding;
mod tensor_copy;
mod wgmma;
pub use async_copy::*;
pub use atomic::*;
pub use mbarrier::*;
pub use mma::*;
pub use rounding::*;
pub use tensor_copy::*;
pub use wgmma::*;

/// `%tid.{x,y,z}`.
#[inline(always)]
pub fn thread_idx() -> [u32; 3] {
    // SAFETY: reading special registers has no precondition.
    unsafe {
        [
            intr::_thread_idx_x() as u32,
            intr::_thread_idx_y() as u32,
            intr::_thread_idx_z() as u32,
        ]
    }
}
/// `%ctaid.{x,y,z}`.
#[inline(always)]
pub fn block_idx() -> [u32; 3] {
    // SAFETY: reading special registers has no precondition.
    unsafe {
        [
            intr::_block_idx_x() as u32,
            intr::_block_idx_y() as u32,
            intr::_block_idx_z() as u32,
        ]
    }
}
/// `%ntid.{x,y,z}`.
#[inline(always)]
pub fn block_dim() -> [u32; 3] {
    // SAFETY: reading special registers has no precondition.
    unsafe {
        [
            intr::_block_dim_x() as u32,
            intr::_block_dim_y() as u32,
            intr::_block_dim_z() as u32,
        ]
    }
}
/// `%nctaid.{x,y,z}`.
#[inline(always)]
pub fn grid_dim() -> [u32; 3] {
    // SAFETY: reading special registers has no precondition.
    unsafe {
        [
            intr::_grid_dim_x() as u32,
            intr::_grid_dim_y() as u32,
            intr::_grid_dim_z() as u32,
        ]
    }
}
/// `%laneid`.
#[inline(always)]
pub fn lane_id() -> u32 {
    let lane: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {}, %laneid;", out(reg32) lane, options(pure, nomem, nostack)) };
    lane
}

/// `bar.sync 0` (PTX ISA §9.7.13.1).
///
/// # Safety
/// Every non-exited thread of the block reaches this barrier.
#[inline(always)]
pub unsafe fn barrier_sync() {
    // SAFETY: forwarded to the caller.
    unsafe { intr::_syncthreads() }
}
/// `membar.cta` / `membar.gl` / `membar.sys` (PTX ISA §9.7.13.4).
#[inline(always)]
pub fn fence_block() {
    // SAFETY: a fence has no precondition.
    unsafe { asm!("membar.cta;", options(nostack)) }
}
/// See [`fence_block`].
#[inline(always)]
pub fn fence_device() {
    // SAFETY: a fence has no precondition.
    unsafe { asm!("membar.gl;", options(nostack)) }
}
/// See [`fence_block`].
#[inline(always)]
pub fn fence_system() {
    // SAFETY: a fence has no precondition.
    unsafe { asm!("membar.sys;", options(nostack)) }
}
/// `%clock64`: the SM's cycle counter.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u64 {}, %clock64;", out(reg64) t, options(nomem, nostack)) };
    t
}
/// `%globaltimer`: nanoseconds, shared by all SMs.
#[inline(always)]
pub fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u64 {}, %globaltimer;", out(reg64) t, options(nomem, nostack)) };
    t
}
/// `nanosleep.u32`: suspends the thread for about `ns` nanoseconds (at most 1 ms), so that a
/// thread polling memory leaves the memory system to others (PTX ISA §9.7.13.4, sm_70).
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a pause; it touches no memory.
    unsafe { asm!("nanosleep.u32 {};", in(reg32) ns, options(nomem, nostack, preserves_flags)) };
}
/// `trap`: aborts the kernel; the host sees an error at its next synchronisation.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: trap has no precondition; it never returns.
    unsafe { intr::trap() }
}

/// The base of the launch's dynamic shared memory (`extern __shared__`), aligned for `T`.
#[inline(always)]
pub fn dynamic_shared_base<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}

/// `%dynamic_smem_size`: the bytes of dynamic shared memory this launch provides.
#[inline(always)]
pub fn dynamic_shared_bytes() -> usize {
    let bytes: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {}, %dynamic_smem_size;", out(reg32) bytes, options(nomem, nostack, pure)) };
    bytes as usize
}

/// The 32-bit shared-window address (`.shared` state space) of `address`, a generic address
/// inside this launch's dynamic shared memory, for instructions that take one (`cp.async`,
/// `ldmatrix`). Only the base is converted (`cvta.to.shared`, once per kernel: a pure
/// instruction LLVM hoists); the offset from it is 32-bit integer arithmetic, where converting
/// each address costs 64-bit adds of the window's high half.
#[inline(always)]
pub(crate) fn shared_window_address(address: *const u8) -> u32 {
    let base = dynamic_shared_base::<u8>();
    let window: u32;
    // SAFETY: a register-only conversion of the base of dynamic shared memory.
    unsafe {
        asm!(
            "{{ .reg .u64 %w; cvta.to.shared.u64 %w, {b}; cvt.u32.u64 {o}, %w; }}",
            b = in(reg64) base as u64, o = out(reg32) window, options(pure, nomem, nostack, preserves_flags)
        )
    };
    window.wrapping_add((address as usize).wrapping_sub(base as usize) as u32)
}

/// `shfl.sync.{up,down,bfly,idx}.b32` (PTX ISA §9.7.9.6).
macro_rules! shfl {
    ($name:ident, $mode:literal) => {
        #[doc = concat!("`shfl.sync.", $mode, ".b32`.")]
        ///
        /// # Safety
        /// Every lane named in `mask` executes this same instruction, with the same `mask`.
        #[inline(always)]
        pub unsafe fn $name(mask: u32, value: u32, lane_or_delta: u32, clamp: u32) -> u32 {
            let out: u32;
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(
                    concat!("shfl.sync.", $mode, ".b32 {}, {}, {}, {}, {};"),
                    out(reg32) out, in(reg32) value, in(reg32) lane_or_delta, in(reg32) clamp,
                    in(reg32) mask, options(nostack, nomem)
                )
            };
            out
        }
    };
}
shfl!(shfl_up_b32, "up");
shfl!(shfl_down_b32, "down");
shfl!(shfl_bfly_b32, "bfly");
shfl!(shfl_idx_b32, "idx");

/// `vote.sync.ballot.b32` (PTX ISA §9.7.13.6).
///
/// # Safety
/// Every lane named in `mask` executes this same instruction, with the same `mask`.
#[inline(always)]
pub unsafe fn vote_ballot(mask: u32, predicate: bool) -> u32 {
    let out: u32;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {pred}, 0; vote.sync.ballot.b32 {out}, p, {mask}; }}",
            out = out(reg32) out, pred = in(reg32) predicate as u32, mask = in(reg32) mask,
            options(nostack, nomem)
        )
    };
    out
}
/// `bar.warp.sync` (PTX ISA §9.7.13.3): waits for the lanes of `mask` and orders their memory
/// accesses among them.
///
/// # Safety
/// Every lane named in `mask` executes a `bar.warp.sync` with this mask.
#[inline(always)]
pub unsafe fn bar_warp_sync(mask: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("bar.warp.sync {};", in(reg32) mask, options(nostack)) }
}
/// `activemask.b32` (PTX ISA §9.7.13.8).
#[inline(always)]
pub fn active_mask() -> u32 {
    let out: u32;
    // SAFETY: no precondition.
    unsafe { asm!("activemask.b32 {};", out(reg32) out, options(nostack, nomem)) };
    out
}

/// `ld.global` / `st.global` of one scalar (PTX ISA §9.7.9.8, §9.7.9.10).
///
/// rustc hands pointers read from a by-value argument struct to LLVM as generic pointers, so
/// plain dereferences become generic `ld`/`st`, which pay an address-space check each. These
/// name the global space, as nvcc does for the same kernel.
macro_rules! global_access {
    ($load:ident, $store:ident, $t:ty, $ptx:literal, $reg:ident) => {
        #[doc = concat!("`ld.global.", $ptx, "`.")]
        ///
        /// # Safety
        /// `address` is a global-memory address valid for reads, aligned for the type.
        #[inline(always)]
        pub unsafe fn $load(address: *const $t) -> $t {
            let value: $t;
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(concat!("ld.global.", $ptx, " {}, [{}];"), out($reg) value, in(reg64) address,
                    options(pure, readonly, nostack, preserves_flags))
            };
            value
        }
        #[doc = concat!("`st.global.", $ptx, "`.")]
        ///
        /// # Safety
        /// `address` is a global-memory address valid for writes, aligned for the type.
        #[inline(always)]
        pub unsafe fn $store(address: *mut $t, value: $t) {
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(concat!("st.global.", $ptx, " [{}], {};"), in(reg64) address, in($reg) value,
                    options(nostack, preserves_flags))
            };
        }
    };
}
global_access!(ld_global_u16, st_global_u16, u16, "u16", reg16);
global_access!(ld_global_b32, st_global_b32, u32, "b32", reg32);
global_access!(ld_global_f32, st_global_f32, f32, "f32", reg32);
global_access!(ld_global_b64, st_global_b64, u64, "b64", reg64);
global_access!(ld_global_f64, st_global_f64, f64, "f64", reg64);

macro_rules! global_nc_load {
    ($load:ident, $t:ty, $ptx:literal, $reg:ident) => {
        #[doc = concat!("`ld.global.nc.", $ptx, "`: a load through the read-only (non-coherent) data")]
        /// path, CUDA C's `__ldg` and the book's texture fetches on today's GPUs, where texture and
        /// L1 are one cache (PTX ISA §9.7.9.8, `.nc`).
        ///
        /// # Safety
        /// `address` is a global-memory address valid for reads, aligned for the type. A store to
        /// it during the same launch may not be seen (the path is not coherent with the launch's
        /// stores): the value read is then the old or the new one.
        #[inline(always)]
        pub unsafe fn $load(address: *const $t) -> $t {
            let value: $t;
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(concat!("ld.global.nc.", $ptx, " {}, [{}];"), out($reg) value, in(reg64) address,
                    options(pure, readonly, nostack, preserves_flags))
            };
            value
        }
    };
}
global_nc_load!(ld_global_nc_b32, u32, "b32", reg32);
global_nc_load!(ld_global_nc_b64, u64, "b64", reg64);

macro_rules! global_cg_load {
    ($load:ident, $t:ty, $ptx:literal, $reg:ident) => {
        #[doc = concat!("`ld.global.cg.", $ptx, "`: a load cached in L2 only, not in L1 (PTX ISA")]
        /// §9.7.9.8, cache operators): CUDA C's `__ldcg`, nvcc's `-dlcm=cg` for one load.
        ///
        /// # Safety
        /// `address` is a global-memory address valid for reads, aligned for the type.
        #[inline(always)]
        pub unsafe fn $load(address: *const $t) -> $t {
            let value: $t;
            // SAFETY: forwarded to the caller. Not `pure`: the load is coherent with stores.
            unsafe {
                asm!(concat!("ld.global.cg.", $ptx, " {}, [{}];"), out($reg) value, in(reg64) address,
                    options(readonly, nostack, preserves_flags))
            };
            value
        }
    };
}
global_cg_load!(ld_global_cg_b32, u32, "b32", reg32);
global_cg_load!(ld_global_cg_b64, u64, "b64", reg64);

/// `ld.volatile.global.b32`: a load the compiler neither removes nor serves from L1, for data
/// another block writes under a lock (PTX ISA §9.7.9.8: volatile = relaxed, system scope).
///
/// # Safety
/// `address` is a global-memory address valid for reads, 4-byte aligned.
#[inline(always)]
pub unsafe fn ld_volatile_global_b32(address: *const u32) -> u32 {
    let value: u32;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.volatile.global.b32 {}, [{}];", out(reg32) value, in(reg64) address,
            options(nostack, preserves_flags))
    };
    value
}
/// `st.volatile.global.b32`, the store counterpart of [`ld_volatile_global_b32`].
///
/// # Safety
/// `address` is a global-memory address valid for writes, 4-byte aligned.
#[inline(always)]
pub unsafe fn st_volatile_global_b32(address: *mut u32, value: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.volatile.global.b32 [{}], {};", in(reg64) address, in(reg32) value,
            options(nostack, preserves_flags))
    };
}

/// `ld.volatile.global.b64`: [`ld_volatile_global_b32`] for 8 bytes, one single-copy-atomic
/// access (PTX ISA §8.2.3: an aligned access of up to 64 bits is morally strong), so a word that
/// packs a flag beside a value is seen whole or not at all.
///
/// # Safety
/// `address` is a global-memory address valid for reads, 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_volatile_global_b64(address: *const u64) -> u64 {
    let value: u64;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.volatile.global.b64 {}, [{}];", out(reg64) value, in(reg64) address,
            options(nostack, preserves_flags))
    };
    value
}
/// `st.volatile.global.b64`, the store counterpart of [`ld_volatile_global_b64`].
///
/// # Safety
/// `address` is a global-memory address valid for writes, 8-byte aligned.
#[inline(always)]
pub unsafe fn st_volatile_global_b64(address: *mut u64, value: u64) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.volatile.global.b64 [{}], {};", in(reg64) address, in(reg64) value,
            options(nostack, preserves_flags))
    };
}

/// `ld.global.v4.b32`: 16 bytes in one access.
///
/// # Safety
/// `address` is a global-memory address valid for 16 bytes of reads, 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v4_b32(address: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.v4.b32 {{{}, {}, {}, {}}}, [{}];", out(reg32) a, out(reg32) b, out(reg32) c,
            out(reg32) d, in(reg64) address, options(pure, readonly, nostack, preserves_flags))
    };
    [a, b, c, d]
}
/// `st.global.v4.b32`: 16 bytes in one access.
///
/// # Safety
/// `address` is a global-memory address valid for 16 bytes of writes, 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v4_b32(address: *mut u32, v: [u32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.global.v4.b32 [{}], {{{}, {}, {}, {}}};", in(reg64) address, in(reg32) v[0], in(reg32) v[1],
            in(reg32) v[2], in(reg32) v[3], options(nostack, preserves_flags))
    };
}
/// `ld.global.v2.b64`: 16 bytes in one access.
///
/// # Safety
/// `address` is a global-memory address valid for 16 bytes of reads, 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v2_b64(address: *const u64) -> [u64; 2] {
    let (a, b): (u64, u64);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.v2.b64 {{{}, {}}}, [{}];", out(reg64) a, out(reg64) b, in(reg64) address,
            options(pure, readonly, nostack, preserves_flags))
    };
    [a, b]
}
/// `st.global.v2.b64`: 16 bytes in one access.
///
/// # Safety
/// `address` is a global-memory address valid for 16 bytes of writes, 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v2_b64(address: *mut u64, v: [u64; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.global.v2.b64 [{}], {{{}, {}}};", in(reg64) address, in(reg64) v[0], in(reg64) v[1],
            options(nostack, preserves_flags))
    };
}

/// The bound test of an `_unchecked` view access: none on the GPU, where the caller's contract
/// stands in for it (the simulator makes it).
#[inline(always)]
pub fn check_unchecked_index(_i: usize, _len: usize) {}

/// `ld.global.u8` (into a 16-bit register, as PTX requires).
///
/// # Safety
/// `address` is a global-memory address valid for reads.
#[inline(always)]
pub unsafe fn ld_global_u8(address: *const u8) -> u8 {
    let value: u16;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.u8 {}, [{}];", out(reg16) value, in(reg64) address, options(pure, readonly, nostack, preserves_flags))
    };
    value as u8
}
/// `st.global.u8` (from a 16-bit register).
///
/// # Safety
/// `address` is a global-memory address valid for writes.
#[inline(always)]
pub unsafe fn st_global_u8(address: *mut u8, value: u8) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.global.u8 [{}], {};", in(reg64) address, in(reg16) value as u16, options(nostack, preserves_flags))
    };
}

/// Reads shared memory (the address comes from `dynamic_shared_base`, so LLVM emits `ld.shared`).
///
/// # Safety
/// `address` lies in this launch's dynamic shared memory, aligned for `T`.
#[inline(always)]
pub unsafe fn shared_load<T: Copy>(address: *const T) -> T {
    // SAFETY: forwarded to the caller.
    unsafe { address.read() }
}
/// Writes shared memory (`st.shared`).
///
/// # Safety
/// `address` lies in this launch's dynamic shared memory, aligned for `T`.
#[inline(always)]
pub unsafe fn shared_store<T: Copy>(address: *mut T, value: T) {
    // SAFETY: forwarded to the caller.
    unsafe { address.write(value) }
}
/// Declares an atomic read-modify-write of `bytes` bytes of shared memory at `address`: nothing
/// on the GPU; the simulator checks it.
#[inline(always)]
pub fn shared_atomic_access(_address: *const u8, _bytes: usize) {}

// The constant bank: one `__constant__` array for the whole module, declared in PTX because
// Rust cannot place a static in the `.const` state space (a `#[link_section]` static stays in
// `.global`; see ch3-constant-increment). `.visible`, so the host finds it with
// `cuModuleGetGlobal`. Its size is `CONSTANT_BANK_BYTES` in `device/constant.rs`.
core::arch::global_asm!(
    ".visible .const .align 16 .b8 ferrocuda_constant_bank[{bytes}];",
    bytes = const crate::constant::CONSTANT_BANK_BYTES
);

/// `ld.const.b32` of the constant bank's 4-byte word at `byte_offset` (PTX ISA §9.7.9.8, state
/// space §5.1.3): a read every lane of a warp makes at one address is one broadcast from the
/// constant cache.
///
/// # Safety
/// `byte_offset + 4 <= CONSTANT_BANK_BYTES`, and a multiple of 4.
#[inline(always)]
pub unsafe fn ld_const_b32(byte_offset: usize) -> u32 {
    let value: u32;
    // SAFETY: forwarded to the caller; the bank is never written while a kernel runs.
    unsafe {
        asm!(
            "{{ .reg .u64 %bank; mov.u64 %bank, ferrocuda_constant_bank; add.u64 %bank, %bank, {off}; ld.const.b32 {v}, [%bank]; }}",
            off = in(reg64) byte_offset as u64, v = out(reg32) value,
            options(pure, readonly, nostack, preserves_flags)
        )
    };
    value
}

/// `cvt.rzi.u32.f32` (PTX ISA §9.7.9.21): toward zero, saturated, NaN to 0.
#[inline(always)]
pub fn cvt_rzi_u32_f32(x: f32) -> u32 {
    let out: u32;
    // SAFETY: pure arithmetic.
    unsafe { asm!("cvt.rzi.u32.f32 {}, {};", out(reg32) out, in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `dp4a.u32.u32` (PTX ISA, integer arithmetic instructions): `c` plus the dot product of the
/// bytes of `a` and `b`.
#[inline(always)]
pub fn dp4a_u32(a: u32, b: u32, c: u32) -> u32 {
    let out: u32;
    // SAFETY: pure arithmetic.
    unsafe {
        asm!("dp4a.u32.u32 {}, {}, {}, {};", out(reg32) out, in(reg32) a, in(reg32) b, in(reg32) c, options(pure, nomem, nostack))
    };
    out
}

/// `prmt.b32` in its default mode (PTX ISA, data movement instructions): four bytes picked
/// from the eight of `b:a` by the nibbles of `c`.
#[inline(always)]
pub fn prmt_b32(a: u32, b: u32, c: u32) -> u32 {
    let out: u32;
    // SAFETY: pure arithmetic.
    unsafe {
        asm!("prmt.b32 {}, {}, {}, {};", out(reg32) out, in(reg32) a, in(reg32) b, in(reg32) c, options(pure, nomem, nostack))
    };
    out
}

/// `ld.const.b64` of the constant bank's 8 bytes at `byte_offset` (an `f64` or `u64`; PTX ISA
/// §9.7.9.8): as [`ld_const_b32`], one broadcast when every lane reads the same address.
///
/// # Safety
/// `byte_offset + 8 <= CONSTANT_BANK_BYTES`, and a multiple of 8.
#[inline(always)]
pub unsafe fn ld_const_b64(byte_offset: usize) -> u64 {
    let value: u64;
    // SAFETY: forwarded to the caller; the bank is never written while a kernel runs.
    unsafe {
        asm!(
            "{{ .reg .u64 %bank; mov.u64 %bank, ferrocuda_constant_bank; add.u64 %bank, %bank, {off}; ld.const.b64 {v}, [%bank]; }}",
            off = in(reg64) byte_offset as u64, v = out(reg64) value,
            options(pure, readonly, nostack, preserves_flags)
        )
    };
    value
}

unsafe extern "C" {
    /// CUDA's device-side `printf` system call (`printf` in CUDA C compiles to it): `format` and
    /// the argument buffer `args` (each argument at its natural alignment) are generic addresses.
    /// Declared here, it is an `.extern .func` of the PTX that the driver resolves at load
    /// (PTX ISA §7.2, "System Calls").
    fn vprintf(format: *const u8, args: *const u8) -> i32;
}

/// Prints one NUL-terminated line through `vprintf("%s", line)`.
#[inline(always)]
pub fn print_line(line_with_nul: &[u8]) {
    // `%s` takes one pointer; the buffer holds it at its natural (8-byte) alignment.
    let args: [*const u8; 1] = [line_with_nul.as_ptr()];
    if line_with_nul.last() == Some(&0) {
        // SAFETY: the format is a NUL-terminated literal, `args` holds the one pointer its `%s`
        // reads, and that pointer is a NUL-terminated string (tested above); both outlive the
        // call, which copies them into the driver's printf buffer before it returns.
        unsafe { vprintf(c"%s".as_ptr().cast(), args.as_ptr().cast()) };
    }
}
