//! Matrix multiply, SGEMM `C = A B` (IT4I course, hands-on 6 "matrix multiplication of two
//! non-square matrices", and the tiling lecture): the naive kernel, the course's shared-memory
//! tiled kernel, and a register-tiled kernel in the style of the fast SGEMMs.
//!
//! Matrices are row-major: `A` is `m x k`, `B` is `k x n`, `C` is `m x n`. Every kernel takes any
//! size: elements past an edge read as zero (the course's boundary zero-fill) and are not written.
//! Every multiply-add is an explicit `fma.rn.f32`, so the simulator rounds as the GPU does.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// Arguments of every kernel here.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct MatmulArgs<'a> {
    /// `m x k`, row-major.
    pub a: Slice<'a, f32>,
    /// `k x n`, row-major.
    pub b: Slice<'a, f32>,
    /// `m x n`, row-major; written.
    pub c: SliceMut<'a, f32>,
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

/// Naive: one thread per element of `C`, reading a row of `A` and a column of `B` from global
/// memory (2 loads per multiply-add; the course's "capped at 150 GFLOPS of 1,600").
///
/// Launch: 2-D blocks (x along columns of `C`), covering `n x m`.
#[kernel]
pub fn matmul_naive(args: MatmulArgs<'_>) {
    let (col, row) = (global_idx_x(), global_idx_y());
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    if row < m && col < n {
        let mut sum = 0.0f32;
        for p in 0..k {
            sum = math::fma(args.a.get(row * k + p), args.b.get(p * n + col), sum);
        }
        args.c.set(row * n + col, sum);
    }
}

/// The course's `TILE_WIDTH`: 16 x 16 threads per block, 16 multiply-adds per element loaded.
pub const TILE_WIDTH: usize = 16;
/// The lecture's other tile width: 32 x 32 threads per block (1024), 32 multiply-adds per element
/// loaded, 8 KB of shared memory per block.
pub const TILE_WIDTH_32: usize = 32;
/// A `W x W` shared tile.
type Tile<const W: usize> = Tile2d<f32, W, W, 0>;
/// Shared memory of [`matmul_tiled`]: one tile of `A`, one of `B`.
pub const TILED_SHARED_BYTES: usize = 2 * Tile::<TILE_WIDTH>::BYTES;
/// Shared memory of [`matmul_tiled_32`].
pub const TILED_32_SHARED_BYTES: usize = 2 * Tile::<TILE_WIDTH_32>::BYTES;

/// Tiled: each block computes a `W x W` tile of `C`, stepping along `k` one tile of `A` and one of
/// `B` at a time through shared memory; each element a thread loads serves `W` multiply-adds.
/// Threads past an edge still load (zeros) and reach both barriers (the course's slide puts a
/// `__syncthreads()` inside `if (Row < Width && Col < Width)`, which is undefined behaviour at the
/// edges).
///
/// Launch: blocks of `W x W` covering `n x m`, with `2 W^2` floats of dynamic shared memory.
#[inline(always)]
fn tiled<const W: usize>(args: MatmulArgs<'_>) {
    // SAFETY: the launch provides two tiles: `ds_a` at 0, `ds_b` after it.
    let (ds_a, ds_b) = unsafe { (Tile::<W>::dynamic_at(0), Tile::<W>::dynamic_at(Tile::<W>::BYTES)) };
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (col, row) = (global_idx_x(), global_idx_y());
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    let mut sum = 0.0f32;
    for t in 0..k.div_ceil(W) {
        let (a_col, b_row) = (t * W + tx, t * W + ty);
        ds_a.set(
            ty,
            tx,
            if row < m && a_col < k {
                args.a.get(row * k + a_col)
            } else {
                0.0
            },
        );
        ds_b.set(
            ty,
            tx,
            if b_row < k && col < n {
                args.b.get(b_row * n + col)
            } else {
                0.0
            },
        );
        // Every thread of the block runs the same number of tiles and reaches both.
        sync_threads();
        for p in 0..W {
            sum = math::fma(ds_a.get(ty, p), ds_b.get(p, tx), sum);
        }
        // As above; the next iteration overwrites the tiles others may still read.
        sync_threads();
    }
    if row < m && col < n {
        args.c.set(row * n + col, sum);
    }
}

/// The course's tiled kernel, `TILE_WIDTH` 16 (the shared tiled body, `tiled`).
///
/// Launch: blocks of 16 x 16 covering `n x m`, [`TILED_SHARED_BYTES`].
#[kernel]
pub fn matmul_tiled(args: MatmulArgs<'_>) {
    tiled::<TILE_WIDTH>(args)
}

/// The tiled kernel with the lecture's `TILE_WIDTH` 32 (the shared tiled body, `tiled`).
///
/// Launch: blocks of 32 x 32 covering `n x m`, [`TILED_32_SHARED_BYTES`].
#[kernel]
pub fn matmul_tiled_32(args: MatmulArgs<'_>) {
    tiled::<TILE_WIDTH_32>(args)
}

/// Rows of `C` per block of [`matmul_register_tiled`], and the rest of its shape: the device
/// library's register-tiled SGEMM block (`collective::sgemm`), which this kernel is.
pub use ferrocuda_device::collective::sgemm::{
    BK, BM, BN, SGEMM_SHARED_BYTES as REGISTER_TILED_SHARED_BYTES, SGEMM_THREADS as REGISTER_TILED_THREADS, TM, TN,
};
use ferrocuda_device::collective::sgemm::{SgemmArgs, sgemm_block};

/// The course's `C = A B` as the device library's SGEMM block takes it: leading dimensions of
/// the dense matrices, alpha 1, beta 0 (the product exact: `1 * x` is `x`).
#[inline(always)]
fn as_sgemm(args: MatmulArgs<'_>) -> SgemmArgs<'_> {
    SgemmArgs {
        a: args.a,
        b: args.b,
        c: args.c,
        m: args.m,
        n: args.n,
        k: args.k,
        lda: args.k,
        ldb: args.n,
        ldc: args.n,
        alpha: 1.0,
        beta: 0.0,
    }
}

/// Register-tiled SGEMM: each block computes a `BM x BN` tile of `C` with [`REGISTER_TILED_THREADS`]
/// threads, each thread an `8 x 8` block held in 64 registers. Per `k` step a thread reads 8
/// elements of `A` and 8 of `B` from shared memory (four 16-byte reads) for 64 multiply-adds, 4
/// multiply-adds per element read (the tiled kernel: 1/2). Shared tiles are double-buffered:
/// the loads of the next tile are issued before the current one is multiplied, and stored into
/// the other buffer after, so one barrier per tile suffices and the loads' latency is hidden.
///
/// Launch: blocks of [`REGISTER_TILED_THREADS`] threads (1-D), a grid of
/// `ceil(n / BN) x ceil(m / BM)`, [`REGISTER_TILED_SHARED_BYTES`].
#[kernel]
pub fn matmul_register_tiled(args: MatmulArgs<'_>) {
    sgemm_block::<false>(as_sgemm(args));
}

/// [`matmul_register_tiled`] with its `k` loop over a shared tile spelled out: ptxas overlaps
/// the shared reads of one step with the fmas of the previous one, but needs 145 registers
/// (ptxas 13.0, sm_90), so one block (8 warps) fits on an SM instead of two at 124. Which one is
/// faster is measured side by side (`course-matmul-tiled`, `cargo xtask bench`).
///
/// Launch: as [`matmul_register_tiled`].
#[kernel]
pub fn matmul_register_tiled_unrolled(args: MatmulArgs<'_>) {
    sgemm_block::<true>(as_sgemm(args));
}
