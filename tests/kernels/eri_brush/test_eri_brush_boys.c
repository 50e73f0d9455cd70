/* eri_brush Boys function against an independent __float128 evaluation (arithmetic only:
 * exp and sqrt are written here, so no libquadmath is needed):
 *   T < 25:  F_m(T) = sum_k (-T)^k / (k! (2m+2k+1)), the alternating Taylor series about 0
 *            (cancellation costs at most e^25 ~ 7e10 of float128's 1e-34);
 *   T >= 25: F_m(T) = [Gamma(m+1/2) - Gamma(m+1/2, T)] / (2 T^(m+1/2)), the upper incomplete
 *            gamma from its asymptotic series truncated at the smallest term.
 * Neither is the table's method (e^{-T} times a positive series), and the two are checked
 * against each other over 20 <= T <= 30. Every m = 0..12 and every mmax = 0..12 must be
 * within 1e-14 absolute for T on a 1/64 grid over 0..100 (the table's grid points, its
 * midpoints, where the rounding to the nearest point flips, and between), tiny T, the
 * switch to the asymptotic form, and pseudo-random T. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eri_brush/boys.h"

typedef __float128 quad;
#define MT 12 /* highest m checked */

static quad q_abs(quad x) { return x < 0 ? -x : x; }

/* e^x for x <= 0: x / 2^k below 2^-8, Taylor, then k squarings. */
static quad q_exp(quad x)
{
    int k = 0;
    while (q_abs(x) > (quad)(1.0 / 256)) x /= 2, k++;
    quad s = 1, t = 1;
    for (int n = 1; n < 30; n++) t = t * x / n, s += t;
    while (k-- > 0) s *= s;
    return s;
}

static quad q_sqrt(quad x)
{
    quad y = (quad)sqrt((double)x);
    for (int i = 0; i < 3; i++) y = (y + x / y) / 2;
    return y;
}

static quad q_pi(void) { return (quad)3.141592653589793116 + (quad)1.2246467991473532e-16; }

static void ref_small(double Td, quad *F)
{
    const quad T = Td;
    for (int m = 0; m <= MT; m++) {
        quad t = 1, s = (quad)1 / (2 * m + 1);
        for (int k = 1; k < 400; k++) {
            t = -t * T / k; /* (-T)^k / k! */
            const quad term = t / (2 * m + 2 * k + 1);
            s += term;
            if (q_abs(term) < (quad)1e-40 * q_abs(s)) break;
        }
        F[m] = s;
    }
}

static void ref_large(double Td, quad *F)
{
    const quad T = Td, eT = q_exp(-T), rt = q_sqrt(T);
    quad gam = q_sqrt(q_pi()), Ts = rt; /* Gamma(1/2), T^(1/2) */
    for (int m = 0; m <= MT; m++) {
        const quad s = (quad)m + (quad)0.5;
        /* Gamma(s, T) ~ T^(s-1) e^-T sum_k (s-1)...(s-k) / T^k */
        quad term = 1, sum = 1;
        for (int k = 1; k < 200; k++) {
            const quad next = term * (s - k) / T;
            if (q_abs(next) >= q_abs(term)) break;
            term = next, sum += term;
            if (q_abs(term) < (quad)1e-40) break;
        }
        const quad upper = Ts / T * eT * sum; /* T^(s-1) e^-T sum */
        F[m] = (gam - upper) / (2 * Ts);
        gam *= s, Ts *= T;
    }
}

static void ref_boys(double T, quad *F)
{
    if (T < 25) ref_small(T, F);
    else ref_large(T, F);
}

static double worst = 0, worst_T = 0;
static int worst_m = 0, worst_mmax = 0;

/* An evaluation under test: the host's eri_boys on the host table, or the GPU's method
 * (eri_boys_dev, the same source the device compiles) on the device table. */
typedef void (*boys_fn)(const double *tab, int mmax, double T, double *F);
static void boys_host(const double *tab, int mmax, double T, double *F) { eri_boys(tab, mmax, T, F); }
static void boys_gpu_method(const double *tab, int mmax, double T, double *F)
{
    eri_boys_dev(tab + (size_t)mmax * ERI_BOYS_DSUB, mmax, T, F);
}

/* Max over mmax and m of |f - reference| at T. */
static double check_T(boys_fn f, const double *tab, double T)
{
    quad R[MT + 1];
    ref_boys(T, R);
    double e = 0;
    for (int mmax = 0; mmax <= MT; mmax++) {
        double F[MT + 1];
        f(tab, mmax, T, F);
        for (int m = 0; m <= mmax; m++) {
            const double d = fabs((double)((quad)F[m] - R[m]));
            if (!(d <= e)) e = d;
            if (!(d <= worst)) worst = d, worst_T = T, worst_m = m, worst_mmax = mmax;
        }
    }
    return e;
}

static void test_reference_methods_agree(void **state)
{
    (void)state;
    double e = 0;
    for (double T = 20; T <= 30; T += 0.37) {
        quad A[MT + 1], B[MT + 1];
        ref_small(T, A), ref_large(T, B);
        for (int m = 0; m <= MT; m++) {
            const double d = fabs((double)(A[m] - B[m]));
            if (d > e) e = d;
        }
    }
    printf("# float128 series vs asymptotic over T in [20, 30]: max abs diff %.2e\n", e);
    assert_true(e < 1e-18); /* the asymptotic series alone limits this at T = 20 */
    quad F[MT + 1];
    ref_boys(0, F);
    for (int m = 0; m <= MT; m++) assert_true(F[m] == (quad)1 / (2 * m + 1));
}

