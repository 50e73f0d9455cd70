/* dfratom_scf: one benchmark case (atom, basis, options, backend state) */
#ifndef DFRCASE_H
#define DFRCASE_H
#include "dfratom_scf/dfr.h"

enum { DFR_JOB_SCF = 0, DFR_JOB_FOCK = 1, DFR_JOB_BSOPT = 2, DFR_JOB_BATCH = 3, DFR_JOB_BSIZE = 4 };
enum { DFR_ENGINE_BATCHED = 0, DFR_ENGINE_SEQUENTIAL = 1 };

/* The accepted values of the parameters a basis file (basis_file.c) also records, one place for
 * the command line (setup.c) and the file reader. Ranges are closed, [lo, hi]. */
typedef struct {
    double lo, hi;
} dfr_range;
/* The SCFs here converge in 9 to 23 iterations (Be 10, Xe 16, Rn 17 to 23; README): a smaller
 * maxit stops every one of them unconverged */
#define DFR_MAXIT_MIN 30
/* job=bsize gives a candidate's SCF up when its convergence ratio has not halved in
 * bsize_stall iterations (DFR_BSIZE_STALL by default, DFR_BSIZE_STALL_MIN at least, 0: never):
 * such an SCF counts as a failed point, as it would at maxit (BSIZE.md) */
#define DFR_BSIZE_STALL 12
#define DFR_BSIZE_STALL_MIN 8
extern const dfr_range dfr_range_c, dfr_range_alpha, dfr_range_beta, dfr_range_gamma, dfr_range_delta, dfr_range_A,
    dfr_range_bsize_tol, dfr_range_bsize_max;
extern const char *const dfr_ham_names[];     /* by dfr_hamiltonian, NULL-terminated */
extern const char *const dfr_nucleus_names[]; /* by dfr_nucleus, NULL-terminated */
/* The Dirac Hamiltonian needs Z < c (setup.c says why): SB_OK, or one error line naming c, Z and
 * the accepted range, and SB_EXIT_USAGE */
int dfr_zc_check(double c, const dfr_atom *a);

