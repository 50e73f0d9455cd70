/* dfratom_scf: closed-form radial integrals and the Fock-build summand, shared verbatim by
 * the scalar reference, the OpenMP backend and the CUDA kernels (so the backends differ only
 * in summation order).
 *
 * Radial two-electron integral of two Gaussian "densities" r^P e^(-a r^2) and r^Q e^(-b r^2):
 *   R^k(P,a;Q,b) = int int r1^P e^(-a r1^2) r2^Q e^(-b r2^2) r_<^k / r_>^(k+1) dr1 dr2
 *                = A(a,P;b,Q) + A(b,Q;a,P)       (A: the region r2 < r1).
 * With r2 = s r1 and w = b s^2 / (a + b s^2) (derivation in README.md):
 *   A(a,P;b,Q) = Gamma(n)/4 a^-n (a/b)^al B(b/(a+b); al, be),
 *   n = (P+Q+1)/2, al = (Q+k+1)/2, be = (P-k)/2,
 * B the incomplete beta function. al + be = n turns the prefactor of B's continued fraction
 * into (a+b)^-n, so nothing overflows for exponent ratios up to 1e12. be > 0 always: the
 * lowest power in a density is l1 + l2 + 2 > k (triangle rule). */
#ifndef DFR_MATH_H
#define DFR_MATH_H

#include <math.h>
#include <stddef.h>

#include "dfratom_scf/dfr.h"

#ifdef __CUDACC__
#define DFR_FN static __host__ __device__ inline
#else
#define DFR_FN static inline
#endif

/* Continued fraction of the regularised incomplete beta:
 * B(x; a, b) = x^a (1-x)^b / a * dfr_beta_cf(x, a, b), for x < (a+1)/(a+b+2) where it
 * converges in O(sqrt(max(a,b))) terms. The fraction is 1/(1 + d1/(1 + d2/(1 + ...))) with
 *   d1 = -(a+b) x/(a+1),  d2m = m (b-m) x / ((a+2m-1)(a+2m)),
 *   d2m+1 = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)).
 * Evaluated by the forward (Wallis) recurrence A_n = A_n-1 + d_n A_n-2 (B_n likewise), each
 * step multiplied through by the denominator of d_n, so the loop has no division: the
 * modified Lentz form spent six a step, which on the GPU (no FP64 divider) were most of a
 * Fock build. The ratio A_n/B_n is unchanged by the common factors; a rescale keeps them in
 * range. Stop when successive convergents agree to 2e-16 relative (checked after each
 * odd step, as Lentz's del - 1 was). */
DFR_FN double dfr_beta_cf(double x, double a, double b)
{
    const double eps = 2e-16;
    /* the first two convergents, 1/1 and 1/(1 + d1), both times a+1 */
    double A0 = a + 1.0, B0 = a + 1.0, A1 = a + 1.0, B1 = a + 1.0 - (a + b) * x;
    for (int m = 1; m <= 300; ++m) {
        double m2 = 2.0 * m, q = (a + m2 - 1.0) * (a + m2), p = m * (b - m) * x;
        double A2 = q * A1 + p * A0, B2 = q * B1 + p * B0; /* even step, times q */
        A0 = q * A1, B0 = q * B1;
        q = (a + m2) * (a + m2 + 1.0), p = -(a + m) * (a + b + m) * x;
        A1 = q * A2 + p * A0, B1 = q * B2 + p * B0; /* odd step */
        A0 = q * A2, B0 = q * B2;
        if (fabs(B1) > 1e100) { /* a step grows them by <= ~(a+2m)^4; a power of two: exact */
            A0 *= 0x1p-332, B0 *= 0x1p-332, A1 *= 0x1p-332, B1 *= 0x1p-332;
        }
        /* A1/B1 against the previous convergent A0/B0 (the same factor on both) */
        if (fabs(A1 * B0 - A0 * B1) < eps * fabs(A0 * B1)) break;
    }
    return A1 / B1;
}

/* Gamma(m/2) for m >= 1 by the recurrence from Gamma(1/2) = sqrt(pi), Gamma(1) = 1: the
 * arguments here are small half-integers, and tgamma costs ~100x more on the GPU */
DFR_FN double dfr_gamma_half(int m)
{
    double g = (m & 1) ? 1.7724538509055160273 : 1.0;
    for (int i = (m & 1) ? 1 : 2; i < m; i += 2) g *= 0.5 * i;
    return g;
}

/* The exponents of one radial integral and their logarithms: every term of the densities
 * shares them, so the logarithms are taken once */
typedef struct {
    double a, b, s, la, lb, ls;
} dfr_exps;

