/* dfratom_scf closed forms against independent numerics (no expected value here comes from the
 * code under test):
 *   R^k(P,a;Q,b)  vs a 2D long-double quadrature (Gauss-Legendre panels in ln r; inner integrals
 *                 accumulated panel by panel): 1e-12 relative. k = 0..6, powers as the densities
 *                 make them (plus a few of the other parity), b/a = 1e-8 .. 1e8 and astride both
 *                 continued-fraction switch points, three exponent scales. (ss|ss) against
 *                 sqrt(pi)/(8ab sqrt(a+b)) checks the code (1e-13) and the quadrature (1e-15).
 *   dfr_beta_cf   vs the incomplete beta integrated numerically: 1e-13 relative.
 *   S, V          vs quadrature of basis functions written out here (own normalisation, own small
 *                 component (d/dr + kappa/r) g^L, point and Gaussian nucleus, and the finite-nucleus
 *                 shift V_gauss - V_point on its own): 1e-12 of sqrt(M_ii M_jj).
 *   Gamma^k       vs 3j symbols built here with lowering operators (not Racah's formula), hand
 *                 values, the sum rule and the parity zeros: 1e-14.
 *   atoms         closed-shell occupations, input errors, Visscher-Dyall nuclear exponents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr_math.h"

typedef long double ld;
#define NGL 20       /* Gauss-Legendre nodes per panel */
#define HPANEL 0.25L /* panel width in u = ln r. r^m e^(-b r^2) is ~1/sqrt(2m) wide in u: halving
                      * the panels changes no reported error (the references agree to ~1e-18) */
static ld glx[NGL], glw[NGL];
static ld glS[NGL][NGL]; /* int_-1^x_i l_j: integral up to node i of the interpolant through the nodes */

static void legendre(ld x, ld *P) /* P_0 .. P_NGL at x */
{
    P[0] = 1;
    P[1] = x;
    for (int n = 2; n <= NGL; ++n) P[n] = ((2 * n - 1) * x * P[n - 1] - (n - 1) * P[n - 2]) / n;
}

static void gl_init(void) /* nodes: Newton on P_NGL from the Chebyshev guess */
{
    ld P[NGL][NGL + 1];
    for (int i = 0; i < NGL; ++i) {
        ld x = cosl(3.14159265358979323846264338L * (i + 0.75L) / (NGL + 0.5L)), dp = 1, dx = 1;
        for (int it = 0; it < 100 && fabsl(dx) > 1e-21L; ++it) {
            legendre(x, P[i]);
            dp = NGL * (x * P[i][NGL] - P[i][NGL - 1]) / (x * x - 1);
            x -= dx = P[i][NGL] / dp;
        }
        glx[i] = x;
        glw[i] = 2 / ((1 - x * x) * dp * dp);
        legendre(x, P[i]);
    }
    /* l_j = w_j sum_n (n+1/2) P_n(x_j) P_n;  int_-1^x P_n = (P_n+1 - P_n-1)/(2n+1), n = 0: x+1 */
    for (int i = 0; i < NGL; ++i)
        for (int j = 0; j < NGL; ++j) {
            ld t = (glx[i] + 1) / 2;
            for (int n = 1; n < NGL; ++n) t += P[j][n] * (P[i][n + 1] - P[i][n - 1]) / 2;
            glS[i][j] = glw[j] * t;
        }
}

/* int_r0^r1 h(r) dr in u = ln r; at least 64 panels for short ranges of steep h */
typedef ld (*fn1)(ld r, const void *c);
static ld quad(fn1 h, const void *c, ld r0, ld r1)
{
    ld u0 = logl(r0), s = 0;
    int np = (int)fmaxl(64, ceill((logl(r1) - u0) / HPANEL));
    ld du = (logl(r1) - u0) / np;
    for (int p = 0; p < np; ++p)
        for (int i = 0; i < NGL; ++i) {
            ld r = expl(u0 + (p + 0.5L) * du + du / 2 * glx[i]);
            s += glw[i] * du / 2 * h(r, c) * r;
        }
    return s;
}

/* ---- R^k ---- */
/* R^k = int dr1 f(r1) [r1^-(k+1) int_0^r1 r2^k g + r1^k int_r1^inf r2^-(k+1) g], f = r^P e^(-a r^2),
 * g = r^Q e^(-b r^2). The inner integrals at an outer node: whole panels below (above) plus the
 * part of its own panel from the node values through glS, so the cost is linear in the panels.
 * Range: (1e-7 of the tightest width)^(P+k+1 >= 3) relative below, e^-100 above. */
