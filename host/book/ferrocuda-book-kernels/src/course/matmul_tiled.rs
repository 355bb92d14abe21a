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

/// Rows of `C` per block of [`matmul_register_tiled`].
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
pub const REGISTER_TILED_THREADS: u32 = ((BM / TM) * (BN / TN)) as u32;
/// Padding of the transposed `A` tile: its rows are stored by threads two rows apart in `k`
/// (4 elements), which a pitch of `BM + 4` puts 16 banks apart.
const A_PAD: usize = 4;
/// `A` tile, transposed: `a_tile[p][row]` = `A[m0 + row][k0 + p]`.
type ATile = Tile2d<f32, BK, BM, A_PAD>;
/// `B` tile: `b_tile[p][col]` = `B[k0 + p][n0 + col]`.
type BTile = Tile2d<f32, BK, BN, 0>;
/// Shared memory of [`matmul_register_tiled`]: two buffers of each tile (double buffering).
pub const REGISTER_TILED_SHARED_BYTES: usize = 2 * ATile::BYTES + 2 * BTile::BYTES;

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
fn load_tiles(args: &MatmulArgs<'_>, full: bool, tid: usize, m0: usize, n0: usize, k0: usize) -> Staged {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    let ((a_row, a_col), (b_row, b_col)) = load_coordinates(tid);
    let (a_row, a_col, b_row, b_col) = (m0 + a_row, k0 + a_col, k0 + b_row, n0 + b_col);
    if full {
        // `k` and `n` are multiples of 4 and the views 16-byte aligned (the caller's `full`).
        Staged {
            a: args.a.get4((a_row * k + a_col) / 4),
            b: args.b.get4((b_row * n + b_col) / 4),
        }
    } else {
        let mut staged = Staged {
            a: [0.0; 4],
            b: [0.0; 4],
        };
        for j in 0..4 {
            if a_row < m && a_col + j < k {
                staged.a[j] = args.a.get(a_row * k + a_col + j);
            }
            if b_row < k && b_col + j < n {
                staged.b[j] = args.b.get(b_row * n + b_col + j);
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
    register_tiled::<false>(args);
}

/// [`matmul_register_tiled`] with its `k` loop over a shared tile spelled out: ptxas overlaps
/// the shared reads of one step with the fmas of the previous one, but needs 145 registers
/// (ptxas 13.0, sm_90), so one block (8 warps) fits on an SM instead of two at 124. Which one is
/// faster is measured side by side (`course-matmul-tiled`, `cargo xtask bench`).
///
/// Launch: as [`matmul_register_tiled`].
#[kernel]
pub fn matmul_register_tiled_unrolled(args: MatmulArgs<'_>) {
    register_tiled::<true>(args);
}

/// The body of both register-tiled kernels; `UNROLLED` spells out the loop over a tile's `k`.
#[inline(always)]
fn register_tiled<const UNROLLED: bool>(args: MatmulArgs<'_>) {
    // The two buffers of each tile, as byte offsets into shared memory: buffer `t % 2` holds
    // tile `t`. (Swapping two tile values instead made LLVM lose the shared state space and
    // emit generic loads.)
    let a_buffer = |t: usize| (t % 2) * ATile::BYTES;
    let b_buffer = |t: usize| 2 * ATile::BYTES + (t % 2) * BTile::BYTES;
    // SAFETY (every `dynamic_at` below): the launch provides `REGISTER_TILED_SHARED_BYTES`, which
    // holds the four tiles at these offsets, each a multiple of 16 bytes.
    let tid = thread_idx_x();
    let (m0, n0) = (block_idx().y * BM, block_idx().x * BN);
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    // Block-uniform: the whole block takes one path, so the barriers below stay uniform.
    let full = m0 + BM <= m
        && n0 + BN <= n
        && k.is_multiple_of(BK)
        && n.is_multiple_of(4)
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

    // Spelled out: a rolled loop over `acc` would index it at run time (local memory).
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] => {
        let row = m0 + (i / 4) * (BM / 2) + ty * 4 + i % 4;
        unroll!(half in [0, 1] => {
            let col = n0 + half * (BN / 2) + tx * 4;
            let values = [acc[i][4 * half], acc[i][4 * half + 1], acc[i][4 * half + 2], acc[i][4 * half + 3]];
            if full {
                args.c.set4((row * n + col) / 4, values);
            } else {
                for (j, &v) in values.iter().enumerate() {
                    if row < m && col + j < n {
                        args.c.set(row * n + col + j, v);
                    }
                }
            }
        });
    });
}
