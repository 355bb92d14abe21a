//! Convolution (IT4I course, lecture "Stencil", after PMPP chapter 7): 1-D in f32 and 2-D on
//! 8-bit images, each as the basic kernel (one thread per output, every input read from global
//! memory) and as the tiled "design 2" (a block as large as its input tile: every thread loads
//! one input, those below `O_TILE_WIDTH` compute one output), with the mask in constant memory.
//!
//! - 1-D: `P[i] = sum_j N[i - Mask_Width/2 + j] * M[j]`, ghost cells 0; each term added with one
//!   fused multiply-add in `j` order, as nvcc compiles `Pvalue += N[..]*M[j]`, so the basic and
//!   the tiled kernel and the CPU agree bit for bit. The tiled kernel avoids the slide's erratum
//!   `index_i = index_o - n - Mask_Width/2` (§4.3): `index_i = index_o - Mask_Width/2`.
//! - 2-D: `unsigned char` in, out and mask, out-of-image taps skipped; the output is normalised
//!   by the weights of the in-image taps ([`super::image_filter`]), so a mask of ones is the
//!   blur. It avoids the slide's errata (§4.3): `N_start_col` is declared, `maskwidth` is one
//!   name.
//!
//! The constant bank (`ferrocuda_device::constant`) holds the masks: words [`MASK_1D_WORD`]..
//! (f32), [`MASK_2D_WORD`].. (one byte per word), [`MASK_2D_PACKED_WORD`].. (four bytes per
//! word, for `dp4a`), written by the host before the launches that read them.
use super::image_filter::{normalise, taps_in_range};
use ferrocuda_device::constant::constant_load;
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Widest 1-D mask the constant bank holds here.
pub const MAX_MASK_1D: usize = 63;
/// Widest 2-D mask (9 x 9: 81 words, and 3 packed words per row).
pub const MAX_MASK_2D: usize = 9;
/// First constant word of the 1-D mask (f32).
pub const MASK_1D_WORD: usize = 512;
/// First constant word of the 2-D mask, weight `(i, j)` at `MASK_2D_WORD + i * width + j`.
pub const MASK_2D_WORD: usize = MASK_1D_WORD + MAX_MASK_1D + 1;
/// Packed words per mask row: bytes `4q .. 4q+4` of row `i` in word `MASK_2D_PACKED_WORD + 3i + q`.
pub const PACKED_WORDS_PER_ROW: usize = 3;
/// First constant word of the packed 2-D mask.
pub const MASK_2D_PACKED_WORD: usize = MASK_2D_WORD + MAX_MASK_2D * MAX_MASK_2D;
/// The course's 1-D output tile: 1020 outputs, so a 5-wide mask makes blocks of 1024.
pub const O_TILE_WIDTH: usize = 1020;

/// Arguments of [`convolution_1d_basic_kernel`]: `N`, `M`, `P`, `Mask_Width`, `Width`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(n, p))]
pub struct Convolution1dArgs<'a> {
    pub n: Slice<'a, f32>,
    pub m: Slice<'a, f32>,
    pub p: SliceMut<'a, f32>,
    pub mask_width: usize,
    pub width: usize,
}

/// PMPP's `convolution_1D_basic_kernel`, with a bounds test on `i` (the grid may overhang).
///
/// Launch: any 1-D grid of at least `width` threads.
#[kernel]
pub fn convolution_1d_basic_kernel(args: Convolution1dArgs<'_>) {
    let i = global_idx_x();
    if i < args.width {
        let n_start_point = i as isize - (args.mask_width / 2) as isize;
        let mut pvalue = 0.0f32;
        for j in 0..args.mask_width {
            let at = n_start_point + j as isize;
            if at >= 0 && at < args.width as isize {
                pvalue = math::fma(args.n.get(at as usize), args.m.get(j), pvalue);
            }
        }
        args.p.set(i, pvalue);
    }
}

