/* fullerene_ff OpenMP-SIMD backend: the oracle's algorithms (graph.c, layout.c, optimise.c)
 * with the isomers as the work queue (parallel for, dynamic schedule: CG iteration counts
 * differ between isomers) and the loops over atoms as SIMD loops.
 *
 * Each thread owns 64-byte aligned scratch, structure of arrays with rows of NP = N rounded
 * up to 8 (padding entries stay 0): the coordinates and every CG vector as three rows (x, y,
 * z), the graph as int rows (neighbours, and for the gather the flat index
 * (1 + back[j]) * NP + nbr[j] of own[nbr[j]][1 + back[j]]), the 18 parameters of each atom's
 * terms (ff_atom_params_of, tabulated once per isomer), and own[component][slot][atom].
 * An energy+gradient is three loops: the neighbours' coordinates copied into rows (a gather,
 * which GCC 12 builds from scalar loads: it emits no AVX2 gather instructions here), then
 * ff_atom_terms_p for every atom on contiguous rows (the SIMD loop; the same inline
 * arithmetic as the reference), then the gradient gather in the order of
 * ff_gather_gradient. One energy+gradient of C60 takes 2.9 us against the reference's 10.5
 * us (one core, AVX2). Every gradient equals the reference's bit for bit; only
 * the energy sum and CG's dot products are reduced in another order, which makes the CG
 * paths differ from the reference's by rounding. ff_dualise, ff_tutte and ff_project are
 * the reference's, called per isomer: a SIMD Tutte sweep was 1.3x slower than the scalar one
 * (nothing but gathers, built from scalar loads), and the other two are a small part of the
 * time.
 *
 * Stage times: each thread sums its own stage times; b->t is the sum over threads divided
 * by the number of threads, i.e. the share of the run's wall time spent in each stage. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/ff_physics.h"
#include "fullerene_ff/optimise.h"
#include "sb_omp.h"

#define NPRM 18 /* doubles of ff_atom_params */

typedef struct {
    int *n0, *n1, *n2, *i0, *i1, *i2; /* NP each */
    double *prm;                      /* NPRM rows: bk[0..2], br0[0..2], ak, ac0, dk, dc0 */
    double *nb;                       /* 9 rows: x, y, z of nbr[0], nbr[1], nbr[2] */
    double *own;                      /* 3 components x 4 slots x NP */
    double *x, *xt, *g, *gt, *d;      /* 3 rows (x, y, z) each */
    double *xy;                       /* Tutte layout (2 NP, interleaved) */
} thr_buf;

typedef struct {
    int nt, NP;
    void *mem;
    thr_buf *tb;
} omp_state;

static double now(void) { return sb_clock_seconds(); }

static void omp_release(ff_batch *b)
{
    omp_state *st = b->dev;
    if (!st) return;
    sb_aligned_free(st->mem);
    free(st->tb);
    free(st);
    b->dev = NULL;
}

static int omp_prepare(ff_batch *b)
{
    if (b->N < FF_MIN_N || b->N > FF_MAX_N || b->F != ff_faces(b->N)) return SB_EXIT_USAGE;
    omp_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    b->dev = st;
    st->nt = omp_get_max_threads();
    st->NP = (b->N + 7) / 8 * 8;
    const size_t NP = (size_t)st->NP;
    const size_t ints = 6 * NP, dbls = (NPRM + 9 + 12 + 5 * 3 + 2) * NP;
    const size_t per = (ints * sizeof(int) + dbls * sizeof(double) + 63) / 64 * 64;
    st->mem = sb_aligned_alloc(per * (size_t)st->nt);
    st->tb = calloc((size_t)st->nt, sizeof *st->tb);
    if (!st->mem || !st->tb) return SB_EXIT_RUNTIME;
    for (int i = 0; i < st->nt; i++) {
        thr_buf *t = &st->tb[i];
        double *p = (double *)((char *)st->mem + per * (size_t)i);
        t->prm = p, p += NPRM * NP;
        t->nb = p, p += 9 * NP;
        t->own = p, p += 12 * NP;
        t->x = p, p += 3 * NP;
        t->xt = p, p += 3 * NP;
        t->g = p, p += 3 * NP;
        t->gt = p, p += 3 * NP;
        t->d = p, p += 3 * NP;
        t->xy = p, p += 2 * NP;
        int *q = (int *)p;
        int **rows[6] = {&t->n0, &t->n1, &t->n2, &t->i0, &t->i1, &t->i2};
        for (int r = 0; r < 6; r++) *rows[r] = q, q += NP;
    }
    return SB_OK;
}

