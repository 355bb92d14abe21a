// CUDA C twin of ch6-deriv's uniform-grid kernels (host/book/book-kernels/src/ch6/deriv.rs; book
// §6.1): the 9-point, 8th-order derivative through a shared tile of whole lines with four ghost
// points at each end, the book's periodic wrap (period m - 1), 32-bit indices, four loads in
// flight per thread, and the same roundings (one product, three fused multiply-adds).
#include "../common.cuh"

#define HALO 4u
// The constant-bank word of the uniform coefficients (`UNIFORM_WORD`): ax, bx, cx, dx, ay, ..
#define UNIFORM_WORD 128u

// The Rust module's constant bank, by the same name and size, so that the host's
// `Kernels::write_constant` writes this module's coefficients as it writes the Rust one's.
extern "C" {
__constant__ __align__(16) unsigned char ferrocuda_constant_bank[65536];
}

template <class T> struct DerivArgs {
    Slice<T> f;
    SliceMut<T> df;
    unsigned mx, my, mz;
};

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// The four coefficients of `direction` (0, 1, 2) from the constant bank.
template <class T> __device__ __forceinline__ void uniform(unsigned direction, T c[4]) {
    const T* bank = reinterpret_cast<const T*>(ferrocuda_constant_bank + 4 * UNIFORM_WORD) + 4 * direction;
#pragma unroll
    for (int k = 0; k < 4; ++k) c[k] = bank[k];
}

// a (f[+1] - f[-1]) + b (f[+2] - f[-2]) + c (..) + d (..), `p` at the point, neighbours `s` apart.
template <class T> __device__ __forceinline__ T stencil(const T c[4], const T* p, int s) {
    T ab = fma(c[1], p[2 * s] - p[-2 * s], mul_rn(c[0], p[s] - p[-s]));
    return fma(c[3], p[4 * s] - p[-4 * s], fma(c[2], p[3 * s] - p[-3 * s], ab));
}

// Points n = start, start + step, .. < m of a line: f[global + n gstride] -> tile[first + n tstride],
// four loads before their four stores.
template <class T>
__device__ __forceinline__ void load_line(const T* f, unsigned global, unsigned gstride, T* tile, unsigned first,
                                          unsigned tstride, unsigned m, unsigned start, unsigned step) {
    unsigned n = start;
    for (; n + 3 * step < m; n += 4 * step) {
        T v[4];
#pragma unroll
        for (unsigned q = 0; q < 4; ++q) v[q] = f[global + (n + q * step) * gstride];
#pragma unroll
        for (unsigned q = 0; q < 4; ++q) tile[first + (n + q * step) * tstride] = v[q];
    }
    for (; n < m; n += step) tile[first + n * tstride] = f[global + n * gstride];
}

// ghost(-4..-1) = point(m-5 .. m-2), ghost(m .. m+3) = point(1 .. 4); point n at at + n stride.
template <class T>
__device__ __forceinline__ void fill_ghosts(T* tile, unsigned at, unsigned stride, unsigned m, unsigned start,
                                            unsigned step) {
    for (unsigned g = start; g < HALO; g += step) {
        tile[at + g * stride - HALO * stride] = tile[at + (g + m - 1 - HALO) * stride];
        tile[at + (m + g) * stride] = tile[at + (g + 1) * stride];
    }
}

// x: lines of PENCILS points in y of plane blockIdx.y; grid (my / PENCILS, mz), block (TX, TY).
template <class T, unsigned PENCILS> __device__ void deriv_x(DerivArgs<T> a) {
    extern __shared__ __align__(16) unsigned char smem[];
    T* tile = reinterpret_cast<T*>(smem);
    T c[4];
    uniform<T>(0, c);
    unsigned mx = a.mx, my = a.my, pitch = mx + 2 * HALO;
    unsigned first = (blockIdx.y * my + blockIdx.x * PENCILS) * mx;
    for (unsigned j = threadIdx.y; j < PENCILS; j += blockDim.y)
        load_line(a.f.ptr, first + j * mx, 1u, tile, j * pitch + HALO, 1u, mx, threadIdx.x, blockDim.x);
    __syncthreads();
    for (unsigned j = threadIdx.y; j < PENCILS; j += blockDim.y)
        fill_ghosts(tile, j * pitch + HALO, 1u, mx, threadIdx.x, blockDim.x);
    __syncthreads();
    for (unsigned j = threadIdx.y; j < PENCILS; j += blockDim.y)
        for (unsigned i = threadIdx.x; i < mx; i += blockDim.x)
            a.df.ptr[first + j * mx + i] = stencil(c, tile + j * pitch + HALO + i, 1);
}

