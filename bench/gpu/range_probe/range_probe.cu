// range_probe: de-risks CUPTI's range profiler (CUDA 12.6+: cuptiRangeProfiler* with
// cuptiProfilerHost*) for issue 22, on the real GPU, with nothing of CUPTI linked.
// README.md beside this file has the results and the rules they imply; this header only says what
// the program does.
//
// libcupti is dlopen'ed (CUPTI_LIB, else the CUDA install, else the soname); the CUPTI headers
// give only the types. Two kernels: a 256 MiB streaming copy and an FP32 FMA loop with a known
// FFMA count. Modes:
//
//   range_probe [--metrics a,b,..] [--roofline a,b,..] [--out DIR]
//       pass counts, one-pass grouping of the roofline set, then experiments A..K, each printing
//       one `RANGE exp=.. kernel=.. metric=value ..` line per range.
//   range_probe --callbacks [--roofline a,b,..]
//       experiment H: the injection's shape. A CUPTI subscriber (driver API callbacks) and
//       CONCURRENT_KERNEL activity tracing are on; sessions of 1, 2 or 4 launches are driven from
//       the cuLaunchKernel callback (SetConfig+Start at API enter, Stop+Decode at API exit).
//   range_probe --case NAME
//       one isolated scenario per process (X1..X12: see case_mode), to tell what breaks what.
//   range_probe --plain
//       the same launches, no CUPTI at all: what ncu profiles for the comparison.
//
// Experiments of the normal mode (one per one-pass group of --metrics):
//   A/A2/A3  AutoRange + UserReplay, one Start..Stop around 4 launches, no synchronize before Stop
//   C        UserRange + UserReplay, PushRange/PopRange around each launch (same object as A)
//   F        as A, Stop and DecodeData on a thread with no current context
//   E        AutoRange + UserReplay with room for 2 ranges and 4 launches (what overflow does)
//   D1..D10  groups taking turns, one session per launch, images sized up front (this is how the
//            "GetCounterDataSize binds the object" pitfall was found: see README)
//   G        the whole roofline set in one multi-pass config, replayed by us (UserReplay)
//   K1/K2    AutoRange + KernelReplay on a fresh object (last: on a reused object it crashed)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>  // cuptiDeviceGetChipName

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

// ------------------------------------------------------------------------------------------
// kernels

__global__ void init_kernel(float4* p, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = make_float4((float)(i & 1023), 1.0f, 2.0f, 3.0f);
}

__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// Exactly 8 FFMA per iteration per thread: the initial values come from integer conversions and
// the final sum is FADDs, so smsp__sass_thread_inst_executed_op_ffma_pred_on.sum = threads*iters*8.
__global__ void fma_kernel(float* out, int iters, float b, float c) {
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
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static const size_t COPY_BYTES = 256ull << 20;  // 256 MiB read, 256 MiB written
static const size_t N4 = COPY_BYTES / sizeof(float4);
static float4 *g_src = nullptr, *g_dst = nullptr;
static float* g_out = nullptr;
static int g_sms = 0, g_iters = 4096;
static int copy_blocks() { return g_sms * 16; }
static int fma_blocks() { return g_sms * 8; }
static const int THREADS = 256;

static const char* kname(int k) { return k == 0 ? "copy" : "fma"; }
static void launch(int k) {
    if (k == 0)
        copy_kernel<<<copy_blocks(), THREADS>>>(g_src, g_dst, N4);
    else
        fma_kernel<<<fma_blocks(), THREADS>>>(g_out, g_iters, 0.999f, 0.001f);
}
static void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        printf("CUDA_FAIL %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

// ------------------------------------------------------------------------------------------
// CUPTI through dlopen

#define CUPTI_FUNCS(X)                                                                          \
    X(cuptiGetVersion)                                                                          \
    X(cuptiGetResultString)                                                                     \
    X(cuptiProfilerInitialize)                                                                  \
    X(cuptiProfilerDeInitialize)                                                                \
    X(cuptiProfilerDeviceSupported)                                                             \
    X(cuptiDeviceGetChipName)                                                                   \
    X(cuptiProfilerGetCounterAvailability)                                                      \
    X(cuptiProfilerHostInitialize)                                                              \
    X(cuptiProfilerHostDeinitialize)                                                            \
    X(cuptiProfilerHostConfigAddMetrics)                                                        \
    X(cuptiProfilerHostGetConfigImageSize)                                                      \
    X(cuptiProfilerHostGetConfigImage)                                                          \
    X(cuptiProfilerHostGetNumOfPasses)                                                          \
    X(cuptiProfilerHostEvaluateToGpuValues)                                                     \
    X(cuptiProfilerHostGetBaseMetrics)                                                          \
    X(cuptiProfilerHostGetMetricProperties)                                                     \
    X(cuptiRangeProfilerEnable)                                                                 \
    X(cuptiRangeProfilerDisable)                                                                \
    X(cuptiRangeProfilerSetConfig)                                                              \
    X(cuptiRangeProfilerStart)                                                                  \
    X(cuptiRangeProfilerStop)                                                                   \
    X(cuptiRangeProfilerPushRange)                                                              \
    X(cuptiRangeProfilerPopRange)                                                               \
    X(cuptiRangeProfilerDecodeData)                                                             \
    X(cuptiRangeProfilerGetCounterDataSize)                                                     \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                             \
    X(cuptiRangeProfilerGetCounterDataInfo)                                                     \
    X(cuptiRangeProfilerCounterDataGetRangeInfo)                                                \
    X(cuptiSubscribe)                                                                           \
    X(cuptiUnsubscribe)                                                                         \
    X(cuptiEnableDomain)                                                                        \
    X(cuptiEnableCallback)                                                                      \
    X(cuptiActivityRegisterCallbacks)                                                           \
    X(cuptiActivityEnable)                                                                      \
    X(cuptiActivityDisable)                                                                     \
    X(cuptiActivityFlushAll)                                                                    \
    X(cuptiActivityGetNextRecord)

#define DECL_PTR(f) static decltype(&::f) p_##f = nullptr;
CUPTI_FUNCS(DECL_PTR)

typedef CUresult (*cuCtxGetCurrent_t)(CUcontext*);
typedef CUresult (*cuCtxSynchronize_t)(void);
static cuCtxGetCurrent_t p_cuCtxGetCurrent = nullptr;
static cuCtxSynchronize_t p_cuCtxSynchronize = nullptr;

static const char* rstr(CUptiResult r) {
    const char* s = nullptr;
    if (p_cuptiGetResultString) p_cuptiGetResultString(r, &s);
    return s ? s : "?";
}
static bool ck_(CUptiResult r, const char* what, int line, bool quiet) {
    if (r == CUPTI_SUCCESS) return true;
    if (!quiet) printf("CUPTI_FAIL line %d: %s -> %d %s\n", line, what, (int)r, rstr(r));
    return false;
}
#define CK(call) ck_((call), #call, __LINE__, false)
#define CKQ(call) ck_((call), #call, __LINE__, true)

static double now_us() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static const char* volatile g_stage = "start";
static void on_alarm(int) {
    char buf[256];
    int n = snprintf(buf, sizeof buf, "WATCHDOG: no progress in stage '%s' for the allotted time; exiting\n",
                     g_stage);
    if (write(1, buf, n) < 0) {}
    _exit(3);
}
static void stage(const char* s, unsigned secs) {
    g_stage = s;
    alarm(secs);
    printf("\n== %s\n", s);
}

static void print_maps(const char* tag) {
    FILE* f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[4096];
    std::vector<std::string> seen;
    while (fgets(line, sizeof line, f)) {
        const char* p = strchr(line, '/');
        if (!p) continue;
        std::string path(p);
        if (!path.empty() && path.back() == '\n') path.pop_back();
        if (path.find("cupti") == std::string::npos && path.find("nvperf") == std::string::npos &&
            path.find("libcuda.so") == std::string::npos)
            continue;
        if (std::find(seen.begin(), seen.end(), path) != seen.end()) continue;
        seen.push_back(path);
        printf("MAPPED %s %s\n", tag, path.c_str());
    }
    fclose(f);
}

static bool load_cupti() {
    static int loaded = -1;
    if (loaded >= 0) return loaded == 1;
    loaded = 0;
    std::vector<std::string> cands;
    if (const char* e = getenv("CUPTI_LIB")) cands.push_back(e);
    const char* ch = getenv("CUDA_HOME");
    std::string home = ch ? ch : "/usr/local/cuda";
    for (const char* sub : {"/extras/CUPTI/lib64/libcupti.so.13", "/extras/CUPTI/lib64/libcupti.so",
                            "/targets/x86_64-linux/lib/libcupti.so.13", "/targets/x86_64-linux/lib/libcupti.so",
                            "/lib64/libcupti.so.13", "/lib64/libcupti.so"})
        cands.push_back(home + sub);
    cands.push_back("libcupti.so.13");
    cands.push_back("libcupti.so");
    void* h = nullptr;
    for (auto& c : cands) {
        if (c.find('/') != std::string::npos && access(c.c_str(), R_OK) != 0) {
            printf("CUPTI candidate %s: absent\n", c.c_str());
            continue;
        }
        h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h) {
            printf("CUPTI candidate %s: loaded\n", c.c_str());
            break;
        }
        printf("CUPTI candidate %s: dlopen failed: %s\n", c.c_str(), dlerror());
    }
    if (!h) return false;
    struct link_map* lm = nullptr;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm) printf("CUPTI_LIB_PATH %s\n", lm->l_name);
    bool ok = true;
#define RESOLVE(f)                                          \
    p_##f = (decltype(p_##f))dlsym(h, #f);                  \
    if (!p_##f) {                                           \
        printf("CUPTI symbol missing: %s\n", #f);           \
        ok = false;                                         \
    }
    CUPTI_FUNCS(RESOLVE)
#undef RESOLVE
    uint32_t v = 0;
    if (p_cuptiGetVersion && p_cuptiGetVersion(&v) == CUPTI_SUCCESS)
        printf("CUPTI_VERSION runtime=%u header=%u\n", v, (unsigned)CUPTI_API_VERSION);
    loaded = ok ? 1 : 0;
    return ok;
}

static bool load_cuda_driver() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) return false;
    p_cuCtxGetCurrent = (cuCtxGetCurrent_t)dlsym(h, "cuCtxGetCurrent");
    p_cuCtxSynchronize = (cuCtxSynchronize_t)dlsym(h, "cuCtxSynchronize");
    return p_cuCtxGetCurrent && p_cuCtxSynchronize;
}

