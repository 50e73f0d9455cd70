/* CUDA runtime layer: a C API over the CUDA runtime for the harness and for
 * kernels' .cu files. Built from sb_cuda_*.cu when nvcc exists, otherwise from
 * cuda_stub.c, whose functions report "built without CUDA". */
#ifndef SB_CUDA_H
#define SB_CUDA_H

#include <stddef.h>
#include "sb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[128];
    int device;
    int device_count;       /* GPUs this process sees */
    int cc_major, cc_minor;
    int sm_count;
    size_t global_mem_bytes;
    int l2_bytes;
    int sm_clock_mhz, mem_clock_mhz, mem_bus_bits;
    int max_threads_per_sm, regs_per_sm;
    size_t smem_per_sm;
    int driver_version, runtime_version;
    double theoretical_bw;  /* bytes/s from clock and bus width (datasheet-style, for reference only) */
} sb_cuda_info;

/* 1 when a CUDA device can be used. Otherwise 0 and *why says why
 * ("built without CUDA (CUDA=0)", "no CUDA device: <driver message>"). */
int sb_cuda_available(const char **why);
/* Select the device (SB_CUDA_DEVICE env, default 0) and fill info. */
int sb_cuda_init(sb_cuda_info *info);

/* Measured peaks: device-to-device copy (bytes read + written per second),
 * FP32/FP64 FMA throughput (flop/s, an FMA counts 2). Cached after first call. */
double sb_cuda_probe_copy_bw(void);
double sb_cuda_probe_fma(int fp64);

/* Events on the legacy default stream. */
typedef struct sb_cuda_timer sb_cuda_timer;
sb_cuda_timer *sb_cuda_timer_create(void);
int sb_cuda_timer_start(sb_cuda_timer *t);
/* Records stop, synchronises, returns elapsed seconds (< 0 on error). */
double sb_cuda_timer_stop(sb_cuda_timer *t);
void sb_cuda_timer_destroy(sb_cuda_timer *t);

/* Device memory with checked allocation. */
void *sb_cuda_malloc(size_t bytes);
void sb_cuda_free(void *p);
int sb_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes);
int sb_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes);
int sb_cuda_sync(void); /* device synchronize + last error check */
/* Destroys this process's context on the device (cudaDeviceReset), so that a child process
 * finds the device as a fresh process would; a later CUDA call makes a new context. */
int sb_cuda_release(void);
/* Free and total device memory in bytes (cudaMemGetInfo). */
int sb_cuda_mem_info(size_t *free_bytes, size_t *total_bytes);

/* Launch configuration report for a __global__ function (pass the function
 * pointer cast to const void*): registers, shared memory, resident blocks and
 * theoretical occupancy for the given block size and dynamic shared memory. */
int sb_cuda_occupancy(const void *func, const char *name, int block, size_t dyn_smem, int grid,
                      sb_launch *out);
/* The same report for one of the backend's own kernels (the FP32 FMA probe,
 * 256 threads per block), so tests can check occupancy without a kernel. */
int sb_cuda_selftest_occupancy(sb_launch *out);

/* Prints "scibench: error: CUDA error at file:line: call: name: message" and returns SB_EXIT_RUNTIME. */
int sb_cuda_report(int err, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* For .cu files: check a runtime call, return SB_EXIT_RUNTIME from the caller on failure. */
#define SB_CU(call)                                                                   \
    do {                                                                              \
        cudaError_t sb_e_ = (call);                                                   \
        if (sb_e_ != cudaSuccess) return sb_cuda_report((int)sb_e_, #call, __FILE__, __LINE__); \
    } while (0)
#define SB_CU_LAUNCH() SB_CU(cudaGetLastError())
#endif

#endif
