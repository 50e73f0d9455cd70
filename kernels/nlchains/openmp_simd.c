/* nlchains OpenMP-SIMD backend.
 * fput / toda / dnkg: threads split the ensemble (static schedule) in groups of LANES
 * chains; a thread copies a group into its 64-byte aligned rows site-major
 * (row[i * LANES + l] = site i of chain l), so a site of all LANES chains is one or two
 * vectors, and runs all 7 x nsteps stages on it before the next group. DRAM sees the
 * state read and written once per steps() call (the rows, 2 N LANES doubles, stay in
 * L2). A stage is one pass over the sites: the kick with the bond forces of the
 * pre-drift q, then the drift with the new p, the previous bond force (or, for dnkg,
 * the previous site's old q) carried in registers from one site to the next, the
 * periodic wrap from site 0's old q saved before the pass. One pass with 2 loads and
 * 2 stores per site (the first version made three passes, bond, kick and drift, with
 * 7 loads and 3 stores, and reached 23-41 % of the FMA peak on fput). The operations
 * are reference.c's, in the same order (physics.h, explicit fma, -ffp-contract=off), so
 * the trajectories agree bit for bit. A short last group is padded with zero chains
 * (zero force, never written back).
 * dnls: psi interleaved per chain, FFTW_MEASURE plans made once in upload and executed
 * on per-thread aligned arrays (new-array execute is thread-safe); the linear flow's
 * phase factors, divided by N, are tabulated for the four distinct stage weights. */
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"
#include "sb_omp.h"

/* Chains per group: two AVX2 vectors or one AVX-512 vector per site; two independent
 * vectors keep both FMA pipes busy through the pass's dependency chain. */
#define LANES 8

typedef struct {
    int nt;              /* threads the buffers were made for */
    size_t row;          /* doubles per row: N * LANES */
    double *buf;         /* nt x 2 rows (q, p) */
    nlc_modes *modes;
    fftw_complex *cbuf;  /* dnls: nt x 2 x N complex, per-thread aligned */
    size_t crow;         /* complex per thread-half, rounded to 4 (64 B) */
    fftw_complex *phase; /* dnls: 4 x N, exp(i 2 cos(2 pi k/N) w_j h) / N */
    fftw_plan fwd, bwd;
} omp_state;

static void omp_release(nlc *m)
{
    omp_state *st = m->dev;
    if (!st) return;
    nlc_modes_destroy(st->modes);
    if (st->fwd) fftw_destroy_plan(st->fwd);
    if (st->bwd) fftw_destroy_plan(st->bwd);
    sb_aligned_free(st->buf);
    fftw_free(st->cbuf);
    fftw_free(st->phase);
    free(st);
    m->dev = NULL;
}

static int omp_upload_dnls(nlc *m, omp_state *st)
{
    const int N = m->cfg.N;
    st->crow = ((size_t)N + 3) & ~(size_t)3;
    st->cbuf = fftw_alloc_complex(2 * st->crow * (size_t)st->nt);
    st->phase = fftw_alloc_complex(4 * (size_t)N);
    if (!st->cbuf || !st->phase) return SB_EXIT_RUNTIME;
    /* planning (not thread-safe) once, here; MEASURE scribbles on the arrays */
    st->fwd = fftw_plan_dft_1d(N, st->cbuf, st->cbuf + st->crow, FFTW_FORWARD, FFTW_MEASURE);
    st->bwd = fftw_plan_dft_1d(N, st->cbuf + st->crow, st->cbuf, FFTW_BACKWARD, FFTW_MEASURE);
    if (!st->fwd || !st->bwd) return SB_EXIT_RUNTIME;
    nlc_coefs k = nlc_make_coefs(m->cfg.dt, 1.0);
    for (int j = 0; j < 4; j++)
        for (int q = 0; q < N; q++) {
            double a = nlc_dnls_linear_phase(q, N, k.drift[j]);
            st->phase[j * N + q][0] = cos(a) / N, st->phase[j * N + q][1] = sin(a) / N;
        }
    return SB_OK;
}

static int omp_upload(nlc *m)
{
    omp_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    m->step = 0;
    st->nt = omp_get_max_threads();
    st->row = (size_t)m->cfg.N * LANES;
    st->buf = sb_aligned_alloc(2 * st->row * (size_t)st->nt * sizeof(double));
    st->modes = nlc_modes_create(&m->cfg, 1);
    if (!st->buf || !st->modes) return SB_EXIT_RUNTIME;
    return m->cfg.model == NLC_DNLS ? omp_upload_dnls(m, st) : SB_OK;
}