/// Arguments of [`convolution_1d_tiled_kernel`]: the mask is in the constant bank.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(n, p))]
pub struct Convolution1dTiledArgs<'a> {
    pub n: Slice<'a, f32>,
    pub p: SliceMut<'a, f32>,
    pub mask_width: usize,
    pub width: usize,
    /// Outputs per block; the block has `o_tile_width + mask_width - 1` threads.
    pub o_tile_width: usize,
}

/// Shared memory of [`convolution_1d_tiled_kernel`]: `Ns[BLOCK_WIDTH]`.
pub const fn tiled_1d_shared_bytes(block_width: usize) -> usize {
    Tile1d::<f32>::bytes(block_width)
}

/// PMPP's tiled 1-D convolution, design 2: thread `tx` loads `Ns[tx] = N[index_o - Mask_Width/2]`
/// (0 outside), then threads `tx < O_TILE_WIDTH` sum `M[j] * Ns[j + tx]` with `M` from constant
/// memory.
///
/// Launch: blocks of `o_tile_width + mask_width - 1` threads, grid `(width-1)/o_tile_width+1`,
/// [`tiled_1d_shared_bytes`]`(blockDim.x)` of shared memory; mask at [`MASK_1D_WORD`].
#[kernel]
pub fn convolution_1d_tiled_kernel(args: Convolution1dTiledArgs<'_>) {
    let tx = thread_idx_x();
    let index_o = block_idx().x * args.o_tile_width + tx;
    let index_i = index_o as isize - (args.mask_width / 2) as isize;
    // SAFETY: the launch provides `tiled_1d_shared_bytes(blockDim.x)` (host driver).
    let ns = unsafe { Tile1d::<f32>::dynamic(block_dim().x) };
    let value = if index_i >= 0 && index_i < args.width as isize {
        args.n.get(index_i as usize)
    } else {
        0.0
    };
    ns.set(tx, value);
    // Every thread of the block reaches the barrier.
    sync_threads();
    if tx < args.o_tile_width {
        let mut output = 0.0f32;
        for j in 0..args.mask_width {
            output = math::fma(ns.get(j + tx), constant_load(MASK_1D_WORD + j), output);
        }
        if index_o < args.width {
            args.p.set(index_o, output);
        }
    }
}

/// Arguments of [`convolution_2d_basic_kernel`]: the slide's `in`, `mask`, `out`, `maskwidth`,
/// `w`, `h`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(in_image, out_image))]
pub struct Convolution2dArgs<'a> {
    pub in_image: Slice<'a, u8>,
    /// `mask_width^2` weights, row-major.
    pub mask: Slice<'a, u8>,
    pub out_image: SliceMut<'a, u8>,
    pub mask_width: usize,
    pub w: usize,
    pub h: usize,
}

/// The slide's `convolution_2D_basic_kernel`: `pixVal += in[..] * mask[..]` over the in-image
/// taps, with their weights summed beside it, then `out = pixVal / weight`.
///
/// Launch: any 2-D grid covering `w x h` (16 x 16 blocks in the course).
#[kernel]
pub fn convolution_2d_basic_kernel(args: Convolution2dArgs<'_>) {
    let col = global_idx_x();
    let row = global_idx_y();
    if col < args.w && row < args.h {
        let (mut pix_val, mut weight) = (0u32, 0u32);
        let n_start_col = col as isize - (args.mask_width / 2) as isize;
        let n_start_row = row as isize - (args.mask_width / 2) as isize;
        for j in 0..args.mask_width {
            for k in 0..args.mask_width {
                let cur_row = n_start_row + j as isize;
                let cur_col = n_start_col + k as isize;
                if cur_row > -1 && cur_row < args.h as isize && cur_col > -1 && cur_col < args.w as isize {
                    let m = u32::from(args.mask.get(j * args.mask_width + k));
                    pix_val += u32::from(args.in_image.get(cur_row as usize * args.w + cur_col as usize)) * m;
                    weight += m;
                }
            }
        }
        args.out_image.set(row * args.w + col, normalise(pix_val, weight));
    }
}

