/* dfratom_scf: one benchmark case (atom, basis, options, backend state) */
#ifndef DFRCASE_H
#define DFRCASE_H
#include "dfratom_scf/dfr.h"

enum { DFR_JOB_SCF = 0, DFR_JOB_FOCK = 1, DFR_JOB_BSOPT = 2, DFR_JOB_BATCH = 3 };
enum { DFR_ENGINE_BATCHED = 0, DFR_ENGINE_SEQUENTIAL = 1 };

/* A batch's per-candidate outcomes (batch.c) */
typedef struct {
    double *energy;       /* NAN: the SCF failed or did not converge */
    int *iters, *bad_spectrum;
    double *ratio;        /* DFR_HIST convergence ratios per candidate (dfr_result.conv_ratio) */
    int fock_builds, chunk;
    int tabulated;        /* candidates whose tensors were read from an elementary-integral table */
    long table_per;       /* that table's integrals per candidate */
    double t_host, t_tensor, t_contract; /* seconds: SCF host steps, tensors, contractions */
    double t_eig;         /* seconds: batched eigen-solves on the GPU (eigensolver=cusolver) */
} dfr_batch_out;

typedef struct {
    double e0, energy, energy_rerun; /* start, optimum, the optimum's SCF once more */
    double alpha, beta;
    int evals, failures, fock_builds; /* over every start (and rank) */
    int best_start;       /* the start whose optimum won */
    int rank_fock_builds; /* MPI: the builds this rank made */
    double scan_best;     /* bsopt_scan: the lowest scanned energy (NAN: no scan) */
    int scan_scfs, scan_fock_builds;
} dfr_bsopt_result;

typedef struct {
    dfr_atom atom;
    dfr_wtbs w;
    dfr_sym y;
    dfr_fun *f;
    dfr_scf_opts o;
    dfr_gbuild g;
    dfr_result r;
    dfr_counts cnt;
    int job, oracle;
    sb_backend backend;
    int eig_gpu;       /* eigen-solves with cuSOLVER (cuda backend) instead of LAPACKE */
    void *eig;         /* its state (dfr_eig_cuda_create), shared by the case's builders */
    double *D0, *G0;   /* job=fock: the input density and the output */
    double *Dfinal;    /* job=scf: the converged weighted density */
    dfr_bsopt_result bs;
    int bs_maxeval;
    int bs_starts;        /* bsopt: NEWUOA starts (dealt to the MPI ranks) */
    int bs_scan;          /* bsopt: candidate bases scanned as one batch to pick the starts */
    int batch, engine, batch_check; /* job=batch: candidates, engine, candidates validated */
    int batch_lanes;      /* cuda, batched engine: 2 overlaps one half-chunk's host steps with the other's GPU work */
    double batch_mem;     /* GiB of integral tensors in flight */
    dfr_batch_out bo;     /* the timed run's outcomes */
    double batch_time;    /* seconds of the last repetition */
} dfr_case;

/* The case's backend Fock builder for its current basis (kernel.c) */
int dfr_builder_init(dfr_case *d, dfr_gbuild *g);
void dfr_builder_free(dfr_case *d, dfr_gbuild *g);
int dfr_bsopt(dfr_case *d);
double dfr_bsopt_energy(dfr_case *d, double alpha, double beta, dfr_result *r);
/* Start j's basis parameters: the case's basis for j = 0, else Halton offsets of (ln alpha,
 * ln(beta - 1)) around it (bsopt.c); also candidate j of a batch */
void dfr_bsopt_start(const dfr_case *d, int j, double *alpha, double *beta);
/* Candidates j0 .. j0+n-1 of a batch with engine DFR_ENGINE_*; o from dfr_batch_out_alloc(batch) */
int dfr_batch_eval(dfr_case *d, int engine, int j0, int n, dfr_batch_out *o);
int dfr_batch_out_alloc(dfr_batch_out *o, int n);
void dfr_batch_out_free(dfr_batch_out *o);
/* Candidates in flight together out of n: as many tensors as fit in batch_mem, at least one */
int dfr_batch_chunk(const dfr_case *d, const dfr_tshape *t, int n);

/* Two SCFs of one candidate that stopped after ia and ib iterations, ha and hb their
 * conv_ratio histories: the convergence ratio of the one that went on, at the iteration where
 * the other stopped (0 when the counts are equal, INFINITY beyond the history) */
double dfr_ratio_when_other_stopped(int ia, const double *ha, int ib, const double *hb);

/* d->backend must be set: eigensolver=cusolver is refused on the CPU backends */
int dfr_case_parse(sb_params *p, dfr_case *d);
int dfr_validate(sb_case *c, sb_validation *v);
#endif
