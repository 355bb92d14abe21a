//! Matrix multiply on the tensor cores, `C = A B` with f32 accumulation (issue 17): BF16 inputs
//! (`mma.sync` m16n8k16) or f32 inputs rounded to TF32 (m16n8k8), through
//! [`ferrocuda_device::mma`].
//!
//! Layouts are the tensor cores' own ("row.col"): `A` is `m x k` row-major, `B` is given
//! transposed, `bt` = `B^T`, `n x k` row-major, so both operands are contiguous along `k`;
//! `C` is `m x n` row-major. BF16 operands come as words of two ([`mma::bf16_pair`], the lower
//! `k` in the low half), so a row of `A` is `k / 2` words.
//!
//! Each block computes a 128 x 256 tile of `C` with 8 warps (2 x 4, each 64 x 64: 4 x 8 tiles of
//! 16 x 8, so each fragment of `A` serves 8 multiplies and each of `B` 4), stepping along `k` by
//! 16 words (32 BF16 or 16 TF32) through double-buffered shared tiles: the next tiles' loads are issued into registers before the current tiles are
//! multiplied, and stored after, so one barrier per step suffices. Rows of the shared tiles are
//! padded by 4 words, which puts the 8 rows x 4 words a fragment load touches in 32 distinct
//! banks. TF32 rounding (`cvt.rna`) happens once, on the store to shared memory.
//!
//! The kernels take whole tiles: `m` a multiple of 128, `n` of 256, `k` of 32 (BF16) or 16 (TF32);
//! they trap otherwise. The host pads other sizes with zeros, which do not change the product.
use ferrocuda_device::mma::{self, Accumulator, Bf16A, Bf16B, Tf32A, Tf32B};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// Rows of `C` per block.
pub const TENSOR_TILE_M: usize = 128;
/// Columns of `C` per block.
pub const TENSOR_TILE_N: usize = 256;
/// Words of `k` per shared tile row: 32 BF16 or 16 TF32.
const TILE_WORDS: usize = 16;
/// Threads per block: 8 warps.
pub const TENSOR_THREADS: u32 = 256;
/// Warps along `n`; the other 2 go along `m`.
const WARPS_N: usize = 4;
/// 16-row tiles per warp along `m` (64 rows) and 8-column tiles along `n` (64 columns).
const M_TILES: usize = 4;
const N_TILES: usize = 8;
/// The `A` tile: 128 rows of 16 words, padded to 20.
type ATile<W> = Tile2d<W, TENSOR_TILE_M, TILE_WORDS, 4>;
/// The `B^T` tile: 256 rows of 16 words, padded to 20.
type BTile<W> = Tile2d<W, TENSOR_TILE_N, TILE_WORDS, 4>;
/// Shared memory of both kernels: two buffers of the `A` tile and of the `B^T` tile (60 KiB,
/// past the default 48: the launch opts in).
pub const TENSOR_SHARED_BYTES: usize = 2 * ATile::<u32>::BYTES + 2 * BTile::<u32>::BYTES;
/// 16-byte chunks of the `A` tile each thread moves per step (the `B^T` tile: twice as many).
const A_CHUNKS: usize = TENSOR_TILE_M * TILE_WORDS / 4 / TENSOR_THREADS as usize;

/// Arguments of [`matmul_bf16_mma`]: BF16 pairs.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Bf16MatmulArgs<'a> {
    /// `A`, `m x k` BF16, row-major, as `m * k / 2` words of pairs.
    pub a: Slice<'a, u32>,
    /// `B^T`, `n x k` BF16, row-major, as `n * k / 2` words of pairs.
    pub bt: Slice<'a, u32>,
    /// `C`, `m x n` f32, row-major; written.
    pub c: SliceMut<'a, f32>,
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

/// Arguments of [`matmul_tf32_mma`]: f32, rounded to TF32 by the kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct Tf32MatmulArgs<'a> {
    /// `A`, `m x k` f32, row-major.
    pub a: Slice<'a, f32>,
    /// `B^T`, `n x k` f32, row-major.
    pub bt: Slice<'a, f32>,
    /// `C`, `m x n` f32, row-major; written.
    pub c: SliceMut<'a, f32>,
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

