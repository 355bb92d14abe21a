//! Histograms with atomics (IT4I course, lecture "Histogram", after Kirk & Hwu's PMPP): the text
//! histogram of letters in 7 bins of 4 (`histo_kernel`: interleaved loop, global `atomicAdd`;
//! `histo_privatized_kernel`: a shared `histo_private` per block, one global `atomicAdd` per bin),
//! and the same two designs over 256 bins of bytes for the performance comparison.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;
use ferrocuda_device::warp::WARP_SIZE;

/// Letter bins: a-d, e-h, i-l, m-p, q-t, u-x, y-z.
pub const LETTER_BINS: usize = 7;
/// Byte bins: one per value.
pub const BYTE_BINS: usize = 256;

/// Arguments of every histogram kernel: `histo[bin] += count of buffer's bytes in bin` (the host
/// zeroes `histo`, of [`LETTER_BINS`] or [`BYTE_BINS`] counters, first).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct HistoArgs<'a> {
    pub buffer: Slice<'a, u8>,
    pub histo: SliceMut<'a, u32>,
}

/// The letter bin of byte `c`: `(c - 'a') / 4` for `a..=z`; `None` for every other byte (the
/// course's `alphabet_position >= 0 && alphabet_position < 26`).
#[inline(always)]
pub fn letter_bin(c: u8) -> Option<usize> {
    let alphabet_position = c.wrapping_sub(b'a');
    (alphabet_position < 26).then_some(alphabet_position as usize / 4)
}

/// The course's `histo_kernel`: each thread takes bytes `i, i + blockDim*gridDim, ...`
/// (interleaved, so a warp reads consecutive bytes) and adds each letter to its bin in global
/// memory with `atomicAdd`.
///
/// Launch: any 1-D grid; `histo` holds [`LETTER_BINS`] counters.
#[kernel]
pub fn histo_kernel(args: HistoArgs<'_>) {
    for i in grid_stride_range(args.buffer.len()) {
        if let Some(bin) = letter_bin(args.buffer.get(i)) {
            args.histo.atomic_add_no_return(bin, 1);
        }
    }
}

/// Shared memory of [`histo_privatized_kernel`]: `histo_private[7]`.
pub const LETTER_SHARED_BYTES: usize = Tile1d::<u32>::bytes(LETTER_BINS);

/// The course's privatized kernel: the block counts into a shared `histo_private[7]` with shared
/// atomics, then adds each bin to global memory once.
///
/// Launch: any 1-D grid, [`LETTER_SHARED_BYTES`] of shared memory.
#[kernel]
pub fn histo_privatized_kernel(args: HistoArgs<'_>) {
    // SAFETY: the launch provides `LETTER_SHARED_BYTES` (host driver).
    let histo_private = unsafe { Tile1d::<u32>::dynamic(LETTER_BINS) };
    let (t, threads) = (thread_idx_x(), block_dim().x);
    for bin in (t..LETTER_BINS).step_by(threads) {
        histo_private.set(bin, 0);
    }
    // Every thread of the block reaches both barriers.
    sync_threads();
    for i in grid_stride_range(args.buffer.len()) {
        if let Some(bin) = letter_bin(args.buffer.get(i)) {
            histo_private.atomic_add_shared(bin, 1);
        }
    }
    // As above.
    sync_threads();
    for bin in (t..LETTER_BINS).step_by(threads) {
        args.histo.atomic_add_no_return(bin, histo_private.get(bin));
    }
}

/// `histo_kernel` over 256 bins of bytes: one global `atomicAdd` per byte (reply-free, as nvcc
/// emits it), so bytes of one value queue at one L2 address.
///
/// Launch: any 1-D grid; `histo` holds [`BYTE_BINS`] counters.
#[kernel]
pub fn histo256_naive(args: HistoArgs<'_>) {
    for i in grid_stride_range(args.buffer.len()) {
        args.histo.atomic_add_no_return(args.buffer.get(i) as usize, 1);
    }
}

