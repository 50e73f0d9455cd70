/* fullerene_ff: a benchmark case (configuration, generated isomers, the batch) and the
 * pieces kernel.c and validate.c share. */
#ifndef FULLERENE_FF_FFCASE_H
#define FULLERENE_FF_FFCASE_H
#include "fullerene_ff/ff.h"

#include "fullerene_ff/optimise.h"

/* Flop model of one energy+gradient evaluation per atom, counted in ff_physics.h as written
 * (sqrt and divide count 1): 3 bonds x 25 + 3 angles x 69 + 3 dihedrals x 135 + 8 energy
 * sums + 9 gather = 704, plus ~16 for the CG vector updates per evaluation. */
#define FF_FLOPS_PER_ATOM_EVAL 720.0

typedef struct {
    int N;
    long M;                  /* isomers asked for (ignored when all or from a file) */
    int all;                 /* isomers=all: the whole isomer space */
    long oeis;               /* isomers=all: the isomer count it is validated by, read at setup */
    const char *spiral_file; /* NULL: generate */
    ff_opts opts;
    long oracle;             /* isomers re-run on the scalar reference for the oracle check */
    long fill;               /* repeat the isomers until the batch holds >= fill (fills a GPU at small N) */
    long pipeline;           /* > 0: chunk size of the generation/backend pipeline (pipeline.c) */
    long mpi_chunk;          /* MPI: isomers a rank takes at a time (0: M / (4 ranks)) */
    uint64_t seed;
} ff_config;

typedef struct {
    ff_config cfg;
    long M;                  /* isomers in the batch */
    long unique;             /* distinct isomers (M / replicate) */
    ff_spiral *spirals;      /* M, canonical (generated) or as read */
    uint16_t *dual;          /* M * F * 6 */
    ff_batch b;
    const ff_ops *ops;
    double gen_seconds;      /* spiral generation (setup, untimed) */
    double windup_seconds;   /* windup into dual graphs (setup, untimed) */
    struct {                 /* several MPI ranks (mpi_share.c); unused on one */
        long chunk;
        int *owner;          /* M: the rank that optimised each isomer in the last repetition */
        struct sb_mpi_counter *counter;
        long done, runs;     /* this rank's isomers over all repetitions, and repetitions */
    } mpi;
} ff_case;

int ff_case_parse(sb_params *p, ff_config *cfg);
/* Generates (or reads) the isomers, winds them up and allocates the batch for backend b. */
int ff_case_create(ff_case *fc, const ff_config *cfg, sb_backend b);
void ff_case_destroy(ff_case *fc);
const ff_ops *ff_ops_for(sb_backend b);

/* A batch over M given dual graphs: outputs allocated, nothing run yet. */
int ff_batch_alloc(ff_batch *b, int N, long M, const uint16_t *dual, const ff_opts *o);
void ff_batch_free(ff_batch *b);
/* prepare + run + download + release: for validation's auxiliary runs. */
int ff_batch_run_once(const ff_ops *ops, ff_batch *b);
/* Isomers [start, start + take) of b run once as a batch of their own, into b's arrays;
 * their stage times are added to b->t (the pipeline's and the MPI queue's chunks). */
int ff_batch_run_range(const ff_ops *ops, ff_batch *b, long start, long take);

/* Winds up M spirals into M*F*6 dual entries; -1 and an error naming the spiral on failure. */
int ff_windup_all(int N, const ff_spiral *s, long M, uint16_t *dual);

/* mpi_share.c: dynamic distribution over MPI ranks (only with more than one) */
int ff_mpi_begin(ff_case *fc);
int ff_mpi_run(ff_case *fc);
int ff_mpi_gather(ff_case *fc); /* finish: results of every rank, in isomer order */
void ff_mpi_end(ff_case *fc);

/* pipeline.c: one timed repetition with generation overlapping the backend */
int ff_pipeline_run(ff_case *fc);

/* validate.c */
int ff_validate_all(ff_case *fc, sb_backend b, sb_validation *v, sb_counters *cs);
/* Geometry statistics of one optimised isomer against the force field's equilibria. */
typedef struct {
    double bond_min, bond_max;  /* Angstrom */
    /* bonds (A), face angles and dihedral angles (rad): sum of (x - x0)^2 and of x0^2,
     * for RRMSE = sqrt(sum (x - x0)^2 / sum x0^2) (thesis Fig. 4.10 style) */
    double dev[3], ref[3];
    int finite;                 /* every coordinate finite */
} ff_geom_stats;
void ff_geometry_stats(int N, const ff_atom *g, const double *X, ff_geom_stats *s);
/* OEIS A007894 (number of fullerene isomers C_N) from data/A007894.txt (sb_data_path): SB_OK, or
 * one error line (the file missing or unreadable, or N not in it) and SB_EXIT_USAGE. */
int ff_oeis_count(int N, long *count);
#endif
