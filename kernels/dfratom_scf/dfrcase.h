/* dfratom_scf: one benchmark case (atom, basis, options, backend state) */
#ifndef DFRCASE_H
#define DFRCASE_H
#include "dfratom_scf/dfr.h"

enum { DFR_JOB_SCF = 0, DFR_JOB_FOCK = 1, DFR_JOB_BSOPT = 2 };

typedef struct {
    double e0, energy, energy_rerun; /* start, optimum, the optimum's SCF once more */
    double alpha, beta;
    int evals, failures, fock_builds; /* over every start (and rank) */
    int best_start;       /* the start whose optimum won */
    int rank_fock_builds; /* MPI: the builds this rank made */
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
} dfr_case;

/* The case's backend Fock builder for its current basis (kernel.c) */
int dfr_builder_init(dfr_case *d, dfr_gbuild *g);
void dfr_builder_free(dfr_case *d, dfr_gbuild *g);
int dfr_bsopt(dfr_case *d);
double dfr_bsopt_energy(dfr_case *d, double alpha, double beta, dfr_result *r);

/* d->backend must be set: eigensolver=cusolver is refused on the CPU backends */
int dfr_case_parse(sb_params *p, dfr_case *d);
int dfr_validate(sb_case *c, sb_validation *v);
#endif
