// mem_launch.cu: a launch-bound CUDA program for the memory stage (issue 20): N empty kernels,
// launched back to back from T host threads, each on a non-blocking stream of its own.
//
//   mem_launch N [T=8]
//
// No torch, no Python: the process's own memory is the CUDA runtime's and the driver's, so the
// floor is steady and what a tracer adds stands out. Every CUDA call is checked; the kernel
// count is exact (the remainder of N / T goes to the first threads), so a tracer's rows can be
// compared with it. Prints one line on stdout:
//
//   MEMLAUNCH {"kernels": N, "threads": T, "seconds": S, "per_s": R, "vm_hwm_kib": K, "pid": P}
//
// vm_hwm_kib is VmHWM read before main returns; a tracer's at-exit flush comes after it, so
// memory.py takes the peak from wait4 (ru_maxrss) instead and prints this only as a check.

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <unistd.h>

__global__ void empty_kernel() {}

static std::atomic<int> failures{0};

static bool ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "mem_launch: %s: %s\n", what, cudaGetErrorString(e));
    failures.fetch_add(1);
    return false;
}

static long vm_hwm_kib() {
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
    }
    std::fclose(f);
    return kib;
}

static void launcher(long n) {
    cudaStream_t stream;
    if (!ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags")) return;
    for (long i = 0; i < n; i++) {
        empty_kernel<<<1, 32, 0, stream>>>();
        // A launch error is sticky in cudaGetLastError; looking every 64K launches costs nothing.
        if ((i & 0xffff) == 0xffff && !ok(cudaGetLastError(), "launch")) break;
    }
    ok(cudaGetLastError(), "launch");
    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: mem_launch KERNELS [THREADS=8]\n");
        return 2;
    }
    long total = std::atol(argv[1]);
    int threads = argc > 2 ? std::atoi(argv[2]) : 8;
    if (total < 0 || threads < 1) {
        std::fprintf(stderr, "mem_launch: KERNELS >= 0 and THREADS >= 1\n");
        return 2;
    }
    // Initialise CUDA (and with it the injected tracer) before the clock starts.
    if (!ok(cudaFree(nullptr), "cudaFree(0)")) return 1;
    auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
        long n = total / threads + (t < total % threads ? 1 : 0);
        pool.emplace_back(launcher, n);
    }
    for (auto &t : pool) t.join();
    ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (failures.load() != 0) return 1;
    std::printf("MEMLAUNCH {\"kernels\": %ld, \"threads\": %d, \"seconds\": %.3f, \"per_s\": %.0f, "
                "\"vm_hwm_kib\": %ld, \"pid\": %d}\n",
                total, threads, seconds, seconds > 0 ? total / seconds : 0.0, vm_hwm_kib(), (int)getpid());
    std::fflush(stdout);
    return 0;
}
