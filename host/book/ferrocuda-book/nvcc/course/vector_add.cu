// CUDA C twin of gpu-kernels/gpu-kernels/src/kernels/course/vector_add.rs (the course's vecAddKernel).
#include "../common.cuh"

struct VecAddArgs { Slice<float> a; Slice<float> b; SliceMut<float> c; };

extern "C" __global__ void vec_add_kernel(VecAddArgs args) {
    size_t i = global_idx_x();
    if (i < args.c.len) args.c.ptr[i] = args.a.ptr[i] + args.b.ptr[i];
}
