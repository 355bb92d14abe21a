//! Throughput designs of the 256-bin byte histogram, beside the course's in `histogram`: the
//! profiler found `histo256_privatized` bound by instructions on uniform bytes (a run test, a
//! divergent branch and a shared atomic per byte), so these two designs count with fewer.
//!
//! - [`histo256_packed`]: each thread counts into its own 256 8-bit counters in shared memory,
//!   laid out so that a warp's 32 accesses always fall in 32 banks whatever the bytes: a plain
//!   load, add and store per byte, no atomic and no branch. Before any counter can wrap, the
//!   warp folds its counters into 32-bit totals held in registers. Its speed does not depend on
//!   the data.
//! - The library's `histogram_bytes` (`ferrocuda::histogram::bytes`, the course's
//!   `histo256_warp_atomic` design): four copies of the 256 bins per warp, one shared atomic per
//!   byte and no run test: fewer instructions per byte, but lanes whose bytes fall in one bank
//!   wait for each other, and on skewed data lanes queue on one address.
use super::histogram::{BYTE_BINS, HistoArgs};
use ferrocuda_device::global::bounds_failure;
use ferrocuda_device::math::byte_perm;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;
use ferrocuda_device::warp::{FULL_MASK, WARP_SIZE, lane_id, sync_warp};

/// 16-byte chunks a thread counts between two folds of its 8-bit counters: 15 x 16 = 240 bytes,
/// so no counter passes 255 (the fold comes before the 256th byte could wrap one). A multiple of
/// the main loop's three chunks a step.
const FOLD_CHUNKS: usize = 15;
/// Bytes a thread counts between two folds when it reads byte by byte: a counter holds 255.
const FOLD_BYTES: usize = 255;

/// Shared memory of [`histo256_packed`] for blocks of `threads` (a multiple of 32): 256 one-byte
/// counters per thread, then the block's 256 totals.
pub const fn histo256_packed_shared_bytes(threads: usize) -> usize {
    threads * BYTE_BINS + Tile1d::<u32>::bytes(BYTE_BINS)
}

/// One thread's 256 8-bit counters and its lane's share of the warp's 32-bit totals.
///
/// Counter `b` of thread `t` is byte `b % 4` of word `(b / 4) * threads + t`: word `w` of every
/// thread forms one row, so the 32 lanes of a warp touch 32 consecutive words, one per bank,
/// whatever bytes they count. A counter is a byte of its own (`ld/st.shared.u8`), so one that
/// wraps cannot carry into its neighbour; the fold keeps any from wrapping.
struct Packed {
    /// The counters, by byte.
    bytes: Tile1d<u8>,
    /// The same counters, four words at a time, for the fold.
    quads: Tile1d<Quad>,
    /// Words per row: the block's threads.
    stride: u32,
    /// This thread's byte offset in a row: `4 * t`.
    column: u32,
    /// This thread's lane.
    lane: u32,
    /// The word of lane 0's counter in row 0: `32 * warp`.
    warp_column: u32,
    /// The warp's totals of bins `4 * lane + k` (`low[k]`) and `4 * (lane + 32) + k` (`high[k]`).
    low: [u32; 4],
    high: [u32; 4],
}

impl Packed {
    /// The counters of thread `t` of a block of `threads`, zeroed.
    ///
    /// # Safety
    /// The launch provides `threads * BYTE_BINS` bytes of dynamic shared memory at its start, and
    /// `threads` is a multiple of 32.
    #[inline(always)]
    unsafe fn new(t: u32, threads: u32) -> Self {
        let bytes = threads as usize * BYTE_BINS;
        // SAFETY: the caller's contract; the three tiles are views of the same counters, and
        // each access below goes through one of them at a time between warp barriers.
        let (counters, words, quads) = unsafe {
            (
                Tile1d::<u8>::dynamic(bytes),
                Tile1d::<u32>::dynamic(bytes / 4),
                Tile1d::<Quad>::dynamic(bytes / 16),
            )
        };
        for row in 0..BYTE_BINS as u32 / 4 {
            // SAFETY: `row * threads + t < 64 * threads`, the counters' words.
            unsafe { words.set_unchecked((row * threads + t) as usize, 0) };
        }
        Self {
            bytes: counters,
            quads,
            stride: threads,
            column: 4 * t,
            lane: lane_id() as u32,
            warp_column: t & !(WARP_SIZE as u32 - 1),
            low: [0; 4],
            high: [0; 4],
        }
    }

