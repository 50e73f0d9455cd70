/* lattice_mc OpenMP-SIMD backend.
 * Layout: sub-lattice major. Sub-lattice s = px + 2 py + 4 pz holds the sites
 * (2 xh + px, 2 yh + py, 2 zh + pz) at index xh + h (yh + h zh), h = L/2, so a
 * tick streams one contiguous (L/2)^3 block and reads its three neighbour
 * sub-lattices s^1, s^2, s^4 row by row. Rows are split over threads; each row
 * is one `omp simd` loop whose only irregular element, the periodic wrap of the
 * x neighbour, is peeled off. */
#include <stdlib.h>
#include <string.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_omp.h"

typedef struct {
    int h;
    long h3;
    float *x, *y, *z; /* 8 sub-lattices of h^3, one after another */
    uint8_t *f;
    double dE, accepted;
} omp_state;

static int omp_upload(lmc *m)
{
    omp_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    st->h = m->cfg.L / 2;
    st->h3 = (long)st->h * st->h * st->h;
    size_t n = (size_t)m->nsites;
    st->x = sb_aligned_alloc(n * sizeof(float));
    st->y = sb_aligned_alloc(n * sizeof(float));
    st->z = sb_aligned_alloc(n * sizeof(float));
    st->f = sb_aligned_alloc(n);
    if (!st->x || !st->y || !st->z || !st->f) return SB_EXIT_RUNTIME;
    /* first touch with the sweep's own static schedule, so pages sit near their thread */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < m->nsites; i++) {
        long j = lmc_sub_to_natural(m->cfg.L, (int)(i / st->h3), i % st->h3);
        st->x[i] = m->nx[j], st->y[i] = m->ny[j], st->z[i] = m->nz[j], st->f[i] = m->flags[j];
    }
    return SB_OK;
}

static int omp_download(lmc *m)
{
    omp_state *st = m->dev;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < m->nsites; i++) {
        long j = lmc_sub_to_natural(m->cfg.L, (int)(i / st->h3), i % st->h3);
        m->nx[j] = st->x[i], m->ny[j] = st->y[i], m->nz[j] = st->z[i];
    }
    return SB_OK;
}

/* Pointers to one row of the updated sub-lattice and its six neighbour rows. */
typedef struct {
    float *ox, *oy, *oz;
    const uint8_t *of;
    const float *nx[6], *ny[6], *nz[6]; /* +x,-x rows (indexed by xh shift), +y,-y,+z,-z */
    const uint8_t *nf[6];
    int shift[2]; /* x index offsets of the +x / -x neighbours: xh+px, xh-1+px */
} omp_row;

/* One site of a row; `droplet` is a literal at each call so the bulk loop has no flag loads. */
static inline __attribute__((always_inline)) void
omp_site(const omp_row *rw, int xh, int xp, int xm, int droplet, int L, int x0, int y, int z, int sub,
         uint32_t sweep, uint64_t seed, float W, lmc_consts k, float *de_sum, int *acc_sum)
{
    int idx[6] = {xp, xm, xh, xh, xh, xh};
    lmc_env e;
    LMC_UNROLL
    for (int j = 0; j < 6; j++) {
        e.x[j] = rw->nx[j][idx[j]], e.y[j] = rw->ny[j][idx[j]], e.z[j] = rw->nz[j][idx[j]];
        e.w[j] = droplet ? (float)(rw->nf[j][idx[j]] & LMC_ACTIVE) : 1.0f;
    }
    int x = x0 + 2 * xh;
    e.nux = e.nuy = e.nuz = e.wi = 0.0f;
    int active = 1;
    if (droplet) { /* branch-free: every droplet site computes its normal, only the surface uses it */
        uint8_t f = rw->of[xh];
        active = f & LMC_ACTIVE;
        lmc_normal(L, x, y, z, &e.nux, &e.nuy, &e.nuz);
        e.wi = (f & LMC_SURFACE) ? W : 0.0f;
    }
    uint32_t site = (uint32_t)(x + L * (y + L * z));
    philox4x32_ctr_t r = lmc_random(seed, site, sweep, (uint32_t)sub, LMC_TAG_MOVE);
    lmc_result u = lmc_update(rw->ox[xh], rw->oy[xh], rw->oz[xh], e, k, r);
    int acc = u.accepted & active;
    rw->ox[xh] = acc ? u.x : rw->ox[xh];
    rw->oy[xh] = acc ? u.y : rw->oy[xh];
    rw->oz[xh] = acc ? u.z : rw->oz[xh];
    *de_sum += acc ? u.de : 0.0f;
    *acc_sum += acc;
}

