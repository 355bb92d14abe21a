// CUDA C twins of gpu-kernels/gpu-kernels/src/kernels/ch3/transpose.rs (book 3.4): the book's six kernels,
// with the same symbols, the same TransposeArgs layout, the same launch shapes (32 x 8 threads
// per 32 x 32 tile, the tile in dynamic shared memory) and the same algorithm: any extent, the
// full tiles free of bounds tests, the edge tiles tested element by element, and the same
// argument checks (a trap, as the Rust kernels' bounds failure).
#include "../common.cuh"

#define TILE_DIM 32
#define BLOCK_ROWS 8

struct TransposeArgs { SliceMut<float> odata; Slice<float> idata; unsigned nx; unsigned ny; };

extern __shared__ float tile_memory[];

// The checks the Rust kernels make once: both views hold nx * ny elements, the block is 32 x 8.
__device__ __forceinline__ void check(const TransposeArgs& a) {
    size_t n = (size_t)a.nx * a.ny;
    if (a.idata.len != n || a.odata.len != n) __trap();
    if (blockDim.x != TILE_DIM || blockDim.y != BLOCK_ROWS || blockDim.z != 1) __trap();
}

// f(j) for the rows j = 0, 8, 16, 24 of a tile: all of them for a full tile, else those in bounds.
template <class InBounds, class F>
__device__ __forceinline__ void each_row(bool full, InBounds in_bounds, F f) {
    if (full) {
#pragma unroll
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) f(j);
    } else {
#pragma unroll
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
            if (in_bounds(j)) f(j);
    }
}

template <bool SHARED> __device__ void tile_copy(TransposeArgs a) {
    check(a);
    size_t nx = a.nx, ny = a.ny;
    size_t x = (size_t)blockIdx.x * TILE_DIM + threadIdx.x, y = (size_t)blockIdx.y * TILE_DIM + threadIdx.y;
    bool full = ((size_t)blockIdx.x + 1) * TILE_DIM <= nx && ((size_t)blockIdx.y + 1) * TILE_DIM <= ny;
    size_t at = y * nx + x;
    auto in_bounds = [&](int j) { return x < nx && y + j < ny; };
    if (!SHARED) {
        each_row(full, in_bounds, [&](int j) { a.odata.ptr[at + j * nx] = a.idata.ptr[at + j * nx]; });
        return;
    }
    float (*tile)[TILE_DIM] = reinterpret_cast<float (*)[TILE_DIM]>(tile_memory);
    each_row(full, in_bounds, [&](int j) { tile[threadIdx.y + j][threadIdx.x] = a.idata.ptr[at + j * nx]; });
    __syncthreads();
    each_row(full, in_bounds, [&](int j) { a.odata.ptr[at + j * nx] = tile[threadIdx.y + j][threadIdx.x]; });
}

__device__ void naive(TransposeArgs a) {
    check(a);
    size_t nx = a.nx, ny = a.ny;
    size_t x = (size_t)blockIdx.x * TILE_DIM + threadIdx.x, y = (size_t)blockIdx.y * TILE_DIM + threadIdx.y;
    bool full = ((size_t)blockIdx.x + 1) * TILE_DIM <= nx && ((size_t)blockIdx.y + 1) * TILE_DIM <= ny;
    each_row(full, [&](int j) { return x < nx && y + j < ny; },
             [&](int j) { a.odata.ptr[x * ny + y + j] = a.idata.ptr[(y + j) * nx + x]; });
}

template <int PAD, bool DIAGONAL> __device__ void tile_transpose(TransposeArgs a) {
    check(a);
    size_t nx = a.nx, ny = a.ny;
    unsigned bx = blockIdx.x, by = blockIdx.y;
    if (DIAGONAL) {
        unsigned gx = gridDim.x, gy = gridDim.y;
        if (gx == gy) {
            by = blockIdx.x;
            bx = (blockIdx.x + blockIdx.y) % gx;
        } else {
            unsigned linear = blockIdx.x + gx * blockIdx.y;
            by = linear % gy;
            bx = (linear / gy + by) % gx;
        }
    }
    size_t x0 = (size_t)bx * TILE_DIM, y0 = (size_t)by * TILE_DIM;
    bool full = x0 + TILE_DIM <= nx && y0 + TILE_DIM <= ny;
    float (*tile)[TILE_DIM + PAD] = reinterpret_cast<float (*)[TILE_DIM + PAD]>(tile_memory);
    size_t x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    size_t from = y * nx + x;
    each_row(full, [&](int j) { return x < nx && y + j < ny; },
             [&](int j) { tile[threadIdx.y + j][threadIdx.x] = a.idata.ptr[from + j * nx]; });
    __syncthreads();
    size_t col = y0 + threadIdx.x, row = x0 + threadIdx.y;
    size_t to = row * ny + col;
    each_row(full, [&](int j) { return col < ny && row + j < nx; },
             [&](int j) { a.odata.ptr[to + j * ny] = tile[threadIdx.x][threadIdx.y + j]; });
}

extern "C" {
__global__ void simple_copy(TransposeArgs a) { tile_copy<false>(a); }
__global__ void copy_shared_mem(TransposeArgs a) { tile_copy<true>(a); }
__global__ void transpose_naive(TransposeArgs a) { naive(a); }
__global__ void transpose_coalesced(TransposeArgs a) { tile_transpose<0, false>(a); }
__global__ void transpose_no_bank_conflicts(TransposeArgs a) { tile_transpose<1, false>(a); }
__global__ void transpose_diagonal(TransposeArgs a) { tile_transpose<1, true>(a); }
}