#define MAXP 256
static ld rk_num(int k, int P, ld a, int Q, ld b)
{
    static ld hin[MAXP][NGL], hout[MAXP][NGL], below[MAXP + 1], above[MAXP + 1];
    ld u0 = logl(1e-7L / sqrtl(fmaxl(a, b))), u1 = logl(sqrtl(100 / fminl(a, b))), s = 0, d = HPANEL / 2;
    int np = (int)ceill((u1 - u0) / HPANEL);
    assert_true(np <= MAXP);
    below[0] = above[np] = 0;
    for (int p = 0; p < np; ++p) { /* d r h(r) at the nodes (dr = r du), panel totals */
        ld tin = 0, tout = 0;
        for (int i = 0; i < NGL; ++i) {
            ld u = u0 + (p + 0.5L) * HPANEL + d * glx[i], r2 = expl(2 * u);
            tin += glw[i] * (hin[p][i] = d * expl((Q + k + 1) * u - b * r2));
            tout += glw[i] * (hout[p][i] = d * expl((Q - k) * u - b * r2));
        }
        below[p + 1] = below[p] + tin;
        above[p] = tout;
    }
    for (int p = np - 1; p >= 0; --p) above[p] += above[p + 1];
    for (int p = 0; p < np; ++p)
        for (int i = 0; i < NGL; ++i) {
            ld u = u0 + (p + 0.5L) * HPANEL + d * glx[i], r = expl(u), pin = 0, pout = 0;
            for (int j = 0; j < NGL; ++j) {
                pin += glS[i][j] * hin[p][j];
                pout += (glw[j] - glS[i][j]) * hout[p][j];
            }
            ld F = (below[p] + pin) / powl(r, k + 1) + powl(r, k) * (above[p + 1] + pout);
            s += glw[i] * d * r * powl(r, P) * expl(-a * r * r) * F;
        }
    return s;
}

static void rk_closed_form(void **state)
{
    (void)state;
    double emax = 0, eq = 0;
    const double ab[][2] = {{1, 1}, {0.3, 7}, {2e-3, 5e5}, {40, 4e-6}};
    for (int i = 0; i < 4; ++i) { /* (ss|ss): the code and the quadrature against the closed form */
        double a = ab[i][0], b = ab[i][1], ex = 1.7724538509055160273 / (8 * a * b * sqrt(a + b));
        double e1 = fabs(dfr_rk_elem(0, 2, a, 2, b) / ex - 1), e2 = fabs((double)(rk_num(0, 2, a, 2, b) / ex) - 1);
        assert_true(e1 < 1e-13);
        assert_true(e2 < 1e-15);
        eq = fmax(eq, fmax(e1, e2));
    }
    const double base[] = {0.7, 3.3e4, 2e-3}; /* the scale: exp(-n log(a+b)) and friends */
    for (int k = 0; k <= 6; ++k) {
        /* P, Q >= k + 2 with P - k even as the densities make them; the last two: the other parity */
        const int pq[][2] = {{k + 2, k + 2}, {k + 2, k + 4}, {k + 4, k + 2}, {k + 4, k + 4}, {k + 2, k + 8},
                             {k + 8, k + 2}, {k + 8, k + 8}, {k + 3, k + 2}, {k + 2, k + 5}};
        for (int c = 0; c < 9; ++c) {
            int P = pq[c][0], Q = pq[c][1];
            /* b/a where x = b/(a+b) of A(a,P;b,Q) meets (al+1)/(al+be+2): (al+1)/(be+1), al = (Q+k+1)/2,
             * be = (P-k)/2; and where x = a/(a+b) of A(b,Q;a,P) does: P and Q swapped, a/b */
            double sw1 = ((Q + k + 1) / 2.0 + 1) / ((P - k) / 2.0 + 1);
            double sw2 = ((Q - k) / 2.0 + 1) / ((P + k + 1) / 2.0 + 1);
            const double ratio[] = {1,   1e3, 1e-3, 1e8, 1e-8, sw1, sw1 * (1 + 1e-9), sw1 * (1 - 1e-9),
                                    sw2, sw2 * (1 + 1e-9), sw2 * (1 - 1e-9)};
            for (int t = 0; t < 11; ++t) {
                double a = base[(c + t) % 3], b = a * ratio[t];
                ld ref = rk_num(k, P, a, Q, b);
                double e = fabs((double)((dfr_rk_elem(k, P, a, Q, b) - ref) / ref));
                if (e >= 1e-12) print_error("R^%d(%d,%g;%d,%g): rel err %.3g\n", k, P, a, Q, b, e);
                assert_true(e < 1e-12);
                emax = fmax(emax, e);
            }
        }
    }
    print_message("R^k: max rel err %.3g ((ss|ss) closed form %.3g)\n", emax, eq);
}

