/* lattice_mc OpenMP-SIMD backend.
 * Layout: sub-lattice major. Sub-lattice s = px + 2 py + 4 pz holds the sites
 * (2 xh + px, 2 yh + py, 2 zh + pz) at index xh + h (yh + h zh), h = L/2, so a
 * tick streams one contiguous (L/2)^3 block and reads its three neighbour
 * sub-lattices s^1, s^2, s^4 row by row. Planes are split over threads; a block
 * of consecutive rows (about 512 sites) is one `omp simd` loop. The one irregular
 * access, the x neighbour that wraps around the row end, is removed by first
 * copying that neighbour row, shifted by one with the wrap, into a small
 * per-thread buffer: then every load in the loop is contiguous and no site falls
 * to scalar code.
 * Under MPI each sub-lattice holds the rank's z slab plus halo planes (lmc_store,
 * decomp.c); omp_phase overlaps the halo message with the planes that do not read it. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/philox_row.h"
#include "lattice_mc/physics.h"
#include "sb_mpi.h"
#include "sb_omp.h"

/* Per-thread row buffers: the shifted x-neighbour row, the row's random words and its draws. */
typedef struct {
    float *x, *y, *z;
    uint32_t *ra, *rb;
    float *sx, *sy, *sz, *u;
    uint8_t *f;
} omp_buf;

/* Rows per site loop: about OMP_BLOCK_SITES sites, one row in a droplet. */
enum { OMP_BLOCK_SITES = 512 };
static int omp_block_rows(const lmc *m, int h)
{
    return m->cfg.geometry == LMC_DROPLET || h >= OMP_BLOCK_SITES ? 1 : OMP_BLOCK_SITES / h;
}

/* Per-thread buffers for blocks of n sites; 0 when out of memory. */
static int omp_buf_alloc(omp_buf *b, size_t n)
{
    b->x = sb_aligned_alloc(9 * n * sizeof(float) + n);
    if (!b->x) return 0;
    b->y = b->x + n, b->z = b->y + n;
    b->ra = (uint32_t *)(b->z + n), b->rb = b->ra + n;
    b->sx = (float *)(b->rb + n), b->sy = b->sx + n, b->sz = b->sy + n, b->u = b->sz + n;
    b->f = (uint8_t *)(b->u + n);
    return 1;
}

typedef struct {
    lmc_store g;      /* h, planes per sub-lattice (zs), the slab's first plane... */
    float *x, *y, *z; /* 8 sub-lattices of h^2 zs, one after another */
    uint8_t *f;
    float *sbuf, *rbuf; /* slab only: one edge plane of the 4 sub-lattices read, 3 components */
    omp_buf *buf;       /* one per thread, allocated once (every parallel region has nbuf threads) */
    int nbuf;
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
    st->nbuf = omp_get_max_threads();
    if (!(st->buf = calloc((size_t)st->nbuf, sizeof *st->buf))) return SB_EXIT_RUNTIME;
    for (int t = 0; t < st->nbuf; t++)
        if (!omp_buf_alloc(&st->buf[t], (size_t)omp_block_rows(m, st->g.h) * st->g.h)) return SB_EXIT_RUNTIME;
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
    const float *sx, *sy, *sz, *u; /* the row's draws (lmc_draw_of) */
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
    lmc_draw r = {rw->sx[xh], rw->sy[xh], rw->sz[xh], rw->u[xh]};
    float ox = rw->ox[xh], oy = rw->oy[xh], oz = rw->oz[xh];
    lmc_trial_dir t = lmc_trial(ox, oy, oz, k, r);
    /* each neighbour loaded where it is used: the same operations as lmc_update */
    float db = 0.0f;
    LMC_UNROLL
    for (int j = 0; j < 6; j++) {
        float w = droplet ? (float)(rw->nf[j][xh] & LMC_ACTIVE) : 1.0f;
        db = lmc_bond(db, w, t, rw->nx[j][xh], rw->ny[j][xh], rw->nz[j][xh]);
    }
    lmc_result u = lmc_accept(ox, oy, oz, t, db, wi, nux, nuy, nuz, k, r.u, droplet);
    int acc = u.accepted & active; /* u holds the old director unless accepted */
    rw->ox[xh] = active ? u.x : ox;
    rw->oy[xh] = active ? u.y : oy;
    rw->oz[xh] = active ? u.z : oz;
    *de_sum += acc ? u.de : 0.0f;
    *acc_sum += acc;
}