DFR_FN dfr_exps dfr_exps_make(double a, double b)
{
    dfr_exps e = {a, b, a + b, log(a), log(b), log(a + b)};
    return e;
}

/* A(a,P;b,Q) above, for multipole k (la = log a, ls = log(a+b)) */
DFR_FN double dfr_rk_half(int k, int P, double a, double la, int Q, double b, double lb, double s, double ls)
{
    int n2 = P + Q + 1, al2 = Q + k + 1, be2 = P - k; /* doubled n, al, be */
    double n = 0.5 * n2, al = 0.5 * al2, be = 0.5 * be2;
    double x = b / s, gn = dfr_gamma_half(n2);
    if (x < (al + 1.0) / (al + be + 2.0))
        return 0.25 * gn * exp(-n * ls) * dfr_beta_cf(x, al, be) / al;
    /* complement: B(x; al, be) = B(al, be) - B(1-x; be, al), both terms positive */
    double full = dfr_gamma_half(al2) * dfr_gamma_half(be2) / gn; /* Gamma(al + be) = Gamma(n) */
    return 0.25 * gn * (exp(-be * la - al * lb) * full - exp(-n * ls) * dfr_beta_cf(a / s, be, al) / be);
}

DFR_FN double dfr_rk_elem_e(int k, int P, int Q, const dfr_exps *e)
{
    return dfr_rk_half(k, P, e->a, e->la, Q, e->b, e->lb, e->s, e->ls) +
           dfr_rk_half(k, Q, e->b, e->lb, P, e->a, e->la, e->s, e->ls);
}

DFR_FN double dfr_rk_elem(int k, int P, double a, int Q, double b)
{
    dfr_exps e = dfr_exps_make(a, b);
    return dfr_rk_elem_e(k, P, Q, &e);
}

/* Terms of the product density g^X_i g^X_j (i in symmetry si, j in sj), equal powers merged:
 * returns the count (<= 3), powers in P, coefficients in C. */
DFR_FN int dfr_density(const dfr_sym *y, const dfr_fun *f, int X, int si, int i, int sj, int j, int *P, double *C)
{
    int n = 0;
    for (int t = 0; t < y->nterm[si][X]; ++t)
        for (int u = 0; u < y->nterm[sj][X]; ++u) {
            int p = y->pw[si][X][t] + y->pw[sj][X][u];
            double c = f[i].coef[X][t] * f[j].coef[X][u];
            int q = 0;
            while (q < n && P[q] != p) ++q;
            if (q == n) { P[n] = p; C[n] = 0.0; ++n; }
            C[q] += c;
        }
    return n;
}

/* Index of the pair of exponents (a, b), either order: pairs of the first n exponents come first */
DFR_FN long dfr_pair(int a, int b) { return a > b ? (long)a * (a + 1) / 2 + b : (long)b * (b + 1) / 2 + a; }

/* R^k(P, pair pa; Q, pair pb) from a candidate's table (dfr_etab in dfr.h) */
DFR_FN double dfr_etab_get(const dfr_etab *tb, const double *tab, int k, int P, int Q, long pa, long pb)
{
    if (P > Q) {
        int t = P;
        long u = pa;
        P = Q, Q = t, pa = pb, pb = u;
    }
    int c = tb->id[k][P][Q];
    return tab[tb->off[c] + pb * tb->na[c] + pa];
}

/* The two product densities of R^k(X i1 i2 | Y i3 i4): what every multipole k shares */
typedef struct {
    int n1, n2, P1[4], P2[4];
    double C1[4], C2[4];
} dfr_dens2;

DFR_FN void dfr_dens2_make(dfr_dens2 *d, const dfr_sym *y, const dfr_fun *f, int X, int s1, int i1, int s2, int i2,
                           int Y, int s3, int i3, int s4, int i4)
{
    d->n1 = dfr_density(y, f, X, s1, i1, s2, i2, d->P1, d->C1);
    d->n2 = dfr_density(y, f, Y, s3, i3, s4, i4, d->P2, d->C2);
}

/* R^k over basis functions: the density g^X_i1 g^X_i2 against g^Y_i3 g^Y_i4 (global indices) */
DFR_FN double dfr_rk(const dfr_sym *y, const dfr_fun *f, int k, int X, int s1, int i1, int s2, int i2, int Y,
                     int s3, int i3, int s4, int i4)
{
    dfr_dens2 d;
    dfr_dens2_make(&d, y, f, X, s1, i1, s2, i2, Y, s3, i3, s4, i4);
    dfr_exps e = dfr_exps_make(f[i1].zeta + f[i2].zeta, f[i3].zeta + f[i4].zeta);
    double r = 0.0;
    for (int p = 0; p < d.n1; ++p)
        for (int q = 0; q < d.n2; ++q) r += d.C1[p] * d.C2[q] * dfr_rk_elem_e(k, d.P1[p], d.P2[q], &e);
    return r;
}