/* ---- incomplete beta ---- */
/* B(x;a,b) = x^a int_0^1 t^(a-1) (1-xt)^(b-1) dt: in u = ln t the integrand t^a (...) is smooth */
typedef struct { ld x, a, b; } bt;
static ld bt_f(ld t, const void *c) { const bt *p = c; return powl(t, p->a - 1) * powl(1 - p->x * t, p->b - 1); }

static void beta_cf(void **state)
{
    (void)state;
    /* half-integers as used; near the switch; a ~ 250 needs ~30 terms (a cap of 25 fails) */
    const double cs[][3] = {{0.3, 1.5, 2},  {0.05, 4.5, 1},    {0.45, 3.5, 3},   {0.6, 7.5, 4},
                            {1e-6, 2.5, 5}, {0.49, 0.5, 0.5},  {0.707, 30.5, 12}, {0.15, 1, 9.5},
                            {0.9, 60, 3},   {0.498, 250.5, 250}};
    double emax = 0;
    for (int i = 0; i < 10; ++i) {
        double x = cs[i][0], a = cs[i][1], b = cs[i][2];
        assert_true(x < (a + 1) / (a + b + 2)); /* the documented domain */
        bt p = {x, a, b};
        /* below t0: t^a < e^-46 (1-x)^(b-1), the integrand's value at t = 1 */
        ld t0 = expl(-(46 - fminl(0, (b - 1) * log1pl(-x))) / a), ref = powl(x, a) * quad(bt_f, &p, t0, 1);
        double got = pow(x, a) * pow(1 - x, b) / a * dfr_beta_cf(x, a, b), e = fabs((double)((got - ref) / ref));
        if (e >= 1e-13) print_error("B(%g;%g,%g): %.17g vs %.17Lg\n", x, a, b, got, ref);
        assert_true(e < 1e-13);
        emax = fmax(emax, e);
    }
    print_message("beta_cf: max rel err %.3g\n", emax);
}

/* ---- one-electron matrices ---- */
/* X: 0 = L, 1 = S; pot: 0 none, 1 -Z/r, 2 -Z erf(sx r)/r, 3 +Z erfc(sx r)/r */
typedef struct { int l, kappa, X, pot; ld z1, z2, n1, n2, Z, sx; } me;
/* g^L = n r^(l+1) e^(-z r^2);  g^S = (d/dr + kappa/r) g^L = n [(l+1+kappa) r^l - 2z r^(l+2)] e^(-z r^2) */
static ld bf(const me *c, ld z, ld n, ld r)
{
    ld e = n * expl(-z * r * r);
    return c->X ? e * ((c->l + 1 + c->kappa) * powl(r, c->l) - 2 * z * powl(r, c->l + 2)) : e * powl(r, c->l + 1);
}
static ld me_f(ld r, const void *v)
{
    const me *c = v;
    ld w = c->pot == 0 ? 1 : c->pot == 1 ? -c->Z / r : c->pot == 2 ? -c->Z * erfl(c->sx * r) / r
                                                                   : c->Z * erfcl(c->sx * r) / r;
    return bf(c, c->z1, c->n1, r) * bf(c, c->z2, c->n2, r) * w;
}
static ld me_num(const me *c) /* lower end: r^2 (V^SS of p1/2) down to 1e-20 of either scale */
{
    return quad(me_f, c, 1e-10L / sqrtl(c->z1 + c->z2 + c->sx * c->sx), sqrtl(100 / (c->z1 + c->z2)));
}

