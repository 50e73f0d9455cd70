// Measured GPU peaks: device-to-device copy bandwidth and FP32/FP64 FMA
// throughput, on the current device (sb_cuda_init selects it). Each result
// is cached per process; a failed probe returns a negative value.
#include "sb_cuda.h"
#include "sb_cuda_prof.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

static int sb_failed(cudaError_t e, const char *call, const char *file, int line) {
    if (e == cudaSuccess) return 0;
    return sb_cuda_report((int)e, call, file, line);
}
#define SB_FAILED(call) sb_failed((call), #call, __FILE__, __LINE__)

namespace {

// Owners that release on every return path.
struct DevBuf {
    void *p = nullptr;
    ~DevBuf() {
        if (p) (void)cudaFree(p);
    }
};
struct Timer {
    sb_cuda_timer *t = sb_cuda_timer_create();
    ~Timer() { sb_cuda_timer_destroy(t); }
};

double median(double *v, int n) {
    for (int i = 1; i < n; i++)  // insertion sort: n is small
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int device_sms(int *sms) {
    int dev = 0;
    if (SB_FAILED(cudaGetDevice(&dev))) return 0;
    if (SB_FAILED(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev))) return 0;
    return 1;
}

int usable(const char *probe) {
    const char *why = nullptr;
    if (sb_cuda_available(&why)) return 1;
    sb_error("%s probe: CUDA unavailable: %s", probe, why);
    return 0;
}

}  // namespace

// ---- copy bandwidth -----------------------------------------------------------------

constexpr int kCopyBlock = 256;
constexpr int kCopyReps = 40;     // timed copies per method (median taken)
constexpr int kCopyWarmups = 5;   // untimed copies first: clocks and TLBs settled

// Source pattern: never zero (DRAM compression and zero pages would flatter the result).
__host__ __device__ inline unsigned sb_pattern(size_t word) {
    return (unsigned)((word * 2654435761ull) >> 7) | 1u;
}

__global__ void sb_probe_fill_kernel(uint4 *p, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = make_uint4(sb_pattern(4 * i), sb_pattern(4 * i + 1), sb_pattern(4 * i + 2),
                          sb_pattern(4 * i + 3));
}

__global__ void __launch_bounds__(kCopyBlock)
    sb_probe_copy_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

// Checks 64 words spread over dst (and its last word) against the pattern.
static int check_copy(const unsigned *dst, size_t words, const char *method) {
    for (int k = 0; k <= 64; k++) {
        size_t w = k < 64 ? (size_t)k * (words / 64) + (size_t)k : words - 1;
        if (w >= words) w = words - 1;
        unsigned got = 0;
        if (SB_FAILED(cudaMemcpy(&got, dst + w, sizeof got, cudaMemcpyDeviceToHost))) return 0;
        if (got != sb_pattern(w)) {
            sb_error("copy probe (%s): word %zu is 0x%08x, expected 0x%08x", method, w, got,
                     sb_pattern(w));
            return 0;
        }
    }
    return 1;
}

// Median seconds of kCopyReps copies after kCopyWarmups; < 0 on error.
static double time_copy(int use_memcpy, const uint4 *src, uint4 *dst, size_t n, int grid,
                        sb_cuda_timer *t) {
    double s[kCopyReps];
    for (int r = -kCopyWarmups; r < kCopyReps; r++) {
        if (r >= 0 && sb_cuda_timer_start(t) != SB_OK) return -1.0;
        if (use_memcpy) {
            if (SB_FAILED(cudaMemcpy(dst, src, n * sizeof(uint4), cudaMemcpyDeviceToDevice)))
                return -1.0;
        } else {
            sb_probe_copy_kernel<<<grid, kCopyBlock>>>(src, dst, n);
            if (SB_FAILED(cudaGetLastError())) return -1.0;
        }
        if (r >= 0) {
            s[r] = sb_cuda_timer_stop(t);
            if (s[r] <= 0.0) return -1.0;
        }
    }
    if (SB_FAILED(cudaDeviceSynchronize())) return -1.0;
    return median(s, kCopyReps);
}

