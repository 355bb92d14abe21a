//! A probe of every atomic operation on every type it takes, at each scope, on global memory and
//! on a shared tile. Its test is `device_atomic_ops_every_type_and_scope` in
//! `host/ferrocuda/tests/device.rs`.
use ferrocuda_device::atomic::{AtomicRef, Scope};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Slots per scope in each output: add, sub, min, max, and, or, xor, exch, cas-increment.
pub const ATOMIC_OPS: usize = 9;
/// The scopes, in the order of the outputs' groups of [`ATOMIC_OPS`] slots.
pub const SCOPES: [Scope; 3] = [Scope::Block, Scope::Device, Scope::System];

/// Arguments of [`probe_atomic_ops`]: `3 * ATOMIC_OPS` slots of each integer type (the host
/// presets them), `3 * 4` of each float type (add, sub, exch, cas-increment), and one count per
/// block from the shared tile.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AtomicOpsArgs<'a> {
    pub i32s: SliceMut<'a, i32>,
    pub u32s: SliceMut<'a, u32>,
    pub i64s: SliceMut<'a, i64>,
    pub u64s: SliceMut<'a, u64>,
    pub f32s: SliceMut<'a, f32>,
    pub f64s: SliceMut<'a, f64>,
    pub block_counts: SliceMut<'a, u32>,
}

/// Dynamic shared memory of [`probe_atomic_ops`], bytes.
pub const ATOMIC_OPS_SHARED_BYTES: usize = Tile1d::<u32>::bytes(1);

/// The element at `i` with `scope`.
#[inline(always)]
fn at<'v, T: Element>(view: &'v SliceMut<'_, T>, i: usize, scope: Scope) -> AtomicRef<'v, T> {
    view.atomic(i).with_scope(scope)
}

macro_rules! integer_ops {
    ($view:expr, $t:ty, $g:expr, $group:expr, $scope:expr) => {{
        let (g, base, scope) = ($g, $group * ATOMIC_OPS, $scope);
        let bit = 1 as $t << (g % 32);
        at(&$view, base, scope).add(g as $t);
        at(&$view, base + 1, scope).sub(1);
        at(&$view, base + 2, scope).min(g as $t);
        at(&$view, base + 3, scope).max(g as $t);
        at(&$view, base + 4, scope).and(!bit);
        at(&$view, base + 5, scope).or(bit);
        at(&$view, base + 6, scope).xor(g as $t);
        at(&$view, base + 7, scope).exch(g as $t);
        let slot = at(&$view, base + 8, scope);
        let mut old = slot.cas(0, 0);
        loop {
            let seen = slot.cas(old, old + 1);
            if seen == old {
                break;
            }
            old = seen;
        }
    }};
}

macro_rules! float_ops {
    ($view:expr, $t:ty, $g:expr, $group:expr, $scope:expr) => {{
        let (g, base, scope) = ($g, $group * 4, $scope);
        at(&$view, base, scope).add(1.0);
        at(&$view, base + 1, scope).sub(0.5);
        at(&$view, base + 2, scope).exch(g as $t);
        let slot = at(&$view, base + 3, scope);
        let mut old = slot.cas(0.0, 0.0);
        loop {
            let seen = slot.cas(old, old + 1.0);
            if seen.to_bits() == old.to_bits() {
                break;
            }
            old = seen;
        }
    }};
}

/// Every operation on every type at `scope`, into the outputs' group `group`.
#[inline(always)]
fn ops_at_scope(args: &AtomicOpsArgs<'_>, g: usize, group: usize, scope: Scope) {
    integer_ops!(args.i32s, i32, g, group, scope);
    integer_ops!(args.u32s, u32, g, group, scope);
    integer_ops!(args.i64s, i64, g, group, scope);
    integer_ops!(args.u64s, u64, g, group, scope);
    float_ops!(args.f32s, f32, g, group, scope);
    float_ops!(args.f64s, f64, g, group, scope);
}

/// Every thread applies every operation at every scope, so each slot's final value is known
/// (but `exch`'s, which is one thread's value); then each block counts its threads on a shared
/// tile at block scope and writes the count.
#[kernel]
pub fn probe_atomic_ops(args: AtomicOpsArgs<'_>) {
    let g = global_idx_x();
    // One call per scope (a loop over `SCOPES` would keep the array in local memory).
    ops_at_scope(&args, g, 0, SCOPES[0]);
    ops_at_scope(&args, g, 1, SCOPES[1]);
    ops_at_scope(&args, g, 2, SCOPES[2]);
    // SAFETY: the launch provides ATOMIC_OPS_SHARED_BYTES, this tile alone.
    let count = unsafe { Tile1d::<u32>::dynamic(1) };
    if thread_idx_x() == 0 {
        count.set(0, 0);
    }
    sync_threads();
    count.atomic(0).block().add(1);
    sync_threads();
    if thread_idx_x() == 0 {
        args.block_counts.set(block_idx().x, count.get(0));
    }
}
