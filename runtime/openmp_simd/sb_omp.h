/* CPU runtime layer: aligned memory, threads, ISA, and measured peaks. */
#ifndef SB_OMP_H
#define SB_OMP_H

#include <stddef.h>

typedef struct {
    char cpu_model[128];
    int logical_cpus;     /* online processors */
    int omp_threads;      /* omp_get_max_threads() */
    char isa_compiled[32];  /* what this binary was compiled for: "AVX-512", "AVX2+FMA", "SSE2" */
    char isa_supported[32]; /* what the CPU offers at run time */
    int simd_float_lanes;   /* float lanes of the compiled vector width */
    char proc_bind[24];     /* OMP_PROC_BIND as the runtime sees it */
} sb_cpu_info;

void sb_cpu_get_info(sb_cpu_info *info);

/* 64-byte aligned (cache line, AVX-512) allocation; NULL + message on failure. */
void *sb_aligned_alloc(size_t bytes);
void sb_aligned_free(void *p);

/* One measured peak over its trials: best is the peak (bytes/s or flop/s; < 0 when the probe
 * failed), median and worst say how much one trial varies. */
typedef struct {
    double best, median, worst;
    int trials;
    const char *isa; /* FMA: the instruction set of the chains that gave best; NULL for the triad */
} sb_probe_stats;

/* Measured peaks, cached after the first call, every OpenMP thread pinned to one CPU:
 * STREAM triad a = b + s*c over arrays far larger than the caches, at least 40 trials and
 * 0.6 s (every other one dealing the array to the threads as they come free), bytes = 3 arrays x 8 B per element (no write-allocate counted, as STREAM does);
 * FMA: independent fused multiply-add chains in every SIMD lane of every thread, with every
 * FMA instruction set the CPU offers (chosen at run time, not by -march), all threads together
 * for 8 windows of 25 ms, each thread timing its own chunks of about 0.25 ms; best = the sum
 * over the threads of each one's best chunk; flop/s with an FMA counted as 2. The plain
 * functions return best. */
const sb_probe_stats *sb_cpu_probe_triad(void);
const sb_probe_stats *sb_cpu_probe_fma_stats(int fp64);
double sb_cpu_probe_triad_bw(void);
double sb_cpu_probe_fma(int fp64);

/* Monotonic wall clock in seconds. */
double sb_clock_seconds(void);

#endif
