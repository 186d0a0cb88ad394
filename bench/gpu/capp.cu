// capp.cu: the CUDA application the CUPTI backend of rocprof-rs is checked against.
//
// It exercises every kind of record the backend turns into a table row, once or a known number
// of times, and prints what it did as one JSON line (`EXPECT {...}`), so that check_capp.py
// compares the Parquet output with the application's own account instead of a second copy of
// the numbers:
//
//   kernels   k1 <<<>>>, ks (static + dynamic shared memory, 2-D grid), k1 through
//             cudaLaunchKernelEx, kc (a __cluster_dims__(2,1,1) kernel), kcoop (through
//             cudaLaunchCooperativeKernel, with a grid-wide barrier), and a 3-node graph
//             captured from a stream and replayed twice;
//   copies    HtoD pageable, DtoH pageable, HtoD pinned async, DtoD (1 MiB each);
//   memsets   cudaMemset on the legacy default stream, cudaMemsetAsync on a second stream;
//   NVTX      push/pop "outer" (around everything, closed after the final synchronize),
//             mark "mark", a range "dr" in domain "dom" (around the graph replays), and a
//             start/end range "se" (around the final synchronize).
//
// Every CUDA call is checked; the program prints `APP ok` and exits 0 only if all succeeded
// and the results it reads back are right.
//
// Options:
//   --nvtx-before-init   open an NVTX range "early" before the first CUDA call (CUDA is not
//                        initialised yet, so the injection has not run: whether the tool still
//                        sees the range is what this variant finds out; the checker only
//                        reports it).
//
// Build: nvcc -O2 -arch=sm_90 -cudart shared -o capp capp.cu

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------------------------
// Error handling: every CUDA call goes through CK; a kernel launch is followed by CK_LAUNCH,
// which catches configuration errors that the <<<>>> syntax cannot return.

static void fail(const char* what, const char* detail, const char* file, int line) {
    std::fprintf(stderr, "capp: %s:%d: %s: %s\n", file, line, what, detail);
    std::printf("APP FAILED\n");
    std::fflush(stdout);
    std::exit(1);
}

static void check(cudaError_t err, const char* what, const char* file, int line) {
    if (err != cudaSuccess) {
        std::string detail = std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
        fail(what, detail.c_str(), file, line);
    }
}

#define CK(call) check((call), #call, __FILE__, __LINE__)
#define CK_LAUNCH() CK(cudaGetLastError())
#define REQUIRE(cond, msg) \
    do {                   \
        if (!(cond)) fail("check failed", msg, __FILE__, __LINE__); \
    } while (0)

