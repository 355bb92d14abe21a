//! Local memory (book §3.2.4.1, module `localmem`): a thread-private array stays in registers
//! while every index into it is a compile-time constant (the book's `k1`), and moves to local
//! memory, per-thread slices of device memory cached in L1, as soon as one index is known only at
//! run time (`k2`: `b(j) = 1.0; a(i) = b(k)`). ptxas reports the array as a stack frame, and the
//! PTX holds a `.local` depot with `st.local`/`ld.local`.
use ferrocuda_device::prelude::*;

/// Elements of the thread-private array (128 bytes of f32).
pub const PRIVATE_LEN: usize = 32;

/// Arguments of [`localmem_registers`] and [`localmem_dynamic`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct LocalmemArgs {
    /// Output: one sum per element of `x`.
    pub a: SliceMut<f32>,
    /// Input.
    pub x: Slice<f32>,
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
pub fn localmem_registers(args: LocalmemArgs) {
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
pub fn localmem_dynamic(args: LocalmemArgs) {
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
