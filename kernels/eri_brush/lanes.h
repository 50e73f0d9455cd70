/* eri_brush on the CPU's SIMD units: ERI_W quartets of one class and contraction pattern,
 * one per lane (the generated eri_hgpv_* of eri_gen_vec.h, gen/eri_gen_vec.py).
 *
 * Why lanes over quartets: a quartet's straight-line code has no loop for the compiler to
 * vectorise, and the primitive loops are short (1-9 pairs a side) and carry sums. Running
 * ERI_W quartets side by side makes every statement a full-width SIMD operation, including
 * the division and square root per primitive quartet, which dominate the small classes.
 *
 * eri_v is a GCC vector of ERI_W doubles: 8 where AVX-512 is enabled, 4 with AVX, else 2.
 * Each lane's arithmetic is the scalar code's, operation for operation (the build has
 * -ffp-contract=off and no fast-math; vector +, -, *, /, sqrt round like their scalars),
 * so results are bit-identical to the scalar generated code. CPU-only, GCC/Clang C. */
#ifndef ERI_LANES_H
#define ERI_LANES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "eri_brush/boys.h"
#include "eri_brush/eri.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define ERI_W 8
#elif defined(__AVX__)
#include <immintrin.h>
#define ERI_W 4
#else
#define ERI_W 2
#endif

typedef double eri_v __attribute__((vector_size(ERI_W * sizeof(double))));
typedef int64_t eri_vm __attribute__((vector_size(ERI_W * sizeof(double)))); /* lane masks */

#define ERI_V_ZERO ((eri_v){0})

static inline eri_v eri_vsqrt(eri_v x)
{
#if defined(__AVX512F__)
    return (eri_v)_mm512_sqrt_pd((__m512d)x);
#elif defined(__AVX__)
    return (eri_v)_mm256_sqrt_pd((__m256d)x);
#else
    eri_v r;
    for (int l = 0; l < ERI_W; l++) r[l] = sqrt(x[l]);
    return r;
#endif
}

/* the CPU definitions of eri.h's ERI_SPQ and ERI_IPQ, lane-wise */
#define ERI_VSPQ(pq) eri_vsqrt(1.0 / (pq))
#define ERI_VIPQ(pq, spq) (1.0 / (pq))

/* (eri_v){F(0), ..., F(ERI_W-1)}: a vector built in registers from per-lane scalars.
 * Why not lane-by-lane stores into memory: a vector load of ERI_W fresh scalar stores
 * cannot be store-forwarded and stalls (on the development VM, the dominant cost of
 * (ss|ss) when the Boys rows were assembled that way). */
#if ERI_W == 8
#define ERI_VBUILD(F) ((eri_v){F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7)})
#elif ERI_W == 4
#define ERI_VBUILD(F) ((eri_v){F(0), F(1), F(2), F(3)})
#else
#define ERI_VBUILD(F) ((eri_v){F(0), F(1)})
#endif

/* eri_prim with a lane per quartet: field f of lane l is eri_prim.f of that lane's pair; q:
 * its Schwarz factor (eri_pairs.q) over the square root of the primitive-quartet screen, +inf
 * where the run screens nothing */
typedef struct {
    eri_v p, K;
    eri_v P[3], PA[3], PB[3];
    eri_v h, q;
} eri_primv;

/* a family pair's primitive pair with a lane per family quartet (eri_hgpfv_*): the shared
 * data, and member m's coefficient in Kf[m] (eri_families.K) */
typedef struct {
    eri_primv v;
    eri_v Kf[ERI_FAM_MAXMEM];
} eri_primfv;

/* The primitive-quartet screen over the lanes (ERI_PQ_COUNT in the lane code): of the first
 * n primitive pairs of list (largest q first in every lane), how many the screen keeps with
 * o in some lane; the lanes run together, so a lane may run more than it needs. */
