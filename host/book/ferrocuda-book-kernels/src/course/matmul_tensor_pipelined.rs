//! Matrix multiply on the tensor cores with a multi-stage asynchronous-copy pipeline (issue 17):
//! the operands, layouts, tiling and numerical contract of [`super::matmul_tensor`], fed by
//! `cp.async` and `ldmatrix` instead of loads and stores through registers.
//!
//! Each block computes a 128 x 256 tile of `C` with 8 warps (2 x 4, each 64 x 64), stepping along
//! `k` by 16 words (32 BF16 or 16 TF32). [`STAGES`] shared buffers of the `A` and `B^T` tiles
//! form a ring: while the warps multiply the tiles of step `s`, the copies of steps `s + 1 ..
//! s + STAGES - 1` are in flight ([`memcpy_async4`], `cp.async`), and they cost no
//! registers, as loads into registers would. Each step has two halves of 8 words; the
//! fragments of a half are loaded (`ldmatrix`) while the previous half is multiplied. One
//! barrier per step, between its halves, after waiting for the copies of step `s + 1`: past it
//! those are visible to the block, and no thread reads the buffer of step `s - 1` any more (its
//! last fragments were loaded in the first half of step `s - 1`), which the copies of step
//! `s + STAGES - 1` overwrite in the next step.
//!
//! Fragments come from shared memory by `ldmatrix` ([`Bf16A::load_shared`],
//! [`Bf16B::load_shared_pair`], and the TF32 ones; TF32 words are rounded with `cvt.rna` in
//! shared memory by the thread that copied them, after its wait and before the barrier, exactly
//! as the other kernel rounds on its store): per half step, a warp
//! issues 8 of them for 32 `mma.sync`. Rows of the shared tiles are 16 words padded to 20
//! (80 bytes): the 8 rows of an `ldmatrix` block, and the 8 chunks a quarter-warp's copies
//! write (each lane copies chunk `lane / 8` of row `lane % 8` of its warp's 8 rows), lie at
//! 80-byte steps, in 8 distinct 16-byte bank groups, so neither side has bank conflicts.
//!
//! The kernels take whole tiles (`m` a multiple of 128, `n` of 256, `k` of 32 BF16 or 16 TF32)
//! and a grid inside `C`, and trap otherwise, as the other kernels; the host pads other sizes
//! with zeros. Having tested that once, the copies skip their own bound tests on the GPU
//! ([`memcpy_async4_unchecked`]; the simulator still makes them).
use super::matmul_tensor::{
    Bf16MatmulArgs, TENSOR_THREADS, TENSOR_TILE_M, TENSOR_TILE_N, Tf32MatmulArgs, WarpTile, store_warp_tile,
};
use ferrocuda_device::mma::{Accumulator, Bf16A, Bf16B, Tf32A, Tf32B, to_tf32};
use ferrocuda_device::pipeline::{memcpy_async4, memcpy_async4_unchecked, pipeline_commit, pipeline_wait_prior};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile2d;

/// Shared buffers in the ring: `STAGES - 1` steps of copies in flight while one is multiplied.
pub const STAGES: usize = 4;
/// Words of `k` per shared tile row: 32 BF16 or 16 TF32.
const TILE_WORDS: usize = 16;
/// Warps along `n`; the other 2 go along `m`.
const WARPS_N: usize = 4;
/// The `A` tile: 128 rows of 16 words, padded to 20.
type ATile<W> = Tile2d<W, TENSOR_TILE_M, TILE_WORDS, 4>;
/// The `B^T` tile: 256 rows of 16 words, padded to 20.
type BTile<W> = Tile2d<W, TENSOR_TILE_N, TILE_WORDS, 4>;
/// Shared memory of both kernels: [`STAGES`] buffers of the `A` and `B^T` tiles (120 KiB, past
/// the default 48: the launch opts in; one block per SM, as the registers allow anyway).
pub const PIPELINED_SHARED_BYTES: usize = STAGES * (ATile::<u32>::BYTES + BTile::<u32>::BYTES);
/// 16-byte chunks of the `A` tile each thread copies per step (of the `B^T` tile: twice as many).
const A_CHUNKS: usize = TENSOR_TILE_M * TILE_WORDS / 4 / TENSOR_THREADS as usize;

