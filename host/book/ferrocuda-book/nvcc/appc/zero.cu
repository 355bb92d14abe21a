// Appendix C.2's zero.cu, called from the Rust host (appc-fcallingc). The book's kernel takes a
// bare `float *a`; this one takes the project's argument struct (pointer and length, the layout
// of gpu-kernels' SliceMut) so that the host launches it through the same typed, length-checked
// path as its Rust twin host/book/book-kernels/src/appc/fcallingc.rs. `extern "C"` keeps the symbol
// unmangled, as in the book.
#include "../common.cuh"

struct ZeroArgs { SliceMut<float> a; };

extern "C" __global__ void zero(ZeroArgs args) {
    size_t i = global_idx_x();
    if (i < args.a.len) args.a.ptr[i] = 0.0f;
}
