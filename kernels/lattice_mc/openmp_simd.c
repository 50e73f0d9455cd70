/* lattice_mc OpenMP-SIMD backend.
 * Layout: sub-lattice major. Sub-lattice s = px + 2 py + 4 pz holds the sites
 * (2 xh + px, 2 yh + py, 2 zh + pz) at index xh + h (yh + h zh), h = L/2, so a
 * tick streams one contiguous (L/2)^3 block and reads its three neighbour
 * sub-lattices s^1, s^2, s^4 row by row. Rows are split over threads; each row
 * is one `omp simd` loop over all h sites. The one irregular access, the x
 * neighbour that wraps around the row end, is removed by first copying that
 * neighbour row, shifted by one with the wrap, into a small per-thread buffer:
 * then every load in the loop is contiguous and no site falls to scalar code.
 * Under MPI each sub-lattice holds the rank's z slab plus halo planes (lmc_store,
 * decomp.c); omp_phase overlaps the halo message with the planes that do not read it. */
#include <stdlib.h>
#include <string.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/philox_row.h"
#include "lattice_mc/physics.h"
#include "sb_mpi.h"
#include "sb_omp.h"

typedef struct {
    lmc_store g;      /* h, planes per sub-lattice (zs), the slab's first plane... */
    float *x, *y, *z; /* 8 sub-lattices of h^2 zs, one after another */
    uint8_t *f;
    float *sbuf, *rbuf; /* slab only: one edge plane of the 4 sub-lattices read, 3 components */
    double dE, accepted;
} omp_state;

static int omp_upload(lmc *m)
{
    omp_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    st->g = lmc_store_of(m);
    const long n = 8 * st->g.sub;
    st->x = sb_aligned_alloc((size_t)n * sizeof(float));
    st->y = sb_aligned_alloc((size_t)n * sizeof(float));
    st->z = sb_aligned_alloc((size_t)n * sizeof(float));
    st->f = sb_aligned_alloc((size_t)n);
    if (!st->x || !st->y || !st->z || !st->f) return SB_EXIT_RUNTIME;
    if (m->halo) {
        size_t hb = 12 * (size_t)st->g.h * st->g.h * sizeof(float);
        if (!(st->sbuf = sb_aligned_alloc(hb)) || !(st->rbuf = sb_aligned_alloc(hb))) return SB_EXIT_RUNTIME;
    }
    /* first touch with the sweep's own static schedule, so pages sit near their thread */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long j = lmc_store_to_host(m, &st->g, i);
        int ok = j != LMC_UNUSED;
        st->x[i] = ok ? m->nx[j] : 0.0f, st->y[i] = ok ? m->ny[j] : 0.0f, st->z[i] = ok ? m->nz[j] : 0.0f;
        st->f[i] = ok ? m->flags[j] : 0;
    }
    return SB_OK;
}

static int omp_download(lmc *m)
{
    omp_state *st = m->dev;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < 8 * st->g.sub; i++) {
        long j = lmc_store_to_host(m, &st->g, i);
        if (j < 0 || j >= m->nlocal) continue; /* halos: lmc_download refreshes them */
        m->nx[j] = st->x[i], m->ny[j] = st->y[i], m->nz[j] = st->z[i];
    }
    return SB_OK;
}

/* Pointers to one row of the updated sub-lattice and its six neighbour rows
 * (+x, -x, +y, -y, +z, -z), all indexed by the site's own xh. */
typedef struct {
    float *ox, *oy, *oz;
    const uint8_t *of;
    const float *nx[6], *ny[6], *nz[6];
    const uint8_t *nf[6];
    const uint32_t *ra, *rb; /* the row's random words, from lmc_philox_pairs */
} omp_row;

