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

ERI_HD static inline void eri_boys(const double *tab, int mmax, double T, double *F)
{
    if (T < ERI_BOYS_TMAX) {
        const int i = (int)(T * ERI_BOYS_GRID_INV + 0.5);
        const double x = (double)i * (1.0 / ERI_BOYS_GRID_INV) - T; /* -(T - T_i), exact */
        const double *r = tab + (size_t)i * ERI_BOYS_ROW;
#ifdef __CUDA_ARCH__
        /* The rows are gathers (one per thread) and each load instruction of a warp costs
         * one L1 wavefront per row it touches: 16-byte loads halve them. mmax is a constant
         * where this is inlined, so the loop unrolls and c stays in registers. */
        double c[10];
        const double2 *r2 = (const double2 *)(r + (mmax & ~1));
#pragma unroll
        for (int k = 0; k < ((mmax & 1) ? 5 : 4); k++) {
            const double2 v = r2[k];
            c[2 * k] = v.x;
            c[2 * k + 1] = v.y;
        }
        const double *t = c + (mmax & 1);
#else
        const double *t = r + mmax;
#endif
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

#endif