/* Every symmetry of basis w for Z = 54; returns the largest |V_gauss/V_point - 1| */
#define NB 16
static double one_basis(const dfr_wtbs *w, double *emax)
{
    static dfr_sym y;
    static dfr_fun f[DFR_NSYM * DFR_MAXN];
    assert_int_equal(dfr_basis_build(w, DFR_NSYM, &y, f), SB_OK);
    dfr_scf_opts po = {137.036, DFR_NUC_POINT, 0, DFR_DIRAC, 1, 0, 0, 0, 0, 0, 0, 0},
                 go = {137.036, DFR_NUC_GAUSS, dfr_xi_from_mass(132), DFR_DIRAC, 1, 0, 0, 0, 0, 0, 0, 0};
    long sz = dfr_set_size(&y);
    double *S = calloc(3 * sz, sizeof *S), *Vp = S + sz, *Vg = Vp + sz, shift = 0;
    assert_non_null(S);
    dfr_oneint(&y, f, 54, &po, S, Vp);
    dfr_oneint(&y, f, 54, &go, S, Vg);
    for (int s = 0; s < DFR_NSYM; ++s) {
        int kappa = dfr_kappa[s], l = dfr_l(kappa), N = y.n[s];
        assert_int_equal(N, w->n[l]);
        assert_true(N <= NB);
        ld z[NB], nrm[NB], ref[4][NB * NB]; /* S, V point, V Gauss, the finite-nucleus shift */
        for (int i = 0; i < N; ++i) {
            z[i] = w->alpha * powl(w->beta, w->start[l] - 1 + i); /* gamma = 0 */
            assert_true(fabsl(f[y.fun0[s] + i].zeta / z[i] - 1) < 1e-15);
            me c = {l, kappa, 0, 0, z[i], z[i], 1, 1, 0, 0};
            nrm[i] = 1 / sqrtl(me_num(&c)); /* own normalisation, numerically */
        }
        for (int X = 0; X < 2; ++X) {
            for (int q = 0; q < 4 * N * N; ++q) {
                int p = q / (N * N), i = q % N, j = q / N % N;
                me c = {l, kappa, X, p, z[i], z[j], nrm[i], nrm[j], 54, sqrtl(go.xi)};
                ref[p][q % (N * N)] = me_num(&c);
            }
            for (int ij = 0; ij < N * N; ++ij) {
                int i = ij % N, j = ij / N;
                long e = y.moff[s] + 2L * X * N * N + ij;
                double got[4] = {S[e], Vp[e], Vg[e], Vg[e] - Vp[e]};
                for (int p = 0; p < 4; ++p) { /* the weights 1, Z/r, erf, erfc are >= 0: Cauchy-Schwarz scale */
                    double sc = (double)sqrtl(ref[p][i * (N + 1)] * ref[p][j * (N + 1)]);
                    /* the shift, a difference of two doubles each good to a few ulp: 1e-14 |V| more */
                    double err = fabs((double)(got[p] - ref[p][ij])) / sc;
                    double tol = 1e-12 + (p == 3 ? 1e-14 * fabs(Vp[e]) / sc : 0);
                    if (err >= tol) print_error("s%d X%d (%d,%d) p%d: %.17g %.17Lg\n", s, X, i, j, p, got[p], ref[p][ij]);
                    assert_true(err < tol);
                    emax[p] = fmax(emax[p], err / tol);
                }
                if (X == 0 && i == j) assert_true(fabs(S[e] - 1) < 1e-14);
                shift = fmax(shift, fabs(got[3] / Vp[e]));
            }
        }
    }
    free(S);
    return shift;
}

static void one_electron(void **state)
{
    (void)state;
    double emax[4] = {0};
    /* a small basis (zeta 0.5 .. 121: the nucleus barely shows) and a tight one (zeta to 1e9, far
     * inside the xi ~ 1.8e8 nucleus, where the shift is O(1)) */
    dfr_wtbs w1 = {0.5, 3, 0, 0, 6, {6, 4, 3, 2}, {1, 1, 2, 2}}, w2 = {1e3, 10, 0, 0, 7, {7, 5, 4, 3}, {1, 2, 3, 3}};
    double sh1 = one_basis(&w1, emax), sh2 = one_basis(&w2, emax);
    assert_true(sh2 > 0.1);
    print_message("err/tol: S %.3g, V point %.3g, V Gauss %.3g, shift %.3g; max shift/V %.3g, %.3g\n", emax[0],
                  emax[1], emax[2], emax[3], sh1, sh2);
}

/* ---- angular coefficients ---- */
/* (j k j'; 1/2 0 -1/2)^2 = <j 1/2, k 0 | j' 1/2>^2 / (2j'+1), the Clebsch-Gordan coefficient read off
 * the coupled state |j' 1/2> built in the product basis |m1 m2>: each |J J> is the unit vector along
 * m1 = j made orthogonal to the higher J (Gram-Schmidt; its m1 = j component positive: Condon-Shortley),
 * then lowered by J- = J1- + J2- down to M = 1/2. Doubled arguments tj = 2j; k integer. */