/// What differs between the two precisions: the word type, how a word is prepared for shared
/// memory, the fragments read from the shared tiles and the multiply-accumulate.
trait TensorWords: Element4 + Default {
    type A: Copy + Default;
    type B: Copy + Default;
    /// A word as stored in shared memory (TF32: rounded once here).
    fn to_shared(self) -> Self;
    /// The fragment of the 16-row tile of `A` at `row0`, words `words..words + 8` of `k`.
    fn load_a(tile: &ATile<Self>, row0: usize, words: usize) -> Self::A;
    /// The fragment of the 8 columns of `B` at `col0` (rows of the `B^T` tile), same words.
    fn load_b(tile: &BTile<Self>, col0: usize, words: usize) -> Self::B;
    /// `acc + a b`. Call from: every lane of the warp together.
    fn mma(acc: Accumulator, a: Self::A, b: Self::B) -> Accumulator;
}

impl TensorWords for u32 {
    type A = Bf16A;
    type B = Bf16B;
    #[inline(always)]
    fn to_shared(self) -> Self {
        self
    }
    #[inline(always)]
    fn load_a(tile: &ATile<u32>, row0: usize, words: usize) -> Bf16A {
        Bf16A::load(|r, p| tile.get(row0 + r, words + p))
    }
    #[inline(always)]
    fn load_b(tile: &BTile<u32>, col0: usize, words: usize) -> Bf16B {
        Bf16B::load(|c, p| tile.get(col0 + c, words + p))
    }
    #[inline(always)]
    fn mma(acc: Accumulator, a: Bf16A, b: Bf16B) -> Accumulator {
        acc.mma_bf16(a, b)
    }
}

impl TensorWords for f32 {
    type A = Tf32A;
    type B = Tf32B;
    #[inline(always)]
    fn to_shared(self) -> Self {
        f32::from_bits(mma::to_tf32(self))
    }
    #[inline(always)]
    fn load_a(tile: &ATile<f32>, row0: usize, words: usize) -> Tf32A {
        Tf32A::load_rounded(|r, c| tile.get(row0 + r, words + c).to_bits())
    }
    #[inline(always)]
    fn load_b(tile: &BTile<f32>, col0: usize, words: usize) -> Tf32B {
        Tf32B::load_rounded(|c, r| tile.get(col0 + c, words + r).to_bits())
    }
    #[inline(always)]
    fn mma(acc: Accumulator, a: Tf32A, b: Tf32B) -> Accumulator {
        acc.mma_tf32(a, b)
    }
}

