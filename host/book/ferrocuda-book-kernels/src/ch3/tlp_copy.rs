//! The copy of the book's thread-level-parallelism study (§3.5.1 and Appendix D.3, program
//! `parallelism`, kernel `copy`): one element per thread, so the bytes in flight per SM are the
//! resident threads times one load, and bandwidth follows occupancy.
use ferrocuda_device::prelude::*;

/// Arguments of [`tlp_copy`] and [`ilp_copy`](super::ilp_copy::ilp_copy): `output = input`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(input, output))]
pub struct CopyArgs<'a, T> {
    /// Input.
    pub input: Slice<'a, T>,
    /// Output, as long as `input`.
    pub output: SliceMut<'a, T>,
}

impl<T> CopyArgs<'_, T> {
    /// The elements copied: the shorter view's length (one test instead of one per view).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.output.len().min(self.input.len())
    }

    /// True when there is nothing to copy.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `output[i] = input[i]` (the book's `copy(odata, idata)`).
#[kernel(f32, f64)]
pub fn tlp_copy<T: Real>(args: CopyArgs<'_, T>) {
    let i = global_idx_x();
    if i < args.len() {
        let tmp = args.input.get(i);
        args.output.set(i, tmp);
    }
}
