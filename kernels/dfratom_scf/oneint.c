/* dfratom_scf: one-electron radial integrals in closed form. */
#include <math.h>
#include <string.h>

#include "dfratom_scf/dfr.h"

/* int_0^inf r^n e^(-a r^2) dr */
static double gauss_moment(int n, double a) { return tgamma(0.5 * (n + 1)) / (2.0 * pow(a, 0.5 * (n + 1))); }

/* int_0^inf r^(2m-1) e^(-a r^2) erf(b r) dr = Gamma(m+1/2)/sqrt(pi) J_m,
 * J_m = int_0^b (a + t^2)^-(m+1/2) dt, J_1 = b / (a sqrt(a+b^2)),
 * J_(m+1) = [b (a+b^2)^-(m+1/2) + 2m J_m] / ((2m+1) a)   (all terms positive: stable upwards) */
static double erf_moment(int m, double a, double b)
{
    double ab = a + b * b, J = b / (a * sqrt(ab));
    for (int i = 1; i < m; ++i) J = (b * pow(ab, -(i + 0.5)) + 2.0 * i * J) / ((2.0 * i + 1.0) * a);
    const double sqrt_pi = 1.7724538509055160273;
    return tgamma(m + 0.5) / sqrt_pi * J;
}

/* <r^p1 e^(-z1 r^2) | V | r^p2 e^(-z2 r^2)> for V = -Z/r (point) or -Z erf(sqrt(xi) r)/r */
static double nuclear(int n, double a, int Z, const dfr_scf_opts *o)
{
    if (o->nucleus == DFR_NUC_POINT) return -Z * gauss_moment(n - 1, a);
    return -Z * erf_moment(n / 2, a, sqrt(o->xi)); /* n is even: r^(n-1) is odd */
}

void dfr_oneint(const dfr_sym *y, const dfr_fun *f, int Z, const dfr_scf_opts *o, double *S, double *V)
{
    memset(S, 0, sizeof(double) * dfr_set_size(y));
    memset(V, 0, sizeof(double) * dfr_set_size(y));
    for (int s = 0; s < y->ns; ++s) {
        int N = y->n[s];
        for (int X = 0; X < 2; ++X) {
            long off = y->moff[s] + (X ? 2L * N * N : 0);
            for (int j = 0; j < N; ++j)
                for (int i = 0; i < N; ++i) {
                    const dfr_fun *fi = &f[y->fun0[s] + i], *fj = &f[y->fun0[s] + j];
                    double a = fi->zeta + fj->zeta, sv = 0.0, vv = 0.0;
                    for (int t = 0; t < y->nterm[s][X]; ++t)
                        for (int u = 0; u < y->nterm[s][X]; ++u) {
                            int n = y->pw[s][X][t] + y->pw[s][X][u];
                            double c = fi->coef[X][t] * fj->coef[X][u];
                            sv += c * gauss_moment(n, a);
                            vv += c * nuclear(n, a, Z, o);
                        }
                    S[off + i + (long)j * N] = sv;
                    V[off + i + (long)j * N] = vv;
                }
        }
    }
}