/* The same from a candidate's table, pa and pb the densities' exponent pairs: the same terms,
 * summed in the same order */
DFR_FN double dfr_rk_tab(const dfr_dens2 *d, const dfr_etab *tb, const double *tab, int k, long pa, long pb)
{
    double r = 0.0;
    for (int p = 0; p < d->n1; ++p)
        for (int q = 0; q < d->n2; ++q) r += d->C1[p] * d->C2[q] * dfr_etab_get(tb, tab, k, d->P1[p], d->P2[q], pa, pb);
    return r;
}

/* Sum of the exponents of pair x (dfr_pair) of a candidate's functions f */
DFR_FN double dfr_etab_pair_sum(const dfr_etab *tb, const dfr_fun *f, long x)
{
    int a = (int)((sqrt(8.0 * (double)x + 1.0) - 1.0) * 0.5);
    while ((long)a * (a + 1) / 2 > x) --a;
    while ((long)(a + 1) * (a + 2) / 2 <= x) ++a;
    int b = (int)(x - (long)a * (a + 1) / 2);
    return f[tb->rep[a]].zeta + f[tb->rep[b]].zeta;
}

/* Entry r of a candidate's table: the elementary integral dfr_rk would evaluate */
DFR_FN double dfr_etab_entry(const dfr_etab *tb, const dfr_fun *f, long r)
{
    int lo = 0, hi = tb->ncombo - 1; /* the last combo starting at or before r */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tb->off[mid] <= r) lo = mid;
        else hi = mid - 1;
    }
    r -= tb->off[lo];
    long xa = r % tb->na[lo], xb = r / tb->na[lo];
    dfr_exps e = dfr_exps_make(dfr_etab_pair_sum(tb, f, xa), dfr_etab_pair_sum(tb, f, xb));
    return dfr_rk_elem_e(tb->k[lo], tb->P[lo], tb->Q[lo], &e);
}

/* Output element code of a G build: symmetry, block, row, column. */
DFR_FN int dfr_out_code(int s, int blk, int i, int j) { return ((s * 3 + blk) << 16) | (i << 8) | j; }
DFR_FN void dfr_out_decode(int code, int *s, int *blk, int *i, int *j)
{
    int sb = code >> 16;
    *s = sb / 3;
    *blk = sb % 3;
    *i = (code >> 8) & 255;
    *j = code & 255;
}

/* The coefficient of density element (m, n) of symmetry sp, block h, in output element
 * (s, blk, i, j) of G, so that G = sum T D' (D' weighted by the occupancy 2j'+1):
 *  LL or SS output (component X): h = 0 (D'LL) or 1 (D'SS),
 *      T = R^0(Xi Xj|h'm h'n) - [h == X] sum_k G^k R^k(Xi X'm|X'n Xj);
 *  LS output: only D'LS contributes (h ignored), T = -sum_k G^k R^k(Li L'm|S'n Sj). */
DFR_FN double dfr_t_entry(const dfr_sym *y, const dfr_fun *f, const dfr_etab *tb, const double *tab, int s, int blk,
                          int i, int j, int h, int sp, int m, int n)
{
    int gi = y->fun0[s] + i, gj = y->fun0[s] + j, gm = y->fun0[sp] + m, gn = y->fun0[sp] + n;
    int X = blk == DFR_SS ? 1 : 0, Y = blk == DFR_LS ? 1 : X; /* exchange: (Xi X'm|Y'n Yj) */
    double v = 0.0;
    if (tb) { /* the exchange densities once for every k: the table made the integrals cheap */
        const int *ex = tb->eidx;
        dfr_dens2 d;
        if (blk != DFR_LS) {
            dfr_dens2_make(&d, y, f, X, s, gi, s, gj, h, sp, gm, sp, gn);
            v = dfr_rk_tab(&d, tb, tab, 0, dfr_pair(ex[gi], ex[gj]), dfr_pair(ex[gm], ex[gn]));
        }
        if (blk == DFR_LS || h == X) {
            dfr_dens2_make(&d, y, f, X, s, gi, sp, gm, Y, sp, gn, s, gj);
            long pa = dfr_pair(ex[gi], ex[gm]), pb = dfr_pair(ex[gn], ex[gj]);
            for (int k = 0; k <= DFR_KMAX; ++k) {
                double g = y->gam[s][sp][k];
                if (g != 0.0) v -= g * dfr_rk_tab(&d, tb, tab, k, pa, pb);
            }
        }
        return v;
    }
    if (blk != DFR_LS) v = dfr_rk(y, f, 0, X, s, gi, s, gj, h, sp, gm, sp, gn);
    if (blk == DFR_LS || h == X)
        for (int k = 0; k <= DFR_KMAX; ++k) {
            double g = y->gam[s][sp][k];
            if (g != 0.0) v -= g * dfr_rk(y, f, k, X, s, gi, sp, gm, Y, sp, gn, s, gj);
        }
    return v;
}

