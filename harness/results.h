/* Reading result JSON back (ours or any Google Benchmark file): one row per
 * case, for `scibench compare` and `scibench table`. */
#ifndef SB_RESULTS_H
#define SB_RESULTS_H

#include <stdio.h>

#include "sb.h"

typedef struct {
    char name[64];
    double value, reference, tolerance; /* NaN where the file has null */
    sb_tol_kind kind;
    int known_kind;  /* 0: kind missing or unknown */
    int pass;        /* as stored */
    int consistent;  /* stored pass agrees with value/reference/tolerance */
} sb_rcheck;

typedef struct {
    char key[640];       /* kernel/backend/size|params|seed[|ranks=R][|threads=T]: what matches across files */
    char kernel[64], backend[32], params[448], seed[24], item[48];
    char case_params[448]; /* params that differ from the kernel's defaults ("k=v;k=v") */
    int size;            /* -1 when the entry has no scibench fields */
    int reps;            /* the entries' "repetitions" (0 when absent) */
    int ranks;           /* MPI ranks of the run (1 without MPI) */
    int threads;         /* openmp_simd on fewer OpenMP threads than the machine's logical CPUs: that
                          * count, part of the case; 0 for a run on the whole machine */
    char run_name[160];
    const char *file;    /* owned by the set */
    char machine[64], commit[48];
    char device[128];    /* the model the backend ran on: GPU name (cuda), CPU model (others); "" unknown */
    double ips, ips_lo, ips_hi; /* items/s at the median, slowest and fastest; NaN unknown */
    double mad;          /* median absolute deviation of the repetitions' items/s; NaN: < 3 of them */
    /* real_time in seconds (any time_unit): median, fastest, slowest, MAD of the repetitions
     * (NaN unknown), what an entry without items_per_second is compared by */
    double time_s, time_lo, time_hi, time_mad;
    int error;           /* an entry reported error_occurred (Google Benchmark): the run failed */
    char error_msg[160];
    int complexity;      /* Complexity() fits (aggregates BigO, RMS): no timing; listed, never compared */
    char complexity_text[160];
    double bps, fps;     /* bytes/s, flops/s at the median; NaN when not modelled */
    char bw_kind[16];    /* "copy", "triad"; "" without measured peaks */
    double peak_bw, peak_fp32, peak_fp64, peak_flops; /* NaN unknown; peak_flops: the one % of peak used */
    int flops_fp64;      /* the precision peak_flops is of: 1 FP64, 0 FP32, -1 unknown */
    char fma_isa[32];    /* CPU rows: the instruction set of the FMA probe behind the FMA peaks */
    char build_isa[32];  /* the CPU instruction set the binary was compiled for ("" unknown): two
                          * builds of one machine run the same case apart */
    int simd_lanes;      /* float SIMD lanes of that build (0 unknown) */
    int devices;         /* distinct devices of the run (MPI): the peaks are one device's times this */
    const char *peaks_file; /* the stored peaks (peaks.json beside the file) the peaks are from; NULL:
                             * the run's own probes. Owned by the set. */
    double pct_bw, pct_flops; /* % of measured peak as the file states it; NaN unknown */
    /* --profile's measured pass (the "profile" object of the median entry); NaN without one */
    int has_profile;
    char prof_tool[48];
    double prof_bytes_item, prof_bytes_ratio, prof_flops_item, prof_flops_ratio;
    int has_validation, passed;
    int entries_pass, entries_fail; /* the run's entries (repetitions, aggregates) by verdict */
    int verdict_split;   /* they disagree, or one disagrees with its own checks: passed = 0 */
    int nchecks;
    sb_rcheck check[SB_MAX_CHECKS];
} sb_rrow;

struct sb_peaks_dir; /* a folder and its stored peaks, if any (results.c) */

typedef struct {
    int n, cap;
    sb_rrow *row;
    int nfiles;
    char **files;
    int ndirs;
    struct sb_peaks_dir *dirs;
} sb_rset;

/* A JSON file, or a folder: its *.json and those of its subfolders (one level,
 * hyperfine/ and hidden ones skipped). SB_OK, or SB_EXIT_USAGE after one line
 * naming the path (unreadable, not JSON, no benchmarks[], no .json found).
 * unique: also refuse two files holding the same case.
 * A file's peaks are the stored ones of its folder (peaks.json beside it, peaks_file.h) when
 * that file is of the same machine (class and CPU or GPU model), else the run's own probes;
 * the % of peak are then recomputed against them. */
int sb_rset_load(const char *path, int unique, sb_rset *s);
void sb_rset_free(sb_rset *s);
/* Index of the row with this key, or -1. */
int sb_rset_find(const sb_rset *s, const char *key);

/* Attainable items/s on the row's machine: min(peak bandwidth / modelled bytes
 * per item, flop peak / flops per item); NaN when no peak was measured. */
double sb_rrow_roofline(const sb_rrow *r);

/* Relative noise of the row's items/s: 3 MAD / median of its repetitions
 * (robust to one outlier repetition), or half the min..max range with fewer
 * than 3 repetitions; 0 when unknown. */
double sb_rrow_noise(const sb_rrow *r);
/* The same of its real_time, for rows compared by time. */
double sb_rrow_time_noise(const sb_rrow *r);

/* Index of the row's kernel in the registry (its order in `scibench list`); the
 * registry's count for a kernel it does not know. */
int sb_rrow_kernel_rank(const sb_rrow *r);

#endif
