// kernels.cu: the workloads of launch_bench.py, built as libbench.so and called through ctypes.
//
// Timing is taken here, in C, with a host monotonic clock around launches that end in a
// synchronize, so Python start-up, `import torch` and the profiler's own set-up and tear-down
// are outside every number (METHOD.md: synchronize before reading a host clock; warm up first).
//
//   double empty_launches(int n)          µs per back-to-back empty <<<1,32>>> launch
//   double graph_replays(int nodes, int reps)   µs per kernel of a replayed graph of empty kernels
//   int    micro(int reps)                kernels launched: a fixed sequence of distinct kernels
//                                         with well-separated, stable durations, per rep
//   long long bench_kernels_launched(void)   every kernel this library launched, warm-ups and
//                                         one-time initialisation included: what a tracer must
//                                         have recorded
//
// Every function returns a negative value on any CUDA error, after printing it to stderr.
//
// Build: nvcc -O2 -arch=sm_90 -Xcompiler -fPIC -shared -cudart shared -o libbench.so kernels.cu

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <ctime>

// The kernels live in a named namespace (not the anonymous one below) so their names read
// `bench::spin_kernel<0>(long long)`: a namespace and a template argument for the demangling
// comparison, without nvcc's per-file anonymous-namespace prefix.
namespace bench {

// The launch-overhead kernel: it does nothing, so a launch costs only its overhead.
__global__ void empty_kernel() {}

// ---------------------------------------------------------------------------------------------
// The micro sequence's kernels.

// Busy-waits `cycles` SM clock cycles. One template, three instantiations: three distinct kernel
// names (`void bench::spin_kernel<0>(long long)`, ...).
template <int ID>
__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// Bandwidth-bound: dst = src over 256 MiB (16 B per thread per step, grid-stride).
__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Non-zero, index-dependent contents (timing on zeros can flatter a kernel).
__global__ void fill_kernel(float* p, size_t n, float scale) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = scale * float(i % 1021) + 1.0f;
}

}   // namespace bench

using namespace bench;

namespace {

long long g_launched = 0;   // kernels launched successfully so far

void report(cudaError_t err, const char* what, const char* file, int line) {
    std::fprintf(stderr, "libbench: %s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(err),
                 cudaGetErrorString(err));
}

// Returns -1 (converted to the function's return type) from the enclosing function on error.
#define CK(call)                                           \
    do {                                                   \
        cudaError_t err_ = (call);                         \
        if (err_ != cudaSuccess) {                         \
            report(err_, #call, __FILE__, __LINE__);       \
            return -1;                                     \
        }                                                  \
    } while (0)

double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) * 1e6 + double(t.tv_nsec) * 1e-3;
}

struct Micro {
    bool ready = false;
    float4* src = nullptr;
    float4* dst = nullptr;
    size_t n4 = 0;          // float4 elements in src and dst
    float* x = nullptr;
    float* y = nullptr;
    int saxpy_n = 0;
    int copy_blocks = 0;
    long long cycles_2us = 0, cycles_20us = 0, cycles_200us = 0;
};
Micro g_micro;

int micro_init() {
    Micro& m = g_micro;
    int dev = 0, clock_khz = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));   // peak SM clock, kHz
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // Cycles for a duration at the peak clock; at a lower clock the kernel is longer but just as
    // stable, and only stability matters for comparing two tracers.
    m.cycles_2us = 2LL * clock_khz / 1000;
    m.cycles_20us = 20LL * clock_khz / 1000;
    m.cycles_200us = 200LL * clock_khz / 1000;

    const size_t bytes = size_t(256) << 20;
    m.n4 = bytes / sizeof(float4);
    CK(cudaMalloc(&m.src, bytes));
    CK(cudaMalloc(&m.dst, bytes));
    m.saxpy_n = 1 << 20;
    CK(cudaMalloc(&m.x, m.saxpy_n * sizeof(float)));
    CK(cudaMalloc(&m.y, m.saxpy_n * sizeof(float)));
    m.copy_blocks = sms * 8;

    fill_kernel<<<sms * 4, 256>>>(reinterpret_cast<float*>(m.src), m.n4 * 4, 1.0f);
    fill_kernel<<<sms * 4, 256>>>(m.x, m.saxpy_n, 0.5f);
    fill_kernel<<<sms * 4, 256>>>(m.y, m.saxpy_n, 0.25f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    g_launched += 3;
    m.ready = true;
    return 0;
}

}   // namespace

extern "C" {

long long bench_kernels_launched(void) { return g_launched; }

double empty_launches(int n) {
    if (n <= 0) return -1;
    // Warm-up: module load and the first launches' one-time costs stay out of the number.
    const int WARMUP = 1000;
    for (int i = 0; i < WARMUP; ++i) empty_kernel<<<1, 32>>>();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    g_launched += WARMUP;

    const double t0 = now_us();
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 32>>>();
    // A failed launch sets the runtime's last error, which later successful calls do not clear,
    // so one check after the loop catches any launch in it without adding a call per launch.
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double t1 = now_us();
    g_launched += n;
    return (t1 - t0) / n;
}

double graph_replays(int nodes, int reps) {
    if (nodes <= 0 || reps <= 0) return -1;
    // On an error the stream and graph leak: the caller exits on any negative result.
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i) empty_kernel<<<1, 32, 0, s>>>();
    CK(cudaGetLastError());
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));

    const int WARMUP = 3;   // first replays upload the graph
    for (int r = 0; r < WARMUP; ++r) CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    g_launched += (long long)WARMUP * nodes;

    const double t0 = now_us();
    for (int r = 0; r < reps; ++r) CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    const double t1 = now_us();
    g_launched += (long long)reps * nodes;

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaStreamDestroy(s));
    return (t1 - t0) / (double(reps) * nodes);
}

// Per rep, five distinct kernels on the legacy default stream (so they run one after another):
// spin ~2 µs, spin ~20 µs, spin ~200 µs, a 256 MiB device copy (~180 µs at ~3 TB/s: 512 MiB
// read + written), and a 1 Mi-element saxpy (~5 µs). The first call also allocates and fills
// the buffers (3 fill kernels, counted in bench_kernels_launched but not in the return value).
int micro(int reps) {
    if (reps <= 0) return -1;
    if (!g_micro.ready && micro_init() != 0) return -1;
    const Micro& m = g_micro;
    const int PER_REP = 5;
    for (int r = 0; r < reps; ++r) {
        spin_kernel<0><<<1, 32>>>(m.cycles_2us);
        spin_kernel<1><<<8, 64>>>(m.cycles_20us);
        spin_kernel<2><<<132, 128>>>(m.cycles_200us);
        copy_kernel<<<m.copy_blocks, 256>>>(m.src, m.dst, m.n4);
        saxpy_kernel<<<(m.saxpy_n + 255) / 256, 256>>>(m.saxpy_n, 2.0f, m.x, m.y);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    g_launched += (long long)reps * PER_REP;
    return reps * PER_REP;
}

}   // extern "C"