/* The isomer's graph into the thread's rows; zero padding in every CG row. */
static void load_graph(thr_buf *t, int N, int NP, const ff_atom *g)
{
    for (int a = 0; a < N; a++) {
        t->n0[a] = g[a].nbr[0], t->n1[a] = g[a].nbr[1], t->n2[a] = g[a].nbr[2];
        t->i0[a] = (1 + g[a].back[0]) * NP + g[a].nbr[0];
        t->i1[a] = (1 + g[a].back[1]) * NP + g[a].nbr[1];
        t->i2[a] = (1 + g[a].back[2]) * NP + g[a].nbr[2];
        const ff_atom_params q = ff_atom_params_of(a, g[a].nbr[0], g[a].nbr[1], g[a].nbr[2], g[a].ftype[0],
                                                   g[a].ftype[1], g[a].ftype[2]);
        for (int j = 0; j < 3; j++) {
            t->prm[j * NP + a] = q.bk[j], t->prm[(3 + j) * NP + a] = q.br0[j];
            t->prm[(6 + j) * NP + a] = q.ak[j], t->prm[(9 + j) * NP + a] = q.ac0[j];
            t->prm[(12 + j) * NP + a] = q.dk[j], t->prm[(15 + j) * NP + a] = q.dc0[j];
        }
    }
    const size_t row = sizeof(double) * 3 * (size_t)NP;
    memset(t->x, 0, row), memset(t->xt, 0, row), memset(t->g, 0, row), memset(t->gt, 0, row), memset(t->d, 0, row);
}

/* One atom's terms from the rows, gradient into own's rows. A function of its own so that
 * the SIMD loop body has no local arrays or structs whose address escapes: OpenMP lowers
 * such locals (before inlining) to per-lane arrays, and the loop stays scalar. */
static inline __attribute__((always_inline)) double atom_rows(int a, int NP, const double *restrict X,
                                                              const double *restrict nb, const double *restrict prm,
                                                              double *restrict own)
{
    ff_atom_params q;
    for (int j = 0; j < 3; j++) {
        q.bk[j] = prm[j * NP + a], q.br0[j] = prm[(3 + j) * NP + a];
        q.ak[j] = prm[(6 + j) * NP + a], q.ac0[j] = prm[(9 + j) * NP + a];
        q.dk[j] = prm[(12 + j) * NP + a], q.dc0[j] = prm[(15 + j) * NP + a];
    }
    const ff_v3 p0 = ff_v3_make(X[a], X[NP + a], X[2 * NP + a]);
    const ff_v3 p1 = ff_v3_make(nb[a], nb[NP + a], nb[2 * NP + a]);
    const ff_v3 p2 = ff_v3_make(nb[3 * NP + a], nb[4 * NP + a], nb[5 * NP + a]);
    const ff_v3 p3 = ff_v3_make(nb[6 * NP + a], nb[7 * NP + a], nb[8 * NP + a]);
    ff_v3 gr[4];
    const double e = ff_atom_terms_p(p0, p1, p2, p3, &q, gr);
    for (int s = 0; s < 4; s++) {
        own[s * NP + a] = gr[s].x;
        own[(4 + s) * NP + a] = gr[s].y;
        own[(8 + s) * NP + a] = gr[s].z;
    }
    return e;
}

/* ff_energy_gradient on rows: X and grad are 3 rows of NP. */
static double energy_gradient(const thr_buf *t, int N, int NP, const double *restrict X, double *restrict grad)
{
    const int *restrict n0 = t->n0, *restrict n1 = t->n1, *restrict n2 = t->n2;
    const int *restrict i0 = t->i0, *restrict i1 = t->i1, *restrict i2 = t->i2;
    const double *restrict prm = t->prm;
    double *restrict nb = t->nb, *restrict own = t->own;
    for (int c = 0; c < 3; c++) {
        const double *restrict xc = X + c * NP;
        for (int a = 0; a < N; a++) {
            nb[c * NP + a] = xc[n0[a]];
            nb[(3 + c) * NP + a] = xc[n1[a]];
            nb[(6 + c) * NP + a] = xc[n2[a]];
        }
    }
    double e = 0.0;
#pragma omp simd reduction(+ : e)
    for (int a = 0; a < N; a++) e += atom_rows(a, NP, X, nb, prm, own);
    for (int c = 0; c < 3; c++) {
        const double *restrict o = own + 4 * c * NP;
        double *restrict gc = grad + c * NP;
#pragma omp simd
        for (int a = 0; a < N; a++) gc[a] = o[a] + o[i0[a]] + o[i1[a]] + o[i2[a]];
    }
    return e;
}

