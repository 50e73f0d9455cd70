/* lattice_mc: the z decomposition over MPI ranks, the part shared by all backends.
 *
 * Rank r owns the planes [z0, z0 + L/R). A sweep's first half (tick_order[0..3],
 * pz = 0) updates the even planes and reads, across z, only odd ones, which it never
 * writes; the second half the other way round. So a slab needs its lower halo (plane
 * z0 - 1, odd) current before the first half and its upper halo (plane z0 + L/R,
 * even) before the second: one message each way per half sweep, and every tick of
 * that half reads halo values that are current (docs/DESIGN.md: exactly the single-rank
 * trajectory, since the random numbers are keyed by global site). */
#include <string.h>

#include "lattice_mc/lmc.h"
#include "sb_mpi.h"

enum { LMC_TAG_UP = 0x4c4d, LMC_TAG_DOWN = 0x4c4e };

int lmc_totals(lmc *m, double *dE, double *accepted)
{
    double t[2];
    int rc = m->ops->totals(m, &t[0], &t[1]);
    if (rc) return rc;
    /* counts are integers below 2^53: their sum is exact in any order; dE is not */
    if (m->ranks > 1) sb_mpi_sum(t, 2);
    *dE = t[0], *accepted = t[1];
    return SB_OK;
}

int lmc_download(lmc *m)
{
    int rc = m->ops->download(m);
    if (!rc) lmc_host_halo(m);
    return rc;
}

/* Halo below <- the plane above the slab's top (rank below), halo above <- bottom
 * plane of the rank above; on one rank the periodic wrap of the lattice itself. */
void lmc_host_halo(lmc *m)
{
    const long plane = (long)m->cfg.L * m->cfg.L;
    const size_t bytes = (size_t)plane * sizeof(float);
    float *c[3] = {m->nx, m->ny, m->nz};
    for (int k = 0; k < 3; k++) {
        if (m->ranks == 1) {
            memcpy(c[k] - plane, c[k] + m->nlocal - plane, bytes);
            memcpy(c[k] + m->nlocal, c[k], bytes);
            continue;
        }
        int up = (m->rank + 1) % m->ranks, down = (m->rank + m->ranks - 1) % m->ranks;
        sb_mpi_reqs r = {0};
        sb_mpi_irecv(&r, c[k] - plane, bytes, down, LMC_TAG_UP);
        sb_mpi_irecv(&r, c[k] + m->nlocal, bytes, up, LMC_TAG_DOWN);
        sb_mpi_isend(&r, c[k] + m->nlocal - plane, bytes, up, LMC_TAG_UP);
        sb_mpi_isend(&r, c[k], bytes, down, LMC_TAG_DOWN);
        sb_mpi_waitall(&r);
    }
}

lmc_store lmc_store_of(const lmc *m)
{
    lmc_store g;
    g.h = m->cfg.L / 2;
    g.nzh = m->nzl / 2;
    g.zoff = m->halo;
    g.zs = g.nzh + 2 * m->halo;
    g.zh0 = m->z0 / 2;
    g.sub = (long)g.h * g.h * g.zs;
    return g;
}

long lmc_store_to_host(const lmc *m, const lmc_store *g, long i)
{
    const long L = m->cfg.L, h = g->h;
    int s = (int)(i / g->sub);
    long q = i % g->sub;
    long x = 2 * (q % h) + (s & 1), y = 2 * (q / h % h) + ((s >> 1) & 1);
    long z = 2 * (q / (h * h) - g->zoff) + ((s >> 2) & 1); /* slab plane, -1 and nzl are halos */
    if (z < -1 || z > m->nzl) return LMC_UNUSED;
    return x + L * (y + L * z);
}

lmc_halo_plan lmc_halo_plan_of(const lmc *m, const lmc_store *g, int phase)
{
    lmc_halo_plan p;
    int up = (m->rank + 1) % m->ranks, down = (m->rank + m->ranks - 1) % m->ranks;
    if (phase == 0) { /* even planes update; the odd top plane goes up, the odd halo below is read */
        p.sub0 = 4, p.send_zl = g->zoff + g->nzh - 1, p.recv_zl = 0, p.to = up, p.from = down;
        p.tag = LMC_TAG_UP, p.edge_zl = g->zoff, p.lo = g->zoff + 1, p.hi = g->zoff + g->nzh;
    } else { /* odd planes update; the even bottom plane goes down, the even halo above is read */
        p.sub0 = 0, p.send_zl = g->zoff, p.recv_zl = g->zs - 1, p.to = down, p.from = up;
        p.tag = LMC_TAG_DOWN, p.edge_zl = g->zoff + g->nzh - 1, p.lo = g->zoff, p.hi = g->zoff + g->nzh - 1;
    }
    return p;
}