/* dst[i] = src[(i + shift) mod h], 0 < shift < h; for the directors and the droplet's flags */
#define OMP_ROTATE(name, T)                                                                            \
    static inline void name(T *restrict dst, const T *restrict src, int h, int shift)                 \
    {                                                                                                  \
        const int n1 = h - shift;                                                                      \
        _Pragma("omp simd") for (int i = 0; i < n1; i++) dst[i] = src[i + shift];                      \
        for (int i = n1; i < h; i++) dst[i] = src[i - n1];                                             \
    }
OMP_ROTATE(omp_rotate, float)
OMP_ROTATE(omp_rotate_flags, uint8_t)

/* Rows yh .. yh+nr-1 of storage plane zl of sub-lattice s: nr*h sites of one tick in one
 * loop. Consecutive rows are contiguous in every stream the loop reads, provided no y
 * neighbour wraps after the first row (the caller's blocks ensure it), so only the
 * wrapped x neighbour needs its per-row buffer; longer loops share the row setup, the
 * loop prologues and the reductions (at L = 64 these cost a third of the time). */
static void omp_rows_update(lmc *m, int s, int zl, int yh, int nr, uint32_t sweep, lmc_consts k, const omp_buf *b,
                            double *dE, double *accepted)
{
    omp_state *st = m->dev;
    const int h = st->g.h, zs = st->g.zs, L = m->cfg.L, droplet = m->cfg.geometry == LMC_DROPLET;
    const int n = nr * h;
    const long sub = st->g.sub;
    const int px = s & 1, py = (s >> 1) & 1, pz = (s >> 2) & 1;
    const float W = (float)m->cfg.W;
    /* the x neighbour that wraps: -x (j = 1) at xh-1 for px = 0, +x (j = 0) at xh+1 for px = 1 */
    const int jw = px ? 0 : 1, shift = px ? 1 : h - 1;
    /* periodic wraps without integer division */
    int yP = yh + py == h ? 0 : yh + py, yM = yh - 1 + py < 0 ? h - 1 : yh - 1 + py;
    /* periodic in z on one rank; in a slab the neighbours of owned planes are in range */
    int zP = zl + pz == zs ? 0 : zl + pz, zM = zl - 1 + pz < 0 ? zs - 1 : zl - 1 + pz;
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
    const int z = 2 * (zl - st->g.zoff + st->g.zh0) + pz; /* global: the random key */
    for (int r = 0; r < nr; r++) {
        /* buf[i] = row[(i + shift) mod h]; inline loops, not six short library calls a row */
        const long o = (long)r * h;
        omp_rotate(b->x + o, rw.nx[jw] + o, h, shift);
        omp_rotate(b->y + o, rw.ny[jw] + o, h, shift);
        omp_rotate(b->z + o, rw.nz[jw] + o, h, shift);
        if (droplet) omp_rotate_flags(b->f + o, rw.nf[jw] + o, h, shift);
        int y = 2 * (yh + r) + py;
        lmc_philox_pairs(m->cfg.seed, (uint32_t)(px + L * (y + L * z)), 2, h, sweep, (uint32_t)s, LMC_TAG_MOVE,
                         b->ra + o, b->rb + o);
    }
    rw.nx[jw] = b->x, rw.ny[jw] = b->y, rw.nz[jw] = b->z, rw.nf[jw] = b->f;
    /* the draws in a loop of their own: independent of the lattice, so the site loop's
     * dependency chain starts at the trial and fewer constants compete for its registers */
#pragma omp simd
    for (int i = 0; i < n; i++) {
        lmc_words w = {b->ra[i], b->rb[i]};
        lmc_draw d = lmc_draw_of(w);
        b->sx[i] = d.sx, b->sy[i] = d.sy, b->sz[i] = d.sz, b->u[i] = d.u;
    }
    rw.sx = b->sx, rw.sy = b->sy, rw.sz = b->sz, rw.u = b->u;
    float de_row = 0.0f;
    int acc_row = 0;
    if (droplet) { /* one row at a time (nr = 1): the site's y enters its surface normal */
#pragma omp simd reduction(+ : de_row, acc_row)
        for (int xh = 0; xh < h; xh++) omp_site(&rw, xh, 1, L, px, 2 * yh + py, z, W, k, &de_row, &acc_row);
    } else {
#pragma omp simd reduction(+ : de_row, acc_row)
        for (int i = 0; i < n; i++) omp_site(&rw, i, 0, L, px, 0, z, W, k, &de_row, &acc_row);
    }
    *dE += de_row;
    *accepted += acc_row;
}

/* Tick s on storage plane zl, in blocks of R rows. The row whose y neighbour wraps (row 0
 * for py = 0, row h-1 for py = 1) runs alone, so that within a block all rows are contiguous. */
