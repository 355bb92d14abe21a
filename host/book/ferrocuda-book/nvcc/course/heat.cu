// CUDA C twin of course-heat's kernels (host/book/book-kernels/src/course/heat.rs): explicit FTCS steps
// of the 2-D heat equation, out of place, Dirichlet or insulated edges; `heat_step` from global
// memory, one point per thread; `heat_step_tiled` with up to HALO steps per launch in two shared
// tiles with a halo. The same roundings (two explicit fmas), loops and launch shapes; like the
// Rust kernels' full-tile paths, no bound test per access.
#include "../common.cuh"

#define DIRICHLET 0u
#define TILE_W 56
#define TILE_H 32
#define HALO 4
#define TILE_SW (TILE_W + 2 * HALO)
#define TILE_SH (TILE_H + 2 * HALO)

template <class T> struct HeatArgs {
    Slice<T> src;
    SliceMut<T> dst;
    unsigned rows, cols, edges;
    T r;
};
template <class T> struct TiledHeatArgs {
    Slice<T> src;
    SliceMut<T> dst;
    unsigned rows, cols, edges, steps;
    T r;
};

// u + r (w + e + n + s - 4 u): the Laplacian with one fma (4 u is exact), then one fma.
template <class T> __device__ __forceinline__ T ftcs(T u, T w, T e, T n, T s, T r) {
    T laplacian = fma((T)-4.0, u, (w + e) + (n + s));
    return fma(r, laplacian, u);
}

__device__ __forceinline__ bool on_edge(size_t i, size_t j, size_t rows, size_t cols) {
    return i == 0 || j == 0 || i + 1 == rows || j + 1 == cols;
}

template <class T> __device__ void heat_step(HeatArgs<T> a) {
    size_t rows = a.rows, cols = a.cols;
    size_t j = global_idx_x();
    size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rows || j >= cols) return;
    size_t k = i * cols + j;
    const T* src = a.src.ptr;
    T u = __ldg(src + k);
    T value;
    if (a.edges == DIRICHLET && on_edge(i, j, rows, cols)) {
        value = u;
    } else {
        T w = j > 0 ? __ldg(src + k - 1) : u;
        T e = j + 1 < cols ? __ldg(src + k + 1) : u;
        T n = i > 0 ? __ldg(src + k - cols) : u;
        T s = i + 1 < rows ? __ldg(src + k + cols) : u;
        value = ftcs(u, w, e, n, s, a.r);
    }
    a.dst.ptr[k] = value;
}

// Tile element (y, x) of tile b is tiles[(b * TILE_SH + y) * TILE_SW + x], grid point
// (r0 + y - HALO, c0 + x - HALO); unsigned wrapping puts points before the grid outside it.
template <class T> __device__ void heat_step_tiled(TiledHeatArgs<T> a) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    T* tiles = reinterpret_cast<T*>(shared_bytes);
    size_t rows = a.rows, cols = a.cols, steps = a.steps;
    size_t tx = threadIdx.x, ty = threadIdx.y, step_x = blockDim.x, step_y = blockDim.y;
    size_t r0 = (size_t)blockIdx.y * TILE_H, c0 = (size_t)blockIdx.x * TILE_W;
    for (size_t y = HALO - steps + ty; y < HALO + TILE_H + steps; y += step_y) {
        size_t gr = r0 + y - HALO;
        for (size_t x = HALO - steps + tx; x < HALO + TILE_W + steps; x += step_x) {
            size_t gc = c0 + x - HALO;
            if (gr < rows && gc < cols) tiles[y * TILE_SW + x] = __ldg(a.src.ptr + gr * cols + gc);
        }
    }
    for (size_t s = 1; s <= steps; ++s) {
        __syncthreads();
        size_t from = ((s - 1) & 1) * TILE_SH, to = (s & 1) * TILE_SH;
        for (size_t y = HALO - steps + s + ty; y < HALO + TILE_H + steps - s; y += step_y) {
            size_t gr = r0 + y - HALO;
            for (size_t x = HALO - steps + s + tx; x < HALO + TILE_W + steps - s; x += step_x) {
                size_t gc = c0 + x - HALO;
                if (gr < rows && gc < cols) {
                    size_t k = (from + y) * TILE_SW + x;
                    T u = tiles[k];
                    T value;
                    if (a.edges == DIRICHLET && on_edge(gr, gc, rows, cols)) {
                        value = u;
                    } else {
                        T w = gc > 0 ? tiles[k - 1] : u;
                        T e = gc + 1 < cols ? tiles[k + 1] : u;
                        T n = gr > 0 ? tiles[k - TILE_SW] : u;
                        T so = gr + 1 < rows ? tiles[k + TILE_SW] : u;
                        value = ftcs(u, w, e, n, so, a.r);
                    }
                    tiles[(to + y) * TILE_SW + x] = value;
                }
            }
        }
    }
    __syncthreads();
    size_t last = (steps & 1) * TILE_SH;
    for (size_t y = HALO + ty; y < HALO + TILE_H; y += step_y) {
        size_t gr = r0 + y - HALO;
        if (gr >= rows) continue;
        for (size_t x = HALO + tx; x < HALO + TILE_W; x += step_x) {
            size_t gc = c0 + x - HALO;
            if (gc < cols) a.dst.ptr[gr * cols + gc] = tiles[(last + y) * TILE_SW + x];
        }
    }
}

extern "C" {
__global__ void heat_step_f32(HeatArgs<float> args) { heat_step(args); }
__global__ void heat_step_f64(HeatArgs<double> args) { heat_step(args); }
__global__ void heat_step_tiled_f32(TiledHeatArgs<float> args) { heat_step_tiled(args); }
__global__ void heat_step_tiled_f64(TiledHeatArgs<double> args) { heat_step_tiled(args); }
}
