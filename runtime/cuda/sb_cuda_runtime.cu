// CUDA runtime layer: device selection and report, error reporting, events
// timer, checked device memory, occupancy report. C interface (sb_cuda.h).
#include "sb_cuda.h"
#include "sb_cuda_prof.h"
#include "sb_mpi.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Nonzero (after printing the error) when a runtime call failed.
static int sb_failed(cudaError_t e, const char *call, const char *file, int line) {
    if (e == cudaSuccess) return 0;
    return sb_cuda_report((int)e, call, file, line);
}
#define SB_FAILED(call) sb_failed((call), #call, __FILE__, __LINE__)

extern "C" int sb_cuda_report(int err, const char *call, const char *file, int line) {
    cudaError_t e = (cudaError_t)err;
    size_t free_b = 0, total_b = 0;
    // Out of memory is the user's to fix (a smaller case), not a bug: say it plainly, with
    // what the device has. The error is not sticky, so the query still answers.
    if (e == cudaErrorMemoryAllocation && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        sb_error("out of GPU memory at %s:%d (%s): %.2f GB of %.2f GB free; a smaller --size or fewer "
                 "items per batch fits", file, line, call, free_b / 1e9, total_b / 1e9);
        (void)cudaGetLastError();
        return SB_EXIT_RUNTIME;
    }
    sb_error("CUDA error at %s:%d: %s: %s: %s", file, line, call, cudaGetErrorName(e),
             cudaGetErrorString(e));
    return SB_EXIT_RUNTIME;
}

// ---- availability and device selection -------------------------------------

static int g_available = -1;  // -1: not asked yet
static char g_why[256];

extern "C" int sb_cuda_available(const char **why) {
    if (g_available < 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            snprintf(g_why, sizeof g_why, "no CUDA device: %s", cudaGetErrorString(e));
            (void)cudaGetLastError();  // clear it: the error belongs to this question only
            g_available = 0;
        } else if (n <= 0) {
            snprintf(g_why, sizeof g_why, "no CUDA device: the driver reports 0 devices");
            g_available = 0;
        } else {
            g_why[0] = '\0';
            g_available = 1;
        }
    }
    if (why) *why = g_why;
    return g_available;
}

// SB_CUDA_DEVICE, validated against the device count; default: one GPU per MPI rank on a
// host (local rank modulo the device count; 0 without MPI).
static int select_device(int count, int *dev) {
    const char *s = getenv("SB_CUDA_DEVICE");
    *dev = sb_mpi_local_rank() % count;
    if (!s || !*s) return SB_OK;
    char *end = nullptr;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v >= count) {
        sb_error("SB_CUDA_DEVICE=%s is not a valid device index: accepted 0..%d", s, count - 1);
        return SB_EXIT_USAGE;
    }
    *dev = (int)v;
    return SB_OK;
}

