/* Boys function F_m(T), m = 0..mmax, for host and CUDA device code (contract in eri.h).
 *
 * T < ERI_BOYS_TMAX: Taylor expansion of F_mmax about the nearest grid point T_i = i/16
 * (dF_m/dT = -F_{m+1}, so the table's higher orders are the derivatives), e^{-T} as
 * e^{-T_i} times a polynomial in the offset, then downward recursion
 * F_{m-1} = (2T F_m + e^{-T}) / (2m - 1), which never increases the relative error.
 * T >= ERI_BOYS_TMAX: F_0 = sqrt(pi/T)/2 and F_m = F_{m-1} (2m-1)/(2T); the dropped terms
 * are below e^{-T}/T * 2 < 1e-17 there.
 * The grid spacing is a power of two so that T_i and the offset T - T_i are exact, and with
 * |offset| <= 1/32 the 8-term Taylor series leaves a relative error below 3e-17. No exp()
 * on the hot path: only table loads, multiplies, adds and one sqrt or division.
 * T must be >= -1/32 (T = rho |PQ|^2 is never negative); NaN gives NaN. */
#ifndef ERI_BOYS_H
#define ERI_BOYS_H

#include <math.h>
#include <stddef.h>

#include "eri.h"

#define ERI_BOYS_TABMMAX 12                      /* highest m the table serves (f shells) */
#define ERI_BOYS_NTAYLOR 8                       /* Taylor terms for the highest m */
#define ERI_BOYS_GRID_INV 16.0                   /* 1 / grid spacing */
#define ERI_BOYS_TMAX 36.0                       /* table below, asymptotic at and above */
#define ERI_BOYS_NGRID 577                       /* grid points 0 .. TMAX * 16 */
#define ERI_BOYS_NM (ERI_BOYS_TABMMAX + ERI_BOYS_NTAYLOR) /* F_0 .. F_19 per grid point */
/* a row: F_0 .. F_19, e^{-T_i}, one pad, so that every row starts on 16 bytes and the GPU
 * reads the Taylor coefficients of a row in pairs (half the gathers) */
#define ERI_BOYS_ROW (ERI_BOYS_NM + 2)
/* After the rows: 1/(2m-1) for m = 0 .. ERI_BOYS_NM-1 (entry 0 unused), because a division
 * costs far more than a load on the GPU and the compiler may not replace it. */
#define ERI_BOYS_INV_OFF ((size_t)ERI_BOYS_NGRID * ERI_BOYS_ROW)
#define ERI_BOYS_LEN (ERI_BOYS_INV_OFF + ERI_BOYS_NM)

/* The two polynomials of the table branch, one expression each so that eri_boys and the
 * lane-vector eri_boysv (lanes.h), whose lanes must round exactly as eri_boys does, share
 * the operations and their order (any arithmetic type: double or a GCC vector).
 * ERI_BOYS_TAYLOR: sum_k t[k] x^k / k!, k = 0..7 (t = F_{mmax+k}(T_i)), Horner with 1/k.
 * ERI_BOYS_EXPX: e^x for |x| <= 1/32 to degree 7, 2e-17 relative. */
#define ERI_BOYS_TAYLOR(t, x)                                                                    \
    ((t)[0] + (x) * ((t)[1] + (x) * ((t)[2] + (x) * ((t)[3] + (x) * ((t)[4] + (x) * ((t)[5] +     \
     (x) * ((t)[6] + (x) * (t)[7] * (1.0 / 7.0)) * (1.0 / 6.0)) * (1.0 / 5.0)) * (1.0 / 4.0)) *   \
     (1.0 / 3.0)) * (1.0 / 2.0)))
#define ERI_BOYS_EXPX(x)                                                                         \
    (1.0 + (x) * (1.0 + (x) * (1.0 + (x) * (1.0 + (x) * (1.0 + (x) * (1.0 + (x) * (1.0 + (x) *    \
     (1.0 / 7.0)) * (1.0 / 6.0)) * (1.0 / 5.0)) * (1.0 / 4.0)) * (1.0 / 3.0)) * (1.0 / 2.0)))

const double *eri_boys_table(void);
size_t eri_boys_table_len(void);

/* The GPU's own table (eri_boys_dev_table): per m = 0..ERI_BOYS_TABMMAX a sub-table of
 * ERI_BOYS_NGRID rows, row i = F_{m+k}(T_i) / k! for k = 0..7 (the Taylor coefficients of F_m
 * already divided by k!, rounded once from long double), e^{-T_i}, one pad. A launch passes
 * its class's sub-table (m = la + lb + lc + ld, the only m a class function asks for), so a
 * row is 80 aligned bytes: five 16-byte loads, and Horner is 7 FMAs instead of 7 FMAs and
 * 7 multiplies. (Tried: 7 terms on a 1/32 grid, 64-byte rows and four loads: taxol J build
 * 913 against 914.5 ms on the H100, (ss|ss) 1 ms slower.) */
#define ERI_BOYS_DROW 10
#define ERI_BOYS_DSUB ((size_t)ERI_BOYS_NGRID * ERI_BOYS_DROW)
#define ERI_BOYS_DEV_LEN ((size_t)(ERI_BOYS_TABMMAX + 1) * ERI_BOYS_DSUB)
const double *eri_boys_dev_table(void); /* ERI_BOYS_DEV_LEN doubles, built once with the host table */