/* One site of a row; `droplet` is a literal at each call so the bulk loop has no flag loads. */
static inline __attribute__((always_inline)) void
omp_site(const omp_row *rw, int xh, int droplet, int L, int x0, int y, int z, float W, lmc_consts k,
         float *de_sum, int *acc_sum)
{
    int x = x0 + 2 * xh;
    float nux = 0.0f, nuy = 0.0f, nuz = 0.0f, wi = 0.0f;
    int active = 1;
    if (droplet) { /* branch-free: every droplet site computes its normal, only the surface uses it */
        uint8_t f = rw->of[xh];
        active = f & LMC_ACTIVE;
        lmc_normal(L, x, y, z, &nux, &nuy, &nuz);
        wi = (f & LMC_SURFACE) ? W : 0.0f;
    }
    lmc_words r = {rw->ra[xh], rw->rb[xh]};
    float ox = rw->ox[xh], oy = rw->oy[xh], oz = rw->oz[xh];
    lmc_trial_dir t = lmc_trial(ox, oy, oz, k, r);
    /* each neighbour loaded where it is used: the same operations as lmc_update */
    float db = 0.0f;
    LMC_UNROLL
    for (int j = 0; j < 6; j++) {
        float w = droplet ? (float)(rw->nf[j][xh] & LMC_ACTIVE) : 1.0f;
        db = lmc_bond(db, w, t, rw->nx[j][xh], rw->ny[j][xh], rw->nz[j][xh]);
    }
    lmc_result u = lmc_accept(ox, oy, oz, t, db, wi, nux, nuy, nuz, k, r, droplet);
    int acc = u.accepted & active; /* u holds the old director unless accepted */
    rw->ox[xh] = active ? u.x : ox;
    rw->oy[xh] = active ? u.y : oy;
    rw->oz[xh] = active ? u.z : oz;
    *de_sum += acc ? u.de : 0.0f;
    *acc_sum += acc;
}

/* Per-thread row buffers: the shifted x-neighbour row and the row's random words. */
typedef struct {
    float *x, *y, *z;
    uint32_t *ra, *rb;
    uint8_t *f;
} omp_buf;

/* Row yh of storage plane zl of sub-lattice s: one tick's work on L/2 sites. */
static void omp_row_update(lmc *m, int s, int zl, int yh, uint32_t sweep, lmc_consts k, const omp_buf *b,
                           double *dE, double *accepted)
{
    omp_state *st = m->dev;
    const int h = st->g.h, zs = st->g.zs, L = m->cfg.L, droplet = m->cfg.geometry == LMC_DROPLET;
    const long sub = st->g.sub;
    const int px = s & 1, py = (s >> 1) & 1, pz = (s >> 2) & 1;
    const float W = (float)m->cfg.W;
    /* the x neighbour that wraps: -x (j = 1) at xh-1 for px = 0, +x (j = 0) at xh+1 for px = 1 */
    const int jw = px ? 0 : 1, shift = px ? 1 : h - 1;
    int yP = (yh + py) % h, yM = (yh - 1 + py + h) % h;
    /* periodic in z on one rank; in a slab the neighbours of owned planes are in range */
    int zP = (zl + pz) % zs, zM = (zl - 1 + pz + zs) % zs;
    long own = (long)h * (yh + (long)h * zl);
    long row[6] = {own, own, (long)h * (yP + (long)h * zl), (long)h * (yM + (long)h * zl),
                   (long)h * (yh + (long)h * zP), (long)h * (yh + (long)h * zM)};
    int nsub[6] = {s ^ 1, s ^ 1, s ^ 2, s ^ 2, s ^ 4, s ^ 4};
    omp_row rw;
    rw.ox = st->x + s * sub + own;
    rw.oy = st->y + s * sub + own;
    rw.oz = st->z + s * sub + own;
    rw.of = st->f + s * sub + own;
    for (int j = 0; j < 6; j++) {
        long o = nsub[j] * sub + row[j];
        rw.nx[j] = st->x + o, rw.ny[j] = st->y + o, rw.nz[j] = st->z + o, rw.nf[j] = st->f + o;
    }
    /* buf[i] = row[(i + shift) mod h]: two contiguous pieces */
    size_t n1 = (size_t)(h - shift), n2 = (size_t)shift;
    memcpy(b->x, rw.nx[jw] + shift, n1 * 4), memcpy(b->x + n1, rw.nx[jw], n2 * 4);
    memcpy(b->y, rw.ny[jw] + shift, n1 * 4), memcpy(b->y + n1, rw.ny[jw], n2 * 4);
    memcpy(b->z, rw.nz[jw] + shift, n1 * 4), memcpy(b->z + n1, rw.nz[jw], n2 * 4);
    if (droplet) memcpy(b->f, rw.nf[jw] + shift, n1), memcpy(b->f + n1, rw.nf[jw], n2);
    rw.nx[jw] = b->x, rw.ny[jw] = b->y, rw.nz[jw] = b->z, rw.nf[jw] = b->f;
    int y = 2 * yh + py, z = 2 * (zl - st->g.zoff + st->g.zh0) + pz; /* global: the random key */
    lmc_philox_pairs(m->cfg.seed, (uint32_t)(px + L * (y + L * z)), 2, h, sweep, (uint32_t)s, LMC_TAG_MOVE, b->ra,
                     b->rb);
    rw.ra = b->ra, rw.rb = b->rb;
    float de_row = 0.0f;
    int acc_row = 0;
    if (droplet) {
#pragma omp simd reduction(+ : de_row, acc_row)
        for (int xh = 0; xh < h; xh++) omp_site(&rw, xh, 1, L, px, y, z, W, k, &de_row, &acc_row);
    } else {
#pragma omp simd reduction(+ : de_row, acc_row)
        for (int xh = 0; xh < h; xh++) omp_site(&rw, xh, 0, L, px, y, z, W, k, &de_row, &acc_row);
    }
    *dE += de_row;
    *accepted += acc_row;
}

