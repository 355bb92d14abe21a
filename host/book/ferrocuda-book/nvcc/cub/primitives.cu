// CUB's device-wide primitives, timed as `cargo xtask bench --only primitives` times ferrocuda's:
// the same inputs, sizes and repetitions, the median of cudaEvent timings of the primitive's
// launches alone (its temporary storage allocated once, before). Prints one line per primitive,
// type and size: `<primitive> <type> <elements> <median ms>`.
//
// Usage: primitives REPS
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e = (call);                                                                  \
        if (e != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));           \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

// The bench's input: element i is i % 4, as ferrocuda's row fills it.
template <typename T> __global__ void fill(T *x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (T)(i % 4);
}

// Median of `reps` timings of `launch`, after one warm-up.
template <typename Launch> float median_ms(int reps, Launch launch) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    launch();
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; ++r) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms[r], start, stop));
    }
    std::sort(ms.begin(), ms.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms[reps / 2];
}

template <typename T> void inclusive_sum(const char *type, int n, int reps) {
    T *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(T)));
    CHECK(cudaMalloc(&out, n * sizeof(T)));
    fill<<<1024, 256>>>(in, n);
    void *temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n));
    CHECK(cudaMalloc(&temp, temp_bytes));
    float ms = median_ms(reps, [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n)); });
    printf("scan_inclusive_sum %s %d %.6f\n", type, n, ms);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
}

// Keeps x with low <= x <= high, as ferrocuda::select::within.
template <typename T> struct Within {
    T low, high;
    __host__ __device__ bool operator()(const T &x) const { return low <= x && x <= high; }
};

template <typename T> void select_within(const char *type, int n, int reps) {
    T *in, *out;
    int *count;
    CHECK(cudaMalloc(&in, n * sizeof(T)));
    CHECK(cudaMalloc(&out, n * sizeof(T)));
    CHECK(cudaMalloc(&count, sizeof(int)));
    fill<<<1024, 256>>>(in, n);
    Within<T> op{(T)0, (T)1};
    void *temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceSelect::If(temp, temp_bytes, in, out, count, n, op));
    CHECK(cudaMalloc(&temp, temp_bytes));
    float ms = median_ms(reps, [&] { CHECK(cub::DeviceSelect::If(temp, temp_bytes, in, out, count, n, op)); });
    int kept = 0;
    CHECK(cudaMemcpy(&kept, count, sizeof(int), cudaMemcpyDeviceToHost));
    if (kept != n / 4 * 2 + std::min(n % 4, 2)) {
        fprintf(stderr, "CUB's selection from %d kept %d\n", n, kept);
        exit(1);
    }
    printf("select_within %s %d %.6f\n", type, n, ms);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(count));
}

// The sort's keys: i * 2654435761 (distinct); its values: i.
__global__ void fill_sort(unsigned *keys, unsigned *values, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        keys[i] = (unsigned)i * 2654435761u;
        values[i] = (unsigned)i;
    }
}

void sort_u32(int n, int reps, bool pairs) {
    unsigned *keys_in, *keys_out, *values_in, *values_out;
    CHECK(cudaMalloc(&keys_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&keys_out, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&values_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&values_out, n * sizeof(unsigned)));
    fill_sort<<<1024, 256>>>(keys_in, values_in, n);
    void *temp = nullptr;
    size_t temp_bytes = 0;
    auto sort = [&] {
        if (pairs)
            CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n));
        else
            CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, n));
    };
    sort();
    CHECK(cudaMalloc(&temp, temp_bytes));
    float ms = median_ms(reps, sort);
    std::vector<unsigned> sorted(n);
    CHECK(cudaMemcpy(sorted.data(), keys_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    if (!std::is_sorted(sorted.begin(), sorted.end())) {
        fprintf(stderr, "CUB's sort of %d keys is not sorted\n", n);
        exit(1);
    }
    printf("%s u32 %d %.6f\n", pairs ? "sort_pairs" : "sort_keys", n, ms);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(keys_in));
    CHECK(cudaFree(keys_out));
    CHECK(cudaFree(values_in));
    CHECK(cudaFree(values_out));
}

// The histograms' samples, from h = i * 2654435761: bytes h >> 24; f32 (h >> 8) / 2^22, in
// [0, 4); i32 h >> 8, in [0, 2^24). All are even over their 256 bins.
__global__ void fill_histogram(unsigned char *bytes, float *floats, int *ints, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u;
        bytes[i] = (unsigned char)(h >> 24);
        floats[i] = (float)(h >> 8) / 4194304.0f;
        ints[i] = (int)(h >> 8);
    }
}

template <typename T, typename Level>
void histogram_even(const char *primitive, const char *type, const T *in, int n, int reps, Level lower, Level upper) {
    unsigned *counts;
    CHECK(cudaMalloc(&counts, 256 * sizeof(unsigned)));
    void *temp = nullptr;
    size_t temp_bytes = 0;
    auto run = [&] { CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in, counts, 257, lower, upper, n)); };
    run();
    CHECK(cudaMalloc(&temp, temp_bytes));
    float ms = median_ms(reps, run);
    std::vector<unsigned> host(256);
    CHECK(cudaMemcpy(host.data(), counts, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (unsigned c : host) total += c;
    if (total != n) {
        fprintf(stderr, "CUB's %s histogram of %d samples counted %lld\n", type, n, total);
        exit(1);
    }
    printf("%s %s %d %.6f\n", primitive, type, n, ms);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(counts));
}

void histograms(int n, int reps) {
    unsigned char *bytes;
    float *floats;
    int *ints;
    CHECK(cudaMalloc(&bytes, n));
    CHECK(cudaMalloc(&floats, n * sizeof(float)));
    CHECK(cudaMalloc(&ints, n * sizeof(int)));
    fill_histogram<<<1024, 256>>>(bytes, floats, ints, n);
    histogram_even("histogram_bytes", "u8", bytes, n, reps, 0, 256);
    histogram_even("histogram_even", "f32", floats, n, reps, 0.0f, 4.0f);
    histogram_even("histogram_even", "i32", ints, n, reps, 0, 1 << 24);
    CHECK(cudaFree(bytes));
    CHECK(cudaFree(floats));
    CHECK(cudaFree(ints));
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    if (reps < 1) reps = 1;
    for (int n : {1 << 20, 1 << 28}) {
        inclusive_sum<float>("f32", n, reps);
        inclusive_sum<int>("i32", n, reps);
        select_within<float>("f32", n, reps);
        select_within<int>("i32", n, reps);
        sort_u32(n, reps, false);
        sort_u32(n, reps, true);
        histograms(n, reps);
    }
    return 0;
}
