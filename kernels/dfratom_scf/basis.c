/* dfratom_scf: well-tempered Gaussian spinor basis with restricted kinetic balance. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dfratom_scf/dfr.h"

/* Huzinaga-Klobukowski well-tempered sequence, k = 1 .. (1-based) */
double dfr_wtbs_zeta(const dfr_wtbs *w, int k)
{
    return w->alpha * pow(w->beta, k - 1) * (1.0 + w->gamma * pow((double)k / w->K, w->delta));
}

int dfr_wtbs_bad_k(const dfr_wtbs *w, int lmax)
{
    int lo = DFR_MAXN + 1, hi = 0;
    for (int l = 0; l <= lmax; ++l) {
        lo = w->start[l] < lo ? w->start[l] : lo;
        hi = w->start[l] + w->n[l] - 1 > hi ? w->start[l] + w->n[l] - 1 : hi;
    }
    double prev = 0.0;
    for (int k = lo; k <= hi; ++k) {
        const double zk = dfr_wtbs_zeta(w, k);
        if (!(isfinite(zk) && zk > prev)) return k;
        prev = zk;
    }
    return 0;
}

void dfr_wtbs_bad_what(const dfr_wtbs *w, int k, char *buf, size_t n)
{
    const double zk = dfr_wtbs_zeta(w, k), zp = k > 1 ? dfr_wtbs_zeta(w, k - 1) : 0.0;
    if (!(zk > 0.0) || k == 1 || !(zp > 0.0))
        snprintf(buf, n, "zeta_%d = %g bohr^-2, not positive", k, zk);
    else
        snprintf(buf, n, "zeta_%d = %g bohr^-2, not above zeta_%d = %g", k, zk, k - 1, zp);
}

int dfr_basis_build(const dfr_wtbs *w, int ns, dfr_sym *y, dfr_fun *f) { return dfr_basis_build_in(w, w, ns, y, f); }

int dfr_basis_build_in(const dfr_wtbs *w, const dfr_wtbs *u, int ns, dfr_sym *y, dfr_fun *f)
{
    memset(y, 0, sizeof *y);
    y->ns = ns;
    int nf = 0, moff = 0;
    for (int s = 0; s < ns; ++s) {
        int kappa = dfr_kappa[s], l = dfr_l(kappa), n = u->n[l];
        if (n < 1 || n > DFR_MAXN) {
            sb_error("dfratom_scf: %d basis functions for l=%d (accepted 1..%d)", n, l, DFR_MAXN);
            return SB_EXIT_USAGE;
        }
        const int lo = w->start[l] - u->start[l], hi = lo + w->n[l]; /* w's range within u's */
        if (lo < 0 || hi > n) {
            sb_error("dfratom_scf: l=%d range %d..%d does not lie within the shape %d..%d", l, w->start[l],
                     w->start[l] + w->n[l] - 1, u->start[l], u->start[l] + n - 1);
            return SB_EXIT_RUNTIME;
        }
        y->n[s] = n;
        y->fun0[s] = nf;
        y->moff[s] = moff;
        moff += 3 * n * n;
        y->nterm[s][0] = 1;
        y->pw[s][0][0] = l + 1;
        /* (d/dr + kappa/r) r^(l+1) e^(-z r^2) = (l+1+kappa) r^l e - 2z r^(l+2) e;
         * l+1+kappa = 0 for kappa < 0 and 2l+1 for kappa > 0 */
        if (kappa < 0) {
            y->nterm[s][1] = 1;
            y->pw[s][1][0] = l + 2;
        } else {
            y->nterm[s][1] = 2;
            y->pw[s][1][0] = l;
            y->pw[s][1][1] = l + 2;
        }
        for (int i = 0; i < n; ++i) {
            double z = dfr_wtbs_zeta(w, u->start[l] + i);
            /* int_0^inf r^(2l+2) e^(-2 z r^2) dr = Gamma(l+3/2) / (2 (2z)^(l+3/2)) */
            double norm = 1.0 / sqrt(tgamma(l + 1.5) / (2.0 * pow(2.0 * z, l + 1.5)));
            dfr_fun *g = &f[nf + i];
            memset(g, 0, sizeof *g);
            g->zeta = z;
            if (i < lo || i >= hi) continue; /* padding: zero coefficients */
            g->coef[0][0] = norm;
            if (kappa < 0) {
                g->coef[1][0] = -2.0 * z * norm;
            } else {
                g->coef[1][0] = (2 * l + 1) * norm;
                g->coef[1][1] = -2.0 * z * norm;
            }
        }
        nf += n;
    }
    y->nf = nf;
    dfr_angular(y);
    return SB_OK;
}
