// bench/gpu/range_probe/dirt.cu: how many dirty L2 lines a CUPTI range-profiler session leaves
// (X23). Each `sweep_*` reads 128 MiB, more than twice the 50 MiB L2, so every line that is
// dirty when it starts is written back inside it: its dram__bytes_write is the dirt left before
// it. `l2_flush` (the same read) cleans L2 before each case and is left uncounted with
// --kernel-include-regex, so each case measures only what came after that flush:
//
//   sweep_a   after l2_flush alone: the dirt of its own session's start
//   sweep_b   after l2_flush and `noop` (writes nothing): with noop counted, the dirt of noop's
//             session (start and stop) on top
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ float read_all(const float4* __restrict__ p, size_t n) {
    float s = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s += p[i].x;
    return s;
}
__global__ void l2_flush(const float4* p, size_t n, float* out) { float s = read_all(p, n); if (s == 1.5f) out[0] = s; }
__global__ void sweep_a(const float4* p, size_t n, float* out) { float s = read_all(p, n); if (s == 1.5f) out[1] = s; }
__global__ void sweep_b(const float4* p, size_t n, float* out) { float s = read_all(p, n); if (s == 1.5f) out[2] = s; }
__global__ void noop(float* out) { if (threadIdx.x == 12345) out[3] = 1.0f; }

int main(int argc, char** argv) {
    int reps = 8;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t bytes = 128ull << 20, n = bytes / sizeof(float4);
    float4 *flushbuf, *sweepbuf;
    float* out;
    CK(cudaMalloc(&flushbuf, bytes));
    CK(cudaMalloc(&sweepbuf, bytes));
    CK(cudaMalloc(&out, 4096));
    CK(cudaMemset(flushbuf, 0, bytes));
    CK(cudaMemset(sweepbuf, 0, bytes));
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; r++) {
        l2_flush<<<sms * 8, 256>>>(flushbuf, n, out);
        sweep_a<<<sms * 8, 256>>>(sweepbuf, n, out);
        l2_flush<<<sms * 8, 256>>>(flushbuf, n, out);
        noop<<<1, 32>>>(out);
        sweep_b<<<sms * 8, 256>>>(sweepbuf, n, out);
        CK(cudaDeviceSynchronize());
    }
    printf("dirt: %d reps\n", reps);
    return 0;
}