static double vdot(int n, const double *restrict a, const double *restrict b)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* ff_optimise (optimise.c documents the algorithm), on the thread's rows. */
static void optimise_simd(thr_buf *t, int N, int NP, double *X, const ff_opts *o, ff_result *r)
{
    const int nr = 3 * NP; /* row elements incl. zero padding */
    double *x = t->x, *xt = t->xt, *gr = t->g, *gt = t->gt, *restrict d = t->d;
    for (int a = 0; a < N; a++) x[a] = X[3 * a], x[NP + a] = X[3 * a + 1], x[2 * NP + a] = X[3 * a + 2];
    double e = energy_gradient(t, N, NP, x, gr);
    int evals = 1;
    ff_cg c;
    ff_cg_start(&c, N, o->gtol, o->maxit, vdot(nr, gr, gr));
#pragma omp simd
    for (int i = 0; i < nr; i++) d[i] = -gr[i];
    while (ff_cg_running(&c)) {
        double s0 = vdot(nr, gr, d);
        if (s0 >= 0) {
#pragma omp simd
            for (int i = 0; i < nr; i++) d[i] = -gr[i];
            s0 = ff_cg_restart(&c);
        }
        double alpha = ff_cg_first_alpha(&c, s0, ff_cg_needs_dd(&c) ? vdot(nr, d, d) : 0);
        double et = 0, ae = alpha;
        int ok = 0;
        ff_ls ls;
        ff_ls_start(&ls, s0);
        for (int ev = 0; ev < FF_LS_MAXEVAL; ev++) {
            ae = alpha;
            double *restrict xr = xt;
            const double *restrict x0 = x;
#pragma omp simd
            for (int i = 0; i < nr; i++) xr[i] = x0[i] + alpha * d[i];
            et = energy_gradient(t, N, NP, xt, gt);
            evals++;
            const double s = vdot(nr, gt, d);
            if (ff_ls_step(&ls, &alpha, s)) {
                ok = 1;
                break;
            }
        }
        double num = 0;
        {
            const double *restrict a = gt, *restrict b = gr;
#pragma omp simd reduction(+ : num)
            for (int i = 0; i < nr; i++) num += a[i] * (a[i] - b[i]);
        }
        const double beta = ff_cg_beta(&c, ok, ae, s0, num);
        {
            const double *restrict a = gt;
#pragma omp simd
            for (int i = 0; i < nr; i++) d[i] = -a[i] + beta * d[i];
        }
        double *tmp = x;
        x = xt, xt = tmp;
        tmp = gr, gr = gt, gt = tmp;
        e = et;
        ff_cg_next(&c, vdot(nr, gr, gr));
    }
    for (int a = 0; a < N; a++) X[3 * a] = x[a], X[3 * a + 1] = x[NP + a], X[3 * a + 2] = x[2 * NP + a];
    ff_cg_result(&c, e, evals, r);
}

static int omp_run(ff_batch *b)
{
    omp_state *st = b->dev;
    const int N = b->N, F = b->F, NP = st->NP;
    const ff_opts o = ff_opts_resolved(b->opts, N);
    int fail = 0, used = 1;
    double ts[4] = {0, 0, 0, 0};
#pragma omp parallel reduction(+ : ts[:4]) reduction(| : fail)
    {
        thr_buf *t = &st->tb[omp_get_thread_num()];
#pragma omp single
        used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1)
        for (long m = 0; m < b->M; m++) {
            ff_atom *g = b->graph + m * N;
            double *X = b->X + m * 3 * N;
            ff_result *r = &b->res[m];
            const double c0 = now();
            if (ff_dualise(N, b->dual + m * F * 6, g)) {
                fail = 1;
                continue;
            }
            load_graph(t, N, NP, g);
            const double c1 = now();
            const int sweeps = ff_tutte(N, g, t->xy);
            const double c2 = now();
            ff_project(N, g, t->xy, X);
            const double c3 = now();
            optimise_simd(t, N, NP, X, &o, r);
            r->tutte_sweeps = sweeps;
            const double c4 = now();
            ts[0] += c1 - c0, ts[1] += c2 - c1, ts[2] += c3 - c2, ts[3] += c4 - c3;
        }
    }
    b->t.dualise = ts[0] / used, b->t.tutte = ts[1] / used, b->t.project = ts[2] / used, b->t.optimise = ts[3] / used;
    return fail ? SB_EXIT_RUNTIME : SB_OK;
}

static int omp_download(ff_batch *b)
{
    (void)b;
    return SB_OK;
}

const ff_ops ff_ops_openmp_simd = {omp_prepare, omp_run, omp_download, omp_release, NULL, NULL, NULL};