static double copy_bw_run(void) {
    if (!usable("copy bandwidth")) return -1.0;
    int sms = 0;
    if (!device_sms(&sms)) return -1.0;

    // 2 x 1 GiB when there is room (>= 1 GiB moved per copy), less on small devices.
    size_t free_b = 0, total_b = 0;
    if (SB_FAILED(cudaMemGetInfo(&free_b, &total_b))) return -1.0;
    size_t per = (size_t)1 << 30;
    while (per > ((size_t)64 << 20) && 2 * per > free_b / 2) per /= 2;
    const size_t n = per / sizeof(uint4);

    DevBuf src, dst;
    Timer timer;
    if (!timer.t) return -1.0;
    if (SB_FAILED(cudaMalloc(&src.p, per)) || SB_FAILED(cudaMalloc(&dst.p, per))) return -1.0;

    sb_launch L;
    if (sb_cuda_occupancy((const void *)sb_probe_copy_kernel, "sb_probe_copy_kernel", kCopyBlock, 0,
                          0, &L) != SB_OK)
        return -1.0;
    const int grid = sms * L.blocks_per_sm;  // one full wave, grid-stride

    sb_probe_fill_kernel<<<grid, kCopyBlock>>>((uint4 *)src.p, n);
    if (SB_FAILED(cudaGetLastError()) || SB_FAILED(cudaDeviceSynchronize())) return -1.0;

    const uint4 *s = (const uint4 *)src.p;
    uint4 *d = (uint4 *)dst.p;
    double t_kernel = time_copy(0, s, d, n, grid, timer.t);
    if (t_kernel <= 0.0 || !check_copy((const unsigned *)d, 4 * n, "kernel")) return -1.0;
    if (SB_FAILED(cudaMemset(d, 0, per))) return -1.0;
    double t_memcpy = time_copy(1, s, d, n, grid, timer.t);
    if (t_memcpy <= 0.0 || !check_copy((const unsigned *)d, 4 * n, "cudaMemcpy")) return -1.0;

    const double bytes = 2.0 * (double)per;  // read + written
    double best = t_kernel < t_memcpy ? t_kernel : t_memcpy;
    return bytes / best;
}

extern "C" double sb_cuda_probe_copy_bw(void) {
    static int done = 0;
    static double cached = -1.0;
    if (!done) {
        cached = copy_bw_run();
        done = 1;
    }
    return cached;
}

extern "C" int sb_cuda_selftest_copy(size_t bytes, int range) {
    if (!usable("copy self-test")) return SB_EXIT_RUNTIME;
    int sms = 0;
    if (!device_sms(&sms)) return SB_EXIT_RUNTIME;
    const size_t n = bytes / sizeof(uint4);
    DevBuf src, dst;
    SB_CU(cudaMalloc(&src.p, n * sizeof(uint4)));
    SB_CU(cudaMalloc(&dst.p, n * sizeof(uint4)));
    sb_launch L;
    int rc = sb_cuda_occupancy((const void *)sb_probe_copy_kernel, "sb_probe_copy_kernel", kCopyBlock, 0, 0, &L);
    if (rc) return rc;
    const int grid = sms * L.blocks_per_sm;
    sb_probe_fill_kernel<<<grid, kCopyBlock>>>((uint4 *)src.p, n);
    SB_CU_LAUNCH();
    if (range && (rc = sb_cuda_profiler_start())) return rc;
    sb_probe_copy_kernel<<<grid, kCopyBlock>>>((const uint4 *)src.p, (uint4 *)dst.p, n);
    SB_CU_LAUNCH();
    if (range && (rc = sb_cuda_profiler_stop())) return rc;
    SB_CU(cudaDeviceSynchronize());
    return check_copy((const unsigned *)dst.p, 4 * n, "self-test") ? SB_OK : SB_EXIT_RUNTIME;
}

// ---- FMA throughput ---------------------------------------------------------------------

constexpr int kFmaBlock = 256;
constexpr int kFmaChains = 8;   // independent chains per thread
constexpr int kFmaUnroll = 8;   // FMAs per chain per loop trip
constexpr int kFmaWaves = 4;    // grid = kFmaWaves full waves of resident blocks
constexpr int kFmaReps = 15;    // timed launches (median taken)