/// What differs between the two precisions: the fragments read from the shared tiles and the
/// multiply-accumulate. The words are copied to shared memory as they are.
trait PipelinedWords: Element4 {
    type A: Copy + Default;
    type B: Copy + Default;
    /// Whether the words are rounded in shared memory after they land ([`Self::to_shared`]).
    const ROUNDS: bool;
    /// A word as the fragments read it (TF32: rounded, once per element).
    fn to_shared(self) -> Self;
    /// The fragment of the 16-row tile of `A` at `row0`, words `words..words + 8` of `k`.
    ///
    /// # Safety
    /// Every lane of the warp calls it together.
    unsafe fn load_a(tile: &ATile<Self>, row0: usize, words: usize) -> Self::A;
    /// The fragments of the 16 columns of `B` at `col0` (rows of the `B^T` tile), same words.
    ///
    /// # Safety
    /// As `load_a`.
    unsafe fn load_b(tile: &BTile<Self>, col0: usize, words: usize) -> [Self::B; 2];
    /// `acc + a b`. Call from: every lane of the warp together.
    fn mma(acc: Accumulator, a: Self::A, b: Self::B) -> Accumulator;
}

impl PipelinedWords for u32 {
    type A = Bf16A;
    type B = Bf16B;
    const ROUNDS: bool = false;
    #[inline(always)]
    fn to_shared(self) -> Self {
        self
    }
    #[inline(always)]
    unsafe fn load_a(tile: &ATile<u32>, row0: usize, words: usize) -> Bf16A {
        // SAFETY: forwarded to the caller.
        unsafe { Bf16A::load_shared(tile, row0, words) }
    }
    #[inline(always)]
    unsafe fn load_b(tile: &BTile<u32>, col0: usize, words: usize) -> [Bf16B; 2] {
        // SAFETY: forwarded to the caller.
        unsafe { Bf16B::load_shared_pair(tile, col0, words) }
    }
    #[inline(always)]
    fn mma(acc: Accumulator, a: Bf16A, b: Bf16B) -> Accumulator {
        acc.mma_bf16(a, b)
    }
}

impl PipelinedWords for f32 {
    type A = Tf32A;
    type B = Tf32B;
    const ROUNDS: bool = true;
    #[inline(always)]
    fn to_shared(self) -> Self {
        f32::from_bits(to_tf32(self))
    }
    #[inline(always)]
    unsafe fn load_a(tile: &ATile<f32>, row0: usize, words: usize) -> Tf32A {
        // SAFETY: forwarded to the caller.
        unsafe { Tf32A::load_shared_rounded(tile, row0, words) }
    }
    #[inline(always)]
    unsafe fn load_b(tile: &BTile<f32>, col0: usize, words: usize) -> [Tf32B; 2] {
        // SAFETY: forwarded to the caller.
        unsafe { Tf32B::load_shared_pair_rounded(tile, col0, words) }
    }
    #[inline(always)]
    fn mma(acc: Accumulator, a: Tf32A, b: Tf32B) -> Accumulator {
        acc.mma_tf32(a, b)
    }
}

/// One warp's fragments for 8 words of `k`: 4 tiles of `A` (16 rows each) and 8 of `B` (8
/// columns each).
type Fragments<W> = ([<W as PipelinedWords>::A; 4], [<W as PipelinedWords>::B; 8]);