/* The GPU's evaluation, tab = the sub-table of m = mmax. Compiled for the device (eri_boys
 * below) and for the host, where tests/kernels/eri_brush/test_eri_brush_boys.c checks it against __float128 without
 * a GPU. Differs from the host eri_boys in rounding only:
 * - the grid index comes from adding 1.5 * 2^52 (the sum's low bits are rint(16 T)), not
 *   from F2I/I2F conversions, which run at a quarter of the FP64 rate;
 * - T >= TMAX takes one rsqrt (an estimate and Newton steps) instead of a division and a
 *   square root (each an estimate, Newton steps and a slow-path test). */
#ifdef __CUDA_ARCH__
#define ERI_BOYS_DEV_FN __device__ static inline
typedef double2 eri_boys_d2;
#define ERI_BOYS_PAIR(p, j) (((const double2 *)(p))[j]) /* rows are 16-byte aligned: LDG.128 */
#define ERI_BOYS_LOINT(y) __double2loint(y)
#define ERI_BOYS_RSQRT(T) rsqrt(T)
#else
#include <stdint.h>
#include <string.h>
#define ERI_BOYS_DEV_FN static inline
typedef struct {
    double x, y;
} eri_boys_d2;
static inline eri_boys_d2 eri_boys_pair(const double *p, int j)
{
    eri_boys_d2 r = {p[2 * j], p[2 * j + 1]};
    return r;
}
static inline int eri_boys_loint(double y)
{
    uint64_t u;
    memcpy(&u, &y, sizeof u);
    return (int)(uint32_t)u;
}
#define ERI_BOYS_PAIR(p, j) eri_boys_pair(p, j)
#define ERI_BOYS_LOINT(y) eri_boys_loint(y)
#define ERI_BOYS_RSQRT(T) (1.0 / sqrt(T))
#endif

ERI_BOYS_DEV_FN void eri_boys_dev(const double *tab, int mmax, double T, double *F)
{
    if (T < ERI_BOYS_TMAX) {
        const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
        const double y = fma(T, ERI_BOYS_GRID_INV, magic);
        const int i = ERI_BOYS_LOINT(y);
        const double x = fma(y - magic, 1.0 / ERI_BOYS_GRID_INV, -T); /* T_i - T, exact */
        const double *r = tab + (size_t)i * ERI_BOYS_DROW;
        const eri_boys_d2 c01 = ERI_BOYS_PAIR(r, 0), c23 = ERI_BOYS_PAIR(r, 1), c45 = ERI_BOYS_PAIR(r, 2),
                          c67 = ERI_BOYS_PAIR(r, 3);
        double f = c01.x + x * (c01.y + x * (c23.x + x * (c23.y + x * (c45.x + x * (c45.y + x * (c67.x + x * c67.y))))));
        F[mmax] = f;
        if (mmax > 0) {
            const double ex = 1.0 + x * (1.0 + x * (1.0 / 2 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120 + x * (1.0 / 720 + x * (1.0 / 5040)))))));
            const double e = ex * ERI_BOYS_PAIR(r, 4).x, t2 = T + T;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int m = mmax; m > 0; m--) {
                f = (t2 * f + e) * (1.0 / (2 * m - 1));
                F[m - 1] = f;
            }
        }
    } else {
        const double s = ERI_BOYS_RSQRT(T);
        double f = 0.88622692545275801365 * s; /* sqrt(pi)/2 / sqrt(T) */
        F[0] = f;
        const double h = 0.5 * s * s;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int m = 1; m <= mmax; m++) {
            f *= (double)(2 * m - 1) * h;
            F[m] = f;
        }
    }
}

#ifdef __CUDA_ARCH__
__device__ static inline void eri_boys(const double *tab, int mmax, double T, double *F)
{
    eri_boys_dev(tab, mmax, T, F);
}
#else
ERI_HD static inline void eri_boys(const double *tab, int mmax, double T, double *F)
{
    if (T < ERI_BOYS_TMAX) {
        const int i = (int)(T * ERI_BOYS_GRID_INV + 0.5);
        const double x = (double)i * (1.0 / ERI_BOYS_GRID_INV) - T; /* -(T - T_i), exact */
        const double *r = tab + (size_t)i * ERI_BOYS_ROW;
        const double *t = r + mmax;
        double f = ERI_BOYS_TAYLOR(t, x);
        F[mmax] = f;
        const double e = ERI_BOYS_EXPX(x) * r[ERI_BOYS_NM];
        const double t2 = T + T, *inv = tab + ERI_BOYS_INV_OFF;
        for (int m = mmax; m > 0; m--) {
            f = (t2 * f + e) * inv[m];
            F[m - 1] = f;
        }
    } else {
        const double h = 0.5 / T;
        double f = 0.88622692545275801365 * sqrt(h + h); /* sqrt(pi)/2 * sqrt(1/T) */
        F[0] = f;
        for (int m = 1; m <= mmax; m++) {
            f *= (double)(2 * m - 1) * h;
            F[m] = f;
        }
    }
}

#endif /* __CUDA_ARCH__ */

#endif
