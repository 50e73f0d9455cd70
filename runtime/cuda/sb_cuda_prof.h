/* The CUDA side of --profile (harness/profile.h): the profiler range ncu counts, and a
 * copy kernel of known traffic for the profiler's own test. */
#ifndef SB_CUDA_PROF_H
#define SB_CUDA_PROF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bracket the work ncu should count (cudaProfilerStart/Stop after a device
 * synchronisation; ncu runs the child with --profile-from-start off). */
int sb_cuda_profiler_start(void);
int sb_cuda_profiler_stop(void);
/* One launch of the copy probe's kernel over `bytes` (read once, written once); with
 * range 1 only that launch is inside the profiler range (the fill and check are not). */
int sb_cuda_selftest_copy(size_t bytes, int range);

#ifdef __cplusplus
}
#endif
#endif
