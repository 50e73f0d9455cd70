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
    long copies;        /* C: independent chains in the ensemble */
    double alpha, beta; /* fput: alpha, beta; toda: alpha; dnkg, dnls: beta */
    double m;           /* dnkg on-site mass */
    double dt;          /* time step of the 6th-order composition */
    long steps_per_rep; /* full 6th-order steps per timed repetition */
    long batch;         /* collect mode energies every `batch` steps (0: never inside a rep) */
    double entropy_limit; /* stop early (between batches) when the entropy falls below; 0 = off */
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
} nlc_ops;

struct nlc {
    nlc_config cfg;
    double *q, *p;  /* host, copies * N each */
    const nlc_ops *ops;
    void *dev;      /* backend state */
    long step;      /* full steps taken since upload */
};

extern const nlc_ops nlc_ops_reference, nlc_ops_openmp_simd, nlc_ops_cuda;

#ifdef __cplusplus
}
#endif
#endif
