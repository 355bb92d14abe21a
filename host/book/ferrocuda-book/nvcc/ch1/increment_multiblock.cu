// CUDA C twin of gpu-kernels/gpu-kernels/src/kernels/ch1/increment_multiblock.rs (book 1.3.2).
#include "../common.cuh"

struct IncrementArgs { SliceMut<int> a; int b; };

extern "C" __global__ void increment_multiblock(IncrementArgs args) {
    size_t i = global_idx_x();
    if (i < args.a.len) args.a.ptr[i] += args.b;
}
