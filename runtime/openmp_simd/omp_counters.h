/* CPU hardware counters (PAPI) for --profile, summed over every thread of a full
 * OpenMP team. */
#ifndef SB_OMP_COUNTERS_H
#define SB_OMP_COUNTERS_H

#include <stddef.h>

typedef struct {
    int threads;
    double cycles, instructions, vec_instructions, llc_misses;
    int have_vec, have_llc;            /* 0: the PMU has no such event */
    char vec_event[32], llc_event[32]; /* the PAPI presets used */
    char tool[32];                     /* "PAPI 7.0.0" */
} sb_cpu_counts;

/* 0 and counting on every thread of a team of omp_get_max_threads(); or -1 with why
 * set to one line (a VM without a PMU, a forbidding perf_event_paranoid). */
int sb_cpu_counters_start(char *why, size_t n);
/* Stops and sums; 0 when every thread was read. */
int sb_cpu_counters_stop(sb_cpu_counts *out);

#endif