/* Ticks 4*phase .. 4*phase+3 of lmc_tick_order on storage planes [lo, hi); all
 * of them have z parity `phase`. A tick reads its own plane and the planes of the
 * other z parity, which this phase never writes; so each thread can run all four
 * ticks on one plane back to back and the trajectory is exactly the tick-by-tick
 * one. That is 2 barriers a sweep instead of 8, and a plane is reused from cache by
 * its four ticks instead of being streamed four times. by_rows (a single plane,
 * the slab edge): rows over threads, a barrier between ticks, so all threads work. */
static void omp_planes(lmc *m, int phase, int lo, int hi, int by_rows, uint32_t sweep, lmc_consts k)
{
    omp_state *st = m->dev;
    const int h = st->g.h;
    double dE = 0.0, accepted = 0.0;
#pragma omp parallel reduction(+ : dE, accepted)
    {
        omp_buf b;
        b.x = sb_aligned_alloc(5 * (size_t)h * sizeof(float) + (size_t)h), b.y = b.x + h, b.z = b.y + h;
        b.ra = (uint32_t *)(b.z + h), b.rb = b.ra + h;
        b.f = (uint8_t *)(b.rb + h);
        if (!by_rows) {
#pragma omp for schedule(static)
            for (int zl = lo; zl < hi; zl++)
                for (int t = 4 * phase; t < 4 * phase + 4; t++)
                    for (int yh = 0; yh < h; yh++)
                        omp_row_update(m, lmc_tick_order[t], zl, yh, sweep, k, &b, &dE, &accepted);
        } else {
            for (int t = 4 * phase; t < 4 * phase + 4; t++) {
#pragma omp for schedule(static)
                for (int yh = 0; yh < h; yh++)
                    omp_row_update(m, lmc_tick_order[t], lo, yh, sweep, k, &b, &dE, &accepted);
            }
        }
        sb_aligned_free(b.x);
    }
    st->dE += dE;
    st->accepted += accepted;
}

/* Storage plane zl of the 4 sub-lattices of the halo plan <-> one message buffer. */
static void omp_pack(omp_state *st, const lmc_halo_plan *p, int zl, float *buf, int unpack)
{
    const long hh = (long)st->g.h * st->g.h;
    float *c[3] = {st->x, st->y, st->z};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) {
            float *plane = c[k] + (p->sub0 + s) * st->g.sub + zl * hh, *msg = buf + (4 * k + s) * hh;
            memcpy(unpack ? plane : msg, unpack ? msg : plane, (size_t)hh * sizeof(float));
        }
}

/* Half a sweep. In a slab the message for the halo is under way while the planes
 * that do not read it are updated; then the edge plane. */
static void omp_phase(lmc *m, int phase, uint32_t sweep, lmc_consts k)
{
    omp_state *st = m->dev;
    if (!m->halo) {
        omp_planes(m, phase, 0, st->g.zs, 0, sweep, k);
        return;
    }
    lmc_halo_plan p = lmc_halo_plan_of(m, &st->g, phase);
    size_t bytes = 12 * (size_t)st->g.h * st->g.h * sizeof(float);
    sb_mpi_reqs rq = {0};
    omp_pack(st, &p, p.send_zl, st->sbuf, 0); /* not written in this phase: may be sent during it */
    sb_mpi_irecv(&rq, st->rbuf, bytes, p.from, p.tag);
    sb_mpi_isend(&rq, st->sbuf, bytes, p.to, p.tag);
    if (p.hi > p.lo) omp_planes(m, phase, p.lo, p.hi, 0, sweep, k);
    sb_mpi_waitall(&rq);
    omp_pack(st, &p, p.recv_zl, st->rbuf, 1);
    omp_planes(m, phase, p.edge_zl, p.edge_zl + 1, 1, sweep, k);
}

static int omp_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    lmc_consts k = {beta, step, (float)m->cfg.chi};
    omp_phase(m, 0, sweep, k);
    omp_phase(m, 1, sweep, k);
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
    sb_aligned_free(st->sbuf);
    sb_aligned_free(st->rbuf);
    free(st);
    m->dev = NULL;
}

const lmc_ops lmc_ops_openmp_simd = {omp_upload, omp_sweep, omp_totals, omp_download, omp_release, NULL};
