/* nlchains internals shared by its files (not by the harness). */
#ifndef NLCHAINS_NLC_H
#define NLCHAINS_NLC_H

#include <stdint.h>
#include "sb.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { NLC_FPUT = 0, NLC_TODA = 1, NLC_DNKG = 2, NLC_DNLS = 3 };

typedef struct nlc_config {
    int model;
    int N;              /* sites per chain (SIZE) */
    long copies;        /* C: independent chains in the ensemble (under MPI: this rank's) */
    /* MPI: this rank holds chains copy0 .. copy0 + copies - 1 of copies_total; ensemble sums
     * and mode energies are reduced over ranks. copies_total = 0: not split (one rank, or an
     * auxiliary validation ensemble, which every rank integrates whole). */
    long copy0, copies_total;
    double alpha, beta; /* fput: alpha, beta; toda: alpha; dnkg, dnls: beta */
    double m;           /* dnkg on-site mass */
    double dt;          /* time step of the 6th-order composition */
    long steps_per_rep; /* full 6th-order steps per timed repetition */
    long batch;         /* collect mode energies every `batch` steps (0: never inside a rep) */
    double entropy_limit; /* stop early (between batches) when the entropy falls below; 0 = off */
    int collect_sync;     /* --param collect=sync: no asynchronous collection even where possible */
    uint64_t seed;
    const char *init_file; /* NULL: deterministic initial state from the seed */
    const char *dump;      /* NULL: no dumps; else a file prefix */
} nlc_config;

typedef struct nlc nlc;

/* What a backend provides. The state is (q, p) in double, chain-major:
 * element i of chain c at c*N + i. For dnls, q = Re psi and p = Im psi. */
typedef struct nlc_ops {
    int (*upload)(nlc *m);              /* host q, p -> backend */
    int (*steps)(nlc *m, long nsteps);  /* advance every chain by nsteps full steps; may be asynchronous */
    /* Ensemble-averaged linear energy of each normal mode k = 0..N-1 of the
     * current state (synchronises); see physics.h for the definition. */
    int (*mode_energies)(nlc *m, double *ek);
    int (*download)(nlc *m);            /* backend -> host q, p */
    void (*release)(nlc *m);
    int (*launches)(nlc *m, sb_launch *out, int max); /* GPU only; NULL on CPU backends */
    /* Asynchronous collection (NULL where there is none): start snapshots the mode
     * energies of the current state and returns at once, steps() may go on meanwhile;
     * wait hands over the last started collection's ek (synchronises on it only). */
    int (*mode_energies_start)(nlc *m);
    int (*mode_energies_wait)(nlc *m, double *ek);
} nlc_ops;

struct nlc {
    nlc_config cfg;
    double *q, *p;  /* host, copies * N each */
    const nlc_ops *ops;
    void *dev;      /* backend state */
    long step;      /* full steps taken since upload */
};

extern const nlc_ops nlc_ops_reference, nlc_ops_openmp_simd, nlc_ops_cuda;

/* ---- CPU-side helpers (setup.c, modes.c); added by the CPU implementation ---- */

/* Coefficients of one steps() call with merged half-kicks (physics.h): kick(kfirst),
 * then for s = 0..6: drift(drift[s]) and kick(kmid[s]) (s < 6), or after s = 6 kick(kjoin)
 * between steps and kick(klast) after the last step. Every backend forms them with these
 * same expressions, so they round identically. The kicks are multiplied by ks:
 * nlc_kick_scale(cfg), 1/(2 alpha) for toda, whose backends kick with nlc_toda_exp
 * = 2 alpha V' + 1 (physics.h; the 1 cancels in F), 1 otherwise (exactly the plain coefficients). */
typedef struct nlc_coefs {
    double kfirst, klast, kjoin;
    double kmid[6];
    double drift[7];
} nlc_coefs;
nlc_coefs nlc_make_coefs(double dt, double ks);
double nlc_kick_scale(const nlc_config *cfg);

