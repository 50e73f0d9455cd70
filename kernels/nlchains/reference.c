/* nlchains scalar reference: the oracle. One chain at a time, periodic indexing by
 * modulo, every force written out from physics.h (each bond force evaluated twice, once
 * for each of its sites), the composition's merged half-kicks from nlc_make_coefs
 * (toda's carry 1/(2 alpha): its bond term is nlc_toda_exp = 2 alpha V' + 1).
 * Works in place on the host arrays. dnls: the linear flow with FFTW_ESTIMATE plans,
 * its phases from nlc_dnls_linear_phase at each use. */
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"

typedef struct {
    nlc_modes *modes;
    fftw_complex *x, *y;     /* dnls: psi of one chain and its transform */
    fftw_plan fwd, bwd;
} ref_state;

static void ref_release(nlc *m)
{
    ref_state *st = m->dev;
    if (!st) return;
    nlc_modes_destroy(st->modes);
    if (st->fwd) fftw_destroy_plan(st->fwd);
    if (st->bwd) fftw_destroy_plan(st->bwd);
    fftw_free(st->x);
    fftw_free(st->y);
    free(st);
    m->dev = NULL;
}

static int ref_upload(nlc *m)
{
    ref_state *st = calloc(1, sizeof *st);
    if (!st) return SB_EXIT_RUNTIME;
    m->dev = st;
    m->step = 0;
    st->modes = nlc_modes_create(&m->cfg, 0);
    if (!st->modes) return SB_EXIT_RUNTIME;
    if (m->cfg.model == NLC_DNLS) {
        const int N = m->cfg.N;
        st->x = fftw_alloc_complex((size_t)N);
        st->y = fftw_alloc_complex((size_t)N);
        if (!st->x || !st->y) return SB_EXIT_RUNTIME;
        st->fwd = fftw_plan_dft_1d(N, st->x, st->y, FFTW_FORWARD, FFTW_ESTIMATE);
        st->bwd = fftw_plan_dft_1d(N, st->y, st->x, FFTW_BACKWARD, FFTW_ESTIMATE);
        if (!st->fwd || !st->bwd) return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}

/* p += c F(q) for one chain */
static void ref_kick(const nlc_config *cfg, const nlc_toda_k *tk, const double *q, double *p, double c)
{
    const int N = cfg->N;
    for (int i = 0; i < N; i++) {
        double qm = q[(i + N - 1) % N], q0 = q[i], qp = q[(i + 1) % N], F;
        if (cfg->model == NLC_FPUT)
            F = nlc_fput_bond_force(qp - q0, cfg->alpha, cfg->beta) - nlc_fput_bond_force(q0 - qm, cfg->alpha, cfg->beta);
        else if (cfg->model == NLC_TODA)
            F = nlc_toda_exp(qp - q0, tk) - nlc_toda_exp(q0 - qm, tk);
        else
            F = nlc_dnkg_force(qm, q0, qp, cfg->m, cfg->beta);
        p[i] = nlc_kick(p[i], c, F);
    }
}

static void ref_drift(int N, double *q, const double *p, double d)
{
    for (int i = 0; i < N; i++) q[i] = nlc_drift(q[i], d, p[i]);
}

/* dnls: the nonlinear flow N(t) is the "kick", the linear flow L(t) the "drift" */
static void ref_dnls_nonlinear(const nlc_config *cfg, fftw_complex *x, double t)
{
    for (int j = 0; j < cfg->N; j++) nlc_dnls_nonlinear(&x[j][0], &x[j][1], cfg->beta, t);
}

static void ref_dnls_linear(const nlc_config *cfg, ref_state *st, double t)
{
    const int N = cfg->N;
    fftw_execute(st->fwd);
    for (int k = 0; k < N; k++) {
        double a = nlc_dnls_linear_phase(k, N, t), c = cos(a), s = sin(a);
        double re = st->y[k][0] * c - st->y[k][1] * s, im = st->y[k][0] * s + st->y[k][1] * c;
        st->y[k][0] = re, st->y[k][1] = im;
    }
    fftw_execute(st->bwd);
    for (int j = 0; j < N; j++) st->x[j][0] /= N, st->x[j][1] /= N;
}

static void ref_chain(nlc *m, ref_state *st, double *q, double *p, long nsteps)
{
    const nlc_config *cfg = &m->cfg;
    const nlc_coefs k = nlc_make_coefs(cfg->dt, nlc_kick_scale(cfg));
    const nlc_toda_k tk = nlc_toda_prepare(cfg->alpha); /* used by toda only */
    const int dnls = cfg->model == NLC_DNLS, N = cfg->N;
    if (dnls)
        for (int j = 0; j < N; j++) st->x[j][0] = q[j], st->x[j][1] = p[j];
    double c = k.kfirst;
    for (long n = 0; n < nsteps; n++)
        for (int s = 0; s < NLC_STAGES; s++) {
            /* the pending (merged) kick, then this stage's drift */
            if (dnls) {
                ref_dnls_nonlinear(cfg, st->x, c);
                ref_dnls_linear(cfg, st, k.drift[s]);
            } else {
                ref_kick(cfg, &tk, q, p, c);
                ref_drift(N, q, p, k.drift[s]);
            }
            c = s < 6 ? k.kmid[s] : k.kjoin;
        }
    c = k.klast;
    if (dnls) {
        ref_dnls_nonlinear(cfg, st->x, c);
        for (int j = 0; j < N; j++) q[j] = st->x[j][0], p[j] = st->x[j][1];
    } else {
        ref_kick(cfg, &tk, q, p, c);
    }
}

static int ref_steps(nlc *m, long nsteps)
{
    ref_state *st = m->dev;
    const long N = m->cfg.N;
    if (nsteps <= 0) return SB_OK;
    for (long c = 0; c < m->cfg.copies; c++) ref_chain(m, st, m->q + c * N, m->p + c * N, nsteps);
    m->step += nsteps;
    return SB_OK;
}

static int ref_mode_energies(nlc *m, double *ek)
{
    ref_state *st = m->dev;
    return nlc_modes_compute(st->modes, m->q, m->p, m->cfg.copies, 0, ek);
}

static int ref_download(nlc *m)
{
    (void)m; /* in place on the host arrays */
    return SB_OK;
}

const nlc_ops nlc_ops_reference = {ref_upload, ref_steps, ref_mode_energies, ref_download, ref_release, NULL, NULL, NULL};
