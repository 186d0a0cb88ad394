// pcs_app.cu: kernels whose hottest instruction and dominant stall are known by construction,
// for checking PC sampling (rocprof-rs's CUPTI backend) against Nsight Compute.
//
//   pcs::stream_copy      float4 copy over 256 MiB: warps wait on the global load's result
//                         (long scoreboard) at the store that consumes it
//   pcs::bank_conflict    each warp reads shared memory with a 32-way bank conflict, each read
//                         feeding the next address: MIO throttle / short scoreboard on the LDS
//   pcs::fma_chain        one warp per scheduler, a chain of dependent FMAs: each waits on the
//                         one before (the fixed-latency "wait" stall)
//   cuBLAS SGEMM          4096 x 4096 x 4096, whatever cuBLAS picks
//
// Usage: pcs_app [reps] [kernels]   reps per kernel (default 40); kernels a comma list of
// copy,bank,fma,gemm (default all). Prints one line per kernel: name, launches, mean ms.
// Exits non-zero on any CUDA or cuBLAS error.
//
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o pcs_app pcs_app.cu -lcublas

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "pcs_app: %s failed: %s\n", #call, cudaGetErrorString(e_));       \
            std::exit(3);                                                                          \
        }                                                                                          \
    } while (0)

namespace pcs {

__global__ void stream_copy(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

// 32 x 33 words would be conflict-free; a stride of 32 words puts every lane of a warp in one
// bank. The loaded value picks the next index, so each LDS depends on the one before.
__global__ void bank_conflict(int* out, int iters) {
    __shared__ int table[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) table[i] = (i * 7 + 3) & 31;
    __syncthreads();
    int lane = threadIdx.x & 31;
    int at = lane;
    int acc = 0;
    // Not unrolled: one shared load and one instruction waiting on it, rather than four copies
    // of each sharing the samples.
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        int v = table[at * 32 + (k & 1)];
        acc += v;
        at = (v + lane) & 31;
    }
    if (acc == 0x7fffffff) out[blockIdx.x] = acc;
}

__global__ void fma_chain(float* out, float a, float b, int iters) {
    float x = threadIdx.x * 1e-3f;
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int j = 0; j < 16; ++j) x = fmaf(x, a, b);
    }
    if (x == 12345.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

}  // namespace pcs

int main(int argc, char** argv) {
    int reps = argc > 1 ? std::atoi(argv[1]) : 40;
    std::string which = argc > 2 ? argv[2] : "copy,bank,fma,gemm";
    auto wants = [&](const char* k) { return which.find(k) != std::string::npos; };
    if (reps <= 0) {
        std::fprintf(stderr, "pcs_app: reps must be positive\n");
        return 2;
    }
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t copy_n = (256u << 20) / sizeof(float4);
    float4 *src, *dst;
    CK(cudaMalloc(&src, copy_n * sizeof(float4)));
    CK(cudaMalloc(&dst, copy_n * sizeof(float4)));
    CK(cudaMemset(src, 1, copy_n * sizeof(float4)));
    int* iout;
    float* fout;
    CK(cudaMalloc(&iout, 1 << 20));
    CK(cudaMalloc(&fout, 1 << 24));
    const int gemm_n = 4096;
    float *A, *B, *C;
    CK(cudaMalloc(&A, sizeof(float) * gemm_n * gemm_n));
    CK(cudaMalloc(&B, sizeof(float) * gemm_n * gemm_n));
    CK(cudaMalloc(&C, sizeof(float) * gemm_n * gemm_n));
    CK(cudaMemset(A, 0, sizeof(float) * gemm_n * gemm_n));
    CK(cudaMemset(B, 0, sizeof(float) * gemm_n * gemm_n));
    cublasHandle_t blas;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "pcs_app: cublasCreate failed\n");
        return 3;
    }
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    auto timed = [&](const char* name, auto launch) {
        launch();  // warm-up, counted in launches
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(t0));
        for (int r = 0; r < reps; ++r) launch();
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, t0, t1));
        CK(cudaGetLastError());
        std::printf("%s %d %.4f\n", name, reps + 1, ms / reps);
    };
    if (wants("copy"))
        timed("stream_copy", [&] { pcs::stream_copy<<<sms * 8, 256>>>(src, dst, copy_n); });
    if (wants("bank"))
        timed("bank_conflict", [&] { pcs::bank_conflict<<<sms * 4, 256>>>(iout, 4096); });
    if (wants("fma"))
        timed("fma_chain", [&] { pcs::fma_chain<<<sms * 4, 32>>>(fout, 1.0001f, 1e-4f, 4096); });
    if (wants("gemm")) {
        const float one = 1.0f, zero = 0.0f;
        timed("sgemm", [&] {
            if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, gemm_n, gemm_n, gemm_n, &one, A, gemm_n, B, gemm_n,
                            &zero, C, gemm_n) != CUBLAS_STATUS_SUCCESS) {
                std::fprintf(stderr, "pcs_app: cublasSgemm failed\n");
                std::exit(3);
            }
        });
    }
    cublasDestroy(blas);
    CK(cudaDeviceSynchronize());
    return 0;
}