/// The shared body: `c = a bt^T` with `words_per_row` words per row of `a` and `bt`.
#[inline(always)]
fn pipelined_gemm<W: PipelinedWords>(
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
        || !a.is_aligned16()
        || !bt.is_aligned16()
        || (block_idx().y + 1) * TENSOR_TILE_M > m
        || (block_idx().x + 1) * TENSOR_TILE_N > n
    {
        ferrocuda_device::global::bounds_failure()
    }
    let tiles = |stage: usize| {
        let (a_bytes, b_bytes) = (ATile::<W>::BYTES, BTile::<W>::BYTES);
        // SAFETY: the launch provides PIPELINED_SHARED_BYTES: the STAGES A tiles, then the STAGES
        // B^T tiles; every offset is a multiple of 16 (the sizes are multiples of 20 * 4 * 16).
        unsafe {
            (
                ATile::<W>::dynamic_at(stage * a_bytes),
                BTile::<W>::dynamic_at(STAGES * a_bytes + stage * b_bytes),
            )
        }
    };
    let thread = thread_idx().x;
    let (warp, lane) = (thread / 32, thread % 32);
    let (warp_row, warp_col) = (64 * (warp / WARPS_N), 64 * (warp % WARPS_N));
    let (m0, n0) = (block_idx().y * TENSOR_TILE_M, block_idx().x * TENSOR_TILE_N);
    // The `s`-th 16-byte chunk this thread copies: (row, chunk of 4 words) of a tile. A warp
    // copies 8 whole rows; lane `l` takes chunk `l / 8` of row `l % 8` (module doc: banks).
    let chunk = |s: usize| {
        let rows8 = warp + s * (TENSOR_THREADS as usize / 32);
        (8 * rows8 + lane % 8, lane / 8)
    };
    const {
        assert!(
            A_CHUNKS == 2,
            "the unrolled copies move two chunks of A and four of B^T"
        )
    };
    // Starts the copies of step `step` into buffer `stage`.
    let fetch = |stage: usize, step: usize| {
        let (a_tile, b_tile) = tiles(stage);
        let quad0 = step * TILE_WORDS / 4;
        let row_quads = words_per_row / 4;
        // The tests at the top make every chunk below whole and in bounds: the block has 8 warps,
        // so `row` < 128 for A (s < 2) and < 256 for B^T (s < 4), `quad` < 4; the block's tile
        // lies inside `C`, so `m0 + row` < m (`n0 + row` < n), and `quad0 + quad` < `row_quads`;
        // both views are 16-byte aligned.
        unroll!(s in [0, 1] => {
            let (row, quad) = chunk(s);
            // SAFETY: in bounds and aligned (above).
            unsafe { memcpy_async4_unchecked(&a_tile, row, quad, &a, (m0 + row) * row_quads + quad0 + quad) };
        });
        unroll!(s in [0, 1, 2, 3] => {
            let (row, quad) = chunk(s);
            // SAFETY: as above.
            unsafe { memcpy_async4_unchecked(&b_tile, row, quad, &bt, (n0 + row) * row_quads + quad0 + quad) };
        });
    };
    // TF32: rounds in place the chunks this thread copied into buffer `stage`, once they have
    // landed (its own copies: no other thread's wait is needed), before the barrier that shows
    // them to the block. Each element is rounded once, not once per warp that loads it.
    let round = |stage: usize| {
        if W::ROUNDS {
            let (a_tile, b_tile) = tiles(stage);
            unroll!(s in [0, 1] => {
                let (row, quad) = chunk(s);
                a_tile.set4(row, quad, a_tile.get4(row, quad).map(W::to_shared));
            });
            unroll!(s in [0, 1, 2, 3] => {
                let (row, quad) = chunk(s);
                b_tile.set4(row, quad, b_tile.get4(row, quad).map(W::to_shared));
            });
        }
    };
    // The fragments of one half of a step (8 words of `k`) of buffer `stage`.
    let load = |stage: usize, half: usize| -> Fragments<W> {
        let (a_tile, b_tile) = tiles(stage);
        let mut fragments: Fragments<W> = Default::default();
        unroll!(i in [0, 1, 2, 3] => {
            // SAFETY: every lane of every warp runs the same loop.
            fragments.0[i] = unsafe { W::load_a(&a_tile, warp_row + 16 * i, 8 * half) };
        });
        unroll!(j in [0, 1, 2, 3] => {
            // SAFETY: as above.
            let [even, odd] = unsafe { W::load_b(&b_tile, warp_col + 16 * j, 8 * half) };
            (fragments.1[2 * j], fragments.1[2 * j + 1]) = (even, odd);
        });
        fragments
    };
    // Spelled out (`unroll!`), so the accumulators stay in registers.
    let multiply = |acc: &mut WarpTile, (a_frags, b_frags): &Fragments<W>| {
        unroll!(i in [0, 1, 2, 3] => {
            unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] => {
                // Every lane of every warp runs the same loop.
                acc[i][j] = W::mma(acc[i][j], a_frags[i], b_frags[j]);
            });
        });
    };
    let steps = words_per_row / TILE_WORDS;
    for stage in 0..STAGES - 1 {
        if stage < steps {
            fetch(stage, stage);
        }
        // One group per stage, empty or not, so the waits below always count STAGES - 2.
        pipeline_commit();
    }
    let mut acc: WarpTile = [[Accumulator::default(); 8]; 4];
    pipeline_wait_prior::<{ STAGES as u32 - 2 }>();
    if steps > 0 {
        round(0);
    }
    // Every thread of the block reaches each barrier (uniform control flow).
    sync_threads();
    // The fragments are loaded one half-step ahead of the multiplies that use them, so the
    // `ldmatrix` latency hides behind 32 `mma.sync`.
    let mut first = load(0, 0);
    for step in 0..steps {
        let stage = step % STAGES;
        let second = load(stage, 1);
        // The buffer of step - 1 is free: its last reads (the line above, one step ago) came
        // before the barrier below, one step ago.
        let ahead = step + STAGES - 1;
        if ahead < steps {
            fetch(ahead % STAGES, ahead);
        }
        pipeline_commit();
        multiply(&mut acc, &first);
        // The group of step + 1 has landed once at most the STAGES - 2 after it are in flight;
        // the barrier makes every thread's copies visible to the block.
        pipeline_wait_prior::<{ STAGES as u32 - 2 }>();
        if step + 1 < steps {
            round((step + 1) % STAGES);
        }
        // As above.
        sync_threads();
        if step + 1 < steps {
            first = load((step + 1) % STAGES, 0);
        }
        multiply(&mut acc, &second);
    }
    store_warp_tile(&c, &acc, m0 + warp_row, n0 + warp_col, n);
}

