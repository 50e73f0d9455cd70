/* lattice_mc internals shared by its files (not by the harness). */
#ifndef LATTICE_MC_LMC_H
#define LATTICE_MC_LMC_H

#include <stdint.h>
#include "sb.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LMC_BULK = 0, LMC_DROPLET = 1 };

/* Order in which the 2x2x2 sub-lattices (s = px + 2 py + 4 pz) are updated in a
 * sweep: a Gray code, so consecutive ticks share neighbour sub-lattices in cache.
 * The first four have pz = 0 and the last four pz = 1: the OpenMP backend fuses
 * each half plane by plane and relies on it. */
extern const int lmc_tick_order[8];

typedef struct lmc_config {
    int L, geometry;
    double T0, T1;  /* temperature at the first and last sweep (equal unless annealing) */
    double W, chi;  /* anchoring (droplet surface) and field coupling, in epsilon */
    double step;    /* trial amplitude */
    int step_auto;  /* adapt the amplitude towards 50% acceptance during warm-up */
    int init_aligned;
    int sweeps_per_rep;
    long total_sweeps; /* for the annealing ramp */
    uint64_t seed;
} lmc_config;

typedef struct lmc lmc;

/* What a backend provides; all operate on m's backend state. */
typedef struct lmc_ops {
    int (*upload)(lmc *m);   /* host natural layout -> backend */
    /* One sweep (8 ticks), asynchronous where the backend allows; adds the
     * accepted dE and the number of accepted moves to the backend's totals. */
    int (*sweep)(lmc *m, uint32_t sweep, float beta, float step);
    int (*totals)(lmc *m, double *dE, double *accepted); /* since upload; synchronises */
    int (*download)(lmc *m); /* backend -> host natural layout */
    void (*release)(lmc *m);
    /* GPU launch configurations for the report; NULL on CPU backends */
    int (*launches)(lmc *m, sb_launch *out, int max);
} lmc_ops;

struct lmc {
    lmc_config cfg;
    long nsites, nactive;
    float *nx, *ny, *nz;   /* host, natural layout x + L (y + L z) */
    uint8_t *flags;        /* LMC_ACTIVE | LMC_SURFACE; all active for bulk */
    const lmc_ops *ops;
    void *dev;             /* backend state */
    uint32_t sweep;        /* global sweep counter: part of the random-number key */
    double E0;             /* total energy at upload, epsilon */
    double step;           /* current trial amplitude */
};

/* setup.c */
int lmc_parse(sb_params *p, lmc_config *cfg);
int lmc_create(lmc *m, const lmc_config *cfg, sb_backend b);
void lmc_destroy(lmc *m);
/* Runs n sweeps from the current state; adapt: amplitude feedback after each sweep. */
int lmc_run_sweeps(lmc *m, long n, int adapt);
double lmc_temperature(const lmc *m, uint32_t sweep);

/* observables.c (double precision, host, natural layout) */
double lmc_energy(const lmc *m);
double lmc_order_parameter(const lmc *m);
double lmc_max_norm_error(const lmc *m);
/* natural index of entry q of sub-lattice s in the sub-lattice-major layout */
long lmc_sub_to_natural(int L, int s, long q);

/* backends */
extern const lmc_ops lmc_ops_reference, lmc_ops_openmp_simd, lmc_ops_cuda;

#ifdef __cplusplus
}
#endif
#endif
