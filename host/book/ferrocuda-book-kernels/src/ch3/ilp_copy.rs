//! The copy with instruction-level parallelism (book §3.5.2 and Appendix D.3, kernel
//! `copy_ILP`): each thread issues [`ILP`] independent loads into registers before its first
//! store, so one thread keeps `ILP` loads in flight and low occupancy still fills the memory
//! pipeline.
use super::tlp_copy::CopyArgs;
use ferrocuda_device::prelude::*;

/// Loads in flight per thread: the book's `ILP = 4`.
pub const ILP: usize = 4;

/// `output = input`: block `b` copies elements `b * blockDim * ILP ..` in [`ILP`] block-wide
/// rows, thread `t` elements `t, t + blockDim, t + 2 blockDim, t + 3 blockDim` of them (each
/// row coalesced). Launch `ceil(n / (threads * ILP))` blocks.
///
/// All loads come first, then all stores (the book's batching into `tmp(ILP)`): a store cannot
/// move above a load of possibly the same memory, so the order in the source is the order issued.
#[kernel(f32, f64)]
pub fn ilp_copy<T: Real>(args: CopyArgs<'_, T>) {
    let threads = block_dim().x;
    let first = block_idx().x * threads * ILP + thread_idx_x();
    let n = args.len();
    let mut tmp = [T::default(); ILP];
    if first + (ILP - 1) * threads < n {
        // A full tile: no per-element test.
        for (j, t) in tmp.iter_mut().enumerate() {
            *t = args.input.get(first + j * threads);
        }
        for (j, t) in tmp.iter().enumerate() {
            args.output.set(first + j * threads, *t);
        }
    } else {
        // The last, partial tile.
        for (j, t) in tmp.iter_mut().enumerate() {
            let i = first + j * threads;
            if i < n {
                *t = args.input.get(i);
            }
        }
        for (j, t) in tmp.iter().enumerate() {
            let i = first + j * threads;
            if i < n {
                args.output.set(i, *t);
            }
        }
    }
}
