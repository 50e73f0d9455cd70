/* The contract between the harness, the backends and the kernels.
 * Kernels know physics, backends know hardware, the harness knows measurement:
 * a kernel fills an sb_kernel, the harness drives it, times it and reports it. */
#ifndef SB_H
#define SB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes (docs/DESIGN.md): every sb_* function returning int uses these. */
enum { SB_OK = 0, SB_EXIT_VALIDATION = 1, SB_EXIT_USAGE = 2, SB_EXIT_RUNTIME = 3 };

typedef enum {
    SB_BACKEND_OPENMP_SIMD = 0,
    SB_BACKEND_CUDA = 1,
    SB_BACKEND_REFERENCE = 2, /* the scalar oracle, timed like any backend: gives speed-ups */
    SB_BACKEND_COUNT
} sb_backend;

const char *sb_backend_name(sb_backend b);
/* 0 on success; SB_EXIT_USAGE (message printed) for an unknown name. */
int sb_backend_parse(const char *s, sb_backend *out);

/* ---- parameters ------------------------------------------------------- */
#define SB_MAX_PARAMS 32
typedef struct {
    char key[64];
    char value[192];
    int used; /* set by a getter; an unused key after setup is an error */
} sb_kv;

typedef struct sb_params {
    int size;          /* kernel's SIZE; 0 = the kernel's default */
    int reps, warmup;
    uint64_t seed;
    int nkv;
    sb_kv kv[SB_MAX_PARAMS];
    const char *json_path; /* NULL: no JSON */
    const char *baseline_path; /* one-rank JSON for the MPI parallel efficiency; NULL: none */
    int quiet;
} sb_params;

/* A parameter a kernel accepts; listed by `scibench list` and in errors. */
typedef struct {
    const char *key, *def, *help;
} sb_param_spec;

/* Typed getters. Absent key -> default. Present but malformed or out of
 * range -> one line on stderr naming key, value and the accepted range, and
 * SB_EXIT_USAGE. They mark the key used. */
int sb_param_double(sb_params *p, const char *key, double def, double lo, double hi, double *out);
int sb_param_long(sb_params *p, const char *key, long def, long lo, long hi, long *out);
int sb_param_choice(sb_params *p, const char *key, const char *const *choices, int def, int *out);
/* Raw string (NULL when absent). */
const char *sb_param_string(sb_params *p, const char *key);

/* ---- messages --------------------------------------------------------- */
/* "scibench: error: ..." on stderr. */
void sb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress on stderr, only when stderr is a TTY and not --quiet. */
void sb_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sb_progress_done(void);
void sb_set_quiet(int quiet);
/* MPI: errors print on rank 0 only until a case's setup has passed on every rank
 * (until then they are the same on all ranks); after it, on any rank, with its number. */
void sb_errors_from_all_ranks(int on);

/* ---- data files -------------------------------------------------------- */
/* The path (into out, n bytes) of kernel's data file rel: kernels/<kernel>/data/<rel> in a
 * source tree, share/scibench/<kernel>/<rel> installed; $SB_DATA overrides (datapath.c has
 * the search order). SB_OK, or one error line and SB_EXIT_USAGE when it is nowhere. */
int sb_data_path(const char *kernel, const char *rel, char *out, size_t n);

/* ---- results a kernel hands to the harness ---------------------------- */
#define SB_MAX_COUNTERS 160 /* eri_brush: 2 per quartet class, 55 classes with f shells */
typedef struct {
    char name[48];
    double value;
    char unit[24];
} sb_counter;
typedef struct {
    int n;
    sb_counter c[SB_MAX_COUNTERS];
} sb_counters;
/* Adds or overwrites a named counter (physics output such as energy/site). */
void sb_counter_set(sb_counters *cs, const char *name, double value, const char *unit);

/* One GPU kernel's launch configuration, as the occupancy API sees it. */
typedef struct {
    char name[64];
    int block, grid;
    int regs;             /* registers per thread */
    int smem_static;      /* bytes per block */
    int smem_dynamic;     /* bytes per block */
    int blocks_per_sm;    /* resident blocks per SM (occupancy API) */
    double occupancy;     /* theoretical: resident warps / max warps per SM */
} sb_launch;

/* Analytic model of one repetition, for throughput and the roofline. */
typedef struct {
    double items;  /* in the kernel's item unit */
    double bytes;  /* compulsory DRAM traffic */
    double flops;  /* 0 when not countable */
    int fp64;      /* 1: flops are FP64 (compared with the FP64 FMA peak); 0: FP32 */
} sb_work;

#define SB_MAX_CHECKS 32
typedef enum {
    SB_TOL_ABS,   /* |value - reference| <= tolerance */
    SB_TOL_REL,   /* |value - reference| <= tolerance * |reference| */
    SB_TOL_MAX    /* value <= reference (tolerance unused): counts, drifts */
} sb_tol_kind;

typedef struct {
    char name[64];
    double value, reference, tolerance;
    sb_tol_kind kind;
    char unit[24];
    char source[160]; /* where the reference value comes from */
    int pass;
} sb_check;

typedef struct sb_validation {
    int n;
    sb_check check[SB_MAX_CHECKS];
} sb_validation;

/* Records a check and returns its verdict (1 pass, 0 fail). NaN never passes. */
int sb_check_add(sb_validation *v, const char *name, double value, double reference,
                 double tolerance, sb_tol_kind kind, const char *unit, const char *source);
int sb_validation_passed(const sb_validation *v);

/* ---- a kernel --------------------------------------------------------- */
struct sb_kernel;

#define SB_MAX_LAUNCH 4
typedef struct sb_case {
    const struct sb_kernel *kernel;
    sb_backend backend;
    sb_params *params;
    void *state;               /* owned by the kernel */
    sb_work work;              /* per repetition; set by setup */
    sb_counters counters;      /* physics outputs; set by run/finish */
    int nlaunch;
    sb_launch launch[SB_MAX_LAUNCH]; /* CUDA: set by prepare */
    /* Under MPI (sb_mpi.h) work stays the whole problem's model; rank_items is this
     * rank's share of work.items per repetition (0: an even share, items / ranks). */
    double rank_items;
} sb_case;

typedef struct sb_kernel {
    const char *name, *summary;
    const char *item;          /* unit counted for throughput: "site updates", ... */
    const char *size_meaning;  /* "L, lattice edge (L^3 sites)" */
    int default_size, min_size, max_size, ci_size;
    const sb_param_spec *params; /* terminated by {NULL} */
    int has_backend[SB_BACKEND_COUNT];
    /* 1: --profile counts a CUDA repetition as one range (ncu's app-range replay), for
     * kernels whose hundreds of launches a repetition ncu cannot replay one by one in
     * reasonable time; only hardware counters exist for a range. */
    int profile_as_range;
    /* Parse params, build the host input deterministically from the seed, set c->work. */
    int (*setup)(sb_case *c);
    /* Move the input to the backend and allocate its buffers. Untimed. */
    int (*prepare)(sb_case *c);
    /* One timed repetition. CUDA work goes on the legacy default stream so
     * the harness's events bracket it; no host<->device copies of state. */
    int (*run)(sb_case *c);
    /* After the reps: bring results back, fill c->counters. Untimed. */
    int (*finish)(sb_case *c);
    /* Physics and cross-checks; may run small auxiliary simulations. */
    int (*validate)(sb_case *c, sb_validation *v);
    void (*teardown)(sb_case *c);
} sb_kernel;

#ifdef __cplusplus
}
#endif
#endif
