// Layouts shared with gpu-kernels' `memory::{Slice, SliceMut}`: a device pointer and a length,
// `#[repr(C)]`. Each twin kernel takes its `*Args` struct by value, as the Rust entry does, and
// has the same symbol, so the host launches both through one typed path.
#pragma once
#include <cstddef>

template <class T> struct Slice { const T* ptr; size_t len; };
template <class T> struct SliceMut { T* ptr; size_t len; };

// blockIdx.x * blockDim.x + threadIdx.x in 64 bits, as `device::index::global_idx_x`.
__device__ __forceinline__ size_t global_idx_x() {
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}
