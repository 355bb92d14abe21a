// CUDA C twins of gpu-kernels/gpu-kernels/src/kernels/ch3/{tlp_copy,ilp_copy}.rs (book §3.5, Appendix D.3,
// kernels `copy` and `copy_ILP`): the same symbols, the same Args layout, the same index math.
#include "../common.cuh"

template <class T> struct CopyArgs { Slice<T> input; SliceMut<T> output; };

template <class T> __device__ size_t copy_len(const CopyArgs<T>& args) {
    return args.output.len < args.input.len ? args.output.len : args.input.len;
}

template <class T> __device__ void tlp_copy(CopyArgs<T> args) {
    size_t i = global_idx_x();
    if (i < copy_len(args)) {
        T tmp = args.input.ptr[i];
        args.output.ptr[i] = tmp;
    }
}

// ILP = 4: block b copies elements b*blockDim*ILP.. in ILP block-wide rows; all loads, then all
// stores; the last, partial tile tests each element.
constexpr int ILP = 4;
template <class T> __device__ void ilp_copy(CopyArgs<T> args) {
    size_t threads = blockDim.x;
    size_t first = (size_t)blockIdx.x * threads * ILP + threadIdx.x;
    size_t n = copy_len(args);
    T tmp[ILP];
    if (first + (ILP - 1) * threads < n) {
#pragma unroll
        for (int j = 0; j < ILP; ++j) tmp[j] = args.input.ptr[first + j * threads];
#pragma unroll
        for (int j = 0; j < ILP; ++j) args.output.ptr[first + j * threads] = tmp[j];
    } else {
#pragma unroll
        for (int j = 0; j < ILP; ++j)
            if (first + j * threads < n) tmp[j] = args.input.ptr[first + j * threads];
#pragma unroll
        for (int j = 0; j < ILP; ++j)
            if (first + j * threads < n) args.output.ptr[first + j * threads] = tmp[j];
    }
}

extern "C" {
__global__ void tlp_copy_f32(CopyArgs<float> args) { tlp_copy(args); }
__global__ void tlp_copy_f64(CopyArgs<double> args) { tlp_copy(args); }
__global__ void ilp_copy_f32(CopyArgs<float> args) { ilp_copy(args); }
__global__ void ilp_copy_f64(CopyArgs<double> args) { ilp_copy(args); }
}