// y (Y = true) or z: WIDTH adjacent lines; grid (mx / WIDTH, mz or my), block (WIDTH, TY).
template <class T, bool Y, unsigned WIDTH> __device__ void deriv_yz(DerivArgs<T> a) {
    extern __shared__ __align__(16) unsigned char smem[];
    T* tile = reinterpret_cast<T*>(smem);
    T c[4];
    uniform<T>(Y ? 1 : 2, c);
    unsigned mx = a.mx, my = a.my;
    unsigned m = Y ? my : a.mz, stride = Y ? mx : mx * my, across_stride = Y ? mx * my : mx;
    unsigned tx = threadIdx.x, ty = threadIdx.y, step = blockDim.y;
    unsigned global = blockIdx.x * WIDTH + tx + blockIdx.y * across_stride;
    unsigned at = HALO * WIDTH + tx;
    load_line(a.f.ptr, global, stride, tile, at, WIDTH, m, ty, step);
    __syncthreads();
    fill_ghosts(tile, at, WIDTH, m, ty, step);
    __syncthreads();
    for (unsigned n = ty; n < m; n += step)
        a.df.ptr[global + n * stride] = stencil(c, tile + at + n * WIDTH, (int)WIDTH);
}

// Pencil marching (deriv_march_body): one thread per line, no tile, the window of points
// n - 4 .. n + 4 + STEP - 1 in registers, STEP independent loads per step; grid
// (ceil(mx / blockDim.x), ceil(planes / blockDim.y)).
#define MARCH_STEP 8
template <class T, bool Y> __device__ void deriv_march(DerivArgs<T> a) {
    T c[4];
    uniform<T>(Y ? 1 : 2, c);
    unsigned mx = a.mx, my = a.my;
    unsigned m = Y ? my : a.mz, stride = Y ? mx : mx * my, across = Y ? a.mz : my, across_stride = Y ? mx * my : mx;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, p = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= mx || p >= across) return;
    unsigned base = i + p * across_stride;
    const T* f = a.f.ptr;
    T* df = a.df.ptr;
    // Point n (n in -4 .. m + 3) passed as n + m - 1: its periodic image's element.
    auto at = [&](unsigned s) {
        unsigned n = s >= 2 * m - 1 ? s - 2 * (m - 1) : (s >= m - 1 ? s - (m - 1) : s);
        return base + n * stride;
    };
    T w[2 * HALO + MARCH_STEP];
#pragma unroll
    for (unsigned s = 0; s < 2 * HALO; ++s) w[s] = f[at(s + m - 1 - HALO)];
    unsigned n = 0;
    for (; n + MARCH_STEP <= m; n += MARCH_STEP) {
        T ahead[MARCH_STEP];
#pragma unroll
        for (unsigned q = 0; q < MARCH_STEP; ++q) ahead[q] = f[at(n + HALO + q + m - 1)];
#pragma unroll
        for (unsigned q = 0; q < MARCH_STEP; ++q) w[2 * HALO + q] = ahead[q];
#pragma unroll
        for (unsigned q = 0; q < MARCH_STEP; ++q) df[base + (n + q) * stride] = stencil(c, w + HALO + q, 1);
#pragma unroll
        for (unsigned s = 0; s < 2 * HALO; ++s) w[s] = w[s + MARCH_STEP];
    }
    for (; n < m; ++n) {
        w[2 * HALO] = f[at(n + HALO + m - 1)];
        df[base + n * stride] = stencil(c, w + HALO, 1);
#pragma unroll
        for (unsigned s = 0; s < 2 * HALO; ++s) w[s] = w[s + 1];
    }
}

extern "C" {
__global__ void deriv_y_march_f32(DerivArgs<float> a) { deriv_march<float, true>(a); }
__global__ void deriv_y_march_f64(DerivArgs<double> a) { deriv_march<double, true>(a); }
__global__ void deriv_z_march_f32(DerivArgs<float> a) { deriv_march<float, false>(a); }
__global__ void deriv_z_march_f64(DerivArgs<double> a) { deriv_march<double, false>(a); }
}

extern "C" {
__global__ void deriv_x_f32(DerivArgs<float> a) { deriv_x<float, 4>(a); }
__global__ void deriv_x_f64(DerivArgs<double> a) { deriv_x<double, 4>(a); }
__global__ void deriv_x_l_pencils_f32(DerivArgs<float> a) { deriv_x<float, 32>(a); }
__global__ void deriv_x_l_pencils_f64(DerivArgs<double> a) { deriv_x<double, 32>(a); }
__global__ void deriv_y_f32(DerivArgs<float> a) { deriv_yz<float, true, 4>(a); }
__global__ void deriv_y_f64(DerivArgs<double> a) { deriv_yz<double, true, 4>(a); }
__global__ void deriv_y_l_pencils_f32(DerivArgs<float> a) { deriv_yz<float, true, 32>(a); }
__global__ void deriv_y_l_pencils_f64(DerivArgs<double> a) { deriv_yz<double, true, 32>(a); }
__global__ void deriv_z_f32(DerivArgs<float> a) { deriv_yz<float, false, 4>(a); }
__global__ void deriv_z_f64(DerivArgs<double> a) { deriv_yz<double, false, 4>(a); }
__global__ void deriv_z_l_pencils_f32(DerivArgs<float> a) { deriv_yz<float, false, 32>(a); }
__global__ void deriv_z_l_pencils_f64(DerivArgs<double> a) { deriv_yz<double, false, 32>(a); }
}