/* Initial band: energy per site `energy` (norm per site for dnls) spread evenly over
 * the modes k0..k1 (and their mirrors N-k for the real models), random phases. */
typedef struct nlc_init_spec {
    int k0, k1;
    double energy;
} nlc_init_spec;

/* setup.c */
int nlc_parse(sb_params *p, nlc_config *cfg, nlc_init_spec *init);
/* Allocates, fills the initial state (file or seed) and picks the ops for b. */
int nlc_create(nlc *m, const nlc_config *cfg, const nlc_init_spec *init, sb_backend b);
void nlc_destroy(nlc *m);
/* init_file.c: q, p of this rank's chains from cfg->init_file (format there); SB_EXIT_USAGE
 * after one line for a missing, short, long or non-finite file. */
int nlc_read_init_file(const nlc_config *cfg, double *q, double *p);
/* Fills q, p of chain c from the seed (band of modes, random phases). */
int nlc_init_band(const nlc_config *cfg, const nlc_init_spec *init, double *q, double *p);
/* Host-side physics of a state (double, straightforward loops). */
double nlc_chain_energy(const nlc_config *cfg, const double *q, const double *p);
double nlc_total_energy(const nlc *m); /* sum over the ensemble */
double nlc_total_norm(const nlc *m);   /* sum |psi|^2 (dnls) */
/* A per-chain quantity summed over the whole ensemble (compensated; across MPI ranks). */
typedef double (*nlc_chain_fn)(const nlc_config *cfg, const double *q, const double *p);
double nlc_ensemble_total(const nlc *m, nlc_chain_fn chain);
/* x summed over the ranks that share m's ensemble (x itself when it is not split). */
double nlc_ensemble_sum(const nlc *m, double x);
/* ops->mode_energies, averaged over the whole ensemble across ranks. */
int nlc_mode_energies(nlc *m, double *ek);
/* Entropies of mode energies ek[0..N-1] (Pistone's nlchains, results_entropy.cpp);
 * skip0: leave out mode 0 (zero frequency: fput, toda, dnkg with m = 0). */
void nlc_entropies(const double *ek, int N, int skip0, double *wt, double *info);
int nlc_skip_mode0(const nlc_config *cfg);

/* modes.c: ensemble-averaged mode energies with FFTW. */
typedef struct nlc_modes nlc_modes;
/* measure: FFTW_MEASURE plans (fast backend) instead of FFTW_ESTIMATE. */
nlc_modes *nlc_modes_create(const nlc_config *cfg, int measure);
/* ek[k], k = 0..N-1, averaged over the C chains of q, p; parallel: over OpenMP threads. */
int nlc_modes_compute(nlc_modes *md, const double *q, const double *p, long C, int parallel, double *ek);
void nlc_modes_destroy(nlc_modes *md);

/* setup.c: the driver of a run. Advances in chunks that end on multiples of
 * cfg.batch, where it collects the mode energies and entropies, writes the dumps
 * and applies the entropy limit. Where the backend collects asynchronously and the
 * run neither dumps nor has an entropy limit (both need the result at once), a
 * collection is started at its step and completed at the next one (or at flush):
 * integration never waits for it. */
typedef struct nlc_driver {
    double *ek;            /* mode energies of the last collection, N */
    double s_wt, s_info;   /* their entropies */
    long collections;
    long stop_step;        /* step at which the entropy fell below the limit; -1: not (yet) */
    int pending;           /* an asynchronous collection is in flight (ops->mode_energies_start) */
    int async;             /* collections were asynchronous */
} nlc_driver;
int nlc_driver_init(nlc_driver *d, const nlc *m);
void nlc_driver_free(nlc_driver *d);
int nlc_driver_advance(nlc *m, nlc_driver *d, long nsteps);
/* Completes an asynchronous collection still in flight (before d->ek is read). */
int nlc_driver_flush(nlc *m, nlc_driver *d);
/* Writes <dump>-<step> (the ensemble, in the init-file format) and <dump>-linenergies-<step>. */
int nlc_dump(nlc *m, const double *ek);

#ifdef __cplusplus
}
#endif
#endif