static double my3j_sq(int tj, int k, int tjp)
{
    int n = (tj + 1) * (2 * k + 1), tJmin = abs(tj - 2 * k), tJmax = tj + 2 * k;
    if (tjp < tJmin || tjp > tJmax) return 0.0;
    static double st[8][11][8 * 15]; /* [(tJmax - tJ)/2][(tJ - tM)/2]: |J M>; j <= 7/2, k <= 7 */
    memset(st, 0, sizeof st);
#define IX(tm1, m2) (((tm1) + tj) / 2 * (2 * k + 1) + (m2) + k)
    for (int tJ = tJmax, a = 0; tJ >= tJmin; tJ -= 2, ++a) {
        double *v = st[a][0], nn = 0;
        v[IX(tj, (tJ - tj) / 2)] = 1.0;
        for (int pass = 0; pass < 2; ++pass)
            for (int b = 0; b < a; ++b) { /* the higher J at M = J */
                const double *u = st[b][(tJmax - 2 * b - tJ) / 2];
                double d = 0;
                for (int e = 0; e < n; ++e) d += u[e] * v[e];
                for (int e = 0; e < n; ++e) v[e] -= d * u[e];
            }
        for (int e = 0; e < n; ++e) nn += v[e] * v[e];
        nn = (v[IX(tj, (tJ - tj) / 2)] > 0 ? 1 : -1) / sqrt(nn);
        for (int e = 0; e < n; ++e) v[e] *= nn;
        for (int tM = tJ, c = 0; tM > 1; tM -= 2, ++c) { /* |J M-1> = J- |J M> / sqrt((J+M)(J-M+1)) */
            const double *u = st[a][c];
            double *w = st[a][c + 1], f = 1 / sqrt((tJ + tM) * (tJ - tM + 2) / 4.0);
            for (int tm1 = -tj; tm1 <= tj; tm1 += 2)
                for (int m2 = -k; m2 <= k; ++m2) {
                    double x = u[IX(tm1, m2)] * f;
                    if (tm1 > -tj) w[IX(tm1 - 2, m2)] += x * sqrt((tj + tm1) * (tj - tm1 + 2) / 4.0);
                    if (m2 > -k) w[IX(tm1, m2 - 1)] += x * sqrt((double)(k + m2) * (k - m2 + 1));
                }
        }
    }
    double cg = st[(tJmax - tjp) / 2][(tjp - 1) / 2][IX(1, 0)];
#undef IX
    return cg * cg / (tjp + 1);
}

static void angular(void **state)
{
    (void)state;
    static dfr_sym y;
    static dfr_fun f[DFR_NSYM * DFR_MAXN];
    dfr_wtbs w = {0.5, 3, 0, 0, 6, {6, 4, 3, 2}, {1, 1, 1, 1}};
    assert_int_equal(dfr_basis_build(&w, 3, &y, f), SB_OK); /* fills gam for all 7 symmetries */
    /* hand values: (j 0 j; m 0 -m)^2 = 1/(2j+1); (j 1 j; m 0 -m)^2 = m^2/(j(j+1)(2j+1));
     * (j 2 j; m 0 -m)^2 = 4 (3m^2 - j(j+1))^2 / ((2j-1)2j(2j+1)(2j+2)(2j+3)) (Edmonds table 2);
     * 3j^2 is invariant under column swaps: (1/2 k 3/2; 1/2 0 -1/2)^2 = <k 0, 1/2 1/2 | 3/2 1/2>^2/4,
     * from the j1 x 1/2 table: k = 1: (j1+m+1/2)/(2j1+1) = 2/3; k = 2: (j1-m+1/2)/(2j1+1) = 2/5 */
    const struct { int tj, k, tjp; double v; } hand[] = {
        {1, 0, 1, 1.0 / 2}, {3, 0, 3, 1.0 / 4},  {5, 0, 5, 1.0 / 6},  {7, 0, 7, 1.0 / 8},  {1, 1, 1, 1.0 / 6},
        {1, 1, 3, 1.0 / 6}, {3, 1, 3, 1.0 / 60}, {3, 2, 3, 1.0 / 20}, {1, 2, 3, 1.0 / 10}, {1, 3, 3, 0}};
    for (unsigned i = 0; i < sizeof hand / sizeof *hand; ++i)
        assert_true(fabs(my3j_sq(hand[i].tj, hand[i].k, hand[i].tjp) - hand[i].v) < 1e-15);
    /* the same in the table: s-s k0, p3/2 k0, s-p1/2 k1, s-p3/2 k1, p3/2 k2, p1/2-p3/2 k2, and the
     * parity zeros where the 3j is 1/60 (p3/2 k1) and 1/6 (s-s k1) */
    const struct { int s, t, k; double v; } tab[] = {{0, 0, 0, 0.5},      {2, 2, 0, 0.25}, {0, 1, 1, 1.0 / 6},
                                                    {0, 2, 1, 1.0 / 6}, {2, 2, 2, 0.05}, {1, 2, 2, 0.1},
                                                    {2, 2, 1, 0},       {0, 0, 1, 0}};
    for (int i = 0; i < 8; ++i) assert_true(fabs(y.gam[tab[i].s][tab[i].t][tab[i].k] - tab[i].v) < 1e-15);
    for (int s = 0; s < DFR_NSYM; ++s)
        for (int t = 0; t < DFR_NSYM; ++t) {
            int ka = dfr_kappa[s], kb = dfr_kappa[t], tj = 2 * abs(ka) - 1, tjp = 2 * abs(kb) - 1;
            double all = 0, even = 0;
            for (int k = 0; k <= DFR_KMAX; ++k) {
                double v = my3j_sq(tj, k, tjp);
                int allowed = (dfr_l(ka) + k + dfr_l(kb)) % 2 == 0;
                all += (2 * k + 1) * v;
                even += (2 * k + 1) * y.gam[s][t][k];
                if (allowed) assert_true(fabs(y.gam[s][t][k] - v) < 1e-14);
                else assert_true(y.gam[s][t][k] == 0.0);
            }
            /* orthogonality over k (every k <= j + j' <= 7 is in the loop); the parity-allowed k
             * carry exactly half of it (checks that the table misses no k) */
            assert_true(fabs(all - 1) < 1e-14);
            assert_true(fabs(even - 0.5) < 1e-14);
        }
}