/* ---- fput / toda / dnkg: LANES chains, site-major rows q, p ---- */
typedef struct {
    double alpha, beta, m;
    nlc_toda_k tk;
} omp_par;

/* The bond term of the bond (q, qn): V' (fput) or 2 alpha V' + 1 (toda, kicks scaled). */
static inline __attribute__((always_inline)) double omp_bond(int model, const omp_par *mp, double q, double qn)
{
    return model == NLC_TODA ? nlc_toda_exp(qn - q, &mp->tk) : nlc_fput_bond_force(qn - q, mp->alpha, mp->beta);
}

/* One stage: p += c F(q) on every site, then (drift) q += d p. model and drift are
 * literals at each call site, so each combination gets its own branch-free loops. */
static inline __attribute__((always_inline)) void omp_pass(int model, int drift, const omp_par *mp,
                                                           double *restrict Q, double *restrict P, double c,
                                                           double d, int N)
{
    double q0[LANES] __attribute__((aligned(64))), cr[LANES] __attribute__((aligned(64)));
    const double *restrict ql = Q + (size_t)(N - 1) * LANES;
    /* cr: the carried value, the left bond's term (fput/toda) or the left site's old q (dnkg) */
#pragma omp simd aligned(Q, ql, q0, cr : 64)
    for (int l = 0; l < LANES; l++) {
        q0[l] = Q[l];
        cr[l] = model == NLC_DNKG ? ql[l] : omp_bond(model, mp, ql[l], Q[l]);
    }
    for (int i = 0; i < N; i++) {
        double *restrict qi = Q + (size_t)i * LANES, *restrict pi = P + (size_t)i * LANES;
        const double *restrict qn = i + 1 < N ? qi + LANES : q0;
#pragma omp simd aligned(qi, pi, qn, cr : 64)
        for (int l = 0; l < LANES; l++) {
            const double q = qi[l];
            double F;
            if (model == NLC_DNKG) {
                F = nlc_dnkg_force(cr[l], q, qn[l], mp->m, mp->beta);
                cr[l] = q;
            } else {
                const double b = omp_bond(model, mp, q, qn[l]);
                F = b - cr[l];
                cr[l] = b;
            }
            const double p = nlc_kick(pi[l], c, F);
            pi[l] = p;
            if (drift) qi[l] = nlc_drift(q, d, p);
        }
    }
}

static inline __attribute__((always_inline)) void omp_group(int model, const omp_par *mp, const nlc_coefs *k,
                                                            double *Q, double *P, int N, long nsteps)
{
    double c = k->kfirst;
    for (long n = 0; n < nsteps; n++)
        for (int s = 0; s < NLC_STAGES; s++) {
            omp_pass(model, 1, mp, Q, P, c, k->drift[s], N);
            c = s < 6 ? k->kmid[s] : k->kjoin;
        }
    omp_pass(model, 0, mp, Q, P, k->klast, 0.0, N);
}

static void omp_group_fput(const omp_par *mp, const nlc_coefs *k, double *Q, double *P, int N, long n)
{
    omp_group(NLC_FPUT, mp, k, Q, P, N, n);
}
static void omp_group_toda(const omp_par *mp, const nlc_coefs *k, double *Q, double *P, int N, long n)
{
    omp_group(NLC_TODA, mp, k, Q, P, N, n);
}
static void omp_group_dnkg(const omp_par *mp, const nlc_coefs *k, double *Q, double *P, int N, long n)
{
    omp_group(NLC_DNKG, mp, k, Q, P, N, n);
}

/* ---- dnls: x = psi of one chain (interleaved), y its transform ---- */
static void omp_dnls_nonlinear(fftw_complex *restrict x, double beta, double t, int N)
{
    for (int j = 0; j < N; j++) nlc_dnls_nonlinear(&x[j][0], &x[j][1], beta, t);
}

