// CUDA C twin of gpu-kernels/gpu-kernels/src/kernels/reduce.rs `reduce_sum_f32`: the same algorithm (a
// grid-stride fold with four float4 loads in flight per thread, a clamped shift-down warp tree, warp totals through a
// 32-element shared tile, warp 0 folding them), the same arguments, the same launch.
#include "common.cuh"

struct ReduceArgs { Slice<float> input; SliceMut<float> partials; };

__device__ __forceinline__ float warp_reduce_to_lane0(float x, unsigned lanes) {
    unsigned mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
    unsigned lane = threadIdx.x & 31;
    for (unsigned delta = 1; delta < 32; delta *= 2) {
        float other;
        asm volatile("shfl.sync.down.b32 %0, %1, %2, %3, %4;" : "=f"(other) : "f"(x), "r"(delta), "r"(lanes - 1), "r"(mask));
        if (lane + delta < lanes) x += other;
    }
    return x;
}

extern "C" __global__ void reduce_sum_f32(ReduceArgs args) {
    extern __shared__ float scratch[];
    size_t n = args.input.len;
    const float* in = args.input.ptr;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0.0f;
    if (((size_t)in & 15) == 0) {
        const float4* in4 = reinterpret_cast<const float4*>(in);
        size_t chunks = n / 4, chunk = global_idx_x();
        for (; chunk + 3 * stride < chunks; chunk += 4 * stride) {
            float4 v[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) v[k] = in4[chunk + k * stride];
#pragma unroll
            for (int k = 0; k < 4; ++k) acc += ((0.0f + v[k].x) + v[k].y) + v[k].z + v[k].w;
        }
        for (; chunk < chunks; chunk += stride) {
            float4 v = in4[chunk];
            acc += ((0.0f + v.x) + v.y) + v.z + v.w;
        }
        for (size_t tail = 4 * (n / 4) + global_idx_x(); tail < n; tail += stride) acc += in[tail];
    } else {
        for (size_t i = global_idx_x(); i < n; i += stride) acc += in[i];
    }
    unsigned threads = blockDim.x, rank = threadIdx.x, warp = rank / 32, lane = rank % 32;
    unsigned here = min(threads - warp * 32, 32u);
    float total = warp_reduce_to_lane0(acc, here);
    if (lane == 0) scratch[warp] = total;
    __syncthreads();
    if (warp == 0) {
        unsigned warps = (threads + 31) / 32;
        float y = lane < warps ? scratch[lane] : 0.0f;
        total = warp_reduce_to_lane0(y, min(threads, 32u));
        if (lane == 0) args.partials.ptr[blockIdx.x] = total;
    }
}
