//! Fast Fourier transforms of powers of two (the kernels of `ferrocuda::fft`, book §7).
//!
//! [`fft_rows`] transforms a batch of rows of `n <= MAX_BLOCK_N` complex elements, each row in
//! one block's shared memory: a Stockham autosort (Govindaraju et al., "High Performance Discrete
//! Fourier Transforms on Graphics Processors", SC 2008) of radix-8 passes and at most one radix-4
//! or radix-2 pass, each thread holding eight elements in registers. Where the rows are is a
//! [`RowLayout`] on each side, so the same kernel transforms contiguous rows, the columns of a
//! 2-D or 3-D array, and both steps of the four-step algorithm for rows longer than a block holds
//! (Bailey, "FFTs in external or hierarchical memory", 1990). [`real`] turns a complex transform
//! of `n / 2` into a real one of `n` (R2C) and back (C2R).
//!
//! Conventions are cuFFT's: forward is `X[k] = sum x[j] exp(-2 pi i j k / n)`, inverse the `+`
//! sign, neither normalised. The kernels compute the forward transform; the inverse is
//! `conj(F(conj(x)))`, a sign flip on load and on store.
pub mod block;
pub mod real;

pub use block::*;
pub use real::*;

/// The longest row one block transforms in shared memory. Longer rows take the four-step path.
pub const MAX_BLOCK_N: u32 = 4096;
/// Elements each thread holds in registers: the radix-8 butterfly's.
pub const ELEMENTS_PER_THREAD: u32 = 8;

/// The shared-memory slot of element `i` of a row: one pad element every 32, so the strided
/// stores of the first passes (stride 8, 64 in elements) fall in different banks.
#[inline(always)]
pub const fn padded_index(i: usize) -> usize {
    i + (i >> 5)
}

/// Shared-memory elements one row of `n` takes (the last slot is `padded_index(n - 1)`).
pub const fn row_pitch(n: usize) -> usize {
    n + (n >> 5)
}

/// Where a batch's rows are in a buffer: element `i` of row `g` is at
/// `(g / inner_rows) * outer_stride + (g % inner_rows) * inner_stride + i * element_stride`.
///
/// Contiguous rows of `n` are `inner_rows = 1, outer_stride = n, element_stride = 1`; the columns
/// of an `ny x nx` row-major array `inner_rows = nx, inner_stride = 1, outer_stride = nx * ny,
/// element_stride = nx` (the outer level numbers the arrays of a batch).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLayout {
    /// Rows in one group of the inner level (at least 1).
    pub inner_rows: u32,
    /// 1 when neighbouring rows are neighbours in memory (columns): the lanes of a warp then
    /// load and store along rows, so their accesses coalesce; 0 when lanes go along a row.
    pub lanes_along_rows: u32,
    /// Elements between two rows of one group.
    pub inner_stride: usize,
    /// Elements between two groups.
    pub outer_stride: usize,
    /// Elements between two elements of one row.
    pub element_stride: usize,
}

// SAFETY: a `#[repr(C)]` struct of numbers: plain data a kernel may take.
unsafe impl ferrocuda_device::launch::DeviceCopy for RowLayout {}

impl RowLayout {
    /// `rows` rows of `n` elements, `distance` elements apart, each contiguous.
    pub const fn contiguous(distance: usize) -> Self {
        Self {
            inner_rows: 1,
            lanes_along_rows: 0,
            inner_stride: 0,
            outer_stride: distance,
            element_stride: 1,
        }
    }

    /// The offset of element 0 of row `g`.
    #[inline(always)]
    pub fn row_offset(&self, g: u32) -> usize {
        // `max(1)`: a zero (never built by the host) cannot link a division-by-zero panic.
        let inner_rows = self.inner_rows.max(1);
        // Contiguous rows (the batched 1-D case): no 32-bit division (~20 instructions) per
        // element; the branch is uniform across the launch.
        if inner_rows == 1 {
            return g as usize * self.outer_stride;
        }
        (g / inner_rows) as usize * self.outer_stride + (g % inner_rows) as usize * self.inner_stride
    }

    /// One past the largest offset `rows` rows of `n` elements reach (0 for no row), or `None`
    /// when it overflows: what a buffer must hold.
    pub fn extent(&self, rows: u32, n: u32) -> Option<usize> {
        if rows == 0 || n == 0 || self.inner_rows == 0 {
            return Some(0);
        }
        let groups = rows.div_ceil(self.inner_rows) as usize;
        let inner = rows.min(self.inner_rows) as usize;
        let last_group = (groups - 1).checked_mul(self.outer_stride)?;
        let last_row = (inner - 1).checked_mul(self.inner_stride)?;
        let last_element = (n as usize - 1).checked_mul(self.element_stride)?;
        last_group
            .checked_add(last_row)?
            .checked_add(last_element)?
            .checked_add(1)
    }
}