static void omp_plane_tick(lmc *m, int s, int zl, int R, uint32_t sweep, lmc_consts k, const omp_buf *b, double *dE,
                           double *accepted)
{
    const int h = ((omp_state *)m->dev)->g.h, py = (s >> 1) & 1;
    int y0 = 0, y1 = h;
    if (R > 1 && py == 0) omp_rows_update(m, s, zl, 0, 1, sweep, k, b, dE, accepted), y0 = 1;
    if (R > 1 && py == 1) y1 = h - 1;
    for (int yh = y0; yh < y1; yh += R)
        omp_rows_update(m, s, zl, yh, R < y1 - yh ? R : y1 - yh, sweep, k, b, dE, accepted);
    if (R > 1 && py == 1) omp_rows_update(m, s, zl, h - 1, 1, sweep, k, b, dE, accepted);
}

/* The four ticks of z parity `phase` (4*phase .. 4*phase+3 of lmc_tick_order) on storage plane zl. */
static void omp_plane_phase(lmc *m, int phase, int zl, int R, uint32_t sweep, lmc_consts k, const omp_buf *b,
                            double *dE, double *accepted)
{
    for (int t = 4 * phase; t < 4 * phase + 4; t++) omp_plane_tick(m, lmc_tick_order[t], zl, R, sweep, k, b, dE, accepted);
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
    const int h = st->g.h, R = omp_block_rows(m, h);
    double dE = 0.0, accepted = 0.0;
#pragma omp parallel num_threads(st->nbuf) reduction(+ : dE, accepted)
    {
        const omp_buf *b = &st->buf[omp_get_thread_num()];
        if (!by_rows) {
#pragma omp for schedule(static)
            for (int zl = lo; zl < hi; zl++) omp_plane_phase(m, phase, zl, R, sweep, k, b, &dE, &accepted);
        } else {
            for (int t = 4 * phase; t < 4 * phase + 4; t++) {
#pragma omp for schedule(static)
                for (int yh = 0; yh < h; yh++)
                    omp_rows_update(m, lmc_tick_order[t], lo, yh, 1, sweep, k, b, &dE, &accepted);
            }
        }
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

/* A whole sweep of the single-rank lattice in one pass over z. Parity-0 plane zl (global
 * z = 2 zl) reads parity-1 planes zl-1 and zl; parity-1 plane zl reads parity-0 planes zl and
 * zl+1. So after P0(zl) the second half sweep can already run on plane zl-1, P1(zl-1), while
 * the planes it reads are still in cache from P0(zl-1) and P0(zl): each plane comes from
 * memory once a sweep instead of twice (24 instead of 36 B an update), and every site sees
 * exactly the neighbours of the two separate half sweeps. Each thread takes a contiguous
 * range [a, e) of planes. P0(a) reads plane a-1 of the previous range before its owner's
 * P1(a-1), and P1(e-1) reads the next range's first plane after its P0: so every thread runs
 * P0 on its first plane, all wait once, then each runs its wavefront and ends with P1(e-1). */
static void omp_wavefront(lmc *m, uint32_t sweep, lmc_consts k)
{
    omp_state *st = m->dev;
    const int h = st->g.h, zs = st->g.zs, R = omp_block_rows(m, h);
    double dE = 0.0, accepted = 0.0;
#pragma omp parallel num_threads(st->nbuf) reduction(+ : dE, accepted)
    {
        const omp_buf *b = &st->buf[omp_get_thread_num()];
        const long nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int a = (int)(zs * t / nt), e = (int)(zs * (t + 1) / nt);
        if (a < e) omp_plane_phase(m, 0, a, R, sweep, k, b, &dE, &accepted);
#pragma omp barrier
        for (int zl = a + 1; zl < e; zl++) {
            omp_plane_phase(m, 0, zl, R, sweep, k, b, &dE, &accepted);
            omp_plane_phase(m, 1, zl - 1, R, sweep, k, b, &dE, &accepted);
        }
        if (a < e) omp_plane_phase(m, 1, e - 1, R, sweep, k, b, &dE, &accepted);
    }
    st->dE += dE;
    st->accepted += accepted;
}

static int omp_sweep(lmc *m, uint32_t sweep, float beta, float step)
{
    lmc_consts k = {beta, step, (float)m->cfg.chi};
    if (!m->halo) {
        omp_wavefront(m, sweep, k);
        return SB_OK;
    }
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
    for (int t = 0; st->buf && t < st->nbuf; t++) sb_aligned_free(st->buf[t].x);
    free(st->buf);
    free(st);
    m->dev = NULL;
}

const lmc_ops lmc_ops_openmp_simd = {omp_upload, omp_sweep, omp_totals, omp_download, omp_release, NULL};
