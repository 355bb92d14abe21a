//! One block transforms `rows_per_block` rows of `n` elements in shared memory (Stockham
//! autosort, radix 8 with one radix-4 or radix-2 pass where `log2 n` is not a multiple of 3).
//!
//! Phases, each closed by a barrier: the block's rows are loaded from global memory into shared
//! memory (coalesced for the input's [`RowLayout`]); each pass reads eight elements per thread
//! into registers, applies the twiddles and the butterflies, and stores them in the pass's
//! Stockham order; the rows are stored back (coalesced for the output's layout), multiplied by
//! the four-step twiddles where asked.
use super::{ELEMENTS_PER_THREAD, RowLayout, row_pitch};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Arguments of [`fft_rows`]: `rows` rows of `n` (a power of two, at most
/// [`super::MAX_BLOCK_N`]) from `input` to `output`, which may be one buffer when the two
/// layouts are equal (each block reads all of its rows before it writes any).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FftRowsArgs<'a, T: ComplexScalar> {
    pub input: Slice<'a, Complex<T>>,
    pub output: SliceMut<'a, Complex<T>>,
    /// `exp(-2 pi i m / n)` for `m` in `0..n`.
    pub twiddles: Slice<'a, Complex<T>>,
    /// Four-step twiddles `exp(-2 pi i m / N)`, as `low[m % low.len()] * high[m / low.len()]`
    /// (`low.len()` a power of two); unused when `step_rows` is 0.
    pub step_low: Slice<'a, Complex<T>>,
    pub step_high: Slice<'a, Complex<T>>,
    pub input_layout: RowLayout,
    pub output_layout: RowLayout,
    /// `log2` of the row length.
    pub log2_n: u32,
    /// `log2` of the rows each block transforms.
    pub log2_rows_per_block: u32,
    /// Rows in all.
    pub rows: u32,
    /// 1: the inverse transform (`+` sign); 0: the forward one.
    pub inverse: u32,
    /// Non-zero: output element `k` of row `g` is multiplied by the four-step twiddle of
    /// exponent `(g % step_rows) * k`.
    pub step_rows: u32,
    /// `log2(step_low.len())`.
    pub step_log2_low: u32,
}

/// Elements each thread holds: eight, or the whole row when it is shorter.
pub const fn elements_per_thread(n: u32) -> u32 {
    if n < ELEMENTS_PER_THREAD {
        n
    } else {
        ELEMENTS_PER_THREAD
    }
}

/// Threads that transform one row of `n`.
pub const fn threads_per_row(n: u32) -> u32 {
    n / elements_per_thread(n)
}

/// Shared memory of one [`fft_rows`] launch, bytes.
pub const fn shared_bytes(n: u32, rows_per_block: u32, complex_bytes: usize) -> usize {
    rows_per_block as usize * row_pitch(n as usize) * complex_bytes
}

/// Transforms each of `args.rows` rows (see [`FftRowsArgs`]).
///
/// Launch: `threads_per_row(n) << log2_rows_per_block` threads per block, one block per
/// `1 << log2_rows_per_block` rows, [`shared_bytes`] of dynamic shared memory.
#[kernel(f32, f64)]
pub fn fft_rows<T: ComplexScalar>(args: FftRowsArgs<'_, T>) {
    let n = 1usize << args.log2_n;
    match n {
        1 => transform::<T, 1>(&args),
        2 => transform::<T, 2>(&args),
        4 => transform::<T, 4>(&args),
        _ => transform::<T, 8>(&args),
    }
}

