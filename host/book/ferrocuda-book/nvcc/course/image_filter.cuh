// What the CUDA C twins of the course's 8-bit image filters share, mirroring
// host/book/book-kernels/src/course/image_filter.rs: the normalisation, the division by a fixed
// divisor as a multiply and shifts, and the word-at-a-time image of the fast kernels.
#pragma once
#include "../common.cuh"

#define ROWS_PER_THREAD 8
#define PIXELS_PER_THREAD 4

// floor(sum / weight), 0 for weight 0.
__device__ __forceinline__ unsigned char normalise(unsigned sum, unsigned weight) {
    return weight == 0 ? 0 : (unsigned char)(sum / weight);
}

// Taps 0..count of a mask of half-width `half` centred at `center` landing in 0..len: [first, end).
__device__ __forceinline__ void taps_in_range(size_t center, size_t half, size_t count, size_t len,
                                              size_t* first, size_t* end) {
    size_t f = half > center ? half - center : 0;
    size_t e = len + half > center ? len + half - center : 0;
    e = e < count ? e : count;
    *first = f;
    *end = e > f ? e : f;
}

struct Reciprocal { unsigned multiplier, pre_shift, post_shift; };

__device__ __forceinline__ unsigned divide(Reciprocal r, unsigned n) {
    return __umulhi(n << r.pre_shift, r.multiplier) >> r.post_shift;
}

struct WordImage {
    const unsigned char* in;
    unsigned char* out;
    bool aligned;  // rows start on words: width % 4 == 0
    size_t width, height;
};

__device__ __forceinline__ WordImage word_image(Slice<unsigned char> in, SliceMut<unsigned char> out,
                                                size_t width, size_t height) {
    WordImage image = {in.ptr, out.ptr, width % PIXELS_PER_THREAD == 0, width, height};
    return image;
}

// Pixels 4c..4c+4 of row y as one little-endian word, zero outside the image.
__device__ __forceinline__ unsigned load_word(const WordImage& im, long long y, long long c) {
    if (y < 0 || y >= (long long)im.height || c < 0) return 0;
    size_t yy = (size_t)y, cc = (size_t)c;
    if (im.aligned) {
        size_t words_per_row = im.width / PIXELS_PER_THREAD;
        return cc < words_per_row ? __ldg((const unsigned*)im.in + yy * words_per_row + cc) : 0;
    }
    unsigned word = 0;
    for (int k = 0; k < PIXELS_PER_THREAD; ++k) {
        size_t x = PIXELS_PER_THREAD * cc + k;
        if (x < im.width) word |= (unsigned)im.in[yy * im.width + x] << (8 * k);
    }
    return word;
}

__device__ __forceinline__ void row_buffer(const WordImage& im, long long y, size_t c, unsigned buffer[4]) {
    buffer[0] = load_word(im, y, (long long)c - 1);
    buffer[1] = load_word(im, y, (long long)c);
    buffer[2] = load_word(im, y, (long long)c + 1);
    buffer[3] = 0;
}

__device__ __forceinline__ bool interior_rows(const WordImage& im, size_t c, size_t y0, size_t rows, size_t reach) {
    return im.aligned && c >= 1 && c + 1 < im.width / PIXELS_PER_THREAD && y0 >= reach &&
           y0 + rows + reach <= im.height;
}

__device__ __forceinline__ bool interior(const WordImage& im, size_t c, size_t y0, size_t reach) {
    return interior_rows(im, c, y0, ROWS_PER_THREAD, reach);
}

__device__ __forceinline__ void row_buffer_interior(const WordImage& im, size_t y, size_t c, unsigned buffer[4]) {
    const unsigned* words = (const unsigned*)im.in + y * (im.width / PIXELS_PER_THREAD) + c;
    buffer[0] = __ldg(words - 1);
    buffer[1] = __ldg(words);
    buffer[2] = __ldg(words + 1);
    buffer[3] = 0;
}

__device__ __forceinline__ void store_word(const WordImage& im, size_t y, size_t c, unsigned pixels) {
    if (im.aligned) {
        ((unsigned*)im.out)[y * (im.width / PIXELS_PER_THREAD) + c] = pixels;
        return;
    }
    for (int k = 0; k < PIXELS_PER_THREAD; ++k) {
        size_t x = PIXELS_PER_THREAD * c + k;
        if (x < im.width) im.out[y * im.width + x] = (unsigned char)(pixels >> (8 * k));
    }
}

// Bytes b..b+4 of a row buffer (a funnel shift); past the buffer, its zero word.
__device__ __forceinline__ unsigned window(const unsigned buffer[4], int b) {
    int lo = b / 4 < 3 ? b / 4 : 3, hi = b / 4 + 1 < 3 ? b / 4 + 1 : 3;
    return b % 4 == 0 ? buffer[lo] : __funnelshift_r(buffer[lo], buffer[hi], 8 * (b % 4));
}

__device__ __forceinline__ unsigned byte_at(const unsigned buffer[4], int b) {
    int w = b / 4 < 3 ? b / 4 : 3;
    return (buffer[w] >> (8 * (b % 4))) & 0xff;
}

__device__ __forceinline__ unsigned pack(const unsigned char pixels[4]) {
    return (unsigned)pixels[0] | (unsigned)pixels[1] << 8 | (unsigned)pixels[2] << 16 | (unsigned)pixels[3] << 24;
}

__device__ __forceinline__ size_t global_idx_y() {
    return (size_t)blockIdx.y * blockDim.y + threadIdx.y;
}