/// The shared body: `c = a bt^T` with `words_per_row` words per row of `a` and `bt`.
#[inline(always)]
fn tensor_gemm<W: TensorWords>(
    a: Slice<'_, W>,
    bt: Slice<'_, W>,
    c: SliceMut<'_, f32>,
    m: usize,
    n: usize,
    words_per_row: usize,
) {
    if block_dim().x != TENSOR_THREADS as usize
        || !m.is_multiple_of(TENSOR_TILE_M)
        || !n.is_multiple_of(TENSOR_TILE_N)
        || !words_per_row.is_multiple_of(TILE_WORDS)
        || a.len() != m * words_per_row
        || bt.len() != n * words_per_row
        || c.len() != m * n
    {
        ferrocuda_device::global::bounds_failure()
    }
    let tiles = |buffer: usize| {
        let (a_bytes, b_bytes) = (ATile::<W>::BYTES, BTile::<W>::BYTES);
        // SAFETY: the launch provides TENSOR_SHARED_BYTES: the two A tiles, then the two B^T
        // tiles; every offset is a multiple of 16 (the sizes are multiples of 20 * 4 * 16).
        unsafe {
            (
                ATile::<W>::dynamic_at(buffer * a_bytes),
                BTile::<W>::dynamic_at(2 * a_bytes + buffer * b_bytes),
            )
        }
    };
    let thread = thread_idx().x;
    let warp = thread / 32;
    let (warp_row, warp_col) = (64 * (warp / WARPS_N), 64 * (warp % WARPS_N));
    let (m0, n0) = (block_idx().y * TENSOR_TILE_M, block_idx().x * TENSOR_TILE_N);
    // The `s`-th 16-byte chunk this thread moves: (row, chunk of 4 words) of a tile.
    let chunk = |s: usize| {
        let linear = thread + s * TENSOR_THREADS as usize;
        (linear / (TILE_WORDS / 4), linear % (TILE_WORDS / 4))
    };
    const { assert!(A_CHUNKS == 2, "the unrolled loads move two chunks of A and four of B^T") };
    type Fetched<W> = ([[W; 4]; 2], [[W; 4]; 4]);
    let fetch = |step: usize| -> Fetched<W> {
        let word0 = step * TILE_WORDS;
        let mut fetched: Fetched<W> = Default::default();
        unroll!(s in [0, 1] => {
            let (row, quad) = chunk(s);
            fetched.0[s] = a.get4(((m0 + row) * words_per_row + word0) / 4 + quad);
        });
        unroll!(s in [0, 1, 2, 3] => {
            let (row, quad) = chunk(s);
            fetched.1[s] = bt.get4(((n0 + row) * words_per_row + word0) / 4 + quad);
        });
        fetched
    };
    let store = |buffer: usize, fetched: &Fetched<W>| {
        let (a_tile, b_tile) = tiles(buffer);
        unroll!(s in [0, 1] => {
            let (row, quad) = chunk(s);
            a_tile.set4(row, quad, fetched.0[s].map(W::to_shared));
        });
        unroll!(s in [0, 1, 2, 3] => {
            let (row, quad) = chunk(s);
            b_tile.set4(row, quad, fetched.1[s].map(W::to_shared));
        });
    };
    let steps = words_per_row / TILE_WORDS;
    let mut acc: WarpTile = [[Accumulator::default(); N_TILES]; M_TILES];
    store(0, &fetch(0));
    // Every thread of the block reaches each barrier (uniform control flow).
    sync_threads();
    for step in 0..steps {
        let next = (step + 1 < steps).then(|| fetch(step + 1));
        let (a_tile, b_tile) = tiles(step % 2);
        // Spelled out (`unroll!`), so the accumulators stay in registers.
        unroll!(half in [0, 1] => {
            let mut a_frags = [W::A::default(); M_TILES];
            let mut b_frags = [W::B::default(); N_TILES];
            unroll!(i in [0, 1, 2, 3] => {
                a_frags[i] = W::load_a(&a_tile, warp_row + 16 * i, 8 * half);
            });
            unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] => {
                b_frags[j] = W::load_b(&b_tile, warp_col + 8 * j, 8 * half);
            });
            unroll!(i in [0, 1, 2, 3] => {
                unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] => {
                    // Every lane of every warp runs the same loop.
                    acc[i][j] = W::mma(acc[i][j], a_frags[i], b_frags[j]);
                });
            });
        });
        if let Some(next) = next {
            store((step + 1) % 2, &next);
        }
        // As above. The stores went to the other buffer, last read before the previous
        // barrier; this one orders them before the next step's reads.
        sync_threads();
    }
    store_warp_tile(&c, &acc, m0 + warp_row, n0 + warp_col, n);
}

/// A warp's accumulators: [`M_TILES`] x [`N_TILES`] tiles of 16 x 8, a 64 x 64 tile of `C`.
pub(crate) type WarpTile = [[Accumulator; N_TILES]; M_TILES];

/// Writes a warp's 64 x 64 tile of `C` (row-major, `n` columns) at (`row0`, `col0`); both
/// GEMMs' epilogue.
#[inline(always)]
pub(crate) fn store_warp_tile(c: &SliceMut<'_, f32>, acc: &WarpTile, row0: usize, col0: usize, n: usize) {
    const { assert!(M_TILES == 4 && N_TILES == 8, "the unrolled loops cover 4 x 8 tiles") };
    let positions = Accumulator::positions();
    unroll!(i in [0, 1, 2, 3] => {
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] => {
            unroll!(v in [0, 1, 2, 3] => {
                let (r, col) = positions[v];
                c.set((row0 + 16 * i + r) * n + col0 + 8 * j + col, acc[i][j].0[v]);
            });
        });
    });
}

