//! Hopper's tensor-core GEMM (sm_90a): `C = alpha A B^T + beta C` for `A` (`m x k`) and `B`
//! (`n x k`) both K-major (rows of K), f32 `C` row-major, with f32 accumulation, for BF16, FP16
//! and TF32 operands (`ferrocuda::blas` reduces every layout to this one).
//!
//! A block computes a 128 x 256 tile of `C` with three warpgroups (384 threads):
//! - the producer (warpgroup 0) gives most of its registers away (`setmaxnreg.dec` to 40) and
//!   one of its threads feeds a ring of [`GEMM_STAGES`] stages: it waits for a stage to be empty,
//!   announces its bytes on the stage's `full` barrier and starts two bulk tensor copies (TMA),
//!   a 128 x 128-byte box of `A` and a 256 x 128-byte box of `B`, in the 128-byte swizzle;
//! - two consumers (warpgroups 1 and 2, `setmaxnreg.inc` to 232) each own 64 rows of the tile:
//!   they wait for a stage to be full, issue four `wgmma` m64n256 instructions on it into a
//!   64 x 256 f32 accumulator (128 registers a thread), keep one group in flight, and mark the
//!   stage before empty once its group has retired. Then each writes its accumulator to `C`.
//!
//! The kernel is persistent: a grid of one block per SM, each block taking every `grid`-th tile,
//! so that its producer loads the next tile's stages while the consumers store this one.
//!
//! Edges need no test in the main loop: the copy engine fills the parts of a box outside the
//! matrices with zeros, which add nothing; the stores test `row < m`, `col < n`.
use ferrocuda_device::half::{Bf16, F16};
use ferrocuda_device::hopper::{
    Accumulator, MBarriers, MatrixTile, TensorMap, decrease_registers, increase_registers, wgmma,
};
use ferrocuda_device::prelude::*;

/// Rows of `C` a block computes.
pub const GEMM_BLOCK_M: usize = 128;
/// Columns of `C` a block computes.
pub const GEMM_BLOCK_N: usize = 256;
/// Stages of the ring of operand tiles.
pub const GEMM_STAGES: usize = 4;
/// Threads of a block: a producer and two consumer warpgroups.
pub const GEMM_THREADS: u32 = 384;
/// Tiles of `C` along M a group of consecutive blocks covers before it moves along N, so that
/// the blocks running at once share the operand tiles they read in L2.
pub const GEMM_GROUP_M: usize = 16;

/// Arguments of the GEMM kernels: the tensor maps of `A` (boxes of 128 rows) and `B` (256
/// rows), each `K_TILE` elements (128 bytes) wide; `C` row-major with rows `ldc` apart.
#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct GemmArgs<'a, T, const K_TILE: usize> {
    pub a: TensorMap<'a, T, GEMM_BLOCK_M, K_TILE>,
    pub b: TensorMap<'a, T, GEMM_BLOCK_N, K_TILE>,
    pub c: SliceMut<'a, f32>,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
}

/// The first row and column of tile `tile` of `C` (`tiles_m x tiles_n` of them), in the order
/// the blocks take them: down a group of [`GEMM_GROUP_M`] tiles along M, then along N.
#[inline(always)]
pub fn gemm_tile_of_block(tile: usize, tiles_m: usize, tiles_n: usize) -> (usize, usize) {
    // The divisors are at least 1 for every tile of a non-empty C; `max(1)` says so to the
    // compiler, which would otherwise keep a division-by-zero panic.
    let in_group = GEMM_GROUP_M * tiles_n.max(1);
    let first_m = tile / in_group * GEMM_GROUP_M;
    let group_m = tiles_m.saturating_sub(first_m).clamp(1, GEMM_GROUP_M);
    let place = tile % in_group;
    (
        (first_m + place % group_m) * GEMM_BLOCK_M,
        place / group_m * GEMM_BLOCK_N,
    )
}

