/* The CUDA layer of a build without CUDA (make CUDA=0): every function exists,
 * reports that CUDA was not built in, and fails (error code, negative value or
 * NULL). The harness asks sb_cuda_available() first and never gets this far. */
#include "sb_cuda.h"
#include "sb_cuda_prof.h"

#include <string.h>

#define SB_NO_CUDA "built without CUDA (CUDA=0)"

static int unavailable(const char *what) {
    sb_error("%s: CUDA backend unavailable: " SB_NO_CUDA, what);
    return SB_EXIT_USAGE;
}

int sb_cuda_available(const char **why) {
    if (why) *why = SB_NO_CUDA;
    return 0;
}

int sb_cuda_init(sb_cuda_info *info) {
    if (info) memset(info, 0, sizeof *info);
    return unavailable("sb_cuda_init");
}

double sb_cuda_probe_copy_bw(void) {
    unavailable("copy bandwidth probe");
    return -1.0;
}

double sb_cuda_probe_fma(int fp64) {
    unavailable(fp64 ? "FP64 FMA probe" : "FP32 FMA probe");
    return -1.0;
}

/* Never defined: no timer can be created. */
struct sb_cuda_timer;

sb_cuda_timer *sb_cuda_timer_create(void) {
    unavailable("sb_cuda_timer_create");
    return NULL;
}

int sb_cuda_timer_start(sb_cuda_timer *t) {
    (void)t;
    return unavailable("sb_cuda_timer_start");
}

double sb_cuda_timer_stop(sb_cuda_timer *t) {
    (void)t;
    unavailable("sb_cuda_timer_stop");
    return -1.0;
}

void sb_cuda_timer_destroy(sb_cuda_timer *t) { (void)t; }

void *sb_cuda_malloc(size_t bytes) {
    (void)bytes;
    unavailable("sb_cuda_malloc");
    return NULL;
}

void sb_cuda_free(void *p) { (void)p; }

int sb_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes) {
    (void)dst, (void)src, (void)bytes;
    return unavailable("sb_cuda_memcpy_h2d");
}

int sb_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes) {
    (void)dst, (void)src, (void)bytes;
    return unavailable("sb_cuda_memcpy_d2h");
}

int sb_cuda_sync(void) { return unavailable("sb_cuda_sync"); }
int sb_cuda_release(void) { return unavailable("sb_cuda_release"); }

int sb_cuda_mem_info(size_t *free_bytes, size_t *total_bytes) {
    *free_bytes = *total_bytes = 0;
    return unavailable("sb_cuda_mem_info");
}

int sb_cuda_occupancy(const void *func, const char *name, int block, size_t dyn_smem, int grid,
                      sb_launch *out) {
    (void)func, (void)block, (void)dyn_smem, (void)grid;
    if (out) memset(out, 0, sizeof *out);
    return unavailable(name ? name : "sb_cuda_occupancy");
}

int sb_cuda_selftest_occupancy(sb_launch *out) {
    if (out) memset(out, 0, sizeof *out);
    return unavailable("sb_cuda_selftest_occupancy");
}

int sb_cuda_report(int err, const char *call, const char *file, int line) {
    sb_error("CUDA error at %s:%d: %s: error %d (" SB_NO_CUDA ")", file, line, call, err);
    return SB_EXIT_RUNTIME;
}

int sb_cuda_profiler_start(void) { return unavailable("sb_cuda_profiler_start"); }
int sb_cuda_profiler_stop(void) { return unavailable("sb_cuda_profiler_stop"); }
int sb_cuda_selftest_copy(size_t bytes, int range) {
    (void)bytes;
    (void)range;
    return unavailable("sb_cuda_selftest_copy");
}

/* Without CUDA no GPU data moves between ranks: the harness starts no CUDA case. */
#include "sb_cuda_comm.h"

int sb_cuda_comm_init(int mode, int shared_gpu) {
    (void)mode, (void)shared_gpu;
    return SB_OK;
}
int sb_cuda_comm_nccl(void) { return 0; }
const char *sb_cuda_comm_path(void) { return "none"; }
const char *sb_cuda_comm_detail(void) { return SB_NO_CUDA; }
int sb_cuda_comm_sum(double *dev, long n, void *stream) {
    (void)dev, (void)n, (void)stream;
    return unavailable("sb_cuda_comm_sum");
}
int sb_cuda_comm_sendrecv(const void *send, int to, void *recv, int from, size_t bytes, void *stream) {
    (void)send, (void)to, (void)recv, (void)from, (void)bytes, (void)stream;
    return unavailable("sb_cuda_comm_sendrecv");
}
void sb_cuda_comm_finalize(void) {}
