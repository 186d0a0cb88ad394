/* cupti_floor.c: the least a CUPTI kernel tracer can do, as a CUDA injection library.
 *
 * overhead.py runs the launch benchmarks with this library in CUDA_INJECTION64_PATH (config B)
 * to measure what CUPTI itself costs the application. rocprof-rs (config C) does the same CUPTI
 * set-up plus decoding, queueing and Parquet writing, so C minus B is our own cost, and B minus
 * "no tool" is CUPTI's. To be a fair floor it makes the same CUPTI calls as the rocprof-rs
 * injection and nothing more:
 *
 *   - cuptiSubscribe (claims the subscriber slot; no callback is enabled, so the no-op
 *     callback never runs);
 *   - a CLOCK_BOOTTIME timestamp callback (rocprof-rs registers one too, and CUPTI calls it
 *     for every timestamp it takes on the host);
 *   - 8 MiB (or CUPTI_FLOOR_BUFFER_BYTES), 8-byte-aligned malloc'ed activity buffers, whose completion callback only walks
 *     the records with cuptiActivityGetNextRecord, counts them and keeps the buffer for the
 *     next request (as rocprof-rs does: a freed 8 MiB buffer goes back to the kernel, and the
 *     next one costs the launching thread a page fault per 4 KiB as CUPTI fills it; the first
 *     version of this floor freed its buffers and measured 1.2 µs per launch more than
 *     rocprof-rs, which is the floor's cost, not CUPTI's);
 *   - CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL only (never KERNEL, which serialises kernels), or
 *     with CUPTI_FLOOR_KIND=graph, CUPTI_ACTIVITY_KIND_GRAPH_TRACE only (the floor of
 *     graph-level tracing: one record per graph launch, for serve.py's config Q);
 *   - at exit, a forced flush and one line on stderr: "cupti_floor: N records ...".
 *
 * Build (on the GPU machine):
 *   gcc -O2 -shared -fPIC cupti_floor.c -I/usr/local/cuda/include \
 *       -L/usr/local/cuda-13.0/targets/x86_64-linux/lib -l:libcupti.so.13 -o cupti_floor.so
 * libcupti.so.13 is found at run time by soname: under torch it is the copy torch already
 * loaded; elsewhere LD_LIBRARY_PATH must name the toolkit's lib directory (run.sh sets it).
 */
#define _GNU_SOURCE
#include <cupti.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUFFER_SIZE ((size_t)8 << 20)
#define BUFFER_ALIGN 8

/* CUPTI_FLOOR_BUFFER_BYTES (a multiple of 8, at least 64 KiB) overrides the 8 MiB: memory.py
 * runs the floor also with the buffer size rocprof-rs uses, so that a difference in CUPTI
 * buffers held is not counted as the tool's own. */
static size_t buffer_size = BUFFER_SIZE;

static uint64_t records;   /* every record delivered (updated atomically) */
static uint64_t kernels;   /* of which CONCURRENT_KERNEL */
static uint64_t dropped;   /* as cuptiActivityGetNumDroppedRecords reports them */
static int initialized;

static void report_error(const char *what, CUptiResult r) {
    const char *text = NULL;
    cuptiGetResultString(r, &text);
    fprintf(stderr, "cupti_floor: %s failed: %d (%s)\n", what, (int)r, text ? text : "?");
}

static uint64_t CUPTIAPI boottime_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void CUPTIAPI noop_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                   const void *data) {
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

/* Spent buffers, reused: requests and completions are rare (one per 8 MiB of records), so a
 * mutex costs nothing measurable. */
#define POOL 32
static uint8_t *pool[POOL];
static int pooled;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    pthread_mutex_lock(&pool_lock);
    *buffer = pooled ? pool[--pooled] : NULL;
    pthread_mutex_unlock(&pool_lock);
    /* aligned_alloc needs the size to be a multiple of the alignment: 8 MiB is. */
    if (!*buffer) *buffer = (uint8_t *)aligned_alloc(BUFFER_ALIGN, buffer_size);
    *size = *buffer ? buffer_size : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    uint64_t n = 0, k = 0;
    CUpti_Activity *record = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        n++;
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) k++;
    }
    size_t d = 0;
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &d) == CUPTI_SUCCESS && d)
        __atomic_fetch_add(&dropped, (uint64_t)d, __ATOMIC_RELAXED);
    __atomic_fetch_add(&records, n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&kernels, k, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool_lock);
    if (pooled < POOL) {
        pool[pooled++] = buffer;
        buffer = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free(buffer);
}

static void at_exit(void) {
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS) report_error("cuptiActivityFlushAll", r);
    fprintf(stderr, "cupti_floor: %llu records (kernels %llu, dropped %llu)\n",
            (unsigned long long)__atomic_load_n(&records, __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(&kernels, __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(&dropped, __ATOMIC_RELAXED));
}

/* Called by libcuda inside the first cuInit. Returns 1 as NVIDIA's samples do, also when set-up
 * fails (the application then simply runs untraced, and the message says why). */
__attribute__((visibility("default"))) int InitializeInjection(void) {
    if (__atomic_exchange_n(&initialized, 1, __ATOMIC_SEQ_CST)) return 1;
    const char *size_text = getenv("CUPTI_FLOOR_BUFFER_BYTES");
    if (size_text && *size_text) {
        unsigned long long bytes = strtoull(size_text, NULL, 10);
        if (bytes >= (64u << 10) && bytes % BUFFER_ALIGN == 0) buffer_size = (size_t)bytes;
        else fprintf(stderr, "cupti_floor: CUPTI_FLOOR_BUFFER_BYTES=%s ignored (a multiple of 8, at least 65536)\n", size_text);
    }

    CUpti_SubscriberHandle subscriber;
    CUptiResult r = cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)noop_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        report_error("cuptiSubscribe", r);
        return 1;
    }
    /* Once, before any kind is enabled (cupti_activity.h). */
    if ((r = cuptiActivityRegisterTimestampCallback(boottime_ns)) != CUPTI_SUCCESS)
        report_error("cuptiActivityRegisterTimestampCallback", r);
    if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
        report_error("cuptiActivityRegisterCallbacks", r);
        return 1;
    }
    const char *kind_text = getenv("CUPTI_FLOOR_KIND");
    int graph = kind_text && strcmp(kind_text, "graph") == 0;
    CUpti_ActivityKind kind = graph ? CUPTI_ACTIVITY_KIND_GRAPH_TRACE : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    if ((r = cuptiActivityEnable(kind)) != CUPTI_SUCCESS) {
        report_error(graph ? "cuptiActivityEnable(GRAPH_TRACE)" : "cuptiActivityEnable(CONCURRENT_KERNEL)", r);
        return 1;
    }
    atexit(at_exit);
    return 1;
}
