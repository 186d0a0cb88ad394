// bench/gpu/counters/known.cu: kernels whose bottleneck is known by construction, for the
// `counters` stage (issue 22). Each runs REPS times (enough for every group of the roofline
// preset to take its turn), and the program prints its own account of what each does:
//
//   copy        256 MiB read + 256 MiB written, float4 per thread: MEMORY at the DRAM roof
//   fma         FP32 FMA chains, 8 per iteration: COMPUTE on the FP32 vector roof
//   shared_conf shared-memory loads 32 ways bank-conflicted: LDS (shared) bound
//   l2_reuse    every block re-reads an L2-resident 16 MiB buffer with ld.global.cg (L1
//               bypassed): bound by L2
//   tiny        one warp adding 1, launched then synchronized each time: LATENCY (its stream
//               idles on the host between dispatches)
//
// `--plain` runs the same launches with nothing else (what ncu profiles).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void copy(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__global__ void fma(float* out, int iters, float b, float c) {
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = (float)(threadIdx.x + j);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) a[j] = fmaf(a[j], b, c);
    }
    float s = a[0];
#pragma unroll
    for (int j = 1; j < 8; j++) s += a[j];
    if (s == 12345.678f) out[threadIdx.x] = s;
}

// Lane i reads word i*32 of a row: all 32 lanes in one bank, 32 wavefronts per load.
__global__ void shared_conf(float* out, int iters) {
    __shared__ float tile[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) tile[i] = (float)i;
    __syncthreads();
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float s = 0.0f;
    for (int i = 0; i < iters; i++) s += tile[(lane * 32 + (i & 31) + warp * 1024) & 8191];
    if (s == 1.5f) out[threadIdx.x] = s;
}

__global__ void l2_reuse(const float4* __restrict__ buf, float* out, size_t n, int rounds) {
    float4 acc = make_float4(0, 0, 0, 0);
    for (int r = 0; r < rounds; r++) {
        size_t start = ((size_t)blockIdx.x * 977 + r * 131) % n;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x * 8) {
            float4 v = __ldcg(&buf[(start + i) % n]);
            acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
        }
    }
    if (acc.x + acc.y + acc.z + acc.w == 1.5f) out[threadIdx.x] = acc.x;
}

__global__ void tiny(int* p) { p[threadIdx.x] += 1; }

// Reads 128 MiB before each measured kernel so that it starts with no dirty line in the 50 MiB
// L2, as ncu's cache flush has it: otherwise the previous kernel's writes are written back
// inside the next one and its DRAM writes are not its own.
__global__ void l2_flush(const float4* __restrict__ p, size_t n, float* out) {
    float s = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s += p[i].x;
    if (s == 1.5f) out[0] = s;
}

int main(int argc, char** argv) {
    int reps = 6;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t copy_bytes = 256ull << 20, n4 = copy_bytes / sizeof(float4);
    const size_t l2_bytes = 16ull << 20, l2n = l2_bytes / sizeof(float4);
    float4 *src, *dst, *l2buf, *flushbuf;
    const size_t flush_bytes = 128ull << 20;
    float* out;
    int* small;
    CK(cudaMalloc(&src, copy_bytes));
    CK(cudaMalloc(&dst, copy_bytes));
    CK(cudaMalloc(&l2buf, l2_bytes));
    CK(cudaMalloc(&flushbuf, flush_bytes));
    CK(cudaMemset(flushbuf, 0, flush_bytes));
    CK(cudaMalloc(&out, 1 << 20));
    CK(cudaMalloc(&small, 4096));
    CK(cudaMemset(src, 1, copy_bytes));
    CK(cudaMemset(l2buf, 0, l2_bytes));
    CK(cudaMemset(small, 0, 4096));
    const int fma_iters = 4096, shared_iters = 4096, l2_rounds = 2, tiny_reps = 50;
    int copy_blocks = sms * 16, fma_blocks = sms * 8, shared_blocks = sms * 4, l2_blocks = sms * 8;
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; r++) {
        const size_t fn = flush_bytes / sizeof(float4);
        l2_flush<<<sms * 8, 256>>>(flushbuf, fn, out);
        copy<<<copy_blocks, 256>>>(src, dst, n4);
        l2_flush<<<sms * 8, 256>>>(flushbuf, fn, out);
        fma<<<fma_blocks, 256>>>(out, fma_iters, 1.0001f, 0.5f);
        l2_flush<<<sms * 8, 256>>>(flushbuf, fn, out);
        shared_conf<<<shared_blocks, 256>>>(out, shared_iters);
        l2_flush<<<sms * 8, 256>>>(flushbuf, fn, out);
        l2_reuse<<<l2_blocks, 256>>>(l2buf, out, l2n, l2_rounds);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    for (int r = 0; r < reps * tiny_reps; r++) {
        tiny<<<1, 32>>>(small);
        CK(cudaDeviceSynchronize());
    }
    int host[32];
    CK(cudaMemcpy(host, small, sizeof host, cudaMemcpyDeviceToHost));
    if (host[0] != reps * tiny_reps) { fprintf(stderr, "tiny ran %d times, not %d\n", host[0], reps * tiny_reps); return 1; }
    // The program's own account, per dispatch.
    double threads_fma = (double)fma_blocks * 256;
    printf("EXPECT {\"reps\":%d,\"tiny_reps\":%d,\"sms\":%d,"
           "\"copy\":{\"dram__bytes_read.sum\":%zu,\"dram__bytes_write.sum\":%zu,\"l1tex__t_bytes.sum\":%zu},"
           "\"fma\":{\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\":%.0f},"
           "\"shared_conf\":{\"threads\":%d,\"loads_per_thread\":%d},"
           "\"l2_reuse\":{\"bytes_read_per_block_round\":%zu,\"blocks\":%d,\"rounds\":%d}}\n",
           reps, tiny_reps, sms, copy_bytes, copy_bytes, 2 * copy_bytes, threads_fma * fma_iters * 8,
           shared_blocks * 256, shared_iters, l2_bytes / 8, l2_blocks, l2_rounds);
    return 0;
}
