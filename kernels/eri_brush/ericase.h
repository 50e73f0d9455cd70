/* eri_brush: one benchmark case (inputs, worklist, backend batch) shared by setup, kernel
 * and validation. */
#ifndef ERICASE_H
#define ERICASE_H

#include "eri_brush/eri.h"
#include "eri_brush/refdata.h"
#include "sb.h"

#define ERI_SCREEN_DEFAULT 1e-12
/* The primitive-quartet screen of digest mode on the GPU (eri_pairs.pq_screen): J's bound
 * (screen_bound.c) stays under the quartet screen's. */
#define ERI_PQ_SCREEN_DEFAULT 1e-15
/* Above it the skipped primitive quartets can move J past the 1e-11 check against the scalar
 * reference, which computes every one (water/STO-3G at 1e-10; benzene/cc-pVDZ at 1e-12:
 * 3.6e-12 of max|J|). */
#define ERI_PQ_SCREEN_MAX 1e-12
/* Below this many integrals the scalar reference recomputes the whole Coulomb matrix
 * for the oracle check (seconds); above, it checks a per-class sample of quartets. */
#define ERI_ORACLE_FULL_ERIS 3e7
/* Store mode and the libint2 sums need the whole integral list in memory. */
#define ERI_STORE_MAX_ERIS 4e8

typedef struct {
    char molecule[256]; /* "water<N>" cluster, a shipped name or an .xyz path */
    char basis[256];    /* shipped name or a .g94 path */
    int size, pure, mode, path; /* path: -1 auto */
    double screen;
    double prim_screen; /* primitive pairs: bound on the change of any integral / 2, hartree */
    double pq_screen;   /* primitive quartets of digest mode on the GPU: q_ab q_cd below it skipped */
    long oracle;        /* quartets per class in the oracle sample */
    uint64_t seed;
} eri_config;

typedef struct {
    eri_config cfg;
    eri_molecule mol;
    eri_basis bas;
    eri_pairs ps;
    eri_worklist w;
    double *D, *M;        /* M: J after finish */
    double *store;
    eri_batch b;
    const eri_ops *ops;
    char ref_path[2048];   /* libint2 reference file for this case, "" if none */
    eri_ref ref;          /* its contents, read at setup (nbf 0: none) */
    double setup_seconds;
    double screen_bound; /* eri_screen_bound of the case's worklist and D, hartree */
    double *pq_kept;      /* per segment of w: primitive quartets the pq screen leaves (eri_pq_kept);
                             NULL where nothing is skipped */
    int prepared;         /* ops->prepare succeeded on b: release at teardown */
    eri_share share;      /* MPI: this rank's part of w (mpi_split.c); b.share points to it */
    double share_quartets; /* MPI: quartets of w this rank digests */
    double mpi_imbalance; /* MPI: largest rank's measured cost / the mean */
    int reduced_on_device; /* MPI: J[D] was summed on the GPUs (download it at the end) */
} eri_case;

int eri_case_parse(sb_params *p, eri_config *cfg);
int eri_case_create(eri_case *ec, const eri_config *cfg, sb_backend be);
void eri_case_destroy(eri_case *ec);
const eri_ops *eri_ops_for(sb_backend be);
/* Runs `ops` over worklist w in store mode into a fresh array (caller frees). Only the
 * reference stores the classes without generated code (f shells). */
int eri_store_run(const eri_case *ec, const eri_ops *ops, const eri_worklist *w, double **out);
/* A user's path=hgp|md|jeng (forced >= 0) over every segment of w, and w->flops to match. */
void eri_worklist_force_path(eri_worklist *w, int forced, int pure);
/* The first class of a non-empty segment without generated code (f shells), or -1 when
 * every class has it, so that the worklist has a store mode. */
int eri_worklist_nocode_class(const eri_worklist *w);
/* path=auto in digest mode: the J engine for the classes eri_path_digest_jeng names at the
 * backend's lmin (ERI_JENG_LMIN or ERI_JENG_LMIN_CUDA: eri_jeng_lmin). */
int eri_jeng_lmin(sb_backend be);
void eri_worklist_digest_paths(eri_worklist *w, int pure, int lmin);
/* mpi_split.c: only with several MPI ranks (digest mode). split at setup; deal after the
 * backend is prepared (it runs the whole list to time its classes), giving this rank's
 * ERIs a repetition; reduce after each run. */
int eri_mpi_split(eri_case *ec);
int eri_mpi_deal(eri_case *ec, double *rank_items);
int eri_mpi_reduce(eri_case *ec);
/* pq_screen.c: kept[k], the primitive quartets of segment k of w that ps->pq_screen leaves. */
int eri_pq_kept(const eri_pairs *ps, const eri_worklist *w, double *kept);
/* Model flops of segment k's quartets q0..q1 (a slice of it), with the kept primitive quartets
 * where the case skips some (setup.c). */
double eri_case_seg_flops(const eri_case *ec, int k, long q0, long q1);
int eri_validate_all(eri_case *ec, sb_backend be, sb_validation *v, sb_counters *cs);

#endif
