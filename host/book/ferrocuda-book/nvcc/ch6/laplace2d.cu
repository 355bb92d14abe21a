// CUDA C twin of `jacobi_strip` (host/book/book-kernels/src/ch6/laplace2d.rs): one Jacobi sweep of the
// book's 9-point Laplace stencil (book §6.2), 8 points per thread down one column, every load
// through the read-only path, the same roundings (each product rounded on its own, the sums left
// to right as the book's Fortran statement), so it writes the Rust kernel's field bit for bit.
#include "../common.cuh"

template <class T> struct JacobiArgs {
    Slice<T> a;
    SliceMut<T> a_new;
    unsigned nx, ny;
};

#define STRIP_ROWS 8

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

// 0.2*(((W + E) + S) + N) + 0.05*(((SW + SE) + NW) + NE) from the neighbourhood s[dy][dx].
template <class T> __device__ __forceinline__ T jacobi_point(const T s[3][3]) {
    T edges = ((s[1][0] + s[1][2]) + s[0][1]) + s[2][1];
    T corners = ((s[0][0] + s[0][2]) + s[2][0]) + s[2][2];
    return add_rn(mul_rn((T)0.2, edges), mul_rn((T)0.05, corners));
}

template <class T> __device__ void jacobi_strip(JacobiArgs<T> args) {
    size_t nx = args.nx, ny = args.ny;
    if (args.a.len != nx * ny || args.a_new.len != nx * ny) __trap();
    size_t i = global_idx_x();
    size_t j0 = ((size_t)blockIdx.y * blockDim.y + threadIdx.y) * STRIP_ROWS;
    if (i == 0 || i + 1 >= nx) return;
    const T* a = args.a.ptr;
    T* a_new = args.a_new.ptr;
    if (j0 >= 1 && j0 + STRIP_ROWS < ny) {
        // All 30 loads first, then the 8 updates.
        T rows[STRIP_ROWS + 2][3];
#pragma unroll
        for (int r = 0; r < STRIP_ROWS + 2; ++r) {
            size_t k = (j0 - 1 + r) * nx + i;
            rows[r][0] = __ldg(a + k - 1);
            rows[r][1] = __ldg(a + k);
            rows[r][2] = __ldg(a + k + 1);
        }
#pragma unroll
        for (int r = 0; r < STRIP_ROWS; ++r) a_new[(j0 + r) * nx + i] = jacobi_point(rows + r);
    } else {
        size_t end = j0 + STRIP_ROWS < ny ? j0 + STRIP_ROWS : ny;
        for (size_t j = j0; j < end; ++j) {
            if (j >= 1 && j + 1 < ny) {
                T s[3][3];
                for (int dy = 0; dy < 3; ++dy)
                    for (int dx = 0; dx < 3; ++dx) s[dy][dx] = __ldg(a + (j + dy - 1) * nx + i + dx - 1);
                a_new[j * nx + i] = jacobi_point(s);
            }
        }
    }
}

extern "C" {
__global__ void jacobi_strip_f32(JacobiArgs<float> args) { jacobi_strip(args); }
__global__ void jacobi_strip_f64(JacobiArgs<double> args) { jacobi_strip(args); }
}