/// The whole block's work with `E` elements per thread.
///
/// Shared-memory indices are `u32` (a block's tile is far below 2^32 elements): 32-bit
/// arithmetic takes half the registers of 64-bit; only global offsets are `usize`.
#[inline(always)]
fn transform<T: ComplexScalar, const E: usize>(args: &FftRowsArgs<'_, T>) {
    let e = E as u32;
    let n = 1u32 << args.log2_n;
    let rows_per_block = 1u32 << args.log2_rows_per_block;
    let threads_per_row = n / e;
    let threads = threads_per_row * rows_per_block;
    let pitch = row_pitch(n as usize) as u32;
    // SAFETY: the launch provides `shared_bytes(n, rows_per_block, size)` bytes (host driver),
    // the only tile of the kernel.
    let tile = unsafe { Tile1d::<Complex<T>>::dynamic((rows_per_block * pitch) as usize) };
    let tid = thread_idx_x() as u32;
    let first_row = block_idx().x as u32 * rows_per_block;
    let inverse = args.inverse != 0;

    // Global to shared, in two phases so that all `E` loads of a thread are in flight together:
    // a shared store right after each load would wait for it, leaving one load in flight per
    // thread (a few KB per SM, far from the ~40 KB that saturate HBM). The loads are
    // unconditional so that none is sunk next to its store: rows past the end read the last row
    // again (clamped, always in the buffer: a block exists only where `args.rows > 0`). Rows are
    // transformed independently and those rows are never stored, so their values do not matter;
    // every pass still reads written memory.
    let layout = args.input_layout;
    let last_row = args.rows.saturating_sub(1);
    let mut loaded = [Complex::<T>::zero(); 8];
    unroll!(c in [0, 1, 2, 3, 4, 5, 6, 7] => {
        if c < E {
            let (row, i) = tile_position(tid + c as u32 * threads, args.log2_n, args.log2_rows_per_block, &layout);
            let g = (first_row + row).min(last_row);
            let x = args.input.get(layout.row_offset(g) + i as usize * layout.element_stride);
            loaded[c] = if inverse { x.conj() } else { x };
        }
    });
    unroll!(c in [0, 1, 2, 3, 4, 5, 6, 7] => {
        if c < E {
            let (row, i) = tile_position(tid + c as u32 * threads, args.log2_n, args.log2_rows_per_block, &layout);
            tile.set((row * pitch + padded32(i)) as usize, loaded[c]);
        }
    });
    // Every thread of the block reaches every barrier of the kernel: no thread returns
    // early, and the pass loop's bounds are the same for all.
    sync_threads();

    // Row lengths and thread counts are powers of two: shifts and masks, no division.
    let log2_per_row = args.log2_n - E.trailing_zeros();
    let base = (tid >> log2_per_row) * pitch;
    let t = tid & (threads_per_row - 1);
    let mut log2_span = 0;
    while log2_span < args.log2_n {
        let left = args.log2_n - log2_span;
        let step = Pass {
            base,
            t,
            log2_per_row,
            log2_n: args.log2_n,
            log2_span,
        };
        match left {
            1 => pass::<T, 2, E>(&tile, step, args.twiddles),
            2 => pass::<T, 4, E>(&tile, step, args.twiddles),
            _ => pass::<T, 8, E>(&tile, step, args.twiddles),
        }
        log2_span += left.min(3);
    }

    // Shared to global.
    let layout = args.output_layout;
    for c in 0..e {
        let (row, i) = tile_position(tid + c * threads, args.log2_n, args.log2_rows_per_block, &layout);
        let g = first_row + row;
        if g < args.rows {
            let mut x = tile.get((row * pitch + padded32(i)) as usize);
            if args.step_rows != 0 {
                x = x * step_twiddle(args, (g % args.step_rows.max(1)) as usize * i as usize);
            }
            args.output.set(
                layout.row_offset(g) + i as usize * layout.element_stride,
                if inverse { x.conj() } else { x },
            );
        }
    }
}

/// [`padded_index`] in 32 bits.
#[inline(always)]
fn padded32(i: u32) -> u32 {
    i + (i >> 5)
}

/// The (row in the block, element) that the block's `linear`-th load or store moves: along rows
/// when the layout's rows are neighbours in memory, along the row otherwise.
#[inline(always)]
fn tile_position(linear: u32, log2_n: u32, log2_rows: u32, layout: &RowLayout) -> (u32, u32) {
    if layout.lanes_along_rows != 0 {
        (linear & ((1 << log2_rows) - 1), linear >> log2_rows)
    } else {
        (linear >> log2_n, linear & ((1 << log2_n) - 1))
    }
}

/// `exp(-2 pi i m / N)` from the two four-step tables.
#[inline(always)]
fn step_twiddle<T: ComplexScalar>(args: &FftRowsArgs<'_, T>, m: usize) -> Complex<T> {
    let low = m & ((1 << args.step_log2_low) - 1);
    args.step_low.get_nc(low) * args.step_high.get_nc(m >> args.step_log2_low)
}

/// Where one thread works in one pass.
#[derive(Clone, Copy)]
struct Pass {
    /// The first shared-memory slot of the thread's row.
    base: u32,
    /// The thread's index in its row.
    t: u32,
    log2_per_row: u32,
    log2_n: u32,
    /// `log2` of the length of the transforms done so far (Stockham's `Ns`).
    log2_span: u32,
}