static void omp_dnls_chain(const omp_state *st, const nlc_config *cfg, const nlc_coefs *k, fftw_complex *x,
                           fftw_complex *y, long nsteps)
{
    const int N = cfg->N;
    double c = k->kfirst;
    for (long n = 0; n < nsteps; n++)
        for (int s = 0; s < NLC_STAGES; s++) {
            omp_dnls_nonlinear(x, cfg->beta, c, N);
            fftw_execute_dft(st->fwd, x, y);
            const fftw_complex *ph = st->phase + (s < 4 ? s : 6 - s) * N;
            double *restrict yy = (double *)y;
            const double *restrict pp = (const double *)ph;
#pragma omp simd
            for (int q = 0; q < N; q++) {
                double re = yy[2 * q] * pp[2 * q] - yy[2 * q + 1] * pp[2 * q + 1];
                double im = yy[2 * q] * pp[2 * q + 1] + yy[2 * q + 1] * pp[2 * q];
                yy[2 * q] = re, yy[2 * q + 1] = im;
            }
            fftw_execute_dft(st->bwd, y, x);
            c = s < 6 ? k->kmid[s] : k->kjoin;
        }
    omp_dnls_nonlinear(x, cfg->beta, k->klast, N);
}

/* Copies chains c0 .. c0 + nl - 1 into (to = 1) or out of (to = 0) the site-major rows;
 * lanes nl .. LANES - 1 are zero chains. */
static void omp_transpose(int to, double *qc, double *pc, double *Q, double *P, int N, int nl)
{
    for (int l = 0; l < LANES; l++)
        for (int i = 0; i < N; i++) {
            const size_t r = (size_t)i * LANES + l, g = (size_t)l * N + i;
            if (!to) {
                if (l < nl) qc[g] = Q[r], pc[g] = P[r];
            } else {
                Q[r] = l < nl ? qc[g] : 0.0;
                P[r] = l < nl ? pc[g] : 0.0;
            }
        }
}

static int omp_steps(nlc *m, long nsteps)
{
    omp_state *st = m->dev;
    const nlc_config *cfg = &m->cfg;
    const nlc_coefs k = nlc_make_coefs(cfg->dt, nlc_kick_scale(cfg));
    const long N = cfg->N;
    if (nsteps <= 0) return SB_OK;
    const omp_par mp = {cfg->alpha, cfg->beta, cfg->m, nlc_toda_prepare(cfg->alpha)};
    void (*group)(const omp_par *, const nlc_coefs *, double *, double *, int, long) =
        cfg->model == NLC_FPUT ? omp_group_fput : cfg->model == NLC_TODA ? omp_group_toda : omp_group_dnkg;
    const long groups = (cfg->copies + LANES - 1) / LANES;
#pragma omp parallel num_threads(st->nt)
    {
        int t = omp_get_thread_num();
        double *Q = st->buf + 2 * st->row * (size_t)t, *P = Q + st->row;
        fftw_complex *x = st->cbuf ? st->cbuf + 2 * st->crow * (size_t)t : NULL, *y = x ? x + st->crow : NULL;
        if (cfg->model == NLC_DNLS) {
#pragma omp for schedule(static)
            for (long c = 0; c < cfg->copies; c++) {
                double *qc = m->q + c * N, *pc = m->p + c * N;
                for (long j = 0; j < N; j++) x[j][0] = qc[j], x[j][1] = pc[j];
                omp_dnls_chain(st, cfg, &k, x, y, nsteps);
                for (long j = 0; j < N; j++) qc[j] = x[j][0], pc[j] = x[j][1];
            }
        } else {
#pragma omp for schedule(static)
            for (long g = 0; g < groups; g++) {
                const long c0 = g * LANES;
                const int nl = (int)(cfg->copies - c0 < LANES ? cfg->copies - c0 : LANES);
                omp_transpose(1, m->q + c0 * N, m->p + c0 * N, Q, P, (int)N, nl);
                group(&mp, &k, Q, P, (int)N, nsteps);
                omp_transpose(0, m->q + c0 * N, m->p + c0 * N, Q, P, (int)N, nl);
            }
        }
    }
    m->step += nsteps;
    return SB_OK;
}

static int omp_mode_energies(nlc *m, double *ek)
{
    omp_state *st = m->dev;
    return nlc_modes_compute(st->modes, m->q, m->p, m->cfg.copies, 1, ek);
}

static int omp_download(nlc *m)
{
    (void)m; /* the ensemble stays in the host arrays between calls */
    return SB_OK;
}

const nlc_ops nlc_ops_openmp_simd = {omp_upload, omp_steps, omp_mode_energies, omp_download, omp_release, NULL, NULL, NULL};
