//! Thread, block and grid coordinates (CUDA C's built-in variables), 0-based as in CUDA C.
//!
//! The book's Fortran is 1-based: its `blockDim%x*(blockIdx%x-1) + threadIdx%x` is
//! [`global_idx_x`] here.
use super::arch;

/// A 3-D extent or coordinate, CUDA C's `dim3`/`uint3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

impl Dim3 {
    #[inline(always)]
    fn from(v: [u32; 3]) -> Self {
        Self {
            x: v[0] as usize,
            y: v[1] as usize,
            z: v[2] as usize,
        }
    }
}

/// `threadIdx`.
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    Dim3::from(arch::thread_idx())
}
/// `blockIdx`.
#[inline(always)]
pub fn block_idx() -> Dim3 {
    Dim3::from(arch::block_idx())
}
/// `blockDim`.
#[inline(always)]
pub fn block_dim() -> Dim3 {
    Dim3::from(arch::block_dim())
}
/// `gridDim`.
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    Dim3::from(arch::grid_dim())
}
/// `threadIdx.x`.
#[inline(always)]
pub fn thread_idx_x() -> usize {
    arch::thread_idx()[0] as usize
}
/// `blockIdx.x * blockDim.x + threadIdx.x`: the global index along x.
#[inline(always)]
pub fn global_idx_x() -> usize {
    let [b, _, _] = arch::block_idx();
    let [d, _, _] = arch::block_dim();
    let [t, _, _] = arch::thread_idx();
    b as usize * d as usize + t as usize
}
/// `blockIdx.y * blockDim.y + threadIdx.y`: the global index along y.
#[inline(always)]
pub fn global_idx_y() -> usize {
    let [_, b, _] = arch::block_idx();
    let [_, d, _] = arch::block_dim();
    let [_, t, _] = arch::thread_idx();
    b as usize * d as usize + t as usize
}
/// `blockIdx.z * blockDim.z + threadIdx.z`: the global index along z.
#[inline(always)]
pub fn global_idx_z() -> usize {
    let [_, _, b] = arch::block_idx();
    let [_, _, d] = arch::block_dim();
    let [_, _, t] = arch::thread_idx();
    b as usize * d as usize + t as usize
}
/// The global (x, y, z) index of the calling thread.
#[inline(always)]
pub fn global_idx() -> Dim3 {
    Dim3 {
        x: global_idx_x(),
        y: global_idx_y(),
        z: global_idx_z(),
    }
}
/// The index of the calling thread in its block, flattened x-fastest (`threadIdx.x +
/// blockDim.x*(threadIdx.y + blockDim.y*threadIdx.z)`).
#[inline(always)]
pub fn thread_rank_in_block() -> usize {
    let t = thread_idx();
    let d = block_dim();
    t.x + d.x * (t.y + d.y * t.z)
}
/// `gridDim.x * blockDim.x`: threads in the grid along x, the stride of a grid-stride loop.
#[inline(always)]
pub fn grid_size_x() -> usize {
    arch::grid_dim()[0] as usize * arch::block_dim()[0] as usize
}

/// The indices `global_idx_x(), + grid_size_x(), ...` below `n`: a grid-stride loop, which lets
/// any grid cover any `n` (one launch sized from the SM count, not from `n`).
#[inline(always)]
pub fn grid_stride_range(n: usize) -> core::iter::StepBy<core::ops::Range<usize>> {
    (global_idx_x()..n).step_by(grid_size_x())
}

/// `gridDim.y * blockDim.y`: threads in the grid along y, the stride along y of a 2-D
/// grid-stride loop.
#[inline(always)]
pub fn grid_size_y() -> usize {
    arch::grid_dim()[1] as usize * arch::block_dim()[1] as usize
}

/// The `(i, j)` of an `nx x ny` range this thread owns in a 2-D grid-stride loop: `i` from
/// [`global_idx_x`] by [`grid_size_x`] below `nx`, `j` from [`global_idx_y`] by [`grid_size_y`]
/// below `ny`, `i` fastest (the order of CUF's `!$cuf kernel do (2)`, whose inner loop runs along
/// `threadIdx%x`). Any 2-D grid covers any range: a grid covering it gives each thread at most one
/// pair, a smaller one several.
///
/// Call from: any thread of a launch with a 2-D grid (a 1-D grid walks every row with its own `j`
/// from 0 by 1).
#[inline(always)]
pub fn grid_stride_range_2d(nx: usize, ny: usize) -> GridStride2d {
    let (i, j) = (global_idx_x(), global_idx_y());
    GridStride2d {
        first_i: i,
        i,
        j,
        nx,
        ny,
        stride_x: grid_size_x(),
        stride_y: grid_size_y(),
    }
}

/// The iterator of [`grid_stride_range_2d`].
#[derive(Clone, Copy, Debug)]
pub struct GridStride2d {
    first_i: usize,
    i: usize,
    j: usize,
    nx: usize,
    ny: usize,
    stride_x: usize,
    stride_y: usize,
}

impl Iterator for GridStride2d {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.j >= self.ny || self.first_i >= self.nx {
            return None;
        }
        let item = (self.i, self.j);
        // Saturating: a stride past the end (or an index near `usize::MAX`) ends the row rather
        // than wrapping back into it.
        self.i = self.i.saturating_add(self.stride_x);
        if self.i >= self.nx {
            self.i = self.first_i;
            self.j = self.j.saturating_add(self.stride_y);
        }
        Some(item)
    }
}