extern "C" int sb_cuda_init(sb_cuda_info *info) {
    const char *why = nullptr;
    if (!sb_cuda_available(&why)) {
        sb_error("CUDA backend unavailable: %s", why);
        return SB_EXIT_USAGE;
    }
    int count = 0, dev = 0;
    SB_CU(cudaGetDeviceCount(&count));
    int rc = select_device(count, &dev);
    if (rc != SB_OK) return rc;
    SB_CU(cudaSetDevice(dev));

    cudaDeviceProp p;
    SB_CU(cudaGetDeviceProperties(&p, dev));
    // CUDA 13 removed the clock fields from cudaDeviceProp: attributes instead (kHz, bits).
    int sm_khz = 0, mem_khz = 0, bus_bits = 0;
    SB_CU(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev));
    SB_CU(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
    SB_CU(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    int drv = 0, rt = 0;
    SB_CU(cudaDriverGetVersion(&drv));
    SB_CU(cudaRuntimeGetVersion(&rt));

    if (!info) return SB_OK;
    memset(info, 0, sizeof *info);
    size_t len = strnlen(p.name, sizeof p.name);  // p.name[256] into name[128]
    if (len >= sizeof info->name) len = sizeof info->name - 1;
    memcpy(info->name, p.name, len);
    info->name[len] = '\0';
    info->device = dev;
    info->device_count = count;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->global_mem_bytes = p.totalGlobalMem;
    info->l2_bytes = p.l2CacheSize;
    info->sm_clock_mhz = sm_khz / 1000;
    info->mem_clock_mhz = mem_khz / 1000;
    info->mem_bus_bits = bus_bits;
    info->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info->regs_per_sm = p.regsPerMultiprocessor;
    info->smem_per_sm = p.sharedMemPerMultiprocessor;
    info->driver_version = drv;
    info->runtime_version = rt;
    // Double data rate: 2 transfers per memory clock, bus_bits/8 bytes each.
    info->theoretical_bw = 2.0 * (double)mem_khz * 1e3 * (double)bus_bits / 8.0;
    return SB_OK;
}

// ---- events timer -----------------------------------------------------------

struct sb_cuda_timer {
    cudaEvent_t start, stop;
    int started;
};

extern "C" sb_cuda_timer *sb_cuda_timer_create(void) {
    sb_cuda_timer *t = (sb_cuda_timer *)calloc(1, sizeof *t);
    if (!t) {
        sb_error("cannot allocate a CUDA timer: out of memory");
        return nullptr;
    }
    if (SB_FAILED(cudaEventCreate(&t->start))) {
        free(t);
        return nullptr;
    }
    if (SB_FAILED(cudaEventCreate(&t->stop))) {
        (void)cudaEventDestroy(t->start);
        free(t);
        return nullptr;
    }
    return t;
}

extern "C" int sb_cuda_timer_start(sb_cuda_timer *t) {
    if (!t) {
        sb_error("sb_cuda_timer_start: no timer (NULL)");
        return SB_EXIT_RUNTIME;
    }
    SB_CU(cudaEventRecord(t->start, 0));  // legacy default stream
    t->started = 1;
    return SB_OK;
}

extern "C" double sb_cuda_timer_stop(sb_cuda_timer *t) {
    if (!t || !t->started) {
        sb_error("sb_cuda_timer_stop: timer %s", t ? "was not started" : "is NULL");
        return -1.0;
    }
    t->started = 0;
    if (SB_FAILED(cudaEventRecord(t->stop, 0))) return -1.0;
    if (SB_FAILED(cudaEventSynchronize(t->stop))) return -1.0;
    // A failed launch between start and stop shows up here.
    if (SB_FAILED(cudaGetLastError())) return -1.0;
    float ms = 0.0f;
    if (SB_FAILED(cudaEventElapsedTime(&ms, t->start, t->stop))) return -1.0;
    return 1e-3 * (double)ms;
}

extern "C" void sb_cuda_timer_destroy(sb_cuda_timer *t) {
    if (!t) return;
    (void)SB_FAILED(cudaEventDestroy(t->start));
    (void)SB_FAILED(cudaEventDestroy(t->stop));
    free(t);
}

// ---- device memory ------------------------------------------------------------

extern "C" void *sb_cuda_malloc(size_t bytes) {
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);  // never a NULL "success"
    if (e != cudaSuccess) {
        sb_error("cannot allocate %zu bytes of device memory: %s: %s", bytes, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        (void)cudaGetLastError();  // an out-of-memory error is not sticky: clear it
        return nullptr;
    }
    return p;
}

extern "C" void sb_cuda_free(void *p) {
    if (p) (void)SB_FAILED(cudaFree(p));
}

extern "C" int sb_cuda_mem_info(size_t *free_bytes, size_t *total_bytes) {
    *free_bytes = *total_bytes = 0;
    SB_CU(cudaMemGetInfo(free_bytes, total_bytes));
    return SB_OK;
}

extern "C" int sb_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes) {
    SB_CU(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return SB_OK;
}

extern "C" int sb_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes) {
    SB_CU(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return SB_OK;
}

extern "C" int sb_cuda_release(void) {
    SB_CU(cudaDeviceSynchronize());
    SB_CU(cudaDeviceReset());
    return SB_OK;
}

extern "C" int sb_cuda_sync(void) {
    SB_CU(cudaDeviceSynchronize());
    SB_CU(cudaGetLastError());
    return SB_OK;
}

extern "C" int sb_cuda_profiler_start(void) {
    SB_CU(cudaDeviceSynchronize());
    SB_CU(cudaProfilerStart());
    return SB_OK;
}

extern "C" int sb_cuda_profiler_stop(void) {
    SB_CU(cudaDeviceSynchronize());
    SB_CU(cudaProfilerStop());
    return SB_OK;
}

// ---- occupancy --------------------------------------------------------------------

extern "C" int sb_cuda_occupancy(const void *func, const char *name, int block, size_t dyn_smem,
                                 int grid, sb_launch *out) {
    if (!func || !out) {
        sb_error("sb_cuda_occupancy: %s is NULL", func ? "out" : "func");
        return SB_EXIT_RUNTIME;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name ? name : "?");
    cudaFuncAttributes a;
    SB_CU(cudaFuncGetAttributes(&a, func));
    if (block < 1 || block > a.maxThreadsPerBlock) {
        sb_error("kernel %s: block size %d out of range: accepted 1..%d", out->name, block,
                 a.maxThreadsPerBlock);
        return SB_EXIT_USAGE;
    }
    if (dyn_smem > (size_t)INT_MAX) {
        sb_error("kernel %s: dynamic shared memory %zu bytes is too large", out->name, dyn_smem);
        return SB_EXIT_USAGE;
    }
    int dev = 0, max_threads_sm = 0, warp = 32, bps = 0;
    SB_CU(cudaGetDevice(&dev));
    SB_CU(cudaDeviceGetAttribute(&max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    SB_CU(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev));
    SB_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, func, block, dyn_smem));

    out->block = block;
    out->grid = grid;
    out->regs = a.numRegs;
    out->smem_static = (int)a.sharedSizeBytes;
    out->smem_dynamic = (int)dyn_smem;
    out->blocks_per_sm = bps;
    // Resident warps / max warps per SM (a partial warp occupies a whole warp slot).
    int warps_per_block = (block + warp - 1) / warp;
    out->occupancy = max_threads_sm > 0
                         ? (double)bps * warps_per_block * warp / (double)max_threads_sm
                         : 0.0;
    if (bps == 0) {
        sb_error("kernel %s cannot launch: no block of %d threads fits on an SM "
                 "(%d registers/thread, %d B static + %zu B dynamic shared memory)",
                 out->name, block, a.numRegs, out->smem_static, dyn_smem);
        return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}
