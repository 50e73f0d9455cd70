/* `--profile`: hardware counters measured in a separate, untimed pass, set beside
 * the kernel's model (bytes, flops and items per repetition).
 * GPU: Nsight Compute's CLI (ncu) profiles a child process that runs the same case,
 * its counters confined to its timed repetitions by cudaProfilerStart/Stop; the harness
 * parses ncu's raw CSV (profile_ncu.c) and reports the mean repetition. CPU: PAPI
 * counters around one extra repetition in this process (runtime/openmp_simd/omp_counters.c). */
#ifndef SB_PROFILE_H
#define SB_PROFILE_H

#include <stdio.h>

#include "sb.h"

/* One CUDA kernel function: every launch of it in a profiled repetition. Sums for
 * bytes, sectors, requests and instructions; percentages are means over its launches
 * weighted by their duration. NaN where ncu gave no value. */
typedef struct {
    char name[96];
    int launches;
    int block, grid;              /* of its last launch */
    double duration;              /* s, sum over launches */
    double dram_read, dram_write; /* bytes */
    double dram_pct;              /* DRAM throughput, % of peak */
    double occ_achieved, occ_theoretical; /* % of the SM's warp slots */
    double sm_pct, fp64_pct, fp32_pct;    /* SM throughput; FP64 and FP32 FMA pipe, % of peak */
    double l1_hit, l2_hit;        /* % of sectors */
    double ld_sectors, ld_requests, st_sectors, st_requests; /* global, L1TEX */
    double ld_bytes_req, st_bytes_req; /* bytes the instructions asked for */
    double regs;                  /* registers per thread */
    double local_bytes;           /* local-memory (spill) traffic through L1, bytes */
    double flops32, flops64;      /* add + mul + 2 fma, executed thread instructions */
} sb_prof_group;

#define SB_PROF_MAX_GROUPS 96

typedef enum { SB_PROF_NONE = 0, SB_PROF_GPU, SB_PROF_CPU } sb_prof_kind;

typedef struct {
    sb_prof_kind kind;  /* NONE: not asked, or no counters (why says which) */
    char why[256];      /* the one line printed when counters were not available */
    char tool[64];      /* "ncu 2025.3.1", "PAPI 7.0.0.0" */
    double items;       /* items of the profiled repetition (the model's, per rep) */
    /* GPU */
    int reps;           /* repetitions counted; launches and sums are their mean */
    int nlaunch, ngroups;
    int have_flops;     /* ncu measured the FP instruction counts (instrumented metrics) */
    sb_prof_group group[SB_PROF_MAX_GROUPS];
    /* CPU (PAPI); have_* 0 where the PMU lacks the event */
    int threads;
    double cycles, instructions, vec_instructions, llc_misses;
    int have_vec, have_llc;
    char vec_event[32], llc_event[32];
} sb_profile;

/* Totals over the groups (GPU) or the counters (CPU), and the model ratios. */
typedef struct {
    double dram_read, dram_write, dram_bytes; /* CPU: dram_bytes = LLC misses x 64 B */
    double bytes_per_item, model_bytes_per_item, bytes_ratio;   /* NaN when unknown */
    double flops, flops_per_item, model_flops_per_item, flops_ratio;
    double duration;  /* GPU: sum of the launches' durations, s */
} sb_prof_totals;

/* The ratios outside this band are flagged (docs/DESIGN.md: a finding to explain). */
#define SB_PROF_RATIO_LO 0.67
#define SB_PROF_RATIO_HI 1.5

void sb_profile_totals(const sb_profile *p, const sb_work *w, sb_prof_totals *t);
/* One-line explanation hint for a ratio outside the band; NULL inside it. */
const char *sb_profile_hint(const char *what, double ratio);

/* Divides what ncu counted over reps repetitions into their mean: launches, durations,
 * bytes, sectors, requests and instructions; the duration-weighted percentages stay. */
void sb_profile_mean(sb_profile *p, int reps);

/* The measured table after the timed report. */
void sb_profile_print(FILE *out, const sb_profile *p, const sb_work *w, const char *item);

/* ---- GPU: ncu ---------------------------------------------------------- */

/* Profiles argv (a complete command, argv[0] the program) under ncu and fills p; as_range:
 * the repetition counted as one range (the kernel's profile_as_range), unless SB_NCU_REPLAY
 * names the replay mode.
 * SB_OK with p->kind == SB_PROF_GPU on success; SB_OK with p->kind == SB_PROF_NONE and
 * p->why set when counters cannot be read here (no ncu, no permission, no device);
 * SB_EXIT_RUNTIME after an error line when ncu ran but its answer cannot be used. */
int sb_ncu_profile(char *const argv[], int as_range, sb_profile *p);

/* Parses ncu's `--csv --page raw --print-units base` text into p's groups.
 * SB_OK, or SB_EXIT_RUNTIME with a reason in err (not printed). */
int sb_ncu_parse_csv(const char *text, sb_profile *p, char *err, size_t errlen);

/* ncu's --replay-mode for a kernel whose profile_as_range is as_range: SB_NCU_REPLAY where
 * set, else app-range or application. */
const char *sb_ncu_replay_mode(int as_range);

/* The metrics requested from ncu, comma separated; range: those a range has (app-range replay). */
const char *sb_ncu_metric_list(int range);

/* How many repetitions --profile counts on the GPU: SB_PROFILE_REPS (1..64), 1 when unset.
 * SB_OK, or SB_EXIT_USAGE after one error line. */
int sb_profile_reps(int *reps);

/* Set in the child ncu profiles: bracket each timed repetition with the CUDA profiler's
 * start and stop so nothing else (set-up, warm-up, validation) is counted. */
#define SB_PROFILE_RANGE_ENV "SB_PROFILE_RANGE"
int sb_profile_range_requested(void);

#endif