    /// Counts byte `b` (bits 0..8 of `y`; higher bits are ignored): load, add, store its
    /// counter at `(b & 0xfc) * threads + (4 t | b & 3)`.
    #[inline(always)]
    fn count(&self, y: u32) {
        let at = ((y & 0xfc) * self.stride + ((y & 3) | self.column)) as usize;
        // SAFETY: `at < 252 * threads + 4 * threads`, inside the counters (constructor contract).
        unsafe {
            let counter = self.bytes.get_unchecked(at);
            self.bytes.set_unchecked(at, counter.wrapping_add(1));
        }
    }

    /// Counts the four bytes of `word`. Bytes 1 to 3 come out through `prmt` (one instruction
    /// each): as `word >> 8k`, LLVM folds the `& 3` above into a bit-field extract, which ptxas
    /// expands into two instructions.
    #[inline(always)]
    fn count_word(&self, word: u32) {
        self.count(word);
        self.count(byte_perm(word, 0, 0x4441));
        self.count(byte_perm(word, 0, 0x4442));
        self.count(byte_perm(word, 0, 0x4443));
    }

    /// Counts the 16 bytes of a chunk.
    #[inline(always)]
    fn count_chunk(&self, w: [u32; 4]) {
        // Constant indices keep the four words in registers.
        self.count_word(w[0]);
        self.count_word(w[1]);
        self.count_word(w[2]);
        self.count_word(w[3]);
    }

    /// Sums row `row` over the warp's 32 columns and zeroes it: the counters of bins `4 row`
    /// and `4 row + 2` in the halves of the first result, of `4 row + 1` and `4 row + 3` in the
    /// second (32 x 255 fits 16 bits). The lane reads four columns per 16-byte access; lane `l`
    /// reads columns `4 (l ^ j) .. +4` at step `j`, so each quarter-warp's eight accesses
    /// cover the 32 banks.
    #[inline(always)]
    fn fold_row(&self, row: u32) -> (u32, u32) {
        // In quads: the row starts at a multiple of 8 quads (threads is a multiple of 32).
        let start = (row * self.stride + self.warp_column) / 4;
        let (mut even, mut odd) = (0, 0);
        for j in 0..8 {
            let at = (start | ((self.lane ^ j) & 7)) as usize;
            // SAFETY: `start` is a multiple of 8 and `(lane ^ j) & 7 < 8`: four counter words
            // of this warp in row `row < 64`.
            let Quad(words) = unsafe { self.quads.get_unchecked(at) };
            // SAFETY: as above.
            unsafe { self.quads.set_unchecked(at, Quad([0; 4])) };
            // Indices, not an iterator over the array: that left the words in local memory
            // (and this order takes the fewest registers, 89).
            #[allow(clippy::needless_range_loop)]
            for k in 0..4 {
                even += words[k] & 0x00ff_00ff;
                odd += byte_perm(words[k], 0, 0x4341);
            }
        }
        (even, odd)
    }

    /// Adds the warp's counters to its totals and zeroes them: lane `l` folds rows `l` and
    /// `l + 32`.
    ///
    /// Call from: every lane of the warp together (whole warps: the launch's contract).
    #[inline(always)]
    fn fold(&mut self) {
        // Every lane of the (whole) warp calls `fold` at the same point of the kernel.
        sync_warp(FULL_MASK);
        let (even, odd) = self.fold_row(self.lane);
        add_pairs(&mut self.low, even, odd);
        let (even, odd) = self.fold_row(self.lane + WARP_SIZE as u32);
        add_pairs(&mut self.high, even, odd);
        // As above; the lanes resume counting into words that others have just zeroed.
        sync_warp(FULL_MASK);
    }
}

/// Four counter words in one 16-byte shared access (`ld/st.shared.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([u32; 4]);