/* A batch's per-candidate outcomes (batch.c) */
typedef struct {
    double *energy;       /* NAN: the SCF failed or did not converge */
    int *iters, *bad_spectrum;
    double *ratio;        /* DFR_HIST convergence ratios per candidate (dfr_result.conv_ratio) */
    int fock_builds, chunk;
    int maxit_scfs, maxit_builds; /* SCFs stopped at maxit unconverged, and their Fock builds */
    int stalled_scfs, stalled_builds; /* SCFs given up by dfr_scf_opts.stall, and their Fock builds */
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

/* job=bsize: the workflow's settings and outcome (bsize.c) */
enum { DFR_REF_AUTO = 0, DFR_REF_LIMIT = 1, DFR_REF_LARGE = 2, DFR_REF_VALUE = 3 };
#define DFR_BSIZE_STEPS 8  /* the start basis's optimisation, then the seven range ends */
#define DFR_BSIZE_ENDS 7   /* upper ends f, d, p, s, lower ends f, d, p: the local checks */
#define DFR_BSIZE_GROUPS_MAX 64 /* bsize_groups' upper end */
typedef struct {
    int max;              /* start size per symmetry */
    double tol;           /* relative error allowed against the reference */
    int ref_kind;         /* DFR_REF_*; AUTO resolved at setup */
    double ref_value;     /* DFR_REF_VALUE: given, Eh */
    int evals;            /* NEWUOA evaluations per candidate */
    int groups;           /* batched engine: candidate sizes padded in this many groups per step */
    int side;             /* batched engine: 1 runs a round's groups side by side */
    int steps;            /* steps run (1 .. DFR_BSIZE_STEPS): a shorter workflow for timings */
    int local_check;      /* 1: re-optimise the final basis less one function at each shrunk end */
    int warm;             /* 1: each candidate's SCF starts from its previous point's density */
    char out[192];        /* the final basis as JSON (empty: not written) */
} dfr_bsize_opts;

typedef struct {
    double e_start, e_final, e_ref, err_rel; /* the start basis optimised; the final basis */
    int ref_kind;         /* DFR_REF_LIMIT, LARGE or VALUE */
    dfr_wtbs start, final;
    int scfs, rounds, failed_scfs, fock_builds;
    int maxit_scfs, maxit_builds; /* of fock_builds, those of SCFs stopped at maxit unconverged */
    int stalled_scfs, stalled_builds; /* and those of SCFs given up as stalled (bsize_stall) */
    int critical_iters;   /* over rounds: the SCF iterations a round waits for (its slowest group) */
    double seconds, t_tensor, t_contract, t_host, t_eig;
    int step_chosen[DFR_BSIZE_STEPS];         /* size chosen at each step (-1: not run) */
    int step_cands[DFR_BSIZE_STEPS];
    int nlocal;                               /* ends checked for local minimality */
    int local_taken;                          /* bases one smaller found within the tolerance and taken */
    int local_l[DFR_BSIZE_ENDS], local_hi[DFR_BSIZE_ENDS];
    double local_err[DFR_BSIZE_ENDS];         /* error after removing one more function (INFINITY: cannot) */
    double items;                             /* radial 2e integrals of every SCF's builds, own bases */
    double rank_items;                        /* the part of them this rank computed */
    char json[4096];                          /* the final basis, as written */
    char *report;                             /* the workflow's tables, printed by finish */
} dfr_bsize_result;

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
    int blas_threads;   /* OpenBLAS threads before the case (one while it lives), restored after */
    const dfr_ops *ops; /* the backend's Fock build, eigen-solves and batched tensors */
    int eig_gpu;       /* eigen-solves with cuSOLVER (cuda backend) instead of LAPACKE */
    void *eig;         /* its state (ops->eig_create), shared by the case's builders */
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
    dfr_bsize_opts bz;    /* job=bsize */
    dfr_bsize_result bzr;
    double basis_energy;  /* basis=FILE: the energy it records for the case's settings (NAN: none) */
    double basis_tol_ref[2]; /* basis=FILE: the bsize_tol and reference (Eh) it records (NAN: none) */
    int basis_file;       /* the basis came from basis=FILE */
} dfr_case;

/* The direct SCF engine (engine.c): the case's backend Fock builder for its current basis */
int dfr_builder_init(dfr_case *d, dfr_gbuild *g);
void dfr_builder_free(dfr_case *d, dfr_gbuild *g);
int dfr_bsopt(dfr_case *d);
/* A candidate's last converged weighted density (packed in the shape its SCFs run in), to start
 * its next SCF from (dfr_scf_guess): the points of a basis optimisation lie close together */
typedef struct {
    double *Dw;
    int valid;
} dfr_warm;
/* One direct SCF in basis w with the case's backend (the case's basis is left at w's), from
 * warm's density where valid (warm may be NULL), which it then holds; the energy, or NAN when it
 * cannot be done */
double dfr_candidate_energy(dfr_case *d, const dfr_wtbs *w, dfr_result *r, dfr_warm *warm);
double dfr_bsopt_energy(dfr_case *d, double alpha, double beta, dfr_result *r);
/* Start j's basis parameters: the case's basis for j = 0, else Halton offsets of (ln alpha,
 * ln(beta - 1)) around it (starts.c); also candidate j of a batch. _x: as the optimiser's
 * variables x = (ln alpha, ln(beta - 1)), which dfr_bsopt_params turns back. */
void dfr_bsopt_start(const dfr_case *d, int j, double *alpha, double *beta);
void dfr_bsopt_start_x(const dfr_case *d, int j, double *x);
void dfr_bsopt_params(const double *x, double *alpha, double *beta);
/* Candidates j0 .. j0+n-1 of a batch with engine DFR_ENGINE_*; o from dfr_batch_out_alloc(batch) */
int dfr_batch_eval(dfr_case *d, int engine, int j0, int n, dfr_batch_out *o);
int dfr_batch_out_alloc(dfr_batch_out *o, int n);
/* Adds o's timers and counts (not its records) into to */
void dfr_batch_out_add(dfr_batch_out *to, const dfr_batch_out *o);
/* Zeroes o's timers and counts */
void dfr_batch_out_clear(dfr_batch_out *o);
/* Candidates w[0 .. n) with engine DFR_ENGINE_*, outcomes at o[obase ..]; timers and builds add
 * to o's; warm (NULL, or n of them, each in the shape its candidate runs in) as in
 * dfr_candidate_energy. The batched engine runs them in the shape u (every range of each w within u's: the
 * functions a candidate lacks are padding, dfr_basis_build_in); the sequential one each in its own
 * basis. A batcher keeps the shape's buffers (on cuda its device memory) from run to run. */