// ------------------------------------------------------------------------------------------
// profiler host helpers

static std::string g_chip;
static std::vector<uint8_t> g_avail;
static CUpti_Profiler_Host_Object* g_eval = nullptr;  // evaluator: a host object with no metrics added

static std::vector<const char*> cstrs(const std::vector<std::string>& v) {
    std::vector<const char*> r;
    for (auto& s : v) r.push_back(s.c_str());
    return r;
}
static std::string join(const std::vector<std::string>& v, const char* sep = ",") {
    std::string r;
    for (size_t i = 0; i < v.size(); i++) r += (i ? sep : "") + v[i];
    return r;
}
static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> r;
    size_t a = 0;
    while (a <= s.size()) {
        size_t b = s.find(',', a);
        if (b == std::string::npos) b = s.size();
        if (b > a) r.push_back(s.substr(a, b - a));
        a = b + 1;
    }
    return r;
}

static CUpti_Profiler_Host_Object* host_new(bool quiet) {
    CUpti_Profiler_Host_Initialize_Params p = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = g_chip.c_str();
    p.pCounterAvailabilityImage = g_avail.data();
    if (!ck_(p_cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize", __LINE__, quiet)) return nullptr;
    return p.pHostObject;
}
static void host_free(CUpti_Profiler_Host_Object* h) {
    if (!h) return;
    CUpti_Profiler_Host_Deinitialize_Params p = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = h;
    CK(p_cuptiProfilerHostDeinitialize(&p));
}

// A fresh host object per config: ConfigAddMetrics accumulates into the object.
// Returns the number of passes (0 on failure) and the config image if asked.
static size_t build_config(const std::vector<std::string>& metrics, std::vector<uint8_t>* cfg, bool quiet,
                           double* us = nullptr) {
    double t0 = now_us();
    CUpti_Profiler_Host_Object* h = host_new(quiet);
    if (!h) return 0;
    size_t passes = 0;
    std::vector<const char*> names = cstrs(metrics);
    std::vector<uint8_t> img;
    CUpti_Profiler_Host_ConfigAddMetrics_Params a = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    a.pHostObject = h;
    a.ppMetricNames = names.data();
    a.numMetrics = names.size();
    if (ck_(p_cuptiProfilerHostConfigAddMetrics(&a), "ConfigAddMetrics", __LINE__, quiet)) {
        CUpti_Profiler_Host_GetConfigImageSize_Params s = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
        s.pHostObject = h;
        if (ck_(p_cuptiProfilerHostGetConfigImageSize(&s), "GetConfigImageSize", __LINE__, quiet)) {
            img.resize(s.configImageSize);
            CUpti_Profiler_Host_GetConfigImage_Params g = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
            g.pHostObject = h;
            g.configImageSize = img.size();
            g.pConfigImage = img.data();
            if (ck_(p_cuptiProfilerHostGetConfigImage(&g), "GetConfigImage", __LINE__, quiet)) {
                CUpti_Profiler_Host_GetNumOfPasses_Params n = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
                n.configImageSize = img.size();
                n.pConfigImage = img.data();
                if (ck_(p_cuptiProfilerHostGetNumOfPasses(&n), "GetNumOfPasses", __LINE__, quiet)) passes = n.numOfPasses;
            }
        }
    }
    host_free(h);
    if (cfg) *cfg = img;
    if (us) *us = now_us() - t0;
    return passes;
}

static std::vector<std::vector<std::string>> greedy_groups(const std::vector<std::string>& metrics) {
    std::vector<std::vector<std::string>> groups;
    for (auto& m : metrics) {
        bool placed = false;
        for (auto& g : groups) {
            std::vector<std::string> t = g;
            t.push_back(m);
            if (build_config(t, nullptr, true) == 1) {
                g.push_back(m);
                placed = true;
                break;
            }
        }
        if (!placed) {
            size_t p = build_config({m}, nullptr, true);
            if (p != 1) printf("GROUPING: %s alone needs %zu passes; it gets a group of its own anyway\n", m.c_str(), p);
            groups.push_back({m});
        }
    }
    return groups;
}

static size_t counter_data_size(CUpti_RangeProfiler_Object* obj, const std::vector<std::string>& metrics,
                                size_t ranges, size_t treeNodes = 0) {
    std::vector<const char*> names = cstrs(metrics);
    CUpti_RangeProfiler_GetCounterDataSize_Params p = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    p.pMetricNames = names.data();
    p.numMetrics = names.size();
    p.maxNumOfRanges = ranges;
    p.maxNumRangeTreeNodes = (uint32_t)(treeNodes ? treeNodes : ranges);
    if (!CK(p_cuptiRangeProfilerGetCounterDataSize(&p))) return 0;
    return p.counterDataSize;
}

static CUpti_RangeProfiler_Object* rp_enable(CUcontext ctx) {
    CUpti_RangeProfiler_Enable_Params p = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = ctx;
    double t0 = now_us();
    if (!CK(p_cuptiRangeProfilerEnable(&p))) return nullptr;
    printf("Enable: %.0f us\n", now_us() - t0);
    return p.pRangeProfilerObject;
}
static void rp_disable(CUpti_RangeProfiler_Object* obj) {
    if (!obj) return;
    CUpti_RangeProfiler_Disable_Params p = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    double t0 = now_us();
    CK(p_cuptiRangeProfilerDisable(&p));
    printf("Disable: %.0f us\n", now_us() - t0);
}

static bool image_init(CUpti_RangeProfiler_Object* obj, std::vector<uint8_t>& img) {
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params p = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    p.counterDataSize = img.size();
    p.pCounterData = img.data();
    return CK(p_cuptiRangeProfilerCounterDataImageInitialize(&p));
}

static bool set_config(CUpti_RangeProfiler_Object* obj, const std::vector<uint8_t>& cfg, std::vector<uint8_t>& img,
                       CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay, size_t maxRanges, size_t passIndex = 0) {
    CUpti_RangeProfiler_SetConfig_Params p = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    p.configSize = cfg.size();
    p.pConfig = cfg.data();
    p.counterDataImageSize = img.size();
    p.pCounterDataImage = img.data();
    p.range = range;
    p.replayMode = replay;
    p.maxRangesPerPass = maxRanges;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = passIndex;
    p.targetNestingLevel = 1;
    return CK(p_cuptiRangeProfilerSetConfig(&p));
}

struct StopInfo {
    CUptiResult r = CUPTI_SUCCESS;
    size_t passIndex = 0, target = 0;
    int allSubmitted = -1;
};
static StopInfo rp_stop(CUpti_RangeProfiler_Object* obj) {
    CUpti_RangeProfiler_Stop_Params p = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    StopInfo s;
    s.r = p_cuptiRangeProfilerStop(&p);
    s.passIndex = p.passIndex;
    s.target = p.targetNestingLevel;
    s.allSubmitted = p.isAllPassSubmitted;
    return s;
}
static CUptiResult rp_decode(CUpti_RangeProfiler_Object* obj, size_t* dropped) {
    CUpti_RangeProfiler_DecodeData_Params p = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    CUptiResult r = p_cuptiRangeProfilerDecodeData(&p);
    *dropped = p.numOfRangeDropped;
    return r;
}

struct RangeValues {
    std::string name;
    std::vector<double> v;
};

// Reads every range of a decoded image. Returns false on an error.
static bool read_ranges(const std::vector<uint8_t>& img, const std::vector<std::string>& metrics,
                        std::vector<RangeValues>* out, double* us) {
    double t0 = now_us();
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ip.pCounterDataImage = img.data();
    ip.counterDataImageSize = img.size();
    if (!CK(p_cuptiRangeProfilerGetCounterDataInfo(&ip))) return false;
    std::vector<const char*> names = cstrs(metrics);
    for (size_t i = 0; i < ip.numTotalRanges; i++) {
        RangeValues rv;
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params rp = {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
        rp.pCounterDataImage = img.data();
        rp.counterDataImageSize = img.size();
        rp.rangeIndex = i;
        rp.rangeDelimiter = "/";
        if (CK(p_cuptiRangeProfilerCounterDataGetRangeInfo(&rp)) && rp.rangeName) rv.name = rp.rangeName;
        rv.v.assign(metrics.size(), -1.0);
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = g_eval;
        ev.pCounterDataImage = img.data();
        ev.counterDataImageSize = img.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = names.data();
        ev.numMetrics = names.size();
        ev.pMetricValues = rv.v.data();
        if (!CK(p_cuptiProfilerHostEvaluateToGpuValues(&ev))) return false;
        out->push_back(rv);
    }
    if (us) *us = now_us() - t0;
    return true;
}

static void print_range(const char* exp, const char* extra, size_t idx, const RangeValues& rv, const char* kernel,
                        const std::vector<std::string>& metrics) {
    printf("RANGE exp=%s%s idx=%zu name=%s kernel=%s", exp, extra, idx, rv.name.empty() ? "-" : rv.name.c_str(),
           kernel);
    for (size_t i = 0; i < metrics.size(); i++) printf(" %s=%.17g", metrics[i].c_str(), rv.v[i]);
    printf("\n");
}

// One session: Start, the launches, Stop, Decode, read. The image must already be sized.
struct SessionOpts {
    const char* exp;
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replay;
    size_t maxRanges;
    bool syncBeforeStop;
    bool stopInThread;
    bool userRanges;
};

static bool run_session(CUpti_RangeProfiler_Object* obj, const std::vector<std::string>& metrics,
                        const std::vector<uint8_t>& cfg, std::vector<uint8_t>& img, const SessionOpts& o,
                        const std::vector<int>& seq) {
    double t0 = now_us();
    if (!image_init(obj, img)) return false;
    double t1 = now_us();
    if (!set_config(obj, cfg, img, o.range, o.replay, o.maxRanges)) return false;
    double t2 = now_us();
    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = obj;
    if (!CK(p_cuptiRangeProfilerStart(&sp))) return false;
    double t3 = now_us();
    for (size_t i = 0; i < seq.size(); i++) {
        std::string nm = std::string(kname(seq[i])) + "#" + std::to_string(i);
        if (o.userRanges) {
            CUpti_RangeProfiler_PushRange_Params pp = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
            pp.pRangeProfilerObject = obj;
            pp.pRangeName = nm.c_str();
            if (!CK(p_cuptiRangeProfilerPushRange(&pp))) return false;
        }
        launch(seq[i]);
        if (o.userRanges) {
            CUpti_RangeProfiler_PopRange_Params pp = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
            pp.pRangeProfilerObject = obj;
            if (!CK(p_cuptiRangeProfilerPopRange(&pp))) return false;
        }
    }
    cudaError_t le = cudaGetLastError();
    if (le != cudaSuccess) printf("%s: launch error %s\n", o.exp, cudaGetErrorString(le));
    double t4 = now_us();
    if (o.syncBeforeStop) cuda_check(cudaDeviceSynchronize(), "sync before stop");
    double t5 = now_us();
    StopInfo si;
    size_t dropped = 0;
    CUptiResult dr = CUPTI_SUCCESS;
    double t6 = 0;
    if (o.stopInThread) {
        std::thread th([&] {
            CUcontext c = nullptr;
            p_cuCtxGetCurrent(&c);
            printf("%s: worker thread current context = %p\n", o.exp, (void*)c);
            si = rp_stop(obj);
            t6 = now_us();
            if (si.r == CUPTI_SUCCESS) dr = rp_decode(obj, &dropped);
        });
        th.join();
    } else {
        si = rp_stop(obj);
        t6 = now_us();
        if (si.r == CUPTI_SUCCESS) dr = rp_decode(obj, &dropped);
    }
    double t7 = now_us();
    printf("%s: Stop -> %d %s passIndex=%zu targetNestingLevel=%zu isAllPassSubmitted=%d\n", o.exp, (int)si.r,
           rstr(si.r), si.passIndex, si.target, si.allSubmitted);
    printf("%s: DecodeData -> %d %s numOfRangeDropped=%zu\n", o.exp, (int)dr, rstr(dr), dropped);
    if (si.r != CUPTI_SUCCESS || dr != CUPTI_SUCCESS) return false;
    std::vector<RangeValues> rv;
    double tread = 0;
    if (!read_ranges(img, metrics, &rv, &tread)) return false;
    printf("%s: numTotalRanges=%zu for %zu launches\n", o.exp, rv.size(), seq.size());
    for (size_t i = 0; i < rv.size(); i++)
        print_range(o.exp, "", i, rv[i], i < seq.size() ? kname(seq[i]) : "?", metrics);
    printf("TIMING exp=%s image_init_us=%.0f setconfig_us=%.0f start_us=%.0f launches_us=%.0f sync_us=%.0f "
           "stop_us=%.0f decode_us=%.0f read_us=%.0f total_us=%.0f\n",
           o.exp, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, tread, now_us() - t0);
    return true;
}


// Groups taking turns: for each round, for each group, for each kernel: one session of
// `perSession` launches of that kernel. Per-step times are collected.
struct RotOpts {
    const char* exp;
    size_t setConfigRanges;  // maxRangesPerPass
    size_t imageRanges;      // maxNumOfRanges of the image
    size_t imageTree;        // maxNumRangeTreeNodes of the image
    CUpti_ProfilerReplayMode replay;
    int perSession;
    bool sync;
    int rounds;
};
static void rotation(CUpti_RangeProfiler_Object* obj, const std::vector<std::vector<std::string>>& groups,
                     const std::vector<std::vector<uint8_t>>& cfgs, const RotOpts& o) {
    std::vector<std::vector<uint8_t>> imgs;
    for (auto& g : groups) imgs.push_back(std::vector<uint8_t>(counter_data_size(obj, g, o.imageRanges, o.imageTree)));
    printf("%s: setConfigRanges=%zu image ranges=%zu tree=%zu (%zu bytes for group 0) replay=%s perSession=%d sync=%d\n",
           o.exp, o.setConfigRanges, o.imageRanges, o.imageTree, imgs[0].size(),
           o.replay == CUPTI_UserReplay ? "user" : "kernel", o.perSession, (int)o.sync);
    const int NSTEP = 8;
    const char* stepName[NSTEP] = {"image_init", "setconfig", "start", "launch", "sync", "stop", "decode", "read"};
    std::vector<std::vector<double>> steps(NSTEP);
    std::vector<double> total;
    int fails = 0, nanRanges = 0;
    for (int rep = 0; rep < o.rounds; rep++)
        for (size_t g = 0; g < groups.size(); g++)
            for (int k = 0; k < 2; k++) {
                double t[NSTEP + 1];
                t[0] = now_us();
                bool ok = image_init(obj, imgs[g]);
                t[1] = now_us();
                ok = ok && set_config(obj, cfgs[g], imgs[g], CUPTI_AutoRange, o.replay, o.setConfigRanges);
                t[2] = now_us();
                CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = obj;
                ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
                t[3] = now_us();
                for (int i = 0; i < o.perSession; i++) launch(k);
                t[4] = now_us();
                if (o.sync) cuda_check(cudaDeviceSynchronize(), "rotation sync");
                t[5] = now_us();
                StopInfo si = ok ? rp_stop(obj) : StopInfo();
                t[6] = now_us();
                size_t dropped = 0;
                CUptiResult dr = ok && si.r == CUPTI_SUCCESS ? rp_decode(obj, &dropped) : CUPTI_ERROR_UNKNOWN;
                t[7] = now_us();
                std::vector<RangeValues> rv;
                ok = ok && si.r == CUPTI_SUCCESS && dr == CUPTI_SUCCESS && read_ranges(imgs[g], groups[g], &rv, nullptr);
                t[8] = now_us();
                for (int i = 0; i < NSTEP; i++) steps[i].push_back(t[i + 1] - t[i]);
                total.push_back(t[8] - t[0]);
                if (!ok || (int)rv.size() != o.perSession) {
                    fails++;
                    printf("%s: rep %d group %zu %s: stop=%s all=%d decode=%s dropped=%zu ranges=%zu\n", o.exp, rep, g,
                           kname(k), rstr(si.r), si.allSubmitted, rstr(dr), dropped, rv.size());
                }
                for (size_t i = 0; i < rv.size(); i++) {
                    bool anyNan = false;
                    for (double v : rv[i].v) anyNan = anyNan || v != v;
                    nanRanges += anyNan;
                    char extra[64];
                    snprintf(extra, sizeof extra, " group=%zu rep=%d", g, rep);
                    print_range(o.exp, extra, i, rv[i], kname(k), groups[g]);
                }
            }
    auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    printf("TIMING exp=%s sessions=%zu failed=%d ranges_with_nan=%d total_median_us=%.0f total_max_us=%.0f", o.exp,
           total.size(), fails, nanRanges, med(total), total.empty() ? 0.0 : *std::max_element(total.begin(), total.end()));
    for (int i = 0; i < NSTEP; i++) printf(" %s=%.0f", stepName[i], med(steps[i]));
    printf("\n");
}

// ------------------------------------------------------------------------------------------
// setup shared by the modes

static CUcontext g_ctx = nullptr;

static bool profiler_setup() {
    stage("profiler setup", 60);
    if (!load_cupti()) return false;
    if (!load_cuda_driver()) {
        printf("libcuda.so.1 not loadable\n");
        return false;
    }
    p_cuCtxGetCurrent(&g_ctx);
    printf("current context %p\n", (void*)g_ctx);
    double t0 = now_us();
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    if (!CK(p_cuptiProfilerInitialize(&ip))) return false;
    printf("cuptiProfilerInitialize: %.0f us\n", now_us() - t0);
    print_maps("after-ProfilerInitialize");

    CUpti_Profiler_DeviceSupported_Params ds = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    ds.cuDevice = 0;
    ds.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (CK(p_cuptiProfilerDeviceSupported(&ds)))
        printf("DeviceSupported(range profiling): isSupported=%d architecture=%d sli=%d vGpu=%d "
               "confidentialCompute=%d cmp=%d wsl=%d (3 = CUPTI_PROFILER_CONFIGURATION_SUPPORTED)\n",
               (int)ds.isSupported, (int)ds.architecture, (int)ds.sli, (int)ds.vGpu, (int)ds.confidentialCompute,
               (int)ds.cmp, (int)ds.wsl);

    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    if (!CK(p_cuptiDeviceGetChipName(&cn))) return false;
    g_chip = cn.pChipName;
    printf("CHIP %s\n", g_chip.c_str());

    CUpti_Profiler_GetCounterAvailability_Params ca = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = g_ctx;
    if (!CK(p_cuptiProfilerGetCounterAvailability(&ca))) return false;
    g_avail.resize(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = g_avail.data();
    if (!CK(p_cuptiProfilerGetCounterAvailability(&ca))) return false;
    printf("counter availability image: %zu bytes\n", g_avail.size());

    t0 = now_us();
    g_eval = host_new(false);
    if (!g_eval) return false;
    printf("cuptiProfilerHostInitialize: %.0f us\n", now_us() - t0);
    print_maps("after-HostInitialize");
    return true;
}

static std::vector<std::string> resolve_roofline(const std::vector<std::string>& requested) {
    // The tensor pipe metric differs by architecture: keep the candidates this chip knows.
    std::vector<std::string> out;
    for (auto& m : requested) {
        if (m != "TENSOR") {
            out.push_back(m);
            continue;
        }
        for (const char* t : {"sm__inst_executed_pipe_tensor_op_hmma.sum", "sm__inst_executed_pipe_tensor_op_gmma.sum",
                              "sm__inst_executed_pipe_tensor_op_imma.sum", "sm__inst_executed_pipe_tensor.sum"}) {
            size_t p = build_config({t}, nullptr, true);
            printf("tensor candidate %s: %s\n", t, p ? "valid" : "NOT VALID on this chip");
            if (p && out.size() < 64 && (strstr(t, "hmma") || strstr(t, "gmma"))) out.push_back(t);
        }
    }
    return out;
}

// ------------------------------------------------------------------------------------------
// experiment H: range per launch from inside the launch callback

struct CbState {
    CUpti_RangeProfiler_Object* obj = nullptr;
    std::vector<std::vector<std::string>> groups;
    std::vector<std::vector<uint8_t>> cfgs, imgs;
    bool armed = false;
    bool syncAtExit = false;
    int perSession = 1;  // launches per session
    const char* exp = "H";
    bool active = false;
    int cur_group = -1, in_session = 0, sessions = 0;
    std::vector<std::string> kernels;  // of the open session
    int launches = 0, ok = 0, failed = 0;
    std::vector<double> cycle_us;
    double t_start = 0;
};
static CbState g_cb;
static size_t g_cb_ranges = 16;  // image and maxRangesPerPass of each callback session (RP_CB_RANGES)
static thread_local bool t_in_cb = false;
static std::atomic<long> g_kernel_records{0}, g_driver_cbs{0};
static std::map<std::string, int> g_launch_fn_names;

static void CUPTIAPI buf_req(uint8_t** b, size_t* size, size_t* maxRecords) {
    *size = 4 << 20;
    *b = (uint8_t*)aligned_alloc(8, *size);
    *maxRecords = 0;
}
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t* b, size_t, size_t valid) {
    CUpti_Activity* r = nullptr;
    while (p_cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS)
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernel_records++;
    free(b);
}

// Closes the open session: Stop, Decode, read, print one RANGE line per range.
static void cb_close_session(CbState& s) {
    if (s.syncAtExit) p_cuCtxSynchronize();
    StopInfo si = rp_stop(s.obj);
    size_t dropped = 0;
    CUptiResult dr = si.r == CUPTI_SUCCESS ? rp_decode(s.obj, &dropped) : si.r;
    std::vector<RangeValues> rv;
    bool ok = si.r == CUPTI_SUCCESS && dr == CUPTI_SUCCESS &&
              read_ranges(s.imgs[s.cur_group], s.groups[s.cur_group], &rv, nullptr);
    s.cycle_us.push_back(now_us() - s.t_start);
    if (!ok || rv.size() != s.kernels.size()) {
        s.failed++;
        printf("%s: session %d: stop=%s decode=%s dropped=%zu ranges=%zu launches=%zu\n", s.exp, s.sessions,
               rstr(si.r), rstr(dr), dropped, rv.size(), s.kernels.size());
    }
    if (ok) s.ok++;
    for (size_t i = 0; i < rv.size(); i++) {
        std::string k = i < s.kernels.size() ? s.kernels[i] : "?";
        k = k.find("copy_kernel") != std::string::npos ? "copy" : k.find("fma_kernel") != std::string::npos ? "fma" : "?";
        char extra[64];
        snprintf(extra, sizeof extra, " group=%d session=%d", s.cur_group, s.sessions);
        print_range(s.exp, extra, i, rv[i], k.c_str(), s.groups[s.cur_group]);
    }
    s.active = false;
    s.sessions++;
    if (getenv("RP_TOGGLE_ACTIVITY")) CK(p_cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

static void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    g_driver_cbs++;
    const CUpti_CallbackData* cd = (const CUpti_CallbackData*)data;
    if (!cd->functionName || !strstr(cd->functionName, "cuLaunchKernel")) return;
    if (cd->callbackSite == CUPTI_API_ENTER) g_launch_fn_names[cd->functionName]++;
    if (!g_cb.armed || t_in_cb) return;
    t_in_cb = true;
    CbState& s = g_cb;
    if (cd->callbackSite == CUPTI_API_ENTER) {
        s.launches++;
        if (!s.active) {
            // RP_TOGGLE_ACTIVITY=1: kernel activity off during each session (issue 22: does that
            // let SASS metrics count, and which kernel records go missing?).
            if (getenv("RP_TOGGLE_ACTIVITY")) CK(p_cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
            s.t_start = now_us();
            s.cur_group = s.sessions % (int)s.groups.size();
            s.in_session = 0;
            s.kernels.clear();
            bool ok = image_init(s.obj, s.imgs[s.cur_group]) &&
                      set_config(s.obj, s.cfgs[s.cur_group], s.imgs[s.cur_group], CUPTI_AutoRange, CUPTI_UserReplay,
                                 g_cb_ranges);
            if (ok) {
                CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = s.obj;
                ok = CK(p_cuptiRangeProfilerStart(&sp));
            }
            s.active = ok;
            if (!ok) s.failed++;
        }
        if (s.active) s.kernels.push_back(cd->symbolName ? cd->symbolName : "?");
    } else if (s.active) {
        if (++s.in_session == s.perSession) cb_close_session(s);
    }
    t_in_cb = false;
}

static int callbacks_mode(const std::vector<std::string>& roofReq) {
    stage("callbacks mode: subscribe + activity", 60);
    // What an injection does first: subscribe and enable kernel activity, before the profiler.
    if (!load_cupti()) return 1;
    CUpti_SubscriberHandle sub;
    if (!CK(p_cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_callback, nullptr))) return 1;
    // RP_LAUNCH_ONLY=1: only cuLaunchKernel's callback, not the whole driver domain;
    // RP_NO_ACTIVITY=1: no activity tracing (what blocks SASS metrics, issue 22).
    if (getenv("RP_LAUNCH_ONLY"))
        CK(p_cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    else
        CK(p_cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
    if (!getenv("RP_NO_ACTIVITY")) {
        CK(p_cuptiActivityRegisterCallbacks(buf_req, buf_done));
        CK(p_cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    }
    if (!profiler_setup()) return 1;
    if (const char* e = getenv("RP_CB_RANGES")) g_cb_ranges = (size_t)atoi(e);
    printf("callback sessions: image and maxRangesPerPass for %zu ranges\n", g_cb_ranges);
    std::vector<std::string> roof = resolve_roofline(roofReq);
    stage("callbacks mode: groups", 120);
    g_cb.groups = greedy_groups(roof);
    for (size_t g = 0; g < g_cb.groups.size(); g++) printf("GROUP %zu %s\n", g, join(g_cb.groups[g]).c_str());
    g_cb.obj = rp_enable(g_ctx);
    if (!g_cb.obj) return 1;
    for (auto& g : g_cb.groups) {
        std::vector<uint8_t> cfg;
        build_config(g, &cfg, false);
        g_cb.cfgs.push_back(cfg);
        g_cb.imgs.push_back(std::vector<uint8_t>(counter_data_size(g_cb.obj, g, g_cb_ranges)));
    }
    struct Var {
        const char* exp;
        int perSession;
        bool sync;
    } vars[] = {{"H1", 1, false}, {"H2", 1, true}, {"H3", 2, false}, {"H4", 4, false}};
    for (auto& v : vars) {
        g_cb.syncAtExit = v.sync;
        g_cb.perSession = v.perSession;
        g_cb.exp = v.exp;
        char title[160];
        snprintf(title, sizeof title, "%s: sessions of %d launch(es) driven from the launch callback%s", v.exp,
                 v.perSession, v.sync ? ", cuCtxSynchronize before Stop" : "");
        stage(title, 60);
        g_cb.launches = g_cb.ok = g_cb.failed = g_cb.sessions = 0;
        g_cb.active = false;
        g_cb.cycle_us.clear();
        long rec0 = g_kernel_records.load();
        g_cb.armed = true;
        int n = 0;
        double t0 = now_us();
        for (int rep = 0; rep < 2; rep++)
            for (size_t g = 0; g < g_cb.groups.size(); g++)
                for (int k = 0; k < 2; k++) {
                    launch(k);
                    n++;
                }
        cuda_check(cudaDeviceSynchronize(), "H sync");
        if (g_cb.active) cb_close_session(g_cb);
        double t1 = now_us();
        g_cb.armed = false;
        CK(p_cuptiActivityFlushAll(1));
        std::vector<double> c = g_cb.cycle_us;
        std::sort(c.begin(), c.end());
        printf("%s: %d launches, %d sessions read, %d failed, %ld kernel activity records, wall %.0f us, "
               "per-session start->read median %.0f us max %.0f us\n",
               g_cb.exp, n, g_cb.ok, g_cb.failed, g_kernel_records.load() - rec0, t1 - t0,
               c.empty() ? 0.0 : c[c.size() / 2], c.empty() ? 0.0 : c.back());
    }
    for (auto& kv : g_launch_fn_names) printf("launch callbacks seen: %s x%d\n", kv.first.c_str(), kv.second);
    printf("driver API callbacks in total: %ld\n", g_driver_cbs.load());
    rp_disable(g_cb.obj);
    host_free(g_eval);
    CUpti_Profiler_DeInitialize_Params dp = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    CK(p_cuptiProfilerDeInitialize(&dp));
    CK(p_cuptiUnsubscribe(sub));
    printf("\nCALLBACKS DONE\n");
    return 0;
}

// ------------------------------------------------------------------------------------------
// --case NAME: one isolated scenario per process (what poisons what)

static bool case_session(CUpti_RangeProfiler_Object* obj, const std::vector<std::string>& m, const std::vector<int>& seq,
                         const char* label, bool userRange = false) {
    std::vector<uint8_t> cfg;
    size_t passes = build_config(m, &cfg, false);
    std::vector<uint8_t> img(counter_data_size(obj, m, 16));
    printf("%s: %s, %zu pass(es), %zu launches, image %zu bytes\n", label, join(m).c_str(), passes, seq.size(), img.size());
    SessionOpts o = {label, userRange ? CUPTI_UserRange : CUPTI_AutoRange, CUPTI_UserReplay, 16, false, false, userRange};
    return run_session(obj, m, cfg, img, o, seq);
}

static int case_mode(const std::string& name) {
    if (!profiler_setup()) return 1;
    const std::vector<std::string> hw = {"dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"};
    const std::vector<std::string> sass = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"};
    const std::vector<std::string> roofHw = {"lts__t_bytes.sum", "l1tex__t_bytes.sum", "dram__bytes_read.sum",
                                             "dram__bytes_write.sum", "sm__inst_executed_pipe_tensor_op_hmma.sum"};
    const std::vector<std::string> roofSass = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                               "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                               "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"};
    const std::vector<int> seq = {0, 1, 0, 1};
    stage(("case " + name).c_str(), 60);
    CUpti_RangeProfiler_Object* obj = nullptr;
    if (name != "fresh_obj_each") obj = rp_enable(g_ctx);
    if (name == "hw_per_launch") {
        for (int i = 0; i < 4; i++) case_session(obj, hw, {seq[i]}, "X1");
    } else if (name == "sass_only") {
        case_session(obj, sass, seq, "X2a");
        case_session(obj, hw, seq, "X2b");
    } else if (name == "hw_then_sass") {
        case_session(obj, hw, seq, "X3a");
        case_session(obj, sass, seq, "X3b");
        case_session(obj, hw, seq, "X3c");
    } else if (name == "fresh_obj_each") {
        for (int r = 0; r < 2; r++) {
            obj = rp_enable(g_ctx);
            case_session(obj, sass, seq, "X4a");
            rp_disable(obj);
            obj = rp_enable(g_ctx);
            case_session(obj, hw, seq, "X4b");
            rp_disable(obj);
        }
        obj = nullptr;
    } else if (name == "cds_binding") {
        // Size an image for `hw`, then size another metric set on the same object, then use the first image.
        std::vector<uint8_t> cfg;
        build_config(hw, &cfg, false);
        std::vector<uint8_t> img(counter_data_size(obj, hw, 16));
        size_t other = counter_data_size(obj, roofHw, 2);
        printf("X5: hw image %zu bytes for 16 ranges; then GetCounterDataSize(roofHw, 2) = %zu\n", img.size(), other);
        run_session(obj, hw, cfg, img, {"X5", CUPTI_AutoRange, CUPTI_UserReplay, 16, false, false, false}, seq);
    } else if (name == "user_range") {
        case_session(obj, hw, seq, "X6", true);
    } else if (name == "sass_2pass") {
        std::vector<std::string> m = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes_read.sum"};
        std::vector<uint8_t> cfg;
        size_t passes = build_config(m, &cfg, false);
        std::vector<uint8_t> img(counter_data_size(obj, m, 16));
        bool ok = image_init(obj, img) && set_config(obj, cfg, img, CUPTI_AutoRange, CUPTI_UserReplay, 16);
        StopInfo si;
        int n = 0;
        while (ok && n < (int)passes + 2) {
            CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            sp.pRangeProfilerObject = obj;
            if (!CK(p_cuptiRangeProfilerStart(&sp))) break;
            for (int k : seq) launch(k);
            si = rp_stop(obj);
            n++;
            printf("X7: pass %d: Stop -> %s isAllPassSubmitted=%d\n", n, rstr(si.r), si.allSubmitted);
            if (si.r != CUPTI_SUCCESS || si.allSubmitted) break;
        }
        size_t dropped = 0;
        std::vector<RangeValues> rv;
        if (ok && CK(rp_decode(obj, &dropped)) && read_ranges(img, m, &rv, nullptr))
            for (size_t i = 0; i < rv.size(); i++) print_range("X7", "", i, rv[i], kname(seq[i % 4]), m);
    } else if (name == "rot_hw_first") {
        std::vector<std::vector<std::string>> groups = {roofHw, roofSass};
        std::vector<std::vector<uint8_t>> cfgs(2);
        for (int g = 0; g < 2; g++) printf("X8 group %d: %zu pass(es)\n", g, build_config(groups[g], &cfgs[g], false));
        rotation(obj, groups, cfgs, {"X8", 16, 16, 16, CUPTI_UserReplay, 1, false, 2});
    } else if (name == "rot_hw_only") {
        std::vector<std::vector<std::string>> groups = {roofHw, hw};
        std::vector<std::vector<uint8_t>> cfgs(2);
        for (int g = 0; g < 2; g++) printf("X9 group %d: %zu pass(es)\n", g, build_config(groups[g], &cfgs[g], false));
        rotation(obj, groups, cfgs, {"X9", 16, 16, 16, CUPTI_UserReplay, 1, false, 2});
    } else if (name == "rot_hw_rebind" || name == "rot_sass_rebind") {
        // Groups of one kind taking turns, GetCounterDataSize re-called before each image initialization.
        bool hwKind = name == "rot_hw_rebind";
        std::vector<std::vector<std::string>> groups = hwKind ? std::vector<std::vector<std::string>>{roofHw, hw}
                                                               : std::vector<std::vector<std::string>>{roofSass, sass};
        const char* label = hwKind ? "X10" : "X11";
        std::vector<std::vector<uint8_t>> cfgs(2);
        for (int g = 0; g < 2; g++) build_config(groups[g], &cfgs[g], false);
        std::vector<double> tot;
        int nan = 0, fails = 0;
        for (int rep = 0; rep < 2; rep++)
            for (int g = 0; g < 2; g++)
                for (int k = 0; k < 2; k++) {
                    double t0 = now_us();
                    std::vector<uint8_t> img(counter_data_size(obj, groups[g], 16));
                    bool ok = image_init(obj, img) && set_config(obj, cfgs[g], img, CUPTI_AutoRange, CUPTI_UserReplay, 16);
                    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                    sp.pRangeProfilerObject = obj;
                    ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
                    launch(k);
                    StopInfo si = ok ? rp_stop(obj) : StopInfo();
                    size_t dropped = 0;
                    std::vector<RangeValues> rv;
                    ok = ok && si.r == CUPTI_SUCCESS && CK(rp_decode(obj, &dropped)) && read_ranges(img, groups[g], &rv, nullptr);
                    tot.push_back(now_us() - t0);
                    if (!ok || rv.size() != 1) fails++;
                    for (auto& r : rv) {
                        for (double v : r.v) nan += v != v;
                        char extra[64];
                        snprintf(extra, sizeof extra, " group=%d rep=%d", g, rep);
                        print_range(label, extra, 0, r, kname(k), groups[g]);
                    }
                }
        std::sort(tot.begin(), tot.end());
        printf("TIMING exp=%s sessions=%zu failed=%d nan_values=%d median_us=%.0f max_us=%.0f\n", label, tot.size(), fails,
               nan, tot[tot.size() / 2], tot.back());
    } else if (name == "pass_rotation") {
        // CUPTI's own passes as the rotation: one multi-pass config (hardware + SASS groups), UserReplay,
        // each pass over the NEXT dispatch; Decode once all passes are in. "mixed" feeds pass 0 a copy and
        // pass 1 an fma: what happens when the dispatches differ.
        std::vector<std::string> m = roofHw;
        m.insert(m.end(), roofSass.begin(), roofSass.end());
        std::vector<uint8_t> cfg;
        size_t passes = build_config(m, &cfg, false);
        printf("X12: %zu metrics, %zu passes\n", m.size(), passes);
        std::vector<uint8_t> img(counter_data_size(obj, m, 16));
        struct Pair {
            const char* label;
            int kernelOfPass[4];
        } pairs[] = {{"X12", {0, 0, 0, 0}}, {"X12", {1, 1, 1, 1}}, {"X12", {0, 0, 0, 0}}, {"X12", {1, 1, 1, 1}},
                     {"X12mixed", {0, 1, 0, 1}}};
        std::vector<double> tot;
        for (auto& pr : pairs) {
            double t0 = now_us();
            bool ok = image_init(obj, img) && set_config(obj, cfg, img, CUPTI_AutoRange, CUPTI_UserReplay, 16);
            StopInfo si;
            int n = 0;
            while (ok && n < (int)passes + 1) {
                CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = obj;
                if (!CK(p_cuptiRangeProfilerStart(&sp))) break;
                launch(pr.kernelOfPass[n % 4]);
                si = rp_stop(obj);
                n++;
                if (si.r != CUPTI_SUCCESS || si.allSubmitted) break;
            }
            size_t dropped = 0;
            std::vector<RangeValues> rv;
            ok = ok && si.r == CUPTI_SUCCESS && si.allSubmitted && CK(rp_decode(obj, &dropped)) && read_ranges(img, m, &rv, nullptr);
            tot.push_back(now_us() - t0);
            printf("%s: %d dispatches for %zu passes, ok=%d ranges=%zu\n", pr.label, n, passes, (int)ok, rv.size());
            for (auto& r : rv) print_range(pr.label, "", 0, r, strcmp(pr.label, "X12") ? "mixed" : kname(pr.kernelOfPass[0]), m);
        }
        std::sort(tot.begin(), tot.end());
        printf("TIMING exp=X12 replay-sessions=%zu median_us=%.0f max_us=%.0f\n", tot.size(), tot[tot.size() / 2], tot.back());
    } else if (name == "pass_interleave" || name == "pass_interleave_idx" || name == "pass_abandon") {
        // X13/X14/X15: several pass sequences of ONE multi-pass config in flight at once, each with its
        // own counter data image: the injection's rotation when kernels interleave. X13 calls SetConfig
        // with passIndex 0 every session; X14 with the sequence's own pass number; X15 abandons one
        // sequence after its first pass and starts it afresh later.
        const char* label = name == "pass_interleave" ? "X13" : name == "pass_interleave_idx" ? "X14" : "X15";
        bool explicitIdx = name != "pass_interleave";
        std::vector<std::string> m = roofHw;
        m.insert(m.end(), roofSass.begin(), roofSass.end());
        std::vector<uint8_t> cfg;
        size_t passes = build_config(m, &cfg, false);
        printf("%s: %zu metrics, %zu passes\n", label, m.size(), passes);
        size_t size = counter_data_size(obj, m, 1);
        std::vector<std::vector<uint8_t>> img(2, std::vector<uint8_t>(size));
        int next[2] = {0, 0};
        bool okAll = image_init(obj, img[0]) && image_init(obj, img[1]);
        // (sequence, kernel) per dispatch: the two sequences alternate, as two kernels of a model do.
        std::vector<int> order = {0, 1, 0, 1, 0, 1, 0, 1};
        if (name == "pass_abandon") order = {0, 1, 1, 0, 0, 1, 0};
        std::vector<double> tot;
        int fails = 0, decoded = 0;
        bool restartA = name == "pass_abandon";
        for (size_t d = 0; d < order.size() && okAll; d++) {
            int q = order[d];
            if (restartA && q == 0 && d == 3) {
                // Abandon sequence 0 after one pass: re-initialize its image and begin again.
                printf("%s: abandoning sequence 0 at pass %d\n", label, next[0]);
                next[0] = 0;
                image_init(obj, img[0]);
            }
            double t0 = now_us();
            bool ok = set_config(obj, cfg, img[q], CUPTI_AutoRange, CUPTI_UserReplay, 1, explicitIdx ? next[q] : 0);
            CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            sp.pRangeProfilerObject = obj;
            ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
            launch(q);
            StopInfo si = ok ? rp_stop(obj) : StopInfo();
            printf("%s: dispatch %zu seq %d pass %d -> ok=%d stop.passIndex=%zu allSubmitted=%d\n", label, d, q, next[q], (int)ok,
                   si.passIndex, si.allSubmitted);
            next[q]++;
            if (ok && si.r == CUPTI_SUCCESS && si.allSubmitted == 1) {
                size_t dropped = 0;
                std::vector<RangeValues> rv;
                bool dk = CK(rp_decode(obj, &dropped)) && read_ranges(img[q], m, &rv, nullptr);
                printf("%s: decode seq %d ok=%d ranges=%zu dropped=%zu\n", label, q, (int)dk, rv.size(), dropped);
                for (auto& r : rv) print_range(label, "", 0, r, kname(q), m);
                decoded++;
                next[q] = 0;
                image_init(obj, img[q]);
            } else if (!ok || si.r != CUPTI_SUCCESS) {
                fails++;
            }
            tot.push_back(now_us() - t0);
        }
        std::sort(tot.begin(), tot.end());
        if (!tot.empty())
            printf("TIMING exp=%s sessions=%zu failed=%d decoded=%d median_us=%.0f max_us=%.0f\n", label, tot.size(), fails,
                   decoded, tot[tot.size() / 2], tot.back());
    } else if (name == "pass_each_decoded" || name == "pass_skip_empty") {
        // X16: one multi-pass config; every dispatch is its own session with its own image, decoded
        // right after its Stop whatever isAllPassSubmitted says: does each pass decode alone?
        // X17: as X16, but an empty session (Start/Stop, no launch) between dispatches: does it move
        // the object's pass cursor on, and what does it cost?
        bool empty = name == "pass_skip_empty";
        const char* label = empty ? "X17" : "X16";
        std::vector<std::string> m = roofHw;
        m.insert(m.end(), roofSass.begin(), roofSass.end());
        std::vector<uint8_t> cfg;
        size_t passes = build_config(m, &cfg, false);
        printf("%s: %zu metrics, %zu passes\n", label, m.size(), passes);
        std::vector<int> order = empty ? std::vector<int>{0, -1, 1, -1, 1, 0, -1, 0} : std::vector<int>{0, 1, 1, 0, 0, 1, 0, 1};
        std::vector<double> tot, emptyUs;
        for (size_t d = 0; d < order.size(); d++) {
            int k = order[d];
            double t0 = now_us();
            std::vector<uint8_t> img(counter_data_size(obj, m, 1));
            bool ok = image_init(obj, img) && set_config(obj, cfg, img, CUPTI_AutoRange, CUPTI_UserReplay, 1);
            CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            sp.pRangeProfilerObject = obj;
            ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
            if (k >= 0) launch(k);
            StopInfo si = ok ? rp_stop(obj) : StopInfo();
            size_t dropped = 0;
            CUptiResult dr = rp_decode(obj, &dropped);
            std::vector<RangeValues> rv;
            bool rk = dr == CUPTI_SUCCESS && read_ranges(img, m, &rv, nullptr);
            double us = now_us() - t0;
            (k >= 0 ? tot : emptyUs).push_back(us);
            printf("%s: session %zu kernel=%s ok=%d stop.passIndex=%zu allSubmitted=%d decode=%s dropped=%zu ranges=%zu us=%.0f\n",
                   label, d, k >= 0 ? kname(k) : "(none)", (int)ok, si.passIndex, si.allSubmitted, rstr(dr), dropped,
                   rv.size(), us);
            for (auto& r : rv) print_range(label, "", d, r, k >= 0 ? kname(k) : "none", m);
        }
        std::sort(tot.begin(), tot.end());
        std::sort(emptyUs.begin(), emptyUs.end());
        printf("TIMING exp=%s sessions=%zu median_us=%.0f empty=%zu empty_median_us=%.0f\n", label, tot.size(),
               tot.empty() ? 0.0 : tot[tot.size() / 2], emptyUs.size(), emptyUs.empty() ? 0.0 : emptyUs[emptyUs.size() / 2]);
    } else if (name == "split_paths") {
        // X22: the roofline set with the tensor metrics that decoded only across passes (X18b)
        // replaced by their per-path parts: which metrics decode from one pass alone?
        std::vector<std::string> m = {
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__ops_path_tensor_src_fp64.sum",
            "sm__ops_path_tensor_op_hgmma_src_fp16.sum", "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum",
            "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
            "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
            "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_src_fp8.sum", "dram__bytes_read.sum",
            "dram__bytes_write.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"};
        std::vector<uint8_t> cfg;
        size_t passes = build_config(m, &cfg, false);
        printf("X22: %zu metrics, %zu passes\n", m.size(), passes);
        for (size_t p = 0; p < passes; p++) {
            std::vector<uint8_t> img(counter_data_size(obj, m, 1));
            bool ok = image_init(obj, img) && set_config(obj, cfg, img, CUPTI_AutoRange, CUPTI_UserReplay, 1);
            CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
            sp.pRangeProfilerObject = obj;
            ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
            launch(1);
            StopInfo si = ok ? rp_stop(obj) : StopInfo();
            size_t dropped = 0;
            rp_decode(obj, &dropped);
            printf("X22: pass %zu next=%zu all=%d\n", p, si.passIndex, si.allSubmitted);
            std::vector<RangeValues> rv;
            if (read_ranges(img, m, &rv, nullptr))
                for (auto& r : rv) print_range("X22", "", p, r, "fma", m);
        }
    } else if (name == "pass_accumulate" || name == "mixed_switch") {
        // X18: the whole roofline preset as the tool packs it on GH100 (5 passes): one image kept
        // across the passes (decoded after each, never re-initialized) over successive dispatches
        // of the fma kernel, evaluated at the end; then X18b, a fresh image per pass, to list which
        // metrics each pass decodes alone.
        // X21: switching between a SASS+hardware 2-pass config and a hardware-only 1-pass config.
        std::vector<std::string> full = {
            "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "sm__ops_path_tensor_src_fp64.sum",
            "sm__ops_path_tensor_op_hgmma_src_fp16.sum", "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum",
            "sm__ops_path_tensor_src_fp8.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
            "l1tex__t_bytes.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",
            "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"};
        if (name == "pass_accumulate") {
            std::vector<uint8_t> cfg;
            size_t passes = build_config(full, &cfg, false);
            printf("X18: %zu metrics, %zu passes\n", full.size(), passes);
            for (int variant = 0; variant < 2; variant++) {
                const char* label = variant == 0 ? "X18" : "X18b";
                std::vector<uint8_t> img(counter_data_size(obj, full, 1));
                image_init(obj, img);
                for (size_t p = 0; p < passes; p++) {
                    if (variant == 1 && p > 0) {
                        img.assign(counter_data_size(obj, full, 1), 0);
                        image_init(obj, img);
                    }
                    bool ok = set_config(obj, cfg, img, CUPTI_AutoRange, CUPTI_UserReplay, 1);
                    CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                    sp.pRangeProfilerObject = obj;
                    ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
                    launch(1);
                    StopInfo si = ok ? rp_stop(obj) : StopInfo();
                    size_t dropped = 0;
                    CUptiResult dr = rp_decode(obj, &dropped);
                    printf("%s: pass %zu ok=%d next=%zu all=%d decode=%s\n", label, p, (int)ok, si.passIndex, si.allSubmitted, rstr(dr));
                    if (variant == 1 || p + 1 == passes) {
                        std::vector<RangeValues> rv;
                        if (read_ranges(img, full, &rv, nullptr))
                            for (auto& r : rv) print_range(label, "", p, r, "fma", full);
                    }
                }
            }
        } else {
            std::vector<std::string> mixed = roofSass;
            mixed.insert(mixed.end(), roofHw.begin(), roofHw.end());
            std::vector<std::string> hwOnly = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "dram__bytes_read.sum"};
            std::vector<uint8_t> cm, ch;
            printf("X21: mixed %zu passes, hw-only %zu passes\n", build_config(mixed, &cm, false), build_config(hwOnly, &ch, false));
            int seq[] = {0, 0, 1, 0, 0, 1, 1, 0, 0};  // 0: mixed (two sessions make its passes), 1: hw-only
            for (int i = 0; i < 9; i++) {
                auto& m = seq[i] == 0 ? mixed : hwOnly;
                auto& c = seq[i] == 0 ? cm : ch;
                std::vector<uint8_t> img(counter_data_size(obj, m, 1));
                bool ok = image_init(obj, img) && set_config(obj, c, img, CUPTI_AutoRange, CUPTI_UserReplay, 1);
                CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = obj;
                ok = ok && CK(p_cuptiRangeProfilerStart(&sp));
                launch(1);
                StopInfo si = ok ? rp_stop(obj) : StopInfo();
                size_t dropped = 0;
                CUptiResult dr = rp_decode(obj, &dropped);
                printf("X21: session %d config=%s ok=%d next=%zu all=%d decode=%s\n", i, seq[i] ? "hw" : "mixed", (int)ok, si.passIndex,
                       si.allSubmitted, rstr(dr));
                std::vector<RangeValues> rv;
                if (read_ranges(img, m, &rv, nullptr))
                    for (auto& r : rv) print_range("X21", "", i, r, "fma", m);
            }
        }
    } else {
        printf("unknown case %s\n", name.c_str());
    }
    if (obj) rp_disable(obj);
    alarm(0);
    printf("CASE DONE %s\n", name.c_str());
    return 0;
}

// ------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    signal(SIGALRM, on_alarm);
    bool plain = false, callbacks = false;
    std::string caseName;
    std::string outdir = ".";
    std::vector<std::string> metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                                        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "gpu__time_duration.sum"};
    std::vector<std::string> roofReq = {
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "TENSOR",
        "lts__t_bytes.sum", "l1tex__t_bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--plain") plain = true;
        else if (a == "--callbacks") callbacks = true;
        else if (a == "--case" && i + 1 < argc) caseName = argv[++i];
        else if (a == "--metrics" && i + 1 < argc) metrics = split(argv[++i]);
        else if (a == "--roofline" && i + 1 < argc) roofReq = split(argv[++i]);
        else if (a == "--out" && i + 1 < argc) outdir = argv[++i];
        else if (a == "--iters" && i + 1 < argc) g_iters = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--plain|--callbacks] [--metrics a,b] [--roofline a,b] [--out DIR] [--iters N]\n", argv[0]);
            return 2;
        }
    }

    stage("CUDA setup", 60);
    cuda_check(cudaSetDevice(0), "cudaSetDevice");
    cuda_check(cudaFree(0), "cudaFree(0)");
    cudaDeviceProp prop;
    cuda_check(cudaGetDeviceProperties(&prop, 0), "props");
    g_sms = prop.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("DEVICE %s sm_%d%d SMs=%d L2=%d bytes driver_api=%d runtime=%d\n", prop.name, prop.major, prop.minor,
           g_sms, prop.l2CacheSize, drv, rt);
    cuda_check(cudaMalloc(&g_src, COPY_BYTES), "malloc src");
    cuda_check(cudaMalloc(&g_dst, COPY_BYTES), "malloc dst");
    cuda_check(cudaMalloc(&g_out, (size_t)fma_blocks() * THREADS * sizeof(float)), "malloc out");
    init_kernel<<<copy_blocks(), THREADS>>>(g_src, N4);
    launch(0);  // warm-up (module load), outside any profiling
    launch(1);
    cuda_check(cudaDeviceSynchronize(), "warm-up");
    const double fma_threads = (double)fma_blocks() * THREADS;
    printf("EXPECT copy: dram__bytes_read.sum ~ %zu, dram__bytes_write.sum ~ %zu, ffma = 0\n", COPY_BYTES, COPY_BYTES);
    printf("EXPECT fma: smsp__sass_thread_inst_executed_op_ffma_pred_on.sum = %.0f (threads %.0f x iters %d x 8)\n",
           fma_threads * g_iters * 8, fma_threads, g_iters);

    const std::vector<int> seq = {0, 1, 0, 1};
    if (plain) {
        double t0 = now_us();
        for (int k : seq) launch(k);
        cuda_check(cudaDeviceSynchronize(), "plain");
        printf("PLAIN launched copy,fma,copy,fma after a warm-up copy,fma: %.0f us\n", now_us() - t0);
        return 0;
    }
    if (callbacks) return callbacks_mode(roofReq);
    if (!caseName.empty()) return case_mode(caseName);

    // Unprofiled time of the sequence, for the cost of profiling.
    {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double t0 = now_us();
            for (int k : seq) launch(k);
            cuda_check(cudaDeviceSynchronize(), "baseline");
            best = std::min(best, now_us() - t0);
        }
        printf("TIMING exp=baseline copy,fma,copy,fma unprofiled best of 3: %.0f us\n", best);
    }

    if (!profiler_setup()) {
        printf("PROFILER SETUP FAILED\n");
        return 1;
    }

    stage("metric properties", 60);
    for (auto& m : metrics) {
        std::string base = m.substr(0, m.find('.'));
        CUpti_Profiler_Host_GetMetricProperties_Params mp = {CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
        mp.pHostObject = g_eval;
        mp.pMetricName = base.c_str();
        if (CK(p_cuptiProfilerHostGetMetricProperties(&mp)))
            printf("METRIC %s type=%d hw_unit=%s dim_unit=%s desc=%s\n", base.c_str(), (int)mp.metricType,
                   mp.pHwUnit ? mp.pHwUnit : "-", mp.pDimUnit ? mp.pDimUnit : "-",
                   mp.pDescription ? mp.pDescription : "-");
    }
    {
        size_t total = 0;
        std::vector<std::string> tensor;
        for (int t = 0; t < 3; t++) {
            CUpti_Profiler_Host_GetBaseMetrics_Params bp = {CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
            bp.pHostObject = g_eval;
            bp.metricType = (CUpti_MetricType)t;
            if (!CK(p_cuptiProfilerHostGetBaseMetrics(&bp))) continue;
            total += bp.numMetrics;
            for (size_t i = 0; i < bp.numMetrics; i++)
                if (strstr(bp.ppMetricNames[i], "tensor") &&
                    (strstr(bp.ppMetricNames[i], "inst_executed") || strstr(bp.ppMetricNames[i], "ops_path")))
                    tensor.push_back(bp.ppMetricNames[i]);
        }
        printf("base metrics on %s: %zu; tensor instruction/op ones: %s\n", g_chip.c_str(), total, join(tensor, " ").c_str());
    }

    stage("pass counts", 120);
    double us = 0;
    std::vector<uint8_t> cfg4;
    size_t p4 = build_config(metrics, &cfg4, false, &us);
    printf("PASSES %zu for %s (config image %zu bytes, built in %.0f us)\n", p4, join(metrics).c_str(), cfg4.size(), us);
    for (auto& m : metrics) printf("PASSES %zu for %s alone\n", build_config({m}, nullptr, true), m.c_str());
    std::vector<std::string> roof = resolve_roofline(roofReq);
    for (auto& m : roof) printf("PASSES %zu for %s alone\n", build_config({m}, nullptr, true), m.c_str());
    std::vector<uint8_t> cfgRoof;
    size_t pRoof = build_config(roof, &cfgRoof, false, &us);
    printf("PASSES %zu for the whole roofline set (%zu metrics; config image %zu bytes, %.0f us)\n", pRoof, roof.size(),
           cfgRoof.size(), us);
    {
        std::string path = outdir + "/roofline_metrics.txt";
        FILE* f = fopen(path.c_str(), "w");
        if (f) {
            fprintf(f, "%s\n", join(roof).c_str());
            fclose(f);
        }
    }

    stage("grouping", 90);
    double tg = now_us();
    auto groups = greedy_groups(roof);
    std::vector<std::string> rev(roof.rbegin(), roof.rend());
    auto groupsRev = greedy_groups(rev);
    printf("greedy first-fit: %zu groups in the given order, %zu in reverse order (%.0f ms for both)\n", groups.size(),
           groupsRev.size(), (now_us() - tg) / 1e3);
    if (groupsRev.size() < groups.size()) groups = groupsRev;
    std::vector<std::vector<uint8_t>> gcfg(groups.size());
    for (size_t g = 0; g < groups.size(); g++) {
        size_t p = build_config(groups[g], &gcfg[g], false);
        printf("GROUP %zu passes=%zu metrics=%s\n", g, p, join(groups[g]).c_str());
    }

    stage("grouping of the 4-metric set", 60);
    auto g4 = greedy_groups(metrics);
    std::vector<std::vector<uint8_t>> g4cfg(g4.size());
    for (size_t g = 0; g < g4.size(); g++) {
        size_t p = build_config(g4[g], &g4cfg[g], false);
        printf("GROUP4 %zu passes=%zu metrics=%s\n", g, p, join(g4[g]).c_str());
    }
    for (size_t i = 0; i < metrics.size(); i++)
        for (size_t j = i + 1; j < metrics.size(); j++)
            printf("PASSES %zu for the pair %s + %s\n", build_config({metrics[i], metrics[j]}, nullptr, true),
                   metrics[i].c_str(), metrics[j].c_str());

    {
        stage("counter data image sizes", 60);
        CUpti_RangeProfiler_Object* obj = rp_enable(g_ctx);
        if (obj) {
            for (size_t r : {1, 2, 16, 256, 4096})
                printf("COUNTER_DATA_SIZE metrics=%zu ranges=%zu bytes=%zu\n", metrics.size(), r,
                       counter_data_size(obj, metrics, r));
            for (size_t r : {1, 256})
                printf("COUNTER_DATA_SIZE metrics=%zu(roofline) ranges=%zu bytes=%zu\n", roof.size(), r,
                       counter_data_size(obj, roof, r));
            for (size_t g = 0; g < g4.size(); g++) {
                const std::vector<std::string>& m = g4[g];
                const std::vector<uint8_t>& cfg = g4cfg[g];
                printf("\n-- one-pass group %zu of the 4-metric set: %s\n", g, join(m).c_str());
                std::vector<uint8_t> img(counter_data_size(obj, m, 16));
                stage("A: AutoRange + UserReplay, 4 launches, no sync before Stop", 60);
                run_session(obj, m, cfg, img, {"A", CUPTI_AutoRange, CUPTI_UserReplay, 16, false, false, false}, seq);
                stage("A2: A again on the same enabled object (reuse)", 60);
                run_session(obj, m, cfg, img, {"A2", CUPTI_AutoRange, CUPTI_UserReplay, 16, false, false, false}, seq);
                stage("C: UserRange + UserReplay, Push/Pop per launch", 60);
                run_session(obj, m, cfg, img, {"C", CUPTI_UserRange, CUPTI_UserReplay, 16, false, false, true}, seq);
                stage("F: AutoRange + UserReplay, Stop and Decode on a thread with no current context", 60);
                run_session(obj, m, cfg, img, {"F", CUPTI_AutoRange, CUPTI_UserReplay, 16, false, true, false}, seq);
                stage("E: AutoRange + UserReplay, image and maxRangesPerPass for 2 ranges, 4 launches", 60);
                std::vector<uint8_t> img2(counter_data_size(obj, m, 2));
                run_session(obj, m, cfg, img2, {"E", CUPTI_AutoRange, CUPTI_UserReplay, 2, true, false, false}, seq);
                stage("A3: A once more after E (does the object recover?)", 60);
                run_session(obj, m, cfg, img, {"A3", CUPTI_AutoRange, CUPTI_UserReplay, 16, false, false, false}, seq);
            }
            rp_disable(obj);
        }
    }

    stage("D: roofline groups taking turns, one session per launch, one enabled object", 90);
    {
        CUpti_RangeProfiler_Object* obj = rp_enable(g_ctx);
        if (obj) {
            rotation(obj, groups, gcfg, {"D1", 1, 1, 1, CUPTI_UserReplay, 1, false, 1});
            rotation(obj, groups, gcfg, {"D2", 1, 2, 2, CUPTI_UserReplay, 1, false, 1});
            rotation(obj, groups, gcfg, {"D3", 16, 16, 16, CUPTI_UserReplay, 1, false, 2});
            rotation(obj, groups, gcfg, {"D5", 16, 16, 16, CUPTI_UserReplay, 2, false, 1});
            rotation(obj, groups, gcfg, {"D6", 16, 16, 16, CUPTI_UserReplay, 1, true, 1});
            rotation(obj, groups, gcfg, {"D7", 1, 16, 16, CUPTI_UserReplay, 1, false, 1});
            rotation(obj, {g4[0]}, {g4cfg[0]}, {"D9", 16, 16, 16, CUPTI_UserReplay, 1, false, 2});
            rotation(obj, {g4[0]}, {g4cfg[0]}, {"D10", 16, 16, 16, CUPTI_UserReplay, 2, false, 1});
            rp_disable(obj);
        }
    }

    stage("G: whole roofline set, multi-pass, replayed by us (UserReplay, AutoRange)", 60);
    {
        CUpti_RangeProfiler_Object* obj = rp_enable(g_ctx);
        if (obj) {
            std::vector<uint8_t> img(counter_data_size(obj, roof, 4));
            const std::vector<int> s2 = {0, 1};
            bool ok = image_init(obj, img) && set_config(obj, cfgRoof, img, CUPTI_AutoRange, CUPTI_UserReplay, 4);
            int passes = 0;
            StopInfo si;
            while (ok && passes < (int)pRoof + 2) {
                CUpti_RangeProfiler_Start_Params sp = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                sp.pRangeProfilerObject = obj;
                if (!CK(p_cuptiRangeProfilerStart(&sp))) break;
                for (int k : s2) launch(k);
                si = rp_stop(obj);
                passes++;
                printf("G: pass %d: Stop -> %s passIndex=%zu targetNestingLevel=%zu isAllPassSubmitted=%d\n", passes,
                       rstr(si.r), si.passIndex, si.target, si.allSubmitted);
                if (si.r != CUPTI_SUCCESS || si.allSubmitted) break;
            }
            size_t dropped = 0;
            if (ok && si.r == CUPTI_SUCCESS && CK(rp_decode(obj, &dropped))) {
                printf("G: %d passes run (host said %zu), dropped %zu\n", passes, pRoof, dropped);
                std::vector<RangeValues> rv;
                if (read_ranges(img, roof, &rv, nullptr))
                    for (size_t i = 0; i < rv.size(); i++) print_range("G", "", i, rv[i], i < 2 ? kname(s2[i]) : "?", roof);
            }
            rp_disable(obj);
        }
    }

    stage("K: KernelReplay (last: it crashed the process in an earlier run)", 60);
    {
        CUpti_RangeProfiler_Object* obj = rp_enable(g_ctx);
        if (obj) {
            std::vector<uint8_t> img(counter_data_size(obj, g4[0], 16));
            printf("K1: KernelReplay, maxRangesPerPass=1, image for 16, 4 launches\n");
            run_session(obj, g4[0], g4cfg[0], img, {"K1", CUPTI_AutoRange, CUPTI_KernelReplay, 1, true, false, false}, seq);
            printf("K2: KernelReplay, maxRangesPerPass=16, image for 16, 4 launches\n");
            run_session(obj, g4[0], g4cfg[0], img, {"K2", CUPTI_AutoRange, CUPTI_KernelReplay, 16, true, false, false}, seq);
            rp_disable(obj);
        }
    }

    stage("teardown", 30);
    host_free(g_eval);
    CUpti_Profiler_DeInitialize_Params dp = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    CK(p_cuptiProfilerDeInitialize(&dp));
    cudaFree(g_src);
    cudaFree(g_dst);
    cudaFree(g_out);
    alarm(0);
    printf("\nPROBE DONE\n");
    return 0;
}
