// CUDA C twin of `sor_split` (gpu-kernels/gpu-kernels/src/kernels/thesis/sor.rs): one colour half-sweep of
// red-black SOR with red and black stored apart, one point per thread, the same roundings.
#include "../common.cuh"

struct Region { unsigned row_begin, row_end, col_begin, col_end; };
template <class T> struct SplitArgs {
    SliceMut<T> own;
    Slice<T> other;
    unsigned pitch, rows, cols;
    Region region;
    unsigned parity, color;
    T omega;
};

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// Four points of one row per thread, 32 columns apart (SPLIT_POINTS): all loads, then the
// updates and stores.
template <class T> __device__ void sor_split(SplitArgs<T> a) {
    size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    size_t r = a.region.row_begin + y;
    if (r >= a.region.row_end) return;
    size_t q = (a.color + a.parity + r) & 1;
    size_t k_begin = (a.region.col_begin + 1 - q) / 2, k_end = (a.region.col_end + 1 - q) / 2;
    size_t lane = threadIdx.x % 32;
    size_t first = k_begin + (global_idx_x() - lane) * 4 + lane;
    size_t row = r * a.pitch;
    const T* o = a.other.ptr;
    T u[4], w[4], e[4], n[4], s[4];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        size_t k = first + 32 * p;
        if (k < k_end) {
            u[p] = a.own.ptr[row + k];
            w[p] = __ldg(o + row + k + q - 1);
            e[p] = __ldg(o + row + k + q);
            n[p] = __ldg(o + row - a.pitch + k);
            s[p] = __ldg(o + row + a.pitch + k);
        }
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        size_t k = first + 32 * p;
        if (k < k_end) {
            T average = mul_rn(((w[p] + e[p]) + n[p]) + s[p], (T)0.25);
            a.own.ptr[row + k] = fma(a.omega, average - u[p], u[p]);
        }
    }
}

extern "C" {
__global__ void sor_split_f32(SplitArgs<float> args) { sor_split(args); }
__global__ void sor_split_f64(SplitArgs<double> args) { sor_split(args); }
}
