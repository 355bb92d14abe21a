//! Local memory (book §3.2.4.1, module `localmem`): a thread-private array stays in registers
//! while every index into it is a compile-time constant (the book's `k1`), and moves to local
//! memory, per-thread slices of device memory cached in L1, as soon as one index is known only at
//! run time (`k2`: `b(j) = 1.0; a(i) = b(k)`). ptxas reports the array as a stack frame, and the
//! PTX holds a `.local` depot with `st.local`/`ld.local`. A private array too large for registers
//! (`k3`, 1024 bytes, kept whole by volatile accesses) lives there as well.
use ferrocuda_device::prelude::*;

/// Elements of the thread-private array (128 bytes of f32).
pub const PRIVATE_LEN: usize = 32;

/// Arguments of [`localmem_registers`] and [`localmem_dynamic`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct LocalmemArgs<'a> {
    /// Output: one sum per element of `x`.
    pub a: SliceMut<'a, f32>,
    /// Input.
    pub x: Slice<'a, f32>,
    /// The index walk's multiplier: [`localmem_dynamic`] reads it at run time, so it cannot
    /// resolve its indices at compile time; [`localmem_registers`] ignores it and uses
    /// [`STRIDE`], the value the host passes, as a constant.
    pub stride: u32,
}

/// The multiplier of the index walk `j -> (j * STRIDE + 3) mod 32`, which visits all 32 slots.
pub const STRIDE: u32 = 5;

/// The slots both kernels fill: `t[k] = x + k`.
#[inline(always)]
fn fill(x: f32) -> [f32; PRIVATE_LEN] {
    let mut t = [0.0f32; PRIVATE_LEN];
    for (k, slot) in t.iter_mut().enumerate() {
        *slot = x + k as f32;
    }
    t
}

/// `a[i] = sum over 32 steps of t[j]`, `j` walking `(j * STRIDE + 3) mod 32` from 0, with the
/// walk's multiplier a constant: after unrolling every index is known, so `t` is 32 registers.
#[kernel]
pub fn localmem_registers(args: LocalmemArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let t = fill(args.x.get(i));
        let (mut j, mut sum) = (0u32, 0.0f32);
        for _ in 0..PRIVATE_LEN {
            j = (j * STRIDE + 3) % PRIVATE_LEN as u32;
            sum += t[j as usize];
        }
        args.a.set(i, sum);
    }
}

/// [`localmem_registers`] with the multiplier read from the arguments: the indices exist only at
/// run time, registers cannot be indexed, so `t` lives in local memory (a 128-byte stack frame).
#[kernel]
pub fn localmem_dynamic(args: LocalmemArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let t = fill(args.x.get(i));
        let (mut j, mut sum) = (0u32, 0.0f32);
        for _ in 0..PRIVATE_LEN {
            j = (j.wrapping_mul(args.stride).wrapping_add(3)) % PRIVATE_LEN as u32;
            sum += t[j as usize];
        }
        args.a.set(i, sum);
    }
}

/// Elements of [`localmem_large_array`]'s private array: the book's `k3`, `real b(256)`,
/// 1024 bytes per thread.
pub const LARGE_LEN: usize = 256;

/// The element [`localmem_large_array`] reads: 1, the book's `b(2)`, passed at run time.
pub const LARGE_READ_INDEX: u32 = 1;

/// Arguments of [`localmem_large_array`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct LocalmemLargeArgs<'a> {
    /// Output: `b[index]` per thread, 1.0.
    pub a: SliceMut<'a, f32>,
    /// The element read, [`LARGE_READ_INDEX`]: known only at run time.
    pub index: u32,
}

/// The book's `k3`: `real b(256); b = 1.0; a(i) = b(2)`, a 1024-byte private array, too large
/// for registers, in local memory (ptxas: a 1024-byte stack frame).
///
/// Two things keep the array whole, as the book's compiler did. The 256 stores are volatile:
/// written plainly, LLVM sees every element is 1.0 and may drop the array. And the element read
/// is an argument, not the constant 1: LLVM drops `volatile` from stores to thread-private local
/// memory, and ptxas, given `b(2)` at a constant offset, forwards the stored value and deletes
/// the array (a 0-byte frame); a run-time index is an address it cannot resolve.
#[kernel]
pub fn localmem_large_array(args: LocalmemLargeArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        let mut b = [0.0f32; LARGE_LEN];
        for slot in b.iter_mut() {
            // SAFETY: `slot` is a valid, aligned, exclusive reference into `b`.
            unsafe { core::ptr::write_volatile(slot, 1.0) };
        }
        args.a.set(i, b.get(args.index as usize).copied().unwrap_or(f32::NAN));
    }
}
