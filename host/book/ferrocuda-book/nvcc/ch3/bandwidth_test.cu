// The CUDA C twin of ch3-bandwidth-test (book §3.1.1): host-device copies with cudaMemcpy from
// cudaMallocHost (pinned) and malloc (pageable) memory, each timed with events around one call,
// as the book's program does. A host program, not a kernel: `cargo xtask bench` compiles it with
// nvcc and runs it beside the Rust measurement, on the same GPU, in the same run.
//
// Usage: bandwidth_test DEVICE BYTES REPS
// Prints one line per transfer: its name, then REPS times in ms; then "verified 1" when both
// round trips returned the bytes sent (0 otherwise). Exits non-zero on a CUDA error.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

// Times `reps` copies of `bytes` (after one untimed warm-up) and prints them on one line.
static void time_copies(const char* name, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                        int reps) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpy(dst, src, bytes, kind));
    printf("%s", name);
    for (int r = 0; r < reps; ++r) {
        CHECK(cudaEventRecord(start, 0));
        CHECK(cudaMemcpy(dst, src, bytes, kind));
        CHECK(cudaEventRecord(stop, 0));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        printf(" %.6f", ms);
    }
    printf("\n");
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DEVICE BYTES REPS\n", argv[0]);
        return 2;
    }
    int device = atoi(argv[1]);
    size_t bytes = strtoull(argv[2], nullptr, 10);
    int reps = atoi(argv[3]);
    if (bytes == 0 || reps < 1) {
        fprintf(stderr, "BYTES and REPS must be at least 1\n");
        return 2;
    }
    CHECK(cudaSetDevice(device));

    unsigned char *a_pinned, *b_pinned, *a_d;
    CHECK(cudaMallocHost((void**)&a_pinned, bytes));
    CHECK(cudaMallocHost((void**)&b_pinned, bytes));
    CHECK(cudaMalloc((void**)&a_d, bytes));
    unsigned char* a_pageable = (unsigned char*)malloc(bytes);
    unsigned char* b_pageable = (unsigned char*)malloc(bytes);
    if (!a_pageable || !b_pageable) {
        fprintf(stderr, "cannot allocate %zu bytes of pageable memory\n", bytes);
        return 1;
    }
    // Every page touched before timing, as the Rust side's buffers are.
    for (size_t i = 0; i < bytes; ++i) a_pinned[i] = a_pageable[i] = (unsigned char)(i * 7 % 251);
    memset(b_pinned, 0, bytes);
    memset(b_pageable, 0, bytes);

    time_copies("pinned_h2d", a_d, a_pinned, bytes, cudaMemcpyHostToDevice, reps);
    time_copies("pinned_d2h", b_pinned, a_d, bytes, cudaMemcpyDeviceToHost, reps);
    CHECK(cudaMemset(a_d, 0, bytes));
    time_copies("pageable_h2d", a_d, a_pageable, bytes, cudaMemcpyHostToDevice, reps);
    time_copies("pageable_d2h", b_pageable, a_d, bytes, cudaMemcpyDeviceToHost, reps);
    int verified = memcmp(a_pinned, b_pinned, bytes) == 0 && memcmp(a_pageable, b_pageable, bytes) == 0;
    printf("verified %d\n", verified);

    free(a_pageable);
    free(b_pageable);
    CHECK(cudaFree(a_d));
    CHECK(cudaFreeHost(a_pinned));
    CHECK(cudaFreeHost(b_pinned));
    return 0;
}
