/* Drives one case: setup, prepare, warm-ups, timed repetitions, finish,
 * validate, teardown; then the machine's measured peaks for the roofline. */
#ifndef SB_RUNLOOP_H
#define SB_RUNLOOP_H

#include "profile.h"
#include "sb.h"
#include "stats.h"

/* How one probe's trials spread: its value is the best of them (CPU); trials 0 where the
 * probe reports one number (the GPU's, a median of its launches). */
typedef struct {
    double median, worst;
    int trials;
} sb_peak_spread;

typedef struct {
    int measured;          /* 0: probes skipped (validate) */
    const char *bw_kind;   /* "copy" (CUDA device-to-device) or "triad" (CPU STREAM) */
    double bandwidth;      /* bytes/s */
    double fma_fp32, fma_fp64; /* flop/s, an FMA counted as 2 */
    sb_peak_spread spread[3];  /* of bandwidth, fma_fp32, fma_fp64 */
    const char *fma_isa;   /* CPU: the instruction set of the FMA chains behind fma_fp32/64; NULL on the GPU */
} sb_peaks;

/* A run over several MPI ranks (ranks == 1: a serial run, nothing else set). */
typedef struct {
    int ranks, hosts;
    int devices;           /* distinct (host, GPU) pairs, or hosts on the CPU: the peaks are x this */
    const char *host_list, *library;
    double *rank_median;   /* per rank: median of its own repetition times, s */
    double *rank_items;    /* per rank: items per repetition */
    double comm_share;     /* median over reps of (max over ranks of time in MPI calls) / rep time */
    double comm_bytes;     /* median over reps of the bytes the busiest rank sent to other ranks */
    const char *comm;      /* how GPU data moved: "nccl", "host"; "mpi" on the CPU; "none" on one rank */
    const char *comm_detail;
    double baseline_rate;  /* items/s of the one-rank run given by --baseline; 0: none */
} sb_mpi_result;

typedef struct {
    const sb_kernel *kernel;
    sb_backend backend;
    const sb_params *params;  /* size resolved: never 0 */
    int threads;              /* OpenMP threads; 1 for cuda and reference */
    double *times;            /* seconds per timed repetition, in order; params->reps of them */
    sb_stats stats;           /* of times, in seconds */
    sb_work work;
    sb_counters counters;
    int nlaunch;
    sb_launch launch[SB_MAX_LAUNCH];
    sb_validation validation;
    int passed;
    sb_peaks peaks;
    sb_mpi_result mpi;        /* times[] above are the slowest rank's per repetition */
    sb_profile profile;       /* --profile: counters of untimed repetitions (kind NONE otherwise) */
} sb_result;

/* flags of sb_run_case */
enum { SB_RUN_PEAKS = 1,   /* measure the machine's peaks after the run (not for validate) */
       SB_RUN_PROFILE = 2  /* CPU backends: counters of one more repetition (the GPU's are the session's) */
};

/* SB_OK when the case ran and was validated (r->passed holds the verdict);
 * otherwise the exit code of the first failure, its message printed.
 * Writes the resolved size into p->size. Free r with sb_result_free. */
int sb_run_case(const sb_kernel *k, sb_backend b, sb_params *p, int flags, sb_result *r);
void sb_result_free(sb_result *r);

/* amount / seconds, 0 when seconds <= 0 (a CPU clock can read 0 for a tiny case). */
double sb_rate(double amount, double seconds);
/* The measured FMA peak matching work.fp64; 0 when not measured. */
double sb_flop_peak(const sb_result *r);
/* Parallel efficiency: this run's items/s / (ranks x the one-rank baseline's); 0 without one. */
double sb_mpi_efficiency(const sb_result *r);

#endif
