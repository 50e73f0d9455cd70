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
    int decompose;     /* 1: split along z over all MPI ranks (lmc_create); 0: whole lattice here */
    /* CUDA on one rank: 0 a launch per tick; 1 the fused z-wavefront sweep (L1-cached
     * neighbour loads), 2 the same with L2-only loads. slab: planes its steps advance, 0 auto */
    int fuse, slab;
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
    long nsites, nactive;  /* whole lattice */
    /* This rank's slab: global planes [z0, z0 + nzl). ranks > 1 only for a decomposed
     * lattice on several MPI ranks; then halo = 1 and the backends store one halo
     * plane per side and exchange edge planes every half sweep. */
    int ranks, rank, z0, nzl, halo;
    long nlocal, nactive_local; /* sites and active sites of the slab */
    /* Host, natural layout x + L (y + L (z - z0)), slab planes only; one halo plane
     * below (index -L^2..-1) and above (nlocal..) that lmc_download keeps current. */
    float *nx, *ny, *nz;
    uint8_t *flags;        /* LMC_ACTIVE | LMC_SURFACE; all active for bulk */
    const lmc_ops *ops;
    void *dev;             /* backend state */
    uint32_t sweep;        /* global sweep counter: part of the random-number key */
    double E0;             /* total energy at upload, epsilon */
    double step;           /* current trial amplitude */
    int slab_used;         /* set by the CUDA upload: the fused sweep's slab, 0 when tick by tick */
};

/* setup.c */
int lmc_parse(sb_params *p, lmc_config *cfg);
int lmc_create(lmc *m, const lmc_config *cfg, sb_backend b);
void lmc_destroy(lmc *m);
/* Runs n sweeps from the current state; adapt: amplitude feedback after each sweep. */
int lmc_run_sweeps(lmc *m, long n, int adapt);
double lmc_temperature(const lmc *m, uint32_t sweep);

/* decomp.c: what is the same for every backend under a z decomposition. Collective
 * over the ranks when m->ranks > 1, local otherwise. */
/* Accepted dE and moves since upload, summed over the ranks (moves exactly). */
int lmc_totals(lmc *m, double *dE, double *accepted);
/* Backend -> host, then the host halo planes refreshed. */
int lmc_download(lmc *m);
void lmc_host_halo(lmc *m);
/* Backend storage, shared by the OpenMP and CUDA backends: sub-lattice major, each
 * of the 8 sub-lattices holds zs planes of h x h (h = L/2) sites. Whole lattice:
 * zs = h, plane zl is zh = zl. Slab: zs = nzl/2 + 2, plane zl is zh = z0/2 + zl - 1,
 * zl = 0 and zs-1 being halos (only the parity that is read is used). */
typedef struct {
    int h, zs, zoff, zh0, nzh; /* zoff: first owned storage plane; nzh: owned planes */
    long sub;                  /* sites per sub-lattice in storage, h^2 zs */
} lmc_store;
lmc_store lmc_store_of(const lmc *m);
/* Host index (relative to m->nx) of storage entry i, or LMC_UNUSED; halo planes
 * map to the host halos. */
#define LMC_UNUSED (-(1L << 62))
long lmc_store_to_host(const lmc *m, const lmc_store *g, long i);
/* Half sweep `phase` (z parity of the updated sites, tick_order[4 phase..]) in a slab:
 * it reads one halo, filled from storage plane send_zl of sub-lattices sub0..sub0+3
 * of rank `from`; edge_zl is the owned plane that reads it, [lo, hi) the others. */
typedef struct {
    int sub0, send_zl, recv_zl, to, from, tag;
    int edge_zl, lo, hi;
} lmc_halo_plan;
lmc_halo_plan lmc_halo_plan_of(const lmc *m, const lmc_store *g, int phase);

/* observables.c (double precision, host, natural layout). Collective when
 * m->ranks > 1; energy and S are summed plane by plane in global plane order, so
 * they are bit-identical for any rank and thread count. */
double lmc_energy(const lmc *m);
double lmc_order_parameter(const lmc *m);
double lmc_max_norm_error(const lmc *m);
/* Sum over sites of a 32-bit hash of (global site, director bits), mod 2^52:
 * equal iff (up to hash collisions) the states are bit-identical. */
double lmc_checksum(const lmc *m);

/* backends */
extern const lmc_ops lmc_ops_reference, lmc_ops_openmp_simd, lmc_ops_cuda;

#ifdef __cplusplus
}
#endif
#endif
