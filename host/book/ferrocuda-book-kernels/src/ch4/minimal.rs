//! Assign a value to every element of an array, one block (book §4.1, `program minimal`,
//! module `kernel`, `assign(a, v)`).
use ferrocuda_device::prelude::*;

/// Arguments of [`assign`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct AssignArgs<'a> {
    /// The array, written.
    pub a: SliceMut<'a, f32>,
    /// The value, passed by value (the book's `value` attribute).
    pub v: f32,
}

/// `a(threadIdx%x) = v`, launched as one block of `a.len()` threads.
///
/// As in the book there is no bounds test: thread `i` writes element `i` (a checked store: a
/// launch with more threads than elements traps at the first thread past the end).
#[kernel]
pub fn assign(args: AssignArgs<'_>) {
    args.a.set(thread_idx_x(), args.v);
}