#define ERI_PQ_COUNTV(name, T, Q)                                                                \
    static inline int name(const T *list, int n, const T *o)                                     \
    {                                                                                            \
        int most = 0;                                                                            \
        for (int l = 0; l < ERI_W && most < n; l++) {                                            \
            const double qo = (o)->Q[l];                                                         \
            if (!((list)[n - 1].Q[l] * qo < 1.0)) return n;                                      \
            int lo = most, hi = n - 1; /* the first it drops: no earlier than most */            \
            while (lo < hi) {                                                                    \
                const int mid = (lo + hi) >> 1;                                                  \
                if ((list)[mid].Q[l] * qo < 1.0) hi = mid;                                       \
                else lo = mid + 1;                                                               \
            }                                                                                    \
            most = lo;                                                                           \
        }                                                                                        \
        return most;                                                                             \
    }
ERI_PQ_COUNTV(eri_pq_countv, eri_primv, q)
ERI_PQ_COUNTV(eri_pq_countfv, eri_primfv, v.q)
#undef ERI_PQ_COUNTV

#if ERI_W == 4
/* With 4 lanes, rows of 4 doubles (one per lane) become columns (one per field) by a 4 x 4
 * transpose in registers: 4 loads and 8 shuffles where ERI_VBUILD takes 4 scalar loads and 4
 * inserts per field. Data movement only, so every lane's value is unchanged. */
static inline void eri_v_transpose4(const double *r0, const double *r1, const double *r2, const double *r3, eri_v *c)
{
    const __m256d a0 = _mm256_loadu_pd(r0), a1 = _mm256_loadu_pd(r1), a2 = _mm256_loadu_pd(r2),
                  a3 = _mm256_loadu_pd(r3);
    const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
    const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
    c[0] = (eri_v)_mm256_permute2f128_pd(t0, t2, 0x20);
    c[1] = (eri_v)_mm256_permute2f128_pd(t1, t3, 0x20);
    c[2] = (eri_v)_mm256_permute2f128_pd(t0, t2, 0x31);
    c[3] = (eri_v)_mm256_permute2f128_pd(t1, t3, 0x31);
}
#endif

/* d = the primitives s[0..ERI_W-1], one per lane */
static inline void eri_primv_gather(eri_primv *d, const eri_prim *const *s)
{
#if ERI_W == 4
    /* eri_prim is 12 doubles: p K P0 P1 | P2 PA0 PA1 PA2 | PB0 PB1 PB2 h */
    _Static_assert(sizeof(eri_prim) == 12 * sizeof(double) && offsetof(eri_prim, P) == 16 &&
                       offsetof(eri_prim, PA) == 40 && offsetof(eri_prim, PB) == 64 && offsetof(eri_prim, h) == 88,
                   "eri_prim: 12 doubles in field order");
    eri_v c[4];
    const double *s0 = &s[0]->p, *s1 = &s[1]->p, *s2 = &s[2]->p, *s3 = &s[3]->p;
    eri_v_transpose4(s0, s1, s2, s3, c);
    d->p = c[0], d->K = c[1], d->P[0] = c[2], d->P[1] = c[3];
    eri_v_transpose4(s0 + 4, s1 + 4, s2 + 4, s3 + 4, c);
    d->P[2] = c[0], d->PA[0] = c[1], d->PA[1] = c[2], d->PA[2] = c[3];
    eri_v_transpose4(s0 + 8, s1 + 8, s2 + 8, s3 + 8, c);
    d->PB[0] = c[0], d->PB[1] = c[1], d->PB[2] = c[2], d->h = c[3];
#else
#define ERI_G_p(l) s[l]->p
#define ERI_G_K(l) s[l]->K
#define ERI_G_h(l) s[l]->h
#define ERI_G_P(l) s[l]->P[c]
#define ERI_G_PA(l) s[l]->PA[c]
#define ERI_G_PB(l) s[l]->PB[c]
    d->p = ERI_VBUILD(ERI_G_p);
    d->K = ERI_VBUILD(ERI_G_K);
    d->h = ERI_VBUILD(ERI_G_h);
    for (int c = 0; c < 3; c++) {
        d->P[c] = ERI_VBUILD(ERI_G_P);
        d->PA[c] = ERI_VBUILD(ERI_G_PA);
        d->PB[c] = ERI_VBUILD(ERI_G_PB);
    }
#undef ERI_G_p
#undef ERI_G_K
#undef ERI_G_h
#undef ERI_G_P
#undef ERI_G_PA
#undef ERI_G_PB
#endif
}