/// `C = A B` from BF16 operands on the tensor cores, f32 accumulation, through a
/// [`STAGES`]-stage `cp.async` pipeline.
///
/// Launch: [`TENSOR_THREADS`] threads, a grid of `(n / 256, m / 128)`,
/// [`PIPELINED_SHARED_BYTES`].
#[kernel]
pub fn matmul_bf16_mma_pipelined(args: Bf16MatmulArgs<'_>) {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    pipelined_gemm::<u32>(args.a, args.bt, args.c, m, n, k / 2)
}

/// `C = A B` from f32 operands rounded to TF32 on the tensor cores, f32 accumulation, through a
/// [`STAGES`]-stage `cp.async` pipeline.
///
/// Launch: as [`matmul_bf16_mma_pipelined`].
#[kernel]
pub fn matmul_tf32_mma_pipelined(args: Tf32MatmulArgs<'_>) {
    let (m, n, k) = (args.m as usize, args.n as usize, args.k as usize);
    pipelined_gemm::<f32>(args.a, args.bt, args.c, m, n, k)
}

/// Arguments of [`fragment_probe`]: a 16 x 8-word tile in, every lane's fragments out.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FragmentProbeArgs<'a> {
    /// The tile: 16 rows of 8 words, row-major.
    pub tile: Slice<'a, u32>,
    /// Written: lane `l`'s 16 words at `16 l ..`: its [`Bf16A`] fragment of the tile, its two
    /// [`Bf16B`] fragments (the tile's rows as 16 columns of `B`), then the same three as
    /// [`Tf32A`] and [`Tf32B`] (each word rounded to TF32).
    pub out: SliceMut<'a, u32>,
}

/// The probe's shared tile: 16 rows of 8 words padded to 12 (48-byte rows, 16-byte aligned).
type ProbeTile<W> = Tile2d<W, 16, 8, 4>;

/// One warp: copies a 16 x 8-word tile into shared memory with `cp.async` (lane `l` copies
/// chunk `l % 2` of row `l / 2`), then reads every `ldmatrix` fragment loader of the device
/// library from it, so a test can check each word of each fragment against the `mma` layout.
///
/// Launch: one block of 32 threads, [`PROBE_SHARED_BYTES`].
#[kernel]
pub fn fragment_probe(args: FragmentProbeArgs<'_>) {
    if block_dim().x != 32 || grid_dim().x != 1 {
        ferrocuda_device::global::bounds_failure()
    }
    let lane = thread_idx().x;
    // SAFETY: the launch provides PROBE_SHARED_BYTES; the two views name the same bytes, which
    // only the checked shared-memory operations touch (the f32 view reads what the copy wrote).
    let (words, floats) = unsafe { (ProbeTile::<u32>::dynamic(), ProbeTile::<f32>::dynamic()) };
    memcpy_async4(&words, lane / 2, lane % 2, &args.tile, lane);
    pipeline_commit();
    pipeline_wait_prior::<0>();
    // The one warp reaches the barrier together.
    sync_threads();
    // SAFETY: every lane of the one warp runs these together.
    let (a, [b0, b1], ta, [tb0, tb1]) = unsafe {
        (
            Bf16A::load_shared(&words, 0, 0),
            Bf16B::load_shared_pair(&words, 0, 0),
            Tf32A::load_shared(&floats, 0, 0),
            Tf32B::load_shared_pair(&floats, 0, 0),
        )
    };
    let got = [
        a.0[0], a.0[1], a.0[2], a.0[3], b0.0[0], b0.0[1], b1.0[0], b1.0[1], ta.0[0], ta.0[1], ta.0[2], ta.0[3],
        tb0.0[0], tb0.0[1], tb1.0[0], tb1.0[1],
    ];
    for (i, word) in got.into_iter().enumerate() {
        args.out.set(16 * lane + i, word);
    }
}

/// Shared memory of [`fragment_probe`].
pub const PROBE_SHARED_BYTES: usize = ProbeTile::<u32>::BYTES;