/// Shared memory of [`histo256_privatized`] for blocks of `threads`: one 256-bin copy per warp.
pub const fn histo256_shared_bytes(threads: usize) -> usize {
    Tile1d::<u32>::bytes(threads.div_ceil(WARP_SIZE) * BYTE_BINS)
}

/// A run of equal bytes a thread has seen and not yet added: `(bin, count)`.
#[derive(Clone, Copy)]
struct Run {
    bin: u32,
    count: u32,
}

impl Run {
    /// Counts `byte`: extends the run, or adds the finished run to the warp's copy at `base`
    /// with one shared atomic and starts a new one.
    #[inline(always)]
    fn push(&mut self, byte: u32, private: &Tile1d<u32>, base: usize) {
        if byte == self.bin {
            self.count += 1;
        } else {
            self.flush(private, base);
            *self = Run { bin: byte, count: 1 };
        }
    }

    /// Counts the four bytes of `word`, lowest first.
    #[inline(always)]
    fn push_word(&mut self, word: u32, private: &Tile1d<u32>, base: usize) {
        for k in 0..4 {
            self.push((word >> (8 * k)) & 0xff, private, base);
        }
    }

    /// Adds the pending run, if any.
    #[inline(always)]
    fn flush(&self, private: &Tile1d<u32>, base: usize) {
        if self.count > 0 {
            private.atomic_add_shared(base + self.bin as usize, self.count);
        }
    }
}

/// Privatized 256-bin histogram, tuned: one private copy per warp in shared memory (warps never
/// contend for a bin), a grid-stride loop over 16-byte loads (4 words, 16 bytes per thread per
/// step), runs of equal bytes within a thread's bytes added as one shared atomic (skewed data has
/// long runs), then the warps' copies summed and each non-zero bin added to global memory once.
///
/// Launch: a grid sized to fill the SMs (any grid is correct), [`histo256_shared_bytes`] of
/// shared memory; `histo` holds [`BYTE_BINS`] counters.
#[kernel]
pub fn histo256_privatized(args: HistoArgs<'_>) {
    let (t, threads) = (thread_idx_x(), block_dim().x);
    let copies = threads.div_ceil(WARP_SIZE);
    // SAFETY: the launch provides `histo256_shared_bytes(blockDim.x)` (host driver).
    let private = unsafe { Tile1d::<u32>::dynamic(copies * BYTE_BINS) };
    for at in (t..copies * BYTE_BINS).step_by(threads) {
        private.set(at, 0);
    }
    // Every thread of the block reaches both barriers.
    sync_threads();
    let base = t / WARP_SIZE * BYTE_BINS;
    let mut run = Run { bin: 0, count: 0 };
    let mut counted = 0;
    if let Some(words) = args.buffer.words()
        && words.is_aligned16()
    {
        let chunks = words.len() / 4;
        for chunk in grid_stride_range(chunks) {
            // Constant indices keep the four words in registers (a loop over the array would
            // spill it to local memory).
            let w = words.get4(chunk);
            run.push_word(w[0], &private, base);
            run.push_word(w[1], &private, base);
            run.push_word(w[2], &private, base);
            run.push_word(w[3], &private, base);
        }
        counted = 16 * chunks;
    }
    for i in (counted + global_idx_x()..args.buffer.len()).step_by(grid_size_x()) {
        run.push(u32::from(args.buffer.get(i)), &private, base);
    }
    run.flush(&private, base);
    // As above.
    sync_threads();
    add_copies(&private, copies, BYTE_BINS, &args.histo);
}

/// The block's last step (after its barrier): sums bin `b` of the `copies` private copies,
/// `stride` counters apart in `private`, and adds each non-zero total to `histo[b]` with one
/// global atomic. Thread `t` takes bins `t, t + blockDim.x, ..`.
#[inline(always)]
pub(crate) fn add_copies(private: &Tile1d<u32>, copies: usize, stride: usize, histo: &SliceMut<'_, u32>) {
    for bin in (thread_idx_x()..BYTE_BINS).step_by(block_dim().x) {
        let mut total = 0;
        for copy in 0..copies {
            total += private.get(copy * stride + bin);
        }
        if total > 0 {
            histo.atomic_add_no_return(bin, total);
        }
    }
}