__device__ __forceinline__ float sb_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double sb_fma(double a, double b, double c) { return __fma_rn(a, b, c); }

// Chains a = a*m + c converge to c/(1-m) > 0, so the sum is never -1: the
// store never happens, but the compiler cannot know and keeps every FMA.
template <typename T>
__global__ void __launch_bounds__(kFmaBlock) sb_probe_fma_kernel(T *out, int iters, T m, T c) {
    T a[kFmaChains];
    const T x = (T)(threadIdx.x & 31) * (T)0.001;
#pragma unroll
    for (int k = 0; k < kFmaChains; k++) a[k] = x + (T)k;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < kFmaUnroll; u++) {
#pragma unroll
            for (int k = 0; k < kFmaChains; k++) a[k] = sb_fma(a[k], m, c);
        }
    }
    T s = (T)0;
#pragma unroll
    for (int k = 0; k < kFmaChains; k++) s += a[k];
    if (s == (T)-1) out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename T>
static int fma_launch_config(sb_launch *L) {
    int sms = 0;
    if (!device_sms(&sms)) return SB_EXIT_RUNTIME;
    int rc = sb_cuda_occupancy((const void *)sb_probe_fma_kernel<T>,
                               sizeof(T) == 8 ? "sb_probe_fma_kernel<double>"
                                              : "sb_probe_fma_kernel<float>",
                               kFmaBlock, 0, 0, L);
    if (rc != SB_OK) return rc;
    L->grid = sms * L->blocks_per_sm * kFmaWaves;
    return SB_OK;
}

// Seconds for one launch of `iters` trips; < 0 on error.
template <typename T>
static double time_fma(T *out, int grid, int iters, sb_cuda_timer *t) {
    if (sb_cuda_timer_start(t) != SB_OK) return -1.0;
    sb_probe_fma_kernel<T><<<grid, kFmaBlock>>>(out, iters, (T)0.9999, (T)0.5);
    if (SB_FAILED(cudaGetLastError())) return -1.0;
    return sb_cuda_timer_stop(t);
}

template <typename T>
static double fma_run(void) {
    if (!usable("FMA")) return -1.0;
    sb_launch L;
    if (fma_launch_config<T>(&L) != SB_OK) return -1.0;
    DevBuf out;
    Timer timer;
    if (!timer.t) return -1.0;
    if (SB_FAILED(cudaMalloc(&out.p, (size_t)L.grid * kFmaBlock * sizeof(T)))) return -1.0;
    T *o = (T *)out.p;

    // Calibrate: grow until one launch takes >= 5 ms, then aim at ~20 ms.
    int iters = 64;
    double dt = 0.0;
    for (;;) {
        dt = time_fma<T>(o, L.grid, iters, timer.t);
        if (dt <= 0.0) return -1.0;
        if (dt >= 5e-3 || iters >= (1 << 26)) break;
        iters *= 4;
    }
    double scaled = (double)iters * (20e-3 / dt);
    iters = scaled > (double)(1 << 28) ? (1 << 28) : (scaled < iters ? iters : (int)scaled);

    double s[kFmaReps];
    for (int r = 0; r < kFmaReps; r++) {
        s[r] = time_fma<T>(o, L.grid, iters, timer.t);
        if (s[r] <= 0.0) return -1.0;
    }
    const double flops = 2.0 * kFmaChains * kFmaUnroll * (double)iters * (double)L.grid * kFmaBlock;
    return flops / median(s, kFmaReps);
}

extern "C" double sb_cuda_probe_fma(int fp64) {
    static int done[2] = {0, 0};
    static double cached[2] = {-1.0, -1.0};
    int k = fp64 ? 1 : 0;
    if (!done[k]) {
        cached[k] = k ? fma_run<double>() : fma_run<float>();
        done[k] = 1;
    }
    return cached[k];
}

extern "C" int sb_cuda_selftest_occupancy(sb_launch *out) {
    if (!usable("occupancy self-test")) return SB_EXIT_USAGE;
    return fma_launch_config<float>(out);
}