/// Arguments of [`convolution_2d_tiled_kernel`]: the mask is in the constant bank.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(in_image, out_image))]
pub struct Convolution2dTiledArgs<'a> {
    pub in_image: Slice<'a, u8>,
    pub out_image: SliceMut<'a, u8>,
    pub mask_width: usize,
    pub w: usize,
    pub h: usize,
    /// Outputs per block side; the block is `o_tile_width + mask_width - 1` threads square.
    pub o_tile_width: usize,
    /// The sum of all the mask's weights: the weight of a pixel whose window lies inside.
    pub mask_sum: u32,
}

/// Shared memory of [`convolution_2d_tiled_kernel`]: `N_ds[BLOCK_WIDTH][BLOCK_WIDTH]` bytes.
pub const fn tiled_2d_shared_bytes(block_width: usize) -> usize {
    Tile1d::<u8>::bytes(block_width * block_width)
}

/// Weight `(i, j)` of the 2-D mask, from the constant bank.
#[inline(always)]
pub fn mask_2d(mask_width: usize, i: usize, j: usize) -> u32 {
    constant_load(MASK_2D_WORD + i * mask_width + j)
}

/// The weights of the taps of the constant-bank mask around `(col, row)` that lie inside a
/// `w x h` image.
#[inline(always)]
pub fn in_image_weight(mask_width: usize, col: usize, row: usize, w: usize, h: usize) -> u32 {
    let half = mask_width / 2;
    let (i0, i1) = taps_in_range(row, half, mask_width, h);
    let (j0, j1) = taps_in_range(col, half, mask_width, w);
    let mut weight = 0;
    for i in i0..i1 {
        for j in j0..j1 {
            weight += mask_2d(mask_width, i, j);
        }
    }
    weight
}

/// PMPP's tiled 2-D convolution, design 2, on bytes: thread `(tx, ty)` loads the input pixel
/// `(row_o - Mask_Width/2, col_o - Mask_Width/2)` into `N_ds[ty][tx]` (0 outside), then threads
/// with `tx, ty < O_TILE_WIDTH` sum `N_ds[i+ty][j+tx] * M[i][j]` with `M` from constant memory;
/// the weight is `mask_sum` where the window lies inside, else summed over the in-image taps.
///
/// Launch: square blocks of `o_tile_width + mask_width - 1` threads a side, grid
/// `((w-1)/o_tile_width+1, (h-1)/o_tile_width+1)`, [`tiled_2d_shared_bytes`]`(blockDim.x)` of
/// shared memory; mask at [`MASK_2D_WORD`].
#[kernel]
pub fn convolution_2d_tiled_kernel(args: Convolution2dTiledArgs<'_>) {
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let block_width = block_dim().x;
    let half = args.mask_width / 2;
    let row_o = block_idx().y * args.o_tile_width + ty;
    let col_o = block_idx().x * args.o_tile_width + tx;
    let row_i = row_o as isize - half as isize;
    let col_i = col_o as isize - half as isize;
    // SAFETY: the launch provides `tiled_2d_shared_bytes(blockDim.x)` for square blocks (host).
    let n_ds = unsafe { Tile1d::<u8>::dynamic(block_width * block_width) };
    let inside = row_i >= 0 && row_i < args.h as isize && col_i >= 0 && col_i < args.w as isize;
    let value = if inside {
        args.in_image.get(row_i as usize * args.w + col_i as usize)
    } else {
        0
    };
    n_ds.set(ty * block_width + tx, value);
    // Every thread of the block reaches the barrier.
    sync_threads();
    if ty < args.o_tile_width && tx < args.o_tile_width && row_o < args.h && col_o < args.w {
        let mut pix_val = 0u32;
        for i in 0..args.mask_width {
            for j in 0..args.mask_width {
                pix_val += u32::from(n_ds.get((i + ty) * block_width + j + tx)) * mask_2d(args.mask_width, i, j);
            }
        }
        let window_inside = row_o >= half && row_o + half < args.h && col_o >= half && col_o + half < args.w;
        let weight = if window_inside {
            args.mask_sum
        } else {
            in_image_weight(args.mask_width, col_o, row_o, args.w, args.h)
        };
        args.out_image.set(row_o * args.w + col_o, normalise(pix_val, weight));
    }
}