int dfr_batch_list(dfr_case *d, int engine, const dfr_wtbs *u, const dfr_wtbs *w, int n, dfr_batch_out *o, int obase,
                   dfr_warm *warm);
typedef struct dfr_batcher dfr_batcher;
/* up to nmax candidates at a time, their tensors within gib GiB (more run in chunks) */
int dfr_batcher_create(dfr_case *d, const dfr_wtbs *u, int nmax, double gib, dfr_batcher **b);
/* Its host loops on `threads` threads (default: every one); report 0: no progress line (for a
 * batch run beside others) */
void dfr_batcher_share(dfr_batcher *b, int threads, int report);
/* warm: NULL, or n candidates' densities in the batcher's shape (u), used and updated */
int dfr_batcher_run(dfr_batcher *b, const dfr_wtbs *w, int n, dfr_batch_out *o, int obase, dfr_warm *warm);
void dfr_batcher_free(dfr_batcher *b);

/* Many NEWUOA minimisations in lockstep (lockstep.c): start n of dimension dim from x0 (n x dim);
 * then repeatedly take the points every running one asks for (idx: which, X: m x dim; returns
 * m, 0 when all have ended) and hand back their values; finally read each one's best point. */
typedef struct {
    int maxeval;
    double ftol_abs, xtol_rel;
} dfr_lockstep_opts;
typedef struct dfr_lockstep dfr_lockstep;
int dfr_lockstep_start(int n, int dim, const double *x0, const double *step, const dfr_lockstep_opts *o,
                       dfr_lockstep **ls);
int dfr_lockstep_points(dfr_lockstep *ls, int *idx, double *X);
void dfr_lockstep_values(dfr_lockstep *ls, int m, const int *idx, const double *f);
/* Ends optimisation i at the value it is handed next (NLopt's forced stop) */
void dfr_lockstep_stop(dfr_lockstep *ls, int i);
/* Optimisation i: its best point and value, evaluations; returns NLopt's result code */
int dfr_lockstep_result(const dfr_lockstep *ls, int i, double *x, double *f, int *evals);
void dfr_lockstep_free(dfr_lockstep *ls);

/* job=bsize (bsize.c, bsize_io.c) */
int dfr_bsize(dfr_case *d);
/* The numerical HF limit of the case's atom (atoms.c), Eh (NAN: none tabulated, or not the NR point-nucleus
 * neutral atom it is a limit of) */
double dfr_hf_limit(const dfr_case *d);
/* The exact Dirac 1s1/2 energy of a one-electron ion, point nucleus, shifted by -c^2 (Eh) */
double dfr_dirac_1s(int Z, double c);
/* A basis as JSON (basis_file.c: atom, K, alpha .. delta, the range of each occupied l, and the
 * energy with the settings it was computed with) and back. Read fills w (K, parameters, ranges)
 * for the case's atom, and *energy with the file's energy where its Hamiltonian, nucleus, c and
 * charge are the case's (else NAN); 0, or SB_EXIT_USAGE with one line naming what is wrong. */
int dfr_basis_json(const dfr_case *d, const dfr_wtbs *w, double energy, char *buf, size_t n);
/* tol_ref (NULL: not wanted): the bsize_tol and reference energy (Eh) the file records for the
 * case's settings, NAN where it records none */
int dfr_basis_read(const char *text, const char *from, const dfr_case *d, dfr_wtbs *w, double *energy,
                   double *tol_ref);
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
