//! Increment with many blocks and a bounds test (book §1.3.2, `incrementTest`).
use ferrocuda_device::prelude::*;

pub use super::increment::IncrementArgs;

/// `a[i] += b` for the global index `i`, for `i < a.len()`: any grid covering `a` works.
#[kernel]
pub fn increment_multiblock(args: IncrementArgs<'_>) {
    let i = global_idx_x();
    if i < args.a.len() {
        args.a.update(i, |x| x + args.b);
    }
}
