// CUDA C twins of host/book/book-kernels/src/course/{convolution,convolution_fast}.rs: the 2-D basic
// and tiled (design 2) convolutions of the course and the fast kernel for a 5 x 5 mask, the
// same algorithms, the masks in this module's `ferrocuda_constant_bank` (written by the host as
// the Rust module's).
#include "image_filter.cuh"

#define MASK_1D_WORD 512
#define MAX_MASK_1D 63
#define MAX_MASK_2D 9
#define MASK_2D_WORD (MASK_1D_WORD + MAX_MASK_1D + 1)
#define MASK_2D_PACKED_WORD (MASK_2D_WORD + MAX_MASK_2D * MAX_MASK_2D)
#define PACKED_WORDS_PER_ROW 3

// The constant bank, as ferrocuda_device::constant declares it.
__constant__ unsigned ferrocuda_constant_bank[1024];

struct Convolution2dArgs {
    Slice<unsigned char> in_image;
    Slice<unsigned char> mask;
    SliceMut<unsigned char> out_image;
    size_t mask_width, w, h;
};

struct Convolution2dTiledArgs {
    Slice<unsigned char> in_image;
    SliceMut<unsigned char> out_image;
    size_t mask_width, w, h, o_tile_width;
    unsigned mask_sum;
};

struct Convolution2dFastArgs {
    Slice<unsigned char> in_image;
    SliceMut<unsigned char> out_image;
    size_t w, h;
    Reciprocal by_mask_sum;
};

extern "C" __global__ void convolution_2d_basic_kernel(Convolution2dArgs args) {
    size_t col = global_idx_x();
    size_t row = global_idx_y();
    if (col < args.w && row < args.h) {
        unsigned pix_val = 0, weight = 0;
        long long n_start_col = (long long)col - (long long)(args.mask_width / 2);
        long long n_start_row = (long long)row - (long long)(args.mask_width / 2);
        for (size_t j = 0; j < args.mask_width; ++j) {
            for (size_t k = 0; k < args.mask_width; ++k) {
                long long cur_row = n_start_row + (long long)j;
                long long cur_col = n_start_col + (long long)k;
                if (cur_row > -1 && cur_row < (long long)args.h && cur_col > -1 && cur_col < (long long)args.w) {
                    unsigned m = args.mask.ptr[j * args.mask_width + k];
                    pix_val += (unsigned)args.in_image.ptr[(size_t)cur_row * args.w + (size_t)cur_col] * m;
                    weight += m;
                }
            }
        }
        args.out_image.ptr[row * args.w + col] = normalise(pix_val, weight);
    }
}

__device__ __forceinline__ unsigned mask_2d(size_t mask_width, size_t i, size_t j) {
    return ferrocuda_constant_bank[MASK_2D_WORD + i * mask_width + j];
}

__device__ __forceinline__ unsigned in_image_weight(size_t mask_width, size_t col, size_t row, size_t w, size_t h) {
    size_t half = mask_width / 2, i0, i1, j0, j1;
    taps_in_range(row, half, mask_width, h, &i0, &i1);
    taps_in_range(col, half, mask_width, w, &j0, &j1);
    unsigned weight = 0;
    for (size_t i = i0; i < i1; ++i)
        for (size_t j = j0; j < j1; ++j) weight += mask_2d(mask_width, i, j);
    return weight;
}

extern "C" __global__ void convolution_2d_tiled_kernel(Convolution2dTiledArgs args) {
    extern __shared__ unsigned char n_ds[];
    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t block_width = blockDim.x;
    size_t half = args.mask_width / 2;
    size_t row_o = (size_t)blockIdx.y * args.o_tile_width + ty;
    size_t col_o = (size_t)blockIdx.x * args.o_tile_width + tx;
    long long row_i = (long long)row_o - (long long)half;
    long long col_i = (long long)col_o - (long long)half;
    bool inside = row_i >= 0 && row_i < (long long)args.h && col_i >= 0 && col_i < (long long)args.w;
    n_ds[ty * block_width + tx] = inside ? args.in_image.ptr[(size_t)row_i * args.w + (size_t)col_i] : 0;
    __syncthreads();
    if (ty < args.o_tile_width && tx < args.o_tile_width && row_o < args.h && col_o < args.w) {
        unsigned pix_val = 0;
        for (size_t i = 0; i < args.mask_width; ++i)
            for (size_t j = 0; j < args.mask_width; ++j)
                pix_val += (unsigned)n_ds[(i + ty) * block_width + j + tx] * mask_2d(args.mask_width, i, j);
        bool window_inside = row_o >= half && row_o + half < args.h && col_o >= half && col_o + half < args.w;
        unsigned weight = window_inside ? args.mask_sum : in_image_weight(args.mask_width, col_o, row_o, args.w, args.h);
        args.out_image.ptr[row_o * args.w + col_o] = normalise(pix_val, weight);
    }
}

template <int MW, int K, bool INTERIOR>
__device__ __forceinline__ void convolution_2d_fast_rows(const WordImage& im, size_t c, size_t y0, Reciprocal by_mask_sum) {
    size_t w = im.width, h = im.height;
    const int half = MW / 2;
    unsigned acc[ROWS_PER_THREAD][4] = {};
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD + MW - 1; ++k) {
        unsigned buffer[4];
        if (INTERIOR) row_buffer_interior(im, y0 + k - half, c, buffer);
        else row_buffer(im, (long long)y0 - half + k, c, buffer);
#pragma unroll
        for (int i = 0; i < MW; ++i) {
            int r = k - i;
            if (r >= 0 && r < ROWS_PER_THREAD) {
#pragma unroll
                for (int q = 0; q < K; ++q) {
                    unsigned weights = ferrocuda_constant_bank[MASK_2D_PACKED_WORD + PACKED_WORDS_PER_ROW * i + q];
#pragma unroll
                    for (int p = 0; p < 4; ++p) acc[r][p] = __dp4a(window(buffer, 4 - half + p + 4 * q), weights, acc[r][p]);
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r) {
        size_t y = y0 + r;
        if (INTERIOR || y < h) {
            unsigned char pixels[4];
#pragma unroll
            for (int p = 0; p < 4; ++p) {
                size_t x = PIXELS_PER_THREAD * c + p;
                bool inside = y >= half && y + half < h && x >= half && x + half < w;
                if (INTERIOR || inside) pixels[p] = (unsigned char)divide(by_mask_sum, acc[r][p]);
                else if (x < w) pixels[p] = normalise(acc[r][p], in_image_weight(MW, x, y, w, h));
                else pixels[p] = 0;
            }
            store_word(im, y, c, pack(pixels));
        }
    }
}

// nvcc 13 gives this kernel 131 registers (one 256-thread block per SM) where rustc's gives 80
// (three); bounding it to three blocks makes ptxas spill, so it is left as nvcc compiles it.
extern "C" __global__ void convolution_2d_fast_m5(Convolution2dFastArgs args) {
    WordImage im = word_image(args.in_image, args.out_image, args.w, args.h);
    size_t c = global_idx_x();
    size_t y0 = global_idx_y() * ROWS_PER_THREAD;
    if (PIXELS_PER_THREAD * c >= args.w || y0 >= args.h) return;
    if (interior(im, c, y0, 2)) convolution_2d_fast_rows<5, 2, true>(im, c, y0, args.by_mask_sum);
    else convolution_2d_fast_rows<5, 2, false>(im, c, y0, args.by_mask_sum);
}
