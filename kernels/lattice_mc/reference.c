/* lattice_mc scalar reference: the oracle. Natural layout, periodic indexing by
 * modulo, one site at a time in lexicographic order within each sub-lattice.
 * Shares only the per-site arithmetic (physics.h) with the fast backends; the
 * layout, neighbour indexing and scheduling here are independent of theirs. */
#include <stdlib.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"

typedef struct {
    double dE, accepted;
} ref_state;

static int ref_upload(lmc *m)
{
    m->dev = calloc(1, sizeof(ref_state));
    return m->dev ? SB_OK : SB_EXIT_RUNTIME;
}

static void ref_site(lmc *m, ref_state *st, int x, int y, int z, int sub, uint32_t sweep, lmc_consts k)
{
    const int L = m->cfg.L;
    long i = x + (long)L * (y + (long)L * z);
    if (!(m->flags[i] & LMC_ACTIVE)) return;
    long nb[6] = {(x + 1) % L + (long)L * (y + (long)L * z), (x + L - 1) % L + (long)L * (y + (long)L * z),
                  x + (long)L * ((y + 1) % L + (long)L * z), x + (long)L * ((y + L - 1) % L + (long)L * z),
                  x + (long)L * (y + (long)L * ((z + 1) % L)), x + (long)L * (y + (long)L * ((z + L - 1) % L))};
    lmc_env e;
    for (int j = 0; j < 6; j++) {
        e.x[j] = m->nx[nb[j]], e.y[j] = m->ny[nb[j]], e.z[j] = m->nz[nb[j]];
        e.w[j] = (m->flags[nb[j]] & LMC_ACTIVE) ? 1.0f : 0.0f;
    }
    e.nux = e.nuy = e.nuz = e.wi = 0.0f;
    if (m->flags[i] & LMC_SURFACE) {
        lmc_normal(L, x, y, z, &e.nux, &e.nuy, &e.nuz);
        e.wi = (float)m->cfg.W;
    }
    lmc_words w = lmc_site_words(m->cfg.seed, (uint32_t)i, x, sweep, (uint32_t)sub);
    lmc_result u = lmc_update(m->nx[i], m->ny[i], m->nz[i], e, k, w, 1);
    m->nx[i] = u.x, m->ny[i] = u.y, m->nz[i] = u.z;
    st->dE += u.de;
    st->accepted += u.accepted;
}
static int ref_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    ref_state *st = m->dev;
    const int L = m->cfg.L;
    lmc_consts k = {beta, step, (float)m->cfg.chi};
    for (int t = 0; t < 8; t++) {
        int s = lmc_tick_order[t];
        for (int z = (s >> 2) & 1; z < L; z += 2)
            for (int y = (s >> 1) & 1; y < L; y += 2)
                for (int x = s & 1; x < L; x += 2) ref_site(m, st, x, y, z, s, sweep, k);
    }
    return SB_OK;
}

static int ref_totals(lmc *m, double *dE, double *accepted)
{
    ref_state *st = m->dev;
    *dE = st->dE;
    *accepted = st->accepted;
    return SB_OK;
}

static int ref_download(lmc *m)
{
    (void)m; /* the reference updates the host arrays in place */
    return SB_OK;
}

static void ref_release(lmc *m)
{
    free(m->dev);
    m->dev = NULL;
}

const lmc_ops lmc_ops_reference = {ref_upload, ref_sweep, ref_totals, ref_download, ref_release, NULL};