macro_rules! gemm_kernel {
    ($(#[$doc:meta])* $name:ident, $layout:ident, $t:ty, $k_tile:literal, $k_step:literal, $op:ident) => {
        ferrocuda_device::shared_layout! {
            /// The ring: every stage's `A` and `B` tiles, and its full and empty barriers.
            pub struct $layout() {
                pub a: MatrixTile<$t, { GEMM_STAGES * GEMM_BLOCK_M }, $k_tile>,
                pub b: MatrixTile<$t, { GEMM_STAGES * GEMM_BLOCK_N }, $k_tile>,
                pub full: MBarriers[GEMM_STAGES],
                pub empty: MBarriers[GEMM_STAGES],
            }
        }

        $(#[$doc])*
        ///
        /// Launch: blocks of [`GEMM_THREADS`] (at most one per tile; one per SM keeps every SM
        /// busy, each block taking every `grid`-th tile), the layout's bytes of shared memory.
        #[kernel(max_threads = 384, min_blocks_per_sm = 1, requires = "sm_90a")]
        pub fn $name(args: GemmArgs<'_, $t, $k_tile>) {
            let $layout { a, b, full, empty } = $layout::carve();
            let t = thread_idx_x();
            let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
            let (tiles_m, tiles_n) = (m.div_ceil(GEMM_BLOCK_M), n.div_ceil(GEMM_BLOCK_N));
            let tiles = tiles_m * tiles_n;
            if tiles == 0 {
                // An empty C (the host launches none; no division by zero in the tile order).
                return;
            }
            // This block's tiles: every `grid`-th from its own index (a `while`: `step_by` would
            // keep a panic for a step of 0).
            let (first, grid) = (block_idx().x, grid_dim().x);
            let k_blocks = k.div_ceil($k_tile);
            if t == 0 {
                for stage in 0..GEMM_STAGES {
                    full.get(stage).init(1);
                    empty.get(stage).init(2 * 128);
                }
                args.a.prefetch();
                args.b.prefetch();
            }
            // The barriers are initialised before any thread uses them.
            sync_threads();
            if t < 128 {
                // SAFETY: the whole warpgroup, converged (no branch since the barrier).
                unsafe { decrease_registers::<40>() };
                if t == 0 {
                    // `step` counts the k-blocks this block has loaded over all its tiles: the
                    // ring's stage and the round of its barriers.
                    let mut step = 0;
                    let mut tile = first;
                    while tile < tiles {
                        let (row0, col0) = gemm_tile_of_block(tile, tiles_m, tiles_n);
                        for kb in 0..k_blocks {
                            let (stage, round) = (step % GEMM_STAGES, step / GEMM_STAGES);
                            if round > 0 {
                                empty.get(stage).wait_parity(((round - 1) % 2) as u32);
                            }
                            let barrier = full.get(stage);
                            barrier.arrive_expect_tx(
                                TensorMap::<$t, GEMM_BLOCK_M, $k_tile>::BOX_BYTES
                                    + TensorMap::<$t, GEMM_BLOCK_N, $k_tile>::BOX_BYTES,
                            );
                            let k0 = (kb * $k_tile) as i32;
                            // SAFETY: the stage is empty (its consumers' groups retired, the
                            // wait above), and nothing reads it until `full` completes, which
                            // counts these bytes (announced just above).
                            unsafe {
                                args.a.load(&a, stage * GEMM_BLOCK_M, (row0 as i32, k0), &barrier);
                                args.b.load(&b, stage * GEMM_BLOCK_N, (col0 as i32, k0), &barrier);
                            }
                            step += 1;
                        }
                        tile += grid;
                    }
                }
            } else {
                // SAFETY: warpgroups 1 and 2, each whole and converged; the producer gives up
                // (168 - 40) x 128 registers, which these take ((232 - 168) x 256).
                unsafe { increase_registers::<232>() };
                let consumer = t / 128 - 1;
                let mut step = 0;
                let mut tile = first;
                while tile < tiles {
                    let (row0, col0) = gemm_tile_of_block(tile, tiles_m, tiles_n);
                    let mut acc = Accumulator::<128>::zeroed();
                    for kb in 0..k_blocks {
                        let (stage, round) = (step % GEMM_STAGES, step / GEMM_STAGES);
                        full.get(stage).wait_parity((round % 2) as u32);
                        let a_row = stage * GEMM_BLOCK_M + consumer * 64;
                        let b_row = stage * GEMM_BLOCK_N;
                        // SAFETY: the warpgroup runs this loop whole and converged; the stage's
                        // tiles are full (the wait) and nothing writes them until this group
                        // has retired and the stage is marked empty, below, one step later.
                        unsafe {
                            wgmma::fence();
                            unroll!(j in [0, 1, 2, 3] => {
                                wgmma::$op(
                                    &mut acc,
                                    a.descriptor_at(a_row, j * $k_step),
                                    b.descriptor_at(b_row, j * $k_step),
                                    true,
                                );
                            });
                            wgmma::commit_group();
                            wgmma::wait_all_but_one(&mut acc);
                        }
                        if kb > 0 {
                            empty.get((step - 1) % GEMM_STAGES).arrive();
                        }
                        step += 1;
                    }
                    // SAFETY: as above.
                    unsafe { wgmma::wait_all(&mut acc) };
                    if k_blocks > 0 {
                        // The tile's last stage, free once its group has retired (the wait): the
                        // producer fills it for the next tile while this one is stored.
                        empty.get((step - 1) % GEMM_STAGES).arrive();
                    }
                    store_tile(&acc, &args, (row0 + consumer * 64, col0), (m, n));
                    tile += grid;
                }
            }
        }
    };
}

/// `C = alpha acc + beta C` for the 64 x 256 tile of `C` at (`row0`, `col0`) a consumer
/// warpgroup holds, within `m x n`. With beta 0, `C` is not read (it may hold NaN, as BLAS allows).
#[inline(always)]
fn store_tile<T, const K_TILE: usize>(
    acc: &Accumulator<128>,
    args: &GemmArgs<'_, T, K_TILE>,
    (row0, col0): (usize, usize),
    (m, n): (usize, usize),
) {
    let (c, ldc, alpha, beta) = (args.c, args.ldc as usize, args.alpha, args.beta);
    acc.for_each(|r, j, x| {
        let (row, col) = (row0 + r, col0 + j);
        if row < m && col < n {
            let i = row * ldc + col;
            let value = if beta == 0.0 {
                alpha * x
            } else {
                alpha * x + beta * c.get(i)
            };
            c.set(i, value);
        }
    });
}

gemm_kernel!(
    /// BF16 operands (`wgmma` m64n256k16), 64-element K tiles.
    gemm_bf16, GemmBf16Shared, Bf16, 64, 16, bf16_m64n256k16
);
gemm_kernel!(
    /// FP16 operands (`wgmma` m64n256k16), 64-element K tiles.
    gemm_f16, GemmF16Shared, F16, 64, 16, f16_m64n256k16
);
gemm_kernel!(
    /// f32 operands read as TF32 (their low 13 bits ignored; `wgmma` m64n256k8), 32-element K
    /// tiles.
    gemm_tf32, GemmTf32Shared, f32, 32, 8, tf32_m64n256k8
);

/// Arguments of [`gemm_pack`]: element (`r`, `c`) of a `rows x cols` matrix at
/// `src[r * row_stride + c * col_stride]`, copied to `dst[r * dst_ld + c]`.
#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct GemmPackArgs<'a, T> {
    pub src: Slice<'a, T>,
    pub dst: SliceMut<'a, T>,
    pub rows: u32,
    pub cols: u32,
    pub row_stride: u32,
    pub col_stride: u32,
    pub dst_ld: u32,
}

/// Copies an operand the copy engine cannot read as it is (not K-major, or rows not 16-byte
/// aligned) into a K-major matrix whose rows are. Consecutive threads take consecutive
/// elements of the source's contiguous direction, so its reads coalesce.
///
/// Launch: a 1-D grid of any size (grid-stride).
#[kernel(Bf16, F16, f32)]
pub fn gemm_pack<T: Element>(args: GemmPackArgs<'_, T>) {
    let (rows, cols) = (args.rows as usize, args.cols as usize);
    if rows == 0 || cols == 0 {
        // Nothing to copy (and no division by zero below).
        return;
    }
    let (row_stride, col_stride) = (args.row_stride as usize, args.col_stride as usize);
    let along_rows = col_stride != 1;
    for i in grid_stride_range(rows * cols) {
        let (r, c) = if along_rows {
            (i % rows, i / rows)
        } else {
            (i / cols, i % cols)
        };
        args.dst.set(
            r * args.dst_ld as usize + c,
            args.src.get(r * row_stride + c * col_stride),
        );
    }
}

/// Arguments of [`gemm_scale`]: `C` (`rows x cols`, rows `ldc` apart) and its factor.
#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct GemmScaleArgs<'a> {
    pub c: SliceMut<'a, f32>,
    pub rows: u32,
    pub cols: u32,
    pub ldc: u32,
    pub beta: f32,
}

/// `C = beta C`, the whole product when `k` is 0 (with beta 0, `C` is not read).
///
/// Launch: a 1-D grid of any size (grid-stride).
#[kernel]
pub fn gemm_scale(args: GemmScaleArgs<'_>) {
    let cols = args.cols as usize;
    if cols == 0 {
        return;
    }
    for i in grid_stride_range(args.rows as usize * cols) {
        let at = i / cols * args.ldc as usize + i % cols;
        let value = if args.beta == 0.0 {
            0.0
        } else {
            args.beta * args.c.get(at)
        };
        args.c.set(at, value);
    }
}