/* ---- atoms ---- */
static void atoms(void **state)
{
    (void)state;
    dfr_atom a;
    /* Xe: 1s-5s, 2p-5p, 3d 4d; iodide the same; Rn: 6s 4f 5d 6p after Xe; Yb: 4f before 5d */
    const struct { const char *sym; int charge, nocc[DFR_NSYM]; } ok[] = {
        {"Xe", 0, {5, 4, 4, 2, 2, 0, 0}}, {"I", -1, {5, 4, 4, 2, 2, 0, 0}}, {"Rn", 0, {6, 5, 5, 3, 3, 1, 1}},
        {"Yb", 0, {6, 4, 4, 2, 2, 1, 1}}, {"He", 0, {1, 0, 0, 0, 0, 0, 0}}, {"Xe", 53, {1, 0, 0, 0, 0, 0, 0}}};
    for (int i = 0; i < 6; ++i) {
        assert_int_equal(dfr_atom_parse(ok[i].sym, ok[i].charge, &a), SB_OK);
        assert_memory_equal(a.nocc, ok[i].nocc, sizeof a.nocc);
        assert_int_equal(a.one_electron, ok[i].charge == 53);
    }
    assert_true(a.Z == 54 && a.nelec == 1); /* Xe53+ */
    assert_int_equal(dfr_atom_parse("Xe", 0, &a), SB_OK);
    assert_true(a.Z == 54 && a.nelec == 54 && a.mass == 132);
    /* open shells (C, Xe+), unknown (and case-sensitive) symbols, no electrons left */
    const struct { const char *sym; int charge; } bad[] = {{"C", 0},  {"Xe", 1}, {"Qq", 0}, {"xe", 0},
                                                          {"He", 2}, {"He", 3}, {"Xe", 54}};
    for (int i = 0; i < 7; ++i) assert_int_equal(dfr_atom_parse(bad[i].sym, bad[i].charge, &a), SB_EXIT_USAGE);
    /* Visscher-Dyall Table I exponents (bohr^-2) as printed, 11 digits (data/REFERENCES.md, from BAGEL) */
    const struct { int Z, A; double xi; } vd[] = {{2, 4, 1.1671538870e9}, {54, 132, 1.8030529331e8},
                                                 {86, 222, 1.3242350205e8}};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(dfr_default_mass(vd[i].Z), vd[i].A);
        assert_true(fabs(dfr_xi_from_mass(vd[i].A) / vd[i].xi - 1) < 1e-10);
    }
}

int main(void)
{
    gl_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rk_closed_form), cmocka_unit_test(beta_cf), cmocka_unit_test(one_electron),
        cmocka_unit_test(angular),        cmocka_unit_test(atoms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
