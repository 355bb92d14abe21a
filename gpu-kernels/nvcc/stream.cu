// CUDA C twins of gpu-kernels/src/kernels/stream.rs: the same algorithm, one element per thread.
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