static inline eri_v eri_vselect(eri_vm m, eri_v a, eri_v b) /* m ? a : b per lane */
{
    return (eri_v)(((eri_vm)a & m) | ((eri_vm)b & ~m));
}

/* eri_boys (boys.h) for ERI_W arguments: each branch that some lane needs, computed for all
 * lanes, then a per-lane select; each lane's F_m is the scalar eri_boys' value bit for bit.
 * Lanes at or above ERI_BOYS_TMAX read table row 0 (discarded); the asymptotic branch's 1/T
 * is inf for T = 0 (discarded too: such a lane is on the table side). */
/* the asymptotic branch (upward recursion); into F, or merged into F's asymptotic lanes */
static inline void eri_boysv_asym(int mmax, eri_v T, eri_vm tabl, int merge, eri_v *F)
{
    const eri_v h = 0.5 / T;
    eri_v a = 0.88622692545275801365 * eri_vsqrt(h + h);
    F[0] = merge ? eri_vselect(tabl, F[0], a) : a;
    for (int m = 1; m <= mmax; m++) {
        a *= (double)(2 * m - 1) * h;
        F[m] = merge ? eri_vselect(tabl, F[m], a) : a;
    }
}

static inline void eri_boysv(const double *tab, int mmax, eri_v T, eri_v *F)
{
    const eri_vm tabl = T < ERI_BOYS_TMAX;
    int ntab = 0;
    for (int l = 0; l < ERI_W; l++) ntab += tabl[l] != 0;
    if (ntab == 0) {
        eri_boysv_asym(mmax, T, tabl, 0, F);
        return;
    }
    /* the scalar code's grid index (int)(T * 16 + 0.5), row 0 for the asymptotic lanes */
    const eri_vm ii = __builtin_convertvector(T * ERI_BOYS_GRID_INV + 0.5, eri_vm) & tabl;
    const eri_v x = __builtin_convertvector(ii, eri_v) * (1.0 / ERI_BOYS_GRID_INV) - T;
    const double *r[ERI_W];
    for (int l = 0; l < ERI_W; l++) r[l] = tab + (size_t)ii[l] * ERI_BOYS_ROW;
    eri_v t[ERI_BOYS_NTAYLOR];
#if ERI_W == 4 && ERI_BOYS_NTAYLOR == 8 /* a row's 8 coefficients are contiguous (mmax + 7 < ERI_BOYS_ROW) */
    eri_v_transpose4(r[0] + mmax, r[1] + mmax, r[2] + mmax, r[3] + mmax, t);
    eri_v_transpose4(r[0] + mmax + 4, r[1] + mmax + 4, r[2] + mmax + 4, r[3] + mmax + 4, t + 4);
#else
    for (int k = 0; k < ERI_BOYS_NTAYLOR; k++) {
#define ERI_G_T(l) r[l][mmax + k]
        t[k] = ERI_VBUILD(ERI_G_T);
#undef ERI_G_T
    }
#endif
#define ERI_G_E(l) r[l][ERI_BOYS_NM] /* e^{-T_i} */
    const eri_v ei = ERI_VBUILD(ERI_G_E);
#undef ERI_G_E
    eri_v f = ERI_BOYS_TAYLOR(t, x);
    F[mmax] = f;
    const eri_v e = ERI_BOYS_EXPX(x) * ei;
    const eri_v t2 = T + T;
    const double *inv = tab + ERI_BOYS_INV_OFF;
    for (int m = mmax; m > 0; m--) {
        f = (t2 * f + e) * inv[m];
        F[m - 1] = f;
    }
    if (ntab < ERI_W) eri_boysv_asym(mmax, T, tabl, 1, F);
}

#endif