static void omp_tick(lmc *m, int s, uint32_t sweep, lmc_consts k)
{
    omp_state *st = m->dev;
    const int h = st->h, L = m->cfg.L, droplet = m->cfg.geometry == LMC_DROPLET;
    const int px = s & 1, py = (s >> 1) & 1, pz = (s >> 2) & 1;
    const float W = (float)m->cfg.W;
    const uint64_t seed = m->cfg.seed;
    double dE = 0.0, accepted = 0.0;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : dE, accepted)
    for (int zh = 0; zh < h; zh++)
        for (int yh = 0; yh < h; yh++) {
            int yP = (yh + py) % h, yM = (yh - 1 + py + h) % h;
            int zP = (zh + pz) % h, zM = (zh - 1 + pz + h) % h;
            long row[7] = {(long)h * (yh + (long)h * zh), (long)h * (yh + (long)h * zh), (long)h * (yh + (long)h * zh),
                           (long)h * (yP + (long)h * zh), (long)h * (yM + (long)h * zh),
                           (long)h * (yh + (long)h * zP), (long)h * (yh + (long)h * zM)};
            int nsub[6] = {s ^ 1, s ^ 1, s ^ 2, s ^ 2, s ^ 4, s ^ 4};
            omp_row rw;
            rw.ox = st->x + s * st->h3 + row[0];
            rw.oy = st->y + s * st->h3 + row[0];
            rw.oz = st->z + s * st->h3 + row[0];
            rw.of = st->f + s * st->h3 + row[0];
            for (int j = 0; j < 6; j++) {
                long o = nsub[j] * st->h3 + row[j + 1];
                rw.nx[j] = st->x + o, rw.ny[j] = st->y + o, rw.nz[j] = st->z + o, rw.nf[j] = st->f + o;
            }
            int y = 2 * yh + py, z = 2 * zh + pz;
            float de_row = 0.0f;
            int acc_row = 0;
            /* the wrapped x neighbour: xh = 0 for px = 0, xh = h-1 for px = 1 */
            int xe = px ? h - 1 : 0;
            int lo = px ? 0 : 1, hi = px ? h - 1 : h;
            if (droplet) {
                omp_site(&rw, xe, (xe + px) % h, (xe - 1 + px + h) % h, 1, L, px, y, z, s, sweep, seed, W, k, &de_row, &acc_row);
#pragma omp simd reduction(+ : de_row, acc_row)
                for (int xh = lo; xh < hi; xh++)
                    omp_site(&rw, xh, xh + px, xh - 1 + px, 1, L, px, y, z, s, sweep, seed, W, k, &de_row, &acc_row);
            } else {
                omp_site(&rw, xe, (xe + px) % h, (xe - 1 + px + h) % h, 0, L, px, y, z, s, sweep, seed, W, k, &de_row, &acc_row);
#pragma omp simd reduction(+ : de_row, acc_row)
                for (int xh = lo; xh < hi; xh++)
                    omp_site(&rw, xh, xh + px, xh - 1 + px, 0, L, px, y, z, s, sweep, seed, W, k, &de_row, &acc_row);
            }
            dE += de_row;
            accepted += acc_row;
        }
    st->dE += dE;
    st->accepted += accepted;
}

static int omp_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    lmc_consts k = {beta, step, (float)m->cfg.chi};
    for (int t = 0; t < 8; t++) omp_tick(m, lmc_tick_order[t], sweep, k);
    return SB_OK;
}

static int omp_totals(lmc *m, double *dE, double *accepted)
{
    omp_state *st = m->dev;
    *dE = st->dE;
    *accepted = st->accepted;
    return SB_OK;
}

static void omp_release(lmc *m)
{
    omp_state *st = m->dev;
    if (!st) return;
    sb_aligned_free(st->x);
    sb_aligned_free(st->y);
    sb_aligned_free(st->z);
    sb_aligned_free(st->f);
    free(st);
    m->dev = NULL;
}

const lmc_ops lmc_ops_openmp_simd = {omp_upload, omp_sweep, omp_totals, omp_download, omp_release, NULL};