/// Adds the 16-bit halves of `even` (bins 0 and 2 of a row) and `odd` (bins 1 and 3) to `totals`.
#[inline(always)]
fn add_pairs(totals: &mut [u32; 4], even: u32, odd: u32) {
    totals[0] += even & 0xffff;
    totals[1] += odd & 0xffff;
    totals[2] += even >> 16;
    totals[3] += odd >> 16;
}

/// Privatized 256-bin histogram with per-thread 8-bit counters: no atomic in the counting loop.
///
/// Each thread counts 16-byte chunks (grid-stride) into its own counters (`Packed`): per byte
/// an extract, an address, a shared load, an add and a shared store. Every 240 bytes the warp
/// folds its counters into 32-bit totals in registers; at the end the warps add their totals
/// into the block's 256 shared bins, and the block adds each non-zero bin to global memory once.
///
/// Launch: blocks of whole warps (it traps otherwise), any grid (one that fills the SMs once is
/// fastest), [`histo256_packed_shared_bytes`] of shared memory; `histo` holds [`BYTE_BINS`]
/// counters.
#[kernel]
pub fn histo256_packed(args: HistoArgs<'_>) {
    let (t, threads) = (thread_idx_x() as u32, block_dim().x as u32);
    if !threads.is_multiple_of(WARP_SIZE as u32) {
        bounds_failure()
    }
    // SAFETY: the launch provides `histo256_packed_shared_bytes(threads)` (host driver), and
    // `threads` is a multiple of 32 (tested above).
    let mut packed = unsafe { Packed::new(t, threads) };
    // SAFETY: as above: the block's totals follow the counters.
    let block = unsafe { Tile1d::<u32>::dynamic_at(threads as usize * BYTE_BINS, BYTE_BINS) };
    for bin in (t as usize..BYTE_BINS).step_by(threads as usize) {
        block.set(bin, 0);
    }
    let (gid, grid) = (global_idx_x(), grid_size_x());
    let mut counted = 0;
    if let Some(words) = args.buffer.words()
        && words.is_aligned16()
    {
        let chunks = words.len() / 4;
        // Rounds in which every thread of the grid has a chunk: the same for all, so each
        // warp folds at the same points.
        let rounds = chunks / grid;
        let mut round = 0;
        while round < rounds {
            let end = rounds.min(round + FOLD_CHUNKS);
            let mut chunk = round * grid + gid;
            // Three chunks a step: their loads all in flight before the counting, and the
            // loop's own instructions spread over 48 bytes.
            for _ in 0..(end - round) / 3 {
                let (a, b, c) = (
                    words.get4(chunk),
                    words.get4(chunk + grid),
                    words.get4(chunk + 2 * grid),
                );
                packed.count_chunk(a);
                packed.count_chunk(b);
                packed.count_chunk(c);
                chunk += 3 * grid;
            }
            for _ in 0..(end - round) % 3 {
                packed.count_chunk(words.get4(chunk));
                chunk += grid;
            }
            packed.fold();
            round = end;
        }
        let last = rounds * grid + gid;
        if last < chunks {
            packed.count_chunk(words.get4(last));
        }
        packed.fold();
        counted = 16 * chunks;
    }
    // The bytes after the last whole chunk (fewer than 16), or all of an unaligned view.
    let rounds = (args.buffer.len() - counted).div_ceil(grid);
    for round in 0..rounds {
        let i = counted + round * grid + gid;
        if i < args.buffer.len() {
            packed.count(u32::from(args.buffer.get(i)));
        }
        if (round + 1) % FOLD_BYTES == 0 {
            packed.fold();
        }
    }
    packed.fold();
    // Every thread of the block reaches both barriers.
    sync_threads();
    let lane = packed.lane as usize;
    for k in 0..4 {
        block.atomic_add_shared(4 * lane + k, packed.low[k]);
        block.atomic_add_shared(4 * (lane + WARP_SIZE) + k, packed.high[k]);
    }
    // As above.
    sync_threads();
    for bin in (t as usize..BYTE_BINS).step_by(threads as usize) {
        let total = block.get(bin);
        if total > 0 {
            args.histo.atomic_add_no_return(bin, total);
        }
    }
}