/// One radix-`R` Stockham pass over the block's rows, `E / R` butterflies per thread: butterfly
/// `j` reads elements `j + r n / R`, twiddles them by `w_(span R)^(r (j mod span))`, transforms
/// them, and writes them to `(j - j mod span) R + j mod span + r span`.
///
/// The loops are spelled out with `unroll!` and their bounds are constants, so every index
/// into `v` is a constant and the eight values stay in registers.
#[inline(always)]
fn pass<T: ComplexScalar, const R: usize, const E: usize>(
    tile: &Tile1d<Complex<T>>,
    p: Pass,
    twiddles: Slice<'_, Complex<T>>,
) {
    let mut v = [Complex::<T>::zero(); 8];
    let log2_radix = R.trailing_zeros();
    let log2_stride = p.log2_n - log2_radix;
    unroll!(q in [0, 1, 2, 3] => {
        if q < E / R {
            let j = p.t + ((q as u32) << p.log2_per_row);
            unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
                if r < R {
                    v[q * R + r] = tile.get((p.base + padded32(j + ((r as u32) << log2_stride))) as usize);
                }
            });
        }
    });
    // Called by every thread of the block (see `transform`).
    sync_threads();
    // The twiddle of `r` is `w_n^(r k n / (span R))`: one table for every pass.
    let log2_table_step = log2_stride - p.log2_span;
    let span = 1u32 << p.log2_span;
    unroll!(q in [0, 1, 2, 3] => {
        if q < E / R {
            let j = p.t + ((q as u32) << p.log2_per_row);
            let k = j & (span - 1);
            // The twiddles are all loaded before the first product, so their latencies overlap
            // (a product right after each load waits for it). Unconditional loads (index 0 in
            // the first pass, where `k` is 0) keep them together; the products stay where they
            // were, so the results are unchanged.
            let mut w = [Complex::<T>::zero(); 8];
            unroll!(r in [1, 2, 3, 4, 5, 6, 7] => {
                if r < R {
                    w[r] = twiddles.get_nc((((r as u32) * k) << log2_table_step) as usize);
                }
            });
            let mut x = [Complex::<T>::zero(); 8];
            unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
                if r < R {
                    x[r] = v[q * R + r];
                    if r > 0 && span > 1 {
                        x[r] = x[r] * w[r];
                    }
                }
            });
            let y = butterfly::<T, R>(x);
            let target = ((j - k) << log2_radix) + k;
            unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7] => {
                if r < R {
                    tile.set((p.base + padded32(target + (r as u32) * span)) as usize, y[r]);
                }
            });
        }
    });
    // As above.
    sync_threads();
}

/// The `R`-point DFT (forward) of `x[..R]`, `R` in {2, 4, 8}; the rest of the array is unused.
#[inline(always)]
fn butterfly<T: ComplexScalar, const R: usize>(x: [Complex<T>; 8]) -> [Complex<T>; 8] {
    let zero = Complex::zero();
    match R {
        2 => [x[0] + x[1], x[0] - x[1], zero, zero, zero, zero, zero, zero],
        4 => {
            let z = dft4([x[0], x[1], x[2], x[3]]);
            [z[0], z[1], z[2], z[3], zero, zero, zero, zero]
        }
        _ => dft8(x),
    }
}

/// The forward 4-point DFT: 16 real additions, no multiplication.
#[inline(always)]
fn dft4<T: ComplexScalar>(x: [Complex<T>; 4]) -> [Complex<T>; 4] {
    let (t0, t1) = (x[0] + x[2], x[0] - x[2]);
    let (t2, t3) = (x[1] + x[3], (x[1] - x[3]).mul_neg_i());
    [t0 + t2, t1 + t3, t0 - t2, t1 - t3]
}

/// The forward 8-point DFT: two 4-point DFTs and the twiddles `w_8^k` (two of them need
/// multiplications by `sqrt(1/2)`).
#[inline(always)]
fn dft8<T: ComplexScalar>(x: [Complex<T>; 8]) -> [Complex<T>; 8] {
    let a = dft4([x[0], x[2], x[4], x[6]]);
    let b = dft4([x[1], x[3], x[5], x[7]]);
    let h = T::from_f64(core::f64::consts::FRAC_1_SQRT_2);
    // b1 (1 - i) / sqrt 2, b2 (-i), b3 (-1 - i) / sqrt 2.
    let b1 = Complex::new((b[1].re + b[1].im) * h, (b[1].im - b[1].re) * h);
    let b2 = b[2].mul_neg_i();
    let b3 = Complex::new((b[3].im - b[3].re) * h, -((b[3].re + b[3].im) * h));
    [
        a[0] + b[0],
        a[1] + b1,
        a[2] + b2,
        a[3] + b3,
        a[0] - b[0],
        a[1] - b1,
        a[2] - b2,
        a[3] - b3,
    ]
}
