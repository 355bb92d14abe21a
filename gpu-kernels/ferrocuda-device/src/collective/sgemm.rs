//! Exact FP32 GEMM on the SIMT cores, one block per `BM x BN` tile of `C`: `C = alpha A B +
//! beta C` with `A` (`m x k`), `B` (`k x n`) and `C` row-major, each with its leading dimension.
//! Register-tiled in the style of the fast SGEMMs (each thread an 8 x 8 block of `C` in
//! registers, shared tiles double-buffered); every size (elements past an edge read as zero and
//! are not written); every multiply-add an explicit `fma.rn.f32`, so the simulator rounds as the
//! GPU does. The library's `sgemm` kernel (`ferrocuda::blas`) and the book's register-tiled
//! kernels (`course-matmul-tiled`) are this body.
use crate::prelude::*;
use crate::shared::Tile2d;

/// Arguments of [`sgemm_block`] (and the library's `sgemm` kernel).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SgemmArgs<'a> {
    /// `m x k`, row-major, rows `lda` apart.
    pub a: Slice<'a, f32>,
    /// `k x n`, row-major, rows `ldb` apart.
    pub b: Slice<'a, f32>,
    /// `m x n`, row-major, rows `ldc` apart.
    pub c: SliceMut<'a, f32>,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub lda: u32,
    pub ldb: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
}

/// Rows of `C` per block of [`sgemm_block`].
pub const BM: usize = 128;
/// Columns of `C` per block.
pub const BN: usize = 128;
/// Depth of one shared tile along `k`.
pub const BK: usize = 8;
/// Rows and columns of `C` per thread: an 8 x 8 block in registers, as two 4-row halves 64 rows
/// apart and two 4-column halves 64 columns apart, so a warp's 16-byte shared reads are
/// conflict-free (`B`: 16 lanes, 256 consecutive bytes) or broadcasts (`A`: 2 addresses).
pub const TM: usize = 8;
pub const TN: usize = 8;
/// Threads per block: `(BM / TM) * (BN / TN)`.
pub const SGEMM_THREADS: u32 = ((BM / TM) * (BN / TN)) as u32;
/// Padding of the transposed `A` tile: its rows are stored by threads two rows apart in `k`
/// (4 elements), which a pitch of `BM + 4` puts 16 banks apart.
const A_PAD: usize = 4;
/// `A` tile, transposed: `a_tile[p][row]` = `A[m0 + row][k0 + p]`.
type ATile = Tile2d<f32, BK, BM, A_PAD>;
/// `B` tile: `b_tile[p][col]` = `B[k0 + p][n0 + col]`.
type BTile = Tile2d<f32, BK, BN, 0>;
/// Shared memory of [`sgemm_block`]: two buffers of each tile (double buffering).
pub const SGEMM_SHARED_BYTES: usize = 2 * ATile::BYTES + 2 * BTile::BYTES;

/// What one thread loads of one `k` step: 4 consecutive `A` elements of one row, and 4
/// consecutive `B` elements of one row (the block's 256 threads load the 128 x 8 and 8 x 128
/// tiles in one 16-byte load each).
#[derive(Clone, Copy)]
struct Staged {
    a: [f32; 4],
    b: [f32; 4],
}

/// The element coordinates of thread `tid`'s loads for the tile starting at `k0`:
/// `A[m0 + tid / 2][k0 + 4 (tid % 2) ..]` and `B[k0 + tid / 32][n0 + 4 (tid % 32) ..]`.
#[inline(always)]
fn load_coordinates(tid: usize) -> ((usize, usize), (usize, usize)) {
    ((tid / 2, 4 * (tid % 2)), (tid / (BN / 4), 4 * (tid % (BN / 4))))
}

