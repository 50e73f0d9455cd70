/* fullerene_ff: energy+gradient of an isomer and the CG optimiser, the oracle
 * (openmp_simd.c and cuda.cu mirror this algorithm; constants in optimise.h).
 *
 * Notation: x the 3N coordinates, g = grad E(x), d the search direction, a.b = sum over
 * the 3N components (in index order here; other backends may reduce in another order),
 * n = 3N, rms(g) = sqrt(g.g / n).
 *
 *   g = grad E(x)                                   (evaluation 1)
 *   if rms(g) <= gtol: done, converged, 0 iterations
 *   d = -g, k = 0 (iterations since the last restart), have_prev = 0
 *   for it = 1 .. maxit, while g.g is finite (a NaN or inf stops the isomer, not converged):
 *     s0 = g.d; if s0 >= 0: d = -g, s0 = -g.g, k = 0          (restart)
 *     first trial alpha:  have_prev ? alpha_prev * s0_prev / s0
 *                                   : FF_LS_STEP0 / sqrt(d.d / N)
 *     line search (below) -> alpha, x_new, g_new
 *     alpha_prev = alpha (the step taken), s0_prev = s0, have_prev = 1
 *     beta = max(0, g_new.(g_new - g) / g.g)                  (Polak-Ribiere+)
 *     k = k + 1; if k >= 3N: beta = 0, k = 0                   (periodic restart)
 *     d = -g_new + beta d; x = x_new; g = g_new
 *     if rms(g) <= gtol: converged, stop
 *
 * Line search on s(alpha) = grad E(x + alpha d).d, s(0) = s0 < 0:
 *   lo = 0, s_lo = s0, hi unset, last = -1 (sign of the last s; s0 counts as the first)
 *   alpha = first trial; repeat up to FF_LS_MAXEVAL times:
 *     evaluate g_t = grad E(x + alpha d) (x + alpha d per component), s = g_t.d
 *     if |s| <= FF_LS_CURV |s0|: accept alpha
 *     if s < 0: lo = alpha, s_lo = s; if hi is set and last < 0: s_hi = s_hi / 2
 *     else:     hi = alpha, s_hi = s; if last > 0: s_lo = s_lo / 2
 *     last = s < 0 ? -1 : +1
 *     alpha = hi unset ? 2 alpha                                   (bracketing by doubling)
 *                      : lo - s_lo (hi - lo) / (s_hi - s_lo)       (Illinois step)
 *   after FF_LS_MAXEVAL evaluations without acceptance the last evaluated point is taken;
 *   FF_LS_STALLS such searches in a row stop the isomer (stalled, not converged), and so
 *   does a best |g|^2 that has not fallen to a quarter for FF_PROGRESS_PER_ATOM N iterations.
 * The halving is the Illinois modification of regula falsi: an end kept twice in a row has
 * its s halved, so the false position cannot stall at one end.
 * Energy and gradient are always evaluated together (ff_energy_gradient); "evals" counts
 * every evaluation, the first one included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/ff_physics.h"
#include "fullerene_ff/optimise.h"

double ff_energy_gradient(int N, const ff_atom *g, const double *X, double *grad)
{
    ff_v3 own[4 * FF_MAX_N];
    double e = 0.0;
    for (int a = 0; a < N; a++) e += ff_atom_terms(a, &g[a], X, &own[4 * a]);
    for (int x = 0; x < N; x++) {
        const ff_v3 s = ff_gather_gradient(x, &g[x], own);
        grad[3 * x] = s.x, grad[3 * x + 1] = s.y, grad[3 * x + 2] = s.z;
    }
    return e;
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void ff_optimise(int N, const ff_atom *g, double *X, const ff_opts *o, ff_result *r)
{
    const int n = 3 * N;
    double *buf = malloc(sizeof(double) * 4 * (size_t)n);
    double *x = X, *xt = buf, *gr = buf + n, *gt = buf + 2 * n, *d = buf + 3 * n;
    r->iters = 0, r->converged = 0;
    if (!buf) {
        r->energy = NAN, r->grms = NAN, r->evals = 0, r->stalled = 0;
        return;
    }
    double e = ff_energy_gradient(N, g, x, gr);
    int evals = 1;
    ff_cg c;
    ff_cg_start(&c, N, o->gtol, o->maxit, dot(n, gr, gr));
    for (int i = 0; i < n; i++) d[i] = -gr[i];
    while (ff_cg_running(&c)) {
        double s0 = dot(n, gr, d);
        if (s0 >= 0) {
            for (int i = 0; i < n; i++) d[i] = -gr[i];
            s0 = ff_cg_restart(&c);
        }
        double alpha = ff_cg_first_alpha(&c, s0, ff_cg_needs_dd(&c) ? dot(n, d, d) : 0);
        /* line search */
        double et = 0, ae = alpha;
        int ok = 0;
        ff_ls ls;
        ff_ls_start(&ls, s0);
        for (int ev = 0; ev < FF_LS_MAXEVAL; ev++) {
            ae = alpha;
            for (int i = 0; i < n; i++) xt[i] = x[i] + alpha * d[i];
            et = ff_energy_gradient(N, g, xt, gt);
            evals++;
            const double s = dot(n, gt, d);
            if (ff_ls_step(&ls, &alpha, s)) {
                ok = 1;
                break;
            }
        }
        double num = 0;
        for (int i = 0; i < n; i++) num += gt[i] * (gt[i] - gr[i]);
        const double beta = ff_cg_beta(&c, ok, ae, s0, num);
        for (int i = 0; i < n; i++) d[i] = -gt[i] + beta * d[i];
        double *tmp = x;
        x = xt, xt = tmp;
        tmp = gr, gr = gt, gt = tmp;
        e = et;
        ff_cg_next(&c, dot(n, gr, gr));
    }
    if (x != X) memcpy(X, x, sizeof(double) * n);
    ff_cg_result(&c, e, evals, r);
    free(buf);
}
