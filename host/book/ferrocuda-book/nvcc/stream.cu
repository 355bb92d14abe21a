// CUDA C twins of gpu-kernels/gpu-kernels/src/kernels/stream.rs: the same algorithm, one element per thread.
#include "common.cuh"

template <class T> struct UnaryArgs { Slice<T> input; SliceMut<T> output; T scalar; };
template <class T> struct BinaryArgs { Slice<T> a; Slice<T> b; SliceMut<T> c; T scalar; };

template <class T> __device__ void copy(UnaryArgs<T> args) {
    size_t i = global_idx_x();
    if (i < args.output.len) args.output.ptr[i] = args.input.ptr[i];
}
template <class T> __device__ void scale(UnaryArgs<T> args) {
    size_t i = global_idx_x();
    if (i < args.output.len) args.output.ptr[i] = args.scalar * args.input.ptr[i];
}
template <class T> __device__ void add(BinaryArgs<T> args) {
    size_t i = global_idx_x();
    if (i < args.c.len) args.c.ptr[i] = args.a.ptr[i] + args.b.ptr[i];
}
template <class T> __device__ void triad(BinaryArgs<T> args) {
    size_t i = global_idx_x();
    if (i < args.c.len) args.c.ptr[i] = fma(args.b.ptr[i], args.scalar, args.a.ptr[i]);
}

extern "C" {
__global__ void stream_copy_f32(UnaryArgs<float> args) { copy(args); }
__global__ void stream_copy_f64(UnaryArgs<double> args) { copy(args); }
__global__ void stream_scale_f32(UnaryArgs<float> args) { scale(args); }
__global__ void stream_scale_f64(UnaryArgs<double> args) { scale(args); }
__global__ void stream_add_f32(BinaryArgs<float> args) { add(args); }
__global__ void stream_add_f64(BinaryArgs<double> args) { add(args); }
__global__ void stream_triad_f32(BinaryArgs<float> args) { triad(args); }
__global__ void stream_triad_f64(BinaryArgs<double> args) { triad(args); }
}

// Four elements per thread in 16-byte accesses (float4 / two double2), as the Rust `_vec4`
// kernels: a partial last chunk or an unaligned view takes the scalar path.
template <class T> struct Vec4;
template <> struct Vec4<float> {
    static __device__ void load(const float* p, float v[4]) {
        float4 x = *reinterpret_cast<const float4*>(p);
        v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
    }
    static __device__ void store(float* p, const float v[4]) {
        *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    }
};
template <> struct Vec4<double> {
    static __device__ void load(const double* p, double v[4]) {
        double2 x = reinterpret_cast<const double2*>(p)[0], y = reinterpret_cast<const double2*>(p)[1];
        v[0] = x.x; v[1] = x.y; v[2] = y.x; v[3] = y.y;
    }
    static __device__ void store(double* p, const double v[4]) {
        reinterpret_cast<double2*>(p)[0] = make_double2(v[0], v[1]);
        reinterpret_cast<double2*>(p)[1] = make_double2(v[2], v[3]);
    }
};
__device__ __forceinline__ bool aligned16(const void* p) { return ((size_t)p & 15) == 0; }

// f(out[4], in_a[4], in_b[4]) on chunk `chunk` when whole and aligned, else element by element.
template <class T, class F>
__device__ void for_chunk(const T* a, const T* b, T* c, size_t n, F f) {
    size_t chunk = global_idx_x();
    if (4 * chunk + 4 <= n && aligned16(a) && aligned16(b) && aligned16(c)) {
        T x[4], y[4], z[4];
        Vec4<T>::load(a + 4 * chunk, x);
        Vec4<T>::load(b + 4 * chunk, y);
        for (int j = 0; j < 4; ++j) z[j] = f(x[j], y[j]);
        Vec4<T>::store(c + 4 * chunk, z);
    } else {
        for (size_t i = 4 * chunk; i < 4 * chunk + 4 && i < n; ++i) c[i] = f(a[i], b[i]);
    }
}

template <class T> __device__ void copy_vec4(UnaryArgs<T> args) {
    for_chunk(args.input.ptr, args.input.ptr, args.output.ptr, args.output.len, [](T x, T) { return x; });
}
template <class T> __device__ void scale_vec4(UnaryArgs<T> args) {
    T s = args.scalar;
    for_chunk(args.input.ptr, args.input.ptr, args.output.ptr, args.output.len, [s](T x, T) { return s * x; });
}
template <class T> __device__ void add_vec4(BinaryArgs<T> args) {
    for_chunk(args.a.ptr, args.b.ptr, args.c.ptr, args.c.len, [](T x, T y) { return x + y; });
}
template <class T> __device__ void triad_vec4(BinaryArgs<T> args) {
    T s = args.scalar;
    for_chunk(args.a.ptr, args.b.ptr, args.c.ptr, args.c.len, [s](T x, T y) { return fma(y, s, x); });
}

extern "C" {
__global__ void stream_copy_vec4_f32(UnaryArgs<float> args) { copy_vec4(args); }
__global__ void stream_copy_vec4_f64(UnaryArgs<double> args) { copy_vec4(args); }
__global__ void stream_scale_vec4_f32(UnaryArgs<float> args) { scale_vec4(args); }
__global__ void stream_scale_vec4_f64(UnaryArgs<double> args) { scale_vec4(args); }
__global__ void stream_add_vec4_f32(BinaryArgs<float> args) { add_vec4(args); }
__global__ void stream_add_vec4_f64(BinaryArgs<double> args) { add_vec4(args); }
__global__ void stream_triad_vec4_f32(BinaryArgs<float> args) { triad_vec4(args); }
__global__ void stream_triad_vec4_f64(BinaryArgs<double> args) { triad_vec4(args); }
}