/// Loads thread `tid`'s part of the tiles at (`m0`, `k0`) and (`k0`, `n0`): 16-byte loads when
/// the block's tiles lie inside the matrices (`full`), elementwise loads with zero fill otherwise.
#[inline(always)]
fn load_tiles(args: &SgemmArgs<'_>, full: bool, tid: usize, m0: usize, n0: usize, k0: usize) -> Staged {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    let (lda, ldb) = (args.lda as usize, args.ldb as usize);
    let ((a_row, a_col), (b_row, b_col)) = load_coordinates(tid);
    let (a_row, a_col, b_row, b_col) = (m0 + a_row, k0 + a_col, k0 + b_row, n0 + b_col);
    if full {
        // `lda` and `ldb` are multiples of 4 and the views 16-byte aligned (the caller's `full`).
        Staged {
            a: args.a.get4((a_row * lda + a_col) / 4),
            b: args.b.get4((b_row * ldb + b_col) / 4),
        }
    } else {
        let mut staged = Staged {
            a: [0.0; 4],
            b: [0.0; 4],
        };
        for j in 0..4 {
            if a_row < m && a_col + j < k {
                staged.a[j] = args.a.get(a_row * lda + a_col + j);
            }
            if b_row < k && b_col + j < n {
                staged.b[j] = args.b.get(b_row * ldb + b_col + j);
            }
        }
        staged
    }
}

/// Stores a thread's staged loads into one buffer of the tiles (`A` transposed).
#[inline(always)]
fn store_tiles(staged: &Staged, tid: usize, a_tile: &ATile, b_tile: &BTile) {
    let ((a_row, a_col), (b_row, b_col)) = load_coordinates(tid);
    for j in 0..4 {
        a_tile.set(a_col + j, a_row, staged.a[j]);
    }
    b_tile.set4(b_row, b_col / 4, staged.b);
}