/* The contribution of density element (m, n) of symmetry sp to G[blk](i, j) of symmetry s
 * (terms with a zero density skipped). D holds each symmetry's densities weighted by its
 * occupancy 2j'+1. */
DFR_FN double dfr_g_term(const dfr_sym *y, const dfr_fun *f, const double *D, int s, int blk, int i, int j,
                         int sp, int m, int n)
{
    int N = y->n[sp];
    const double *Dp = D + y->moff[sp] + m + (long)n * N;
    long NN = (long)N * N;
    if (blk == DFR_LS) return Dp[NN] == 0.0 ? 0.0 : Dp[NN] * dfr_t_entry(y, f, NULL, NULL, s, blk, i, j, 0, sp, m, n);
    double v = 0.0;
    if (Dp[0] != 0.0) v += Dp[0] * dfr_t_entry(y, f, NULL, NULL, s, blk, i, j, 0, sp, m, n);
    if (Dp[2 * NN] != 0.0) v += Dp[2 * NN] * dfr_t_entry(y, f, NULL, NULL, s, blk, i, j, 1, sp, m, n);
    return v;
}

/* Column e of a batch tensor's density-element range (sp-major, then column-major within the
 * symmetry's N x N block, as in the packed sets): its symmetry and indices */
DFR_FN void dfr_elem_decode(const dfr_sym *y, int e, int *sp, int *m, int *n)
{
    int s = 0;
    while (e >= y->n[s] * y->n[s]) e -= y->n[s] * y->n[s], ++s;
    *sp = s;
    *m = e % y->n[s];
    *n = e / y->n[s];
}

/* Element e of the packed upper triangles (sp-major, then column n, rows m <= n) */
DFR_FN void dfr_elem_decode_packed(const dfr_sym *y, int e, int *sp, int *m, int *n)
{
    int s = 0;
    while (e >= y->n[s] * (y->n[s] + 1) / 2) e -= y->n[s] * (y->n[s] + 1) / 2, ++s;
    int c = 0;
    while ((c + 1) * (c + 2) / 2 <= e) ++c;
    *sp = s;
    *n = c;
    *m = e - c * (c + 1) / 2;
}

/* Entry u of one candidate's batch tensor (dfr_tshape in dfr.h; outd, outx its row codes, on the
 * device their copies); tb, tab: the candidate's elementary-integral table, or NULL to evaluate
 * them. A T_d column m < n is the (m, n) coefficient plus the (n, m) one: x_d holds D(m, n) once. */
DFR_FN double dfr_tensor_entry(const dfr_sym *y, const dfr_fun *f, const dfr_etab *tb, const double *tab,
                               const dfr_tshape *t, const int *outd, const int *outx, long u)
{
    const long dsz = (long)t->nd * t->nh * t->Ed;
    int s, blk, i, j, sp, m, n;
    if (u < dsz) {
        const int col = (int)(u / t->nd), h = col >= t->Ed;
        dfr_out_decode(outd[u % t->nd], &s, &blk, &i, &j);
        dfr_elem_decode_packed(y, col - h * t->Ed, &sp, &m, &n);
        double v = dfr_t_entry(y, f, tb, tab, s, blk, i, j, h, sp, m, n);
        return m == n ? v : v + dfr_t_entry(y, f, tb, tab, s, blk, i, j, h, sp, n, m);
    }
    u -= dsz;
    dfr_out_decode(outx[u % t->nx], &s, &blk, &i, &j);
    dfr_elem_decode(y, (int)(u / t->nx), &sp, &m, &n);
    return dfr_t_entry(y, f, tb, tab, s, blk, i, j, 0, sp, m, n);
}

/* One output element: the sum over every symmetry and density element, in a fixed order */
DFR_FN double dfr_g_element(const dfr_sym *y, const dfr_fun *f, const double *D, int code)
{
    int s, blk, i, j;
    dfr_out_decode(code, &s, &blk, &i, &j);
    double v = 0.0;
    for (int sp = 0; sp < y->ns; ++sp)
        for (int n = 0; n < y->n[sp]; ++n)
            for (int m = 0; m < y->n[sp]; ++m) v += dfr_g_term(y, f, D, s, blk, i, j, sp, m, n);
    return v;
}

#endif