/// `C = A B` from BF16 operands on the tensor cores, f32 accumulation.
///
/// Launch: [`TENSOR_THREADS`] threads, a grid of `(n / 256, m / 128)`, [`TENSOR_SHARED_BYTES`].
#[kernel]
pub fn matmul_bf16_mma(args: Bf16MatmulArgs<'_>) {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    tensor_gemm::<u32>(args.a, args.bt, args.c, m, n, k / 2)
}

/// `C = A B` from f32 operands rounded to TF32 on the tensor cores, f32 accumulation.
///
/// Launch: as [`matmul_bf16_mma`].
#[kernel]
pub fn matmul_tf32_mma(args: Tf32MatmulArgs<'_>) {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    tensor_gemm::<f32>(args.a, args.bt, args.c, m, n, k)
}

/// Arguments of the one-tile kernels, which check the fragment layouts alone: `D = A B + C` for
/// one 16 x 8 tile, every matrix row-major: `A` 16 x K, `B^T` 8 x K (as words: BF16 pairs, or
/// f32 bits), `C` and `D` 16 x 8 f32.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct MmaTileArgs<'a> {
    /// `A`, 16 rows of 8 words.
    pub a: Slice<'a, u32>,
    /// `B^T`, 8 rows of 8 words.
    pub bt: Slice<'a, u32>,
    pub c: Slice<'a, f32>,
    /// Written.
    pub d: SliceMut<'a, f32>,
}

/// One warp, one tile: `D = A B + C` through [`Accumulator::mma_bf16`] (K = 16).
///
/// Launch: one block of 32 threads.
#[kernel]
pub fn mma_tile_bf16(args: MmaTileArgs<'_>) {
    mma_tile(args, |a, bt, c| {
        let a = Bf16A::load(|r, p| a.get(r * 8 + p));
        let b = Bf16B::load(|col, p| bt.get(col * 8 + p));
        // The launch is one warp, all of whose lanes get here.
        c.mma_bf16(a, b)
    })
}

/// One warp, one tile: `D = A B + C` through [`Accumulator::mma_tf32`] (K = 8), the f32 inputs
/// rounded by [`Tf32A::load`] and [`Tf32B::load`] (`cvt.rna`).
///
/// Launch: one block of 32 threads.
#[kernel]
pub fn mma_tile_tf32(args: MmaTileArgs<'_>) {
    mma_tile(args, |a, bt, c| {
        let a = Tf32A::load(|r, k| f32::from_bits(a.get(r * 8 + k)));
        let b = Tf32B::load(|col, k| f32::from_bits(bt.get(col * 8 + k)));
        // As in `mma_tile_bf16`.
        c.mma_tf32(a, b)
    })
}

/// Reads `C`, runs `multiply(a, bt, c)` and writes `D`, after checking the launch is one warp.
#[inline(always)]
fn mma_tile(args: MmaTileArgs<'_>, multiply: impl FnOnce(Slice<'_, u32>, Slice<'_, u32>, Accumulator) -> Accumulator) {
    if block_dim().x != 32 || block_dim().y != 1 || grid_dim().x != 1 {
        ferrocuda_device::global::bounds_failure()
    }
    let positions = Accumulator::positions();
    let mut c = Accumulator::default();
    // Spelled out, so the fragment stays in registers.
    unroll!(v in [0, 1, 2, 3] => {
        c.0[v] = args.c.get(positions[v].0 * 8 + positions[v].1);
    });
    let d = multiply(args.a, args.bt, c);
    unroll!(v in [0, 1, 2, 3] => {
        args.d.set(positions[v].0 * 8 + positions[v].1, d.0[v]);
    });
}
