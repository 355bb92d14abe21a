// CUDA C twins of host/book/book-kernels/src/course/image_blur.rs: the course's blurKernel
// (`blur_kernel`), the 4-pixel x 8-row-per-thread `blur_fast` and the 4-pixel x 32-row streaming
// `blur_stream`, the same algorithms.
#include "image_filter.cuh"

#define BLUR_SIZE 2

struct BlurArgs {
    Slice<unsigned char> in_image;
    SliceMut<unsigned char> out_image;
    size_t w, h;
};

extern "C" __global__ void blur_kernel(BlurArgs args) {
    size_t col = global_idx_x();
    size_t row = global_idx_y();
    if (col < args.w && row < args.h) {
        unsigned pix_val = 0, pixels = 0;
        for (long long blur_row = -BLUR_SIZE; blur_row < BLUR_SIZE + 1; ++blur_row) {
            for (long long blur_col = -BLUR_SIZE; blur_col < BLUR_SIZE + 1; ++blur_col) {
                long long cur_row = (long long)row + blur_row;
                long long cur_col = (long long)col + blur_col;
                if (cur_row > -1 && cur_row < (long long)args.h && cur_col > -1 && cur_col < (long long)args.w) {
                    pix_val += args.in_image.ptr[(size_t)cur_row * args.w + (size_t)cur_col];
                    pixels++;
                }
            }
        }
        args.out_image.ptr[row * args.w + col] = (unsigned char)(pix_val / pixels);
    }
}

// Division by 25 of sums up to 25 * 255: Reciprocal::new(25, 6375) in the Rust kernel.
__device__ __constant__ const Reciprocal BY_BOX = {10486, 14, 0};

__device__ __forceinline__ unsigned box_pixels(size_t x, size_t y, size_t w, size_t h) {
    if (x >= w) return 0;
    size_t r0, r1, c0, c1;
    taps_in_range(y, BLUR_SIZE, 2 * BLUR_SIZE + 1, h, &r0, &r1);
    taps_in_range(x, BLUR_SIZE, 2 * BLUR_SIZE + 1, w, &c0, &c1);
    return (unsigned)((r1 - r0) * (c1 - c0));
}

template <bool INTERIOR> __device__ __forceinline__ void blur_fast_rows(const WordImage& im, size_t c, size_t y0) {
    size_t w = im.width, h = im.height;
    unsigned row_sums[ROWS_PER_THREAD + 2 * BLUR_SIZE][4];
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD + 2 * BLUR_SIZE; ++k) {
        unsigned buffer[4];
        if (INTERIOR) row_buffer_interior(im, y0 + k - BLUR_SIZE, c, buffer);
        else row_buffer(im, (long long)y0 - BLUR_SIZE + k, c, buffer);
#pragma unroll
        for (int p = 0; p < 4; ++p) row_sums[k][p] = __dp4a(window(buffer, p + 2), 0x01010101u, byte_at(buffer, p + 6));
    }
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r) {
        size_t y = y0 + r;
        if (INTERIOR || y < h) {
            unsigned char pixels[4];
#pragma unroll
            for (int p = 0; p < 4; ++p) {
                unsigned sum = row_sums[r][p] + row_sums[r + 1][p] + row_sums[r + 2][p] + row_sums[r + 3][p] + row_sums[r + 4][p];
                size_t x = PIXELS_PER_THREAD * c + p;
                bool inside = y >= BLUR_SIZE && y + BLUR_SIZE < h && x >= BLUR_SIZE && x + BLUR_SIZE < w;
                pixels[p] = (INTERIOR || inside) ? (unsigned char)divide(BY_BOX, sum) : normalise(sum, box_pixels(x, y, w, h));
            }
            store_word(im, y, c, pack(pixels));
        }
    }
}

extern "C" __global__ void blur_fast(BlurArgs args) {
    WordImage im = word_image(args.in_image, args.out_image, args.w, args.h);
    size_t c = global_idx_x();
    size_t y0 = global_idx_y() * ROWS_PER_THREAD;
    if (PIXELS_PER_THREAD * c >= args.w || y0 >= args.h) return;
    if (interior(im, c, y0, BLUR_SIZE)) blur_fast_rows<true>(im, c, y0);
    else blur_fast_rows<false>(im, c, y0);
}

#define STREAM_ROWS 32
#define STREAM_STEP 4

// The 5-pixel sums centred on pixels 4c..4c+4 of input row y (zero rows outside).
template <bool INTERIOR> __device__ __forceinline__ void stream_row_sums(const WordImage& im, long long y, size_t c,
                                                                         unsigned sums[4]) {
    unsigned buffer[4];
    if (INTERIOR) row_buffer_interior(im, (size_t)y, c, buffer);
    else row_buffer(im, y, c, buffer);
#pragma unroll
    for (int p = 0; p < 4; ++p) sums[p] = __dp4a(window(buffer, p + 2), 0x01010101u, byte_at(buffer, p + 6));
}

template <bool INTERIOR> __device__ __forceinline__ void blur_stream_rows(const WordImage& im, size_t c, size_t y0) {
    size_t w = im.width, h = im.height;
    long long top = (long long)y0 - BLUR_SIZE;
    unsigned history[STREAM_STEP][4], column[4];
#pragma unroll
    for (int k = 0; k < STREAM_STEP; ++k) stream_row_sums<INTERIOR>(im, top + k, c, history[k]);
#pragma unroll
    for (int p = 0; p < 4; ++p) column[p] = history[0][p] + history[1][p] + history[2][p] + history[3][p];
    for (int step = 0; step < STREAM_ROWS / STREAM_STEP; ++step) {
        size_t y_step = y0 + (size_t)step * STREAM_STEP;
        if (!INTERIOR && y_step >= h) return;
        unsigned incoming[STREAM_STEP][4];
#pragma unroll
        for (int k = 0; k < STREAM_STEP; ++k)
            stream_row_sums<INTERIOR>(im, top + step * STREAM_STEP + 2 * BLUR_SIZE + k, c, incoming[k]);
#pragma unroll
        for (int r = 0; r < STREAM_STEP; ++r) {
            size_t y = y_step + r;
            unsigned char pixels[4];
#pragma unroll
            for (int p = 0; p < 4; ++p) {
                unsigned sum = column[p] + incoming[r][p];
                size_t x = PIXELS_PER_THREAD * c + p;
                bool inside = y >= BLUR_SIZE && y + BLUR_SIZE < h && x >= BLUR_SIZE && x + BLUR_SIZE < w;
                pixels[p] = (INTERIOR || inside) ? (unsigned char)divide(BY_BOX, sum) : normalise(sum, box_pixels(x, y, w, h));
                column[p] = sum - history[r][p];
            }
            if (INTERIOR || y < h) store_word(im, y, c, pack(pixels));
        }
#pragma unroll
        for (int k = 0; k < STREAM_STEP; ++k)
#pragma unroll
            for (int p = 0; p < 4; ++p) history[k][p] = incoming[k][p];
    }
}

extern "C" __global__ void blur_stream(BlurArgs args) {
    WordImage im = word_image(args.in_image, args.out_image, args.w, args.h);
    size_t c = global_idx_x();
    size_t y0 = global_idx_y() * STREAM_ROWS;
    if (PIXELS_PER_THREAD * c >= args.w || y0 >= args.h) return;
    if (interior_rows(im, c, y0, STREAM_ROWS, BLUR_SIZE)) blur_stream_rows<true>(im, c, y0);
    else blur_stream_rows<false>(im, c, y0);
}
