/* nlchains OpenMP-SIMD backend.
 * Chains are independent, so threads split the ensemble (static schedule) and each
 * thread runs all 7 x nsteps stages of one chain before the next: the chain is copied
 * into the thread's 64-byte aligned rows and stays in L1/L2 (3 rows of N doubles: 24 KiB
 * at N = 1024), and DRAM sees the state read and written once per steps() call.
 * Periodic ends without scalar code: each row keeps site i at index PAD + i with one
 * halo slot either side (q[-1] = q[N-1], q[N] = q[0]; the bond row's b[-1] = b[N-1]),
 * refreshed after each drift/bond pass, so every site loop is one `omp simd` loop of
 * contiguous loads. fput/toda: bond forces b_i = V'(q_{i+1} - q_i) are formed once per
 * stage and the kick is p_i += c (b_i - b_{i-1}), the same operations as reference.c,
 * so the trajectories agree bit for bit (-ffp-contract=off, no reassociation).
 * dnls: psi interleaved per chain, FFTW_MEASURE plans made once in upload and executed
 * on per-thread aligned arrays (new-array execute is thread-safe); the linear flow's
 * phase factors, divided by N, are tabulated for the four distinct stage weights. */
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"
#include "sb_omp.h"

#define PAD 8 /* doubles before site 0: keeps site 0 on a 64-byte boundary */

typedef struct {
    int nt;              /* threads the buffers were made for */
    size_t row;          /* doubles per row: PAD + N + halo, rounded to 8 */
    double *buf;         /* nt x 3 rows (q, p, b) */
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
    nlc_coefs k = nlc_make_coefs(m->cfg.dt);
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
    st->row = ((size_t)PAD + m->cfg.N + 1 + 7) & ~(size_t)7;
    st->buf = sb_aligned_alloc(3 * st->row * (size_t)st->nt * sizeof(double));
    st->modes = nlc_modes_create(&m->cfg, 1);
    if (!st->buf || !st->modes) return SB_EXIT_RUNTIME;
    return m->cfg.model == NLC_DNLS ? omp_upload_dnls(m, st) : SB_OK;
}

/* ---- fput / toda / dnkg: one chain, rows q, p, b with sites at [0, N) ---- */
static inline __attribute__((always_inline)) void omp_drift(double *restrict q, const double *restrict p, double d,
                                                            int N)
{
#pragma omp simd aligned(q, p : 64)
    for (int i = 0; i < N; i++) q[i] += d * p[i];
    q[-1] = q[N - 1], q[N] = q[0];
}

/* model is a literal at each call site, so each model gets its own branch-free loops */
static inline __attribute__((always_inline)) void omp_kick(int model, const nlc_config *cfg, const double *restrict q,
                                                           double *restrict p, double *restrict b, double c, int N)
{
    const double alpha = cfg->alpha, beta = cfg->beta, mm = cfg->m;
    if (model == NLC_DNKG) {
#pragma omp simd aligned(q, p : 64)
        for (int i = 0; i < N; i++) p[i] += c * nlc_dnkg_force(q[i - 1], q[i], q[i + 1], mm, beta);
        return;
    }
    if (model == NLC_FPUT) {
#pragma omp simd aligned(q, b : 64)
        for (int i = 0; i < N; i++) b[i] = nlc_fput_bond_force(q[i + 1] - q[i], alpha, beta);
    } else {
#pragma omp simd aligned(q, b : 64)
        for (int i = 0; i < N; i++) b[i] = nlc_toda_bond_force(q[i + 1] - q[i], alpha);
    }
    b[-1] = b[N - 1];
#pragma omp simd aligned(p, b : 64)
    for (int i = 0; i < N; i++) p[i] += c * (b[i] - b[i - 1]);
}

static inline __attribute__((always_inline)) void omp_chain(int model, const nlc_config *cfg, const nlc_coefs *k,
                                                            double *q, double *p, double *b, long nsteps)
{
    const int N = cfg->N;
    q[-1] = q[N - 1], q[N] = q[0];
    double c = k->kfirst;
    for (long n = 0; n < nsteps; n++)
        for (int s = 0; s < NLC_STAGES; s++) {
            omp_kick(model, cfg, q, p, b, c, N);
            omp_drift(q, p, k->drift[s], N);
            c = s < 6 ? k->kmid[s] : k->kjoin;
        }
    omp_kick(model, cfg, q, p, b, k->klast, N);
}

static void omp_chain_fput(const nlc_config *cfg, const nlc_coefs *k, double *q, double *p, double *b, long n)
{
    omp_chain(NLC_FPUT, cfg, k, q, p, b, n);
}
static void omp_chain_toda(const nlc_config *cfg, const nlc_coefs *k, double *q, double *p, double *b, long n)
{
    omp_chain(NLC_TODA, cfg, k, q, p, b, n);
}
static void omp_chain_dnkg(const nlc_config *cfg, const nlc_coefs *k, double *q, double *p, double *b, long n)
{
    omp_chain(NLC_DNKG, cfg, k, q, p, b, n);
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

static int omp_steps(nlc *m, long nsteps)
{
    omp_state *st = m->dev;
    const nlc_config *cfg = &m->cfg;
    const nlc_coefs k = nlc_make_coefs(cfg->dt);
    const long N = cfg->N;
    if (nsteps <= 0) return SB_OK;
    void (*chain)(const nlc_config *, const nlc_coefs *, double *, double *, double *, long) =
        cfg->model == NLC_FPUT ? omp_chain_fput : cfg->model == NLC_TODA ? omp_chain_toda : omp_chain_dnkg;
#pragma omp parallel num_threads(st->nt)
    {
        int t = omp_get_thread_num();
        double *q = st->buf + 3 * st->row * (size_t)t + PAD, *p = q + st->row, *b = p + st->row;
        fftw_complex *x = st->cbuf ? st->cbuf + 2 * st->crow * (size_t)t : NULL, *y = x ? x + st->crow : NULL;
#pragma omp for schedule(static)
        for (long c = 0; c < cfg->copies; c++) {
            double *qc = m->q + c * N, *pc = m->p + c * N;
            if (cfg->model == NLC_DNLS) {
                for (long j = 0; j < N; j++) x[j][0] = qc[j], x[j][1] = pc[j];
                omp_dnls_chain(st, cfg, &k, x, y, nsteps);
                for (long j = 0; j < N; j++) qc[j] = x[j][0], pc[j] = x[j][1];
                continue;
            }
            memcpy(q, qc, N * sizeof(double));
            memcpy(p, pc, N * sizeof(double));
            chain(cfg, &k, q, p, b, nsteps);
            memcpy(qc, q, N * sizeof(double));
            memcpy(pc, p, N * sizeof(double));
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

const nlc_ops nlc_ops_openmp_simd = {omp_upload, omp_steps, omp_mode_energies, omp_download, omp_release, NULL};