// CLOCK_BOOTTIME, the clock rocprof-rs writes every timestamp in: the checker requires every
// row to lie between the two readings the program takes at start and after its last sync.
static uint64_t boottime_ns() {
    timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

// ---------------------------------------------------------------------------------------------
// Kernels. Names are short and distinct so mangled names stay readable (_Z2k1Pf, ...).

constexpr int KS_BLOCK = 256;                   // ks needs exactly this many threads per block
constexpr int KS_STATIC_FLOATS = KS_BLOCK;      // 1024 B of static shared memory
constexpr int KS_DYNAMIC_BYTES = 128;           // 32 floats of dynamic shared memory
constexpr int KS_DYNAMIC_FLOATS = KS_DYNAMIC_BYTES / int(sizeof(float));

// One add per thread: the workhorse, used directly, through cudaLaunchKernelEx and in the graph.
__global__ void k1(float* p) { p[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }

// Static and dynamic shared memory, on a 2-D grid. Each block writes one value into `out`:
// dyn[0] + dyn[31] = stat[255] + stat[224] = 255 + 224 = 479.
__global__ void ks(float* out) {
    extern __shared__ float dyn[];
    __shared__ float stat[KS_STATIC_FLOATS];
    stat[threadIdx.x] = float(threadIdx.x);
    __syncthreads();
    if (threadIdx.x < KS_DYNAMIC_FLOATS) dyn[threadIdx.x] = stat[KS_BLOCK - 1 - threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = dyn[0] + dyn[KS_DYNAMIC_FLOATS - 1];
}

// A thread-block cluster of 2 blocks, fixed at compile time; each block records its rank in
// the cluster, so out[b] = b % 2.
__global__ void __cluster_dims__(2, 1, 1) kc(float* out) {
    if (threadIdx.x == 0) out[blockIdx.x] = float(cg::this_cluster().block_rank());
}

// A grid-wide barrier, legal only in a cooperative launch: every block writes its index + 1,
// then block 0 sums them after the barrier. out[0] = 1 + 2 + ... + gridDim.x.
__global__ void kcoop(float* partial, float* out) {
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) partial[blockIdx.x] = float(blockIdx.x + 1);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float sum = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
        out[0] = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// The account of what the program did, printed as the EXPECT line.

struct Launch {
    std::string kernel;   // the kernel's source name (the demangled name up to '(')
    std::string api;      // the runtime call CUPTI reports for it (cuda_api.operation)
    dim3 blocks, block;   // gridDim and blockDim, as given to the launch
    int dynamic_smem;     // bytes
    bool in_graph;        // replayed from a graph (graph_id != 0)
    int count;            // how many kernel rows this launch configuration yields
};

struct Expect {
    std::vector<Launch> launches;
    std::map<std::string, int> copies;   // memory_copy.operation -> rows
    std::vector<int> memset_streams;     // which of our streams each memset used (0 = legacy)
    uint64_t copy_bytes = 0;
    int graph_launches = 0;
    int graph_nodes = 0;

    void launch(const char* kernel, const char* api, dim3 blocks, dim3 block, int dyn, bool graph = false,
                int count = 1) {
        launches.push_back({kernel, api, blocks, block, dyn, graph, count});
    }
};

static std::string dim_json(dim3 d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%u,%u,%u]", d.x, d.y, d.z);
    return buf;
}

struct Attrs {
    int regs;
    size_t static_smem;
};

template <typename F>
static Attrs attrs_of(F* kernel) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, kernel));
    return {a.numRegs, a.sharedSizeBytes};
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    bool nvtx_before_init = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--nvtx-before-init") == 0) {
            nvtx_before_init = true;
        } else {
            std::fprintf(stderr, "usage: %s [--nvtx-before-init]\n", argv[0]);
            return 2;
        }
    }
    const uint64_t t_start = boottime_ns();
    Expect ex;

    if (nvtx_before_init) nvtxRangePushA("early");

    // Initialise CUDA (and so run the injection) before any other NVTX call: CUPTI loses ranges
    // opened before it enabled marker tracing.
    CK(cudaSetDevice(0));
    CK(cudaFree(nullptr));

    int coop_supported = 0;
    CK(cudaDeviceGetAttribute(&coop_supported, cudaDevAttrCooperativeLaunch, 0));
    REQUIRE(coop_supported, "device does not support cooperative launches");

    const size_t BUF = 16u << 20;   // 16 MiB device buffer, copies use 1 MiB slices of it
    const size_t COPY = 1u << 20;
    const size_t COPY_FLOATS = COPY / sizeof(float);
    float* d = nullptr;
    CK(cudaMalloc(&d, BUF));
    std::vector<float> pageable(COPY_FLOATS), back(COPY_FLOATS);
    float* pinned = nullptr;
    CK(cudaMallocHost(&pinned, COPY));
    // Kernel results go to mapped pinned memory, read on the host after synchronising, so
    // checking them adds no copy records.
    float* res_host = nullptr;
    float* res_dev = nullptr;
    const size_t RES_FLOATS = 1024;
    CK(cudaHostAlloc(&res_host, RES_FLOATS * sizeof(float), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&res_dev, res_host, 0));
    for (size_t i = 0; i < RES_FLOATS; ++i) res_host[i] = -1.0f;
    for (size_t i = 0; i < COPY_FLOATS; ++i) {
        pageable[i] = float(i % 9973) + 0.5f;
        pinned[i] = float(i % 7919) + 0.25f;
    }

    cudaStream_t s_memset, s_graph;
    CK(cudaStreamCreateWithFlags(&s_memset, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s_graph, cudaStreamNonBlocking));

    nvtxRangePushA("outer");
    nvtxMarkA("mark");

    // --- Copies: the four kinds, 1 MiB each, in distinct slices of d. ------------------------
    CK(cudaMemcpy(d, pageable.data(), COPY, cudaMemcpyHostToDevice));           // HtoD pageable
    ex.copies["MEMORY_COPY_HOST_TO_DEVICE"]++;
    CK(cudaMemcpy(back.data(), d, COPY, cudaMemcpyDeviceToHost));               // DtoH pageable
    ex.copies["MEMORY_COPY_DEVICE_TO_HOST"]++;
    REQUIRE(std::memcmp(back.data(), pageable.data(), COPY) == 0, "HtoD/DtoH round trip differs");
    CK(cudaMemcpyAsync(d + 1 * COPY_FLOATS, pinned, COPY, cudaMemcpyHostToDevice, 0));   // HtoD pinned
    ex.copies["MEMORY_COPY_HOST_TO_DEVICE"]++;
    CK(cudaMemcpy(d + 2 * COPY_FLOATS, d + 1 * COPY_FLOATS, COPY, cudaMemcpyDeviceToDevice));   // DtoD
    ex.copies["MEMORY_COPY_DEVICE_TO_DEVICE"]++;
    ex.copy_bytes = COPY;

    // --- Memsets: one on the legacy stream, one asynchronous on a second stream. -------------
    CK(cudaMemset(d + 3 * COPY_FLOATS, 0, COPY));
    ex.memset_streams.push_back(0);
    CK(cudaMemsetAsync(d + 4 * COPY_FLOATS, 0x3f, COPY, s_memset));
    ex.memset_streams.push_back(1);
    CK(cudaStreamSynchronize(s_memset));

    // --- Direct launches. ---------------------------------------------------------------------
    float* kbuf = d + 5 * COPY_FLOATS;   // scratch for k1, well inside d
    k1<<<3, 32>>>(kbuf);
    CK_LAUNCH();
    ex.launch("k1", "cudaLaunchKernel", dim3(3), dim3(32), 0);

    ks<<<dim3(3, 2), KS_BLOCK, KS_DYNAMIC_BYTES>>>(res_dev);   // writes res[0..6)
    CK_LAUNCH();
    ex.launch("ks", "cudaLaunchKernel", dim3(3, 2), dim3(KS_BLOCK), KS_DYNAMIC_BYTES);

    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(64);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = 0;
    CK(cudaLaunchKernelEx(&cfg, k1, kbuf));
    ex.launch("k1", "cudaLaunchKernelExC", dim3(4), dim3(64), 0);

    kc<<<4, 32>>>(res_dev + 8);   // writes res[8..12)
    CK_LAUNCH();
    ex.launch("kc", "cudaLaunchKernel", dim3(4), dim3(32), 0);

    {
        float* partial = d + 6 * COPY_FLOATS;
        float* out = res_dev + 16;
        void* args[] = {&partial, &out};
        CK(cudaLaunchCooperativeKernel(kcoop, dim3(2), dim3(64), args, 0, 0));
        ex.launch("kcoop", "cudaLaunchCooperativeKernel", dim3(2), dim3(64), 0);
    }

    // --- A 3-node graph, captured from a stream and replayed twice, inside domain range "dr". --
    nvtxDomainHandle_t dom = nvtxDomainCreateA("dom");
    nvtxEventAttributes_t attr = {};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "dr";
    nvtxDomainRangePushEx(dom, &attr);

    const int GRAPH_NODES = 3, GRAPH_REPLAYS = 2;
    cudaGraph_t graph;
    cudaGraphExec_t graph_exec;
    CK(cudaStreamBeginCapture(s_graph, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < GRAPH_NODES; ++i) {
        k1<<<1, 32, 0, s_graph>>>(kbuf + 1024 * (i + 1));
        CK_LAUNCH();
    }
    CK(cudaStreamEndCapture(s_graph, &graph));
    CK(cudaGraphInstantiate(&graph_exec, graph, 0));
    for (int r = 0; r < GRAPH_REPLAYS; ++r) CK(cudaGraphLaunch(graph_exec, s_graph));
    ex.launch("k1", "cudaGraphLaunch", dim3(1), dim3(32), 0, /*graph=*/true, /*count=*/GRAPH_NODES * GRAPH_REPLAYS);
    ex.graph_launches = GRAPH_REPLAYS;
    ex.graph_nodes = GRAPH_NODES;
    nvtxDomainRangePop(dom);

    // --- Start/end range "se" around the final synchronize; then close "outer". --------------
    nvtxRangeId_t se = nvtxRangeStartA("se");
    CK(cudaDeviceSynchronize());
    nvtxRangeEnd(se);
    nvtxRangePop();   // "outer"
    if (nvtx_before_init) nvtxRangePop();   // "early"

    // --- Results the kernels wrote. -------------------------------------------------------------
    for (int b = 0; b < 6; ++b) REQUIRE(res_host[b] == 479.0f, "ks wrote a wrong value");
    for (int b = 0; b < 4; ++b) REQUIRE(res_host[8 + b] == float(b % 2), "kc: wrong cluster rank");
    REQUIRE(res_host[16] == 3.0f, "kcoop: wrong sum after the grid barrier");

    const Attrs a_k1 = attrs_of(k1), a_ks = attrs_of(ks), a_kc = attrs_of(kc), a_kcoop = attrs_of(kcoop);

    CK(cudaGraphExecDestroy(graph_exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaStreamDestroy(s_memset));
    CK(cudaStreamDestroy(s_graph));
    CK(cudaFreeHost(res_host));
    CK(cudaFreeHost(pinned));
    CK(cudaFree(d));
    CK(cudaGetLastError());
    const uint64_t t_end = boottime_ns();

    // --- The EXPECT line. -----------------------------------------------------------------------
    int kernels = 0, graph_kernels = 0;
    std::map<std::string, int> by_name;
    for (const Launch& l : ex.launches) {
        kernels += l.count;
        if (l.in_graph) graph_kernels += l.count;
        by_name[l.kernel] += l.count;
    }
    int copies = 0;
    for (auto& kv : ex.copies) copies += kv.second;

    std::string j = "{";
    j += "\"kernels\":" + std::to_string(kernels);
    j += ",\"graph_kernels\":" + std::to_string(graph_kernels);
    j += ",\"graph_launches\":" + std::to_string(ex.graph_launches);
    j += ",\"graph_nodes\":" + std::to_string(ex.graph_nodes);
    j += ",\"kernels_by_name\":{";
    bool first = true;
    for (auto& kv : by_name) {
        j += std::string(first ? "" : ",") + "\"" + kv.first + "\":" + std::to_string(kv.second);
        first = false;
    }
    j += "},\"launches\":[";
    first = true;
    for (const Launch& l : ex.launches) {
        j += std::string(first ? "" : ",") + "{\"kernel\":\"" + l.kernel + "\",\"api\":\"" + l.api +
             "\",\"blocks\":" + dim_json(l.blocks) + ",\"block\":" + dim_json(l.block) +
             ",\"dynamic_smem\":" + std::to_string(l.dynamic_smem) + ",\"in_graph\":" +
             (l.in_graph ? "true" : "false") + ",\"count\":" + std::to_string(l.count) + "}";
        first = false;
    }
    j += "],\"attrs\":{";
    const std::pair<const char*, Attrs> attrs[] = {{"k1", a_k1}, {"ks", a_ks}, {"kc", a_kc}, {"kcoop", a_kcoop}};
    first = true;
    for (auto& kv : attrs) {
        j += std::string(first ? "" : ",") + "\"" + kv.first + "\":{\"regs\":" + std::to_string(kv.second.regs) +
             ",\"static_smem\":" + std::to_string(kv.second.static_smem) + "}";
        first = false;
    }
    j += "},\"cluster\":{\"kc\":[2,1,1]}";
    j += ",\"copies\":" + std::to_string(copies);
    j += ",\"copies_by_op\":{";
    first = true;
    for (auto& kv : ex.copies) {
        j += std::string(first ? "" : ",") + "\"" + kv.first + "\":" + std::to_string(kv.second);
        first = false;
    }
    j += "},\"copy_bytes\":" + std::to_string(ex.copy_bytes);
    j += ",\"memsets\":" + std::to_string(ex.memset_streams.size());
    j += ",\"memset_bytes\":" + std::to_string(COPY);
    j += ",\"memset_distinct_streams\":2";
    j += ",\"markers\":4";
    j += ",\"ranges\":[{\"message\":\"outer\",\"domain\":null},{\"message\":\"dr\",\"domain\":\"dom\"},"
         "{\"message\":\"se\",\"domain\":null}]";
    j += ",\"marks\":[{\"message\":\"mark\",\"domain\":null}]";
    j += std::string(",\"optional_markers\":") + (nvtx_before_init ? "[\"early\"]" : "[]");
    j += ",\"enclosing_range\":\"outer\"";
    j += ",\"pid\":" + std::to_string(getpid());
    j += ",\"boottime_start_ns\":" + std::to_string(t_start);
    j += ",\"boottime_end_ns\":" + std::to_string(t_end);
    j += "}";
    std::printf("EXPECT %s\n", j.c_str());
    std::printf("APP ok\n");
    return 0;
}