static void test_table_shape(void **state)
{
    (void)state;
    const double *tab = eri_boys_table();
    assert_non_null(tab);
    assert_ptr_equal(tab, eri_boys_table());
    assert_int_equal(eri_boys_table_len(), ERI_BOYS_LEN);
    assert_true(ERI_BOYS_TABMMAX >= ERI_BOYS_MMAX && ERI_BOYS_TABMMAX >= 12);
    assert_true((ERI_BOYS_NGRID - 1) / ERI_BOYS_GRID_INV >= ERI_BOYS_TMAX);
}

/* Largest error of f over the test's T: a grid 1/4 of the
 * table's spacing (grid points, midpoints and between), both sides of every midpoint,
 * special values, pseudo-random T. */
static double accuracy(boys_fn f, const double *tab, double grid_inv)
{
    double e = 0, x;
    worst = 0;
    const int q = (int)(4 * grid_inv);
    for (int i = 0; i <= q * 100; i++) {
        x = check_T(f, tab, (double)i / q);
        if (x > e) e = x;
        if (i % 4 == 0) { /* the nearest grid point flips at T_i + half a spacing */
            const double mid = (double)i / q + 0.5 / grid_inv;
            x = check_T(f, tab, nextafter(mid, 0)), e = x > e ? x : e;
            x = check_T(f, tab, nextafter(mid, 200)), e = x > e ? x : e;
        }
    }
    const double special[] = {0, 5e-324, 1e-300, 1e-30, 1e-16, 1e-12, 1e-8, 1e-4, 1.0 / 64 / 3,
                              nextafter(ERI_BOYS_TMAX, 0), ERI_BOYS_TMAX,
                              nextafter(ERI_BOYS_TMAX, 100), 36.015625, 35.98, 100, 120, 1e3};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
        x = check_T(f, tab, special[i]);
        if (x > e) e = x;
    }
    uint64_t s = 12345;
    for (int i = 0; i < 20000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(s >> 11) * (1.0 / 9007199254740992.0);
        const double T = i % 2 ? 100 * u : pow(10, -12 + 14 * u); /* uniform; log-uniform */
        x = check_T(f, tab, T);
        if (x > e) e = x;
    }
    printf("# Boys (%s) max abs error %.3e (m %d, mmax %d, T %.17g)\n", f == boys_host ? "host" : "GPU method, device table",
           worst, worst_m, worst_mmax, worst_T);
    return e;
}

static void test_boys_accuracy(void **state)
{
    (void)state;
    assert_true(accuracy(boys_host, eri_boys_table(), ERI_BOYS_GRID_INV) <= 1e-14);
}

/* A table entry off by 1e-13 must be caught, or the comparison above proves nothing. */
static void test_detects_bad_table(void **state)
{
    (void)state;
    static double bad[ERI_BOYS_LEN];
    memcpy(bad, eri_boys_table(), sizeof bad);
    bad[(size_t)80 * ERI_BOYS_ROW + 4] += 1e-13; /* F_4(5) */
    assert_true(check_T(boys_host, bad, 5.0) > 1e-14);
    worst = 0;
}

/* The GPU's table (eri_boys_dev_table; the device's own run is tests/kernels/eri_brush/gpu_eri_brush.c):
 * row i of the m sub-table holds F_{m+k}(T_i)/k!, k = 0..7, e^{-T_i} and a zero pad. Each
 * coefficient times k! must be the host table's F_{m+k}(T_i) within 1e-15 relative (both
 * are rounded once from the same long-double series, then one product), e^{-T_i} the same
 * double. Then the GPU's method itself (eri_boys_dev, compiled here for the host) on that
 * table against __float128, every m and mmax <= 12, to the same 1e-14 absolute as the host
 * function: so the GPU's arithmetic is checked against an independent reference without a
 * GPU as well. */
static void test_dev_table(void **state)
{
    (void)state;
    const double *dev = eri_boys_dev_table();
    assert_non_null(dev);
    assert_ptr_equal(dev, eri_boys_dev_table());
    const double *tab = eri_boys_table();
    double worst_rel = 0;
    for (int m = 0; m <= ERI_BOYS_TABMMAX; m++)
        for (int i = 0; i < ERI_BOYS_NGRID; i++) {
            const double *r = dev + (size_t)m * ERI_BOYS_DSUB + (size_t)i * ERI_BOYS_DROW;
            const double *h = tab + (size_t)i * ERI_BOYS_ROW;
            double fact = 1;
            for (int k = 0; k < ERI_BOYS_NTAYLOR; k++) {
                if (k) fact *= k;
                const double d = fabs(r[k] * fact - h[m + k]) / h[m + k];
                if (d > worst_rel) worst_rel = d;
            }
            assert_true(r[ERI_BOYS_NTAYLOR] == h[ERI_BOYS_NM]);
            assert_true(r[ERI_BOYS_NTAYLOR + 1] == 0.0);
        }
    printf("# device Boys table: max relative difference from the host table %.2e\n", worst_rel);
    assert_true(worst_rel <= 1e-15);
    assert_true(accuracy(boys_gpu_method, dev, ERI_BOYS_GRID_INV) <= 1e-14);
}

/* A device-table coefficient off by 1e-13 must be caught by the GPU-method check too. */
static void test_detects_bad_dev_table(void **state)
{
    (void)state;
    static double bad[ERI_BOYS_DEV_LEN];
    memcpy(bad, eri_boys_dev_table(), sizeof bad);
    bad[4 * ERI_BOYS_DSUB + (size_t)80 * ERI_BOYS_DROW] += 1e-13; /* F_4(5) */
    assert_true(check_T(boys_gpu_method, bad, 5.0) > 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_methods_agree),
        cmocka_unit_test(test_table_shape),
        cmocka_unit_test(test_boys_accuracy),
        cmocka_unit_test(test_detects_bad_table),
        cmocka_unit_test(test_dev_table),
        cmocka_unit_test(test_detects_bad_dev_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