/// Exact FP32 SGEMM on the SIMT cores, register-tiled (the book's `matmul_register_tiled`,
/// `course-matmul-tiled`, with leading dimensions, alpha and beta): each block computes a
/// `BM x BN` tile of `C` with [`SGEMM_THREADS`] threads, each thread an `8 x 8` block in 64
/// registers; per `k` step a thread reads 8 elements of `A` and 8 of `B` from shared memory (four
/// 16-byte reads) for 64 multiply-adds. Shared tiles are double-buffered: the next tile's loads
/// are issued before the current one is multiplied, so one barrier per tile suffices. Every
/// multiply-add is an explicit `fma.rn.f32`, so the simulator rounds as the GPU does.
///
/// `UNROLLED` spells out the loop over a tile's `k`: ptxas can then issue the next step's shared
/// reads during this step's fmas, at the price of registers (145 against 124, ptxas 13.0 sm_90;
/// `course-matmul-tiled` measures both).
///
/// Call from: every thread of a block of [`SGEMM_THREADS`] threads (1-D), of a grid of
/// `ceil(n / BN) x ceil(m / BM)`, with [`SGEMM_SHARED_BYTES`] of dynamic shared memory.
#[inline(always)]
pub fn sgemm_block<const UNROLLED: bool>(args: SgemmArgs<'_>) {
    // The two buffers of each tile, as byte offsets into shared memory: buffer `t % 2` holds
    // tile `t`. (Swapping two tile values instead made LLVM lose the shared state space and
    // emit generic loads.)
    let a_buffer = |t: usize| (t % 2) * ATile::BYTES;
    let b_buffer = |t: usize| 2 * ATile::BYTES + (t % 2) * BTile::BYTES;
    // SAFETY (every `dynamic_at` below): the launch provides `SGEMM_SHARED_BYTES`, which
    // holds the four tiles at these offsets, each a multiple of 16 bytes.
    let tid = thread_idx_x();
    let (m0, n0) = (block_idx().y * BM, block_idx().x * BN);
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    // Block-uniform: the whole block takes one path, so the barriers below stay uniform.
    let full = m0 + BM <= m
        && n0 + BN <= n
        && k.is_multiple_of(BK)
        && [args.lda, args.ldb, args.ldc].iter().all(|ld| ld.is_multiple_of(4))
        && args.a.is_aligned16()
        && args.b.is_aligned16()
        && args.c.is_aligned16();
    let (ty, tx) = (tid / (BN / TN), tid % (BN / TN));
    let tiles = k.div_ceil(BK);

    let mut acc = [[0.0f32; TN]; TM];
    if tiles > 0 {
        let staged = load_tiles(&args, full, tid, m0, n0, 0);
        // SAFETY: see above.
        let tiles = unsafe { (ATile::dynamic_at(a_buffer(0)), BTile::dynamic_at(b_buffer(0))) };
        store_tiles(&staged, tid, &tiles.0, &tiles.1);
    }
    // Every thread of the block reaches every barrier: `tiles` is uniform.
    sync_threads();
    for t in 0..tiles {
        let next = (t + 1 < tiles).then(|| load_tiles(&args, full, tid, m0, n0, (t + 1) * BK));
        // SAFETY: see above.
        let (a_cur, b_cur) = unsafe { (ATile::dynamic_at(a_buffer(t)), BTile::dynamic_at(b_buffer(t))) };
        // One k step: four 16-byte shared reads, 64 fmas.
        let mut step = |p: usize| {
            // Rows ty*4 .. +4 and 64 + ty*4 .. +4 of the block tile; columns likewise with tx.
            let a_lo = a_cur.get4(p, ty);
            let a_hi = a_cur.get4(p, BM / 8 + ty);
            let b_lo = b_cur.get4(p, tx);
            let b_hi = b_cur.get4(p, BN / 8 + tx);
            let a_frag = [a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]];
            let b_frag = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
            for i in 0..TM {
                for j in 0..TN {
                    acc[i][j] = math::fma(a_frag[i], b_frag[j], acc[i][j]);
                }
            }
        };
        if UNROLLED {
            // Spelled out: ptxas can issue the next step's shared reads during this step's fmas,
            // at the price of registers (see `matmul_register_tiled_unrolled`).
            const { assert!(BK == 8) };
            unroll!(p in [0, 1, 2, 3, 4, 5, 6, 7] => { step(p); });
        } else {
            for p in 0..BK {
                step(p);
            }
        }
        if let Some(staged) = next {
            // SAFETY: see above.
            let (a_next, b_next) = unsafe { (ATile::dynamic_at(a_buffer(t + 1)), BTile::dynamic_at(b_buffer(t + 1))) };
            store_tiles(&staged, tid, &a_next, &b_next);
        }
        // Uniform, as above. After it the next buffer is complete and nobody reads the
        // current one any more.
        sync_threads();
    }

    // `C = alpha acc + beta C`; with beta 0, `C` is not read (it may hold NaN, as BLAS allows).
    let ldc = args.ldc as usize;
    let scaled = |v: f32, at: usize| {
        if args.beta == 0.0 {
            args.alpha * v
        } else {
            args.alpha * v + args.beta * args.c.get(at)
        }
    };
    // Spelled out: a rolled loop over `acc` would index it at run time (local memory).
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let row = m0 + (i / 4) * (BM / 2) + ty * 4 + i % 4;
        unroll!(half in [0, 1] => {
            let col = n0 + half * (BN / 2) + tx * 4;
            let at = row * ldc + col;
            let values = [acc[i][4 * half], acc[i][4 * half + 1], acc[i][4 * half + 2], acc[i][4 * half + 3]];
            if full {
                let values = [
                    scaled(values[0], at),
                    scaled(values[1], at + 1),
                    scaled(values[2], at + 2),
                    scaled(values[3], at + 3),
                ];
                args.c.set4(at / 4, values);
            } else {
                for (j, &v) in values.iter().enumerate() {
                    if row < m && col + j < n {
                        args.c.set(at + j, scaled(v, at + j));
                    }
                }
            }
        });
    });
}
