/* eri_brush J engine (path=jeng, digest mode only): the Coulomb digest through
 * McMurchie-Davidson Hermite densities, without forming the integrals.
 *
 * In MD form a primitive quartet's integrals are
 *   (ab|cd) = K_bra K_ket / sqrt(p+q) * sum_t E^ab_t sum_u (-1)^|u| E^cd_u R_{t+u}(alpha, P-Q)
 * (t, u Hermite triples, |u| their order, R the Hermite Coulomb integrals, E the Hermite
 * expansion coefficients of the pair, eri.h's K). The digest needs only
 *   M_ab += f_cd sum_cd (ab|cd) D_cd   and   M_cd += f_ab sum_ab (ab|cd) D_ab,
 * so the density goes into Hermite space once per primitive pair,
 *   H_t = sum_ab Dc_ab E^ab_t       (Dc: the pair's block of D in Cartesian functions),
 * each primitive quartet adds  G_t += f_cd s sum_u R_{t+u} (-1)^|u| H^ket_u  to the bra's
 * Hermite potential and  G_u += f_ab s (-1)^|u| sum_t R_{t+u} H^bra_t  to the ket's, and the
 * pair's block of M is  sum over its primitives of sum_t E^ab_t G_t,  back in pure functions.
 * Per primitive quartet that is R (one recurrence of order L = la+lb+lc+ld) and two products
 * of nherm(la+lb) x nherm(lc+ld), against the whole block of integrals for HGP or MD: (dd|dd)
 * 2x35x35 multiply-adds instead of 1296 Cartesian integrals and their recurrences.
 *
 * Everything below is ERI_HD, shared by the C backends and CUDA. Primitive pairs are reached
 * through eri.h's ERI_PRIMS macros (a backend may redefine them before including this, as for
 * the generated code); ERI_JE_ADD(ptr, v) adds into a Hermite potential (default +=; CUDA:
 * atomicAdd). The bra's adds go through ERI_JE_ADD_BRA with what ERI_JE_BRA_RUNS declares once
 * per quartet (CUDA: which lanes share the bra, to sum over the warp first; elsewhere nothing).
 * Loops carry ERI_JE_UNROLL: called with constant angular momenta, nvcc unrolls them, so R, W
 * and the E tables become registers. */
#ifndef ERI_JENGINE_H
#define ERI_JENGINE_H

#include <math.h>

#include "eri_brush/boys.h"
#include "eri_brush/eri.h"

#ifdef __CUDACC__ /* device only: the CUDA backend's host code never runs the engine */
#define ERI_JE_UNROLL _Pragma("unroll")
#define ERI_JE_FN __device__ __forceinline__ static
#else /* GCC: the per-class instances (jengine.c) unroll to constant indices too */
#define ERI_JE_UNROLL _Pragma("GCC unroll 64")
#define ERI_JE_FN static inline __attribute__((always_inline))
#endif
#ifndef ERI_JE_ADD
#define ERI_JE_ADD(ptr, v) (*(ptr) += (v))
#endif
#ifndef ERI_JE_ADD_BRA
#define ERI_JE_BRA_RUNS(name, Gb) const int name = 0
#define ERI_JE_ADD_BRA(ptr, v, runs) ((void)(runs), ERI_JE_ADD(ptr, v))
#endif

#define ERI_JE_LPAIR (2 * ERI_LMAX)                         /* la + lb of a pair */
#define ERI_JE_NH ERI_NHERM(ERI_JE_LPAIR)                   /* 35: a pair's Hermite vector */
#define ERI_JE_NR ERI_NHERM(2 * ERI_JE_LPAIR)               /* 165: R of a quartet */
#define ERI_JE_NE ((ERI_LMAX + 1) * (ERI_LMAX + 1) * (ERI_JE_LPAIR + 1))
#define ERI_JE_NC (ERI_NCART(ERI_LMAX) * ERI_NCART(ERI_LMAX)) /* a pair's Cartesian block */
#define ERI_JE_TMAX (ERI_JE_NC * ERI_JE_NC) /* T of a pair class: functions x Cartesian functions */

/* Hermite triples ordered by order n, then u+v, then v: the Cartesian order of eri.h. */
ERI_HD static inline int eri_herm_idx(int t, int u, int v)
{
    const int n = t + u + v, m = u + v;
    return n * (n + 1) * (n + 2) / 6 + m * (m + 1) / 2 + v;
}

/* One dimension's E^{ij}_t (i <= la, j <= lb, t <= i+j) with E^{00}_0 = 1 (the Gaussian
 * product factor is in K): E^{i+1,j}_t = h E^{ij}_{t-1} + PA E^{ij}_t + (t+1) E^{ij}_{t+1},
 * likewise j with PB; h = 1/(2p). */
#define ERI_JE_E(e, i, j, t) (e)[((i) * (ERI_LMAX + 1) + (j)) * (ERI_JE_LPAIR + 1) + (t)]
ERI_JE_FN void eri_je_E(int la, int lb, double PA, double PB, double h, double *e)
{
    ERI_JE_UNROLL
    for (int k = 0; k < ERI_JE_NE; k++) e[k] = 0.0;
    ERI_JE_E(e, 0, 0, 0) = 1.0;
    ERI_JE_UNROLL
    for (int i = 0; i < la; i++)
        ERI_JE_UNROLL
        for (int t = 0; t <= i + 1; t++)
            ERI_JE_E(e, i + 1, 0, t) = (t > 0 ? h * ERI_JE_E(e, i, 0, t - 1) : 0.0) +
                                       (t <= i ? PA * ERI_JE_E(e, i, 0, t) : 0.0) +
                                       (t + 1 <= i ? (t + 1) * ERI_JE_E(e, i, 0, t + 1) : 0.0);
    ERI_JE_UNROLL
    for (int i = 0; i <= la; i++)
        ERI_JE_UNROLL
        for (int j = 0; j < lb; j++)
            ERI_JE_UNROLL
            for (int t = 0; t <= i + j + 1; t++)
                ERI_JE_E(e, i, j + 1, t) = (t > 0 ? h * ERI_JE_E(e, i, j, t - 1) : 0.0) +
                                           (t <= i + j ? PB * ERI_JE_E(e, i, j, t) : 0.0) +
                                           (t + 1 <= i + j ? (t + 1) * ERI_JE_E(e, i, j, t + 1) : 0.0);
}

/* Hermite density of one primitive pair: H_tuv = sum_ab Dc[a][b] Ex Ey Ez (nherm(la+lb)). */
ERI_JE_FN void eri_je_density(int la, int lb, const double *ex, const double *ey, const double *ez,
                              const double *Dc, double *H)
{
    const int ncb = ERI_NCART(lb);
    ERI_JE_UNROLL
    for (int k = 0; k < ERI_NHERM(la + lb); k++) H[k] = 0.0;
    int ia = 0;
    ERI_JE_UNROLL
    for (int ax = la; ax >= 0; ax--)
        ERI_JE_UNROLL
        for (int ay = la - ax; ay >= 0; ay--, ia++) {
            const int az = la - ax - ay;
            int ib = 0;
            ERI_JE_UNROLL
            for (int bx = lb; bx >= 0; bx--)
                ERI_JE_UNROLL
                for (int by = lb - bx; by >= 0; by--, ib++) {
                    const int bz = lb - bx - by;
                    const double d = Dc[ia * ncb + ib];
                    ERI_JE_UNROLL
                    for (int t = 0; t <= ax + bx; t++) {
                        const double dx = d * ERI_JE_E(ex, ax, bx, t);
                        ERI_JE_UNROLL
                        for (int u = 0; u <= ay + by; u++) {
                            const double dxy = dx * ERI_JE_E(ey, ay, by, u);
                            ERI_JE_UNROLL
                            for (int v = 0; v <= az + bz; v++)
                                H[eri_herm_idx(t, u, v)] += dxy * ERI_JE_E(ez, az, bz, v);
                        }
                    }
                }
        }
}

/* The transpose: Mc[a][b] += sum_tuv Ex Ey Ez G_tuv. */
ERI_JE_FN void eri_je_potential(int la, int lb, const double *ex, const double *ey, const double *ez,
                                const double *G, double *Mc)
{
    const int ncb = ERI_NCART(lb);
    int ia = 0;
    for (int ax = la; ax >= 0; ax--)
        for (int ay = la - ax; ay >= 0; ay--, ia++) {
            const int az = la - ax - ay;
            int ib = 0;
            for (int bx = lb; bx >= 0; bx--)
                for (int by = lb - bx; by >= 0; by--, ib++) {
                    const int bz = lb - bx - by;
                    double s = 0.0;
                    for (int t = 0; t <= ax + bx; t++)
                        for (int u = 0; u <= ay + by; u++) {
                            const double exy = ERI_JE_E(ex, ax, bx, t) * ERI_JE_E(ey, ay, by, u);
                            for (int v = 0; v <= az + bz; v++)
                                s += exy * ERI_JE_E(ez, az, bz, v) * G[eri_herm_idx(t, u, v)];
                        }
                    Mc[ia * ncb + ib] += s;
                }
        }
}

/* R[idx(t,u,v)] = R^0_tuv for t+u+v <= L from F_0..F_L at T = alpha |P-Q|^2, a2 = -2 alpha
 * (F is scaled in place to a2^n F_n):
 * R^n_000 = a2^n F_n, R^n_{t+1,u,v} = t R^{n+1}_{t-1,u,v} + X R^{n+1}_{tuv} (u, v likewise).
 * In place from n = L down: within a level the entries go by descending order, so each
 * reads entries of the level above that are not yet overwritten. Entry k is R[k rs]: rs = 1
 * in registers; the CUDA kernel that keeps R in shared memory puts a thread's entries a block
 * apart (bank-conflict free). */
#define ERI_JE_RAT(R, rs, t, u, v) (R)[eri_herm_idx(t, u, v) * (rs)]
ERI_JE_FN void eri_je_R(int L, double *F, double a2, double X, double Y, double Z, double *R, int rs)
{
    double pw = 1.0;
#ifndef __CUDACC__
    /* The run-time instance (classes without generated code): GCC cannot follow the writes
     * below through its unrolled loops and would warn that R is read uninitialised. The
     * constant instances skip this (and write every entry anyway). */
    if (!__builtin_constant_p(L))
        for (int k = 0; k < ERI_NHERM(L); k++) R[k * rs] = 0.0;
#endif
    ERI_JE_UNROLL
    for (int n = 0; n <= L; n++) {
        F[n] *= pw;
        pw *= a2;
    }
    R[0] = F[L];
    ERI_JE_UNROLL
    for (int n = L - 1; n >= 0; n--) {
        ERI_JE_UNROLL
        for (int k = L - n; k >= 1; k--)
            ERI_JE_UNROLL
            for (int t = k; t >= 0; t--)
                ERI_JE_UNROLL
                for (int u = k - t; u >= 0; u--) {
                    const int v = k - t - u;
                    double r;
                    if (t > 0)
                        r = X * ERI_JE_RAT(R, rs, t - 1, u, v) + (t > 1 ? (t - 1) * ERI_JE_RAT(R, rs, t - 2, u, v) : 0.0);
                    else if (u > 0)
                        r = Y * ERI_JE_RAT(R, rs, t, u - 1, v) + (u > 1 ? (u - 1) * ERI_JE_RAT(R, rs, t, u - 2, v) : 0.0);
                    else
                        r = Z * ERI_JE_RAT(R, rs, t, u, v - 1) + (v > 1 ? (v - 1) * ERI_JE_RAT(R, rs, t, u, v - 2) : 0.0);
                    ERI_JE_RAT(R, rs, t, u, v) = r;
                }
        R[0] = F[n];
    }
}

/* acc_o += sum_i R_{i+o} in_i over in's triples i (order <= lin) and acc's o (order <= lout),
 * R entries rs apart: one of eri_je_contract's two products, R_w by R_w, so that each entry is
 * read once and only the in and acc vectors need registers. For the CUDA kernel whose R is in
 * shared memory; the caller passes the signs (-1)^|u| and the factors. */
#ifdef __CUDACC__ /* a real load: nvcc would otherwise forward eri_je_R's stores and keep R in registers */
#define ERI_JE_SWEEP_LOAD(p) (*(const volatile double *)(p))
#else
#define ERI_JE_SWEEP_LOAD(p) (*(p))
#endif
ERI_JE_FN void eri_je_sweep(int lin, int lout, const double *R, int rs, const double *in, double *acc)
{
    ERI_JE_UNROLL
    for (int wx = 0; wx <= lin + lout; wx++)
        ERI_JE_UNROLL
        for (int wy = 0; wy <= lin + lout - wx; wy++)
            ERI_JE_UNROLL
            for (int wz = 0; wz <= lin + lout - wx - wy; wz++) {
                const double r = ERI_JE_SWEEP_LOAD(&ERI_JE_RAT(R, rs, wx, wy, wz));
                /* o <= w componentwise, |o| <= lout, |w - o| <= lin; bounds that do not
                 * depend on w, so that nvcc sees the trip counts and unrolls */
                ERI_JE_UNROLL
                for (int ox = 0; ox <= lout; ox++)
                    ERI_JE_UNROLL
                    for (int oy = 0; oy <= lout - ox; oy++)
                        ERI_JE_UNROLL
                        for (int oz = 0; oz <= lout - ox - oy; oz++)
                            if (ox <= wx && oy <= wy && oz <= wz && wx + wy + wz - ox - oy - oz <= lin)
                                acc[eri_herm_idx(ox, oy, oz)] += r * in[eri_herm_idx(wx - ox, wy - oy, wz - oz)];
            }
}

/* W_t += s sum_u R_{t+u} (-1)^|u| Hk_u over the bra's triples t (order <= lab) and the ket's
 * u (order <= lcd); when V: V_u += sum_t R_{t+u} Hb_t (the caller applies s (-1)^|u|). */
ERI_JE_FN void eri_je_contract(int lab, int lcd, const double *R, double s, const double *Hb, const double *Hk,
                               double *W, double *V)
{
    int ib = 0;
    ERI_JE_UNROLL
    for (int n1 = 0; n1 <= lab; n1++)
        ERI_JE_UNROLL
        for (int t1 = n1; t1 >= 0; t1--)
            ERI_JE_UNROLL
            for (int u1 = n1 - t1; u1 >= 0; u1--, ib++) {
                const int v1 = n1 - t1 - u1;
                const double hb = V ? Hb[ib] : 0.0;
                double w = 0.0;
                int ik = 0;
                ERI_JE_UNROLL
                for (int n2 = 0; n2 <= lcd; n2++)
                    ERI_JE_UNROLL
                    for (int t2 = n2; t2 >= 0; t2--)
                        ERI_JE_UNROLL
                        for (int u2 = n2 - t2; u2 >= 0; u2--, ik++) {
                            const int v2 = n2 - t2 - u2;
                            const double r = R[eri_herm_idx(t1 + t2, u1 + u2, v1 + v2)];
                            w = (n2 & 1) ? w - r * Hk[ik] : w + r * Hk[ik];
                            if (V) V[ik] += r * hb;
                        }
                W[ib] += s * w;
            }
}

/* One shell quartet: bra primitive pairs outside, so the bra's potential W stays in
 * registers over the ket primitives; the ket's goes out per primitive quartet (only when the
 * pairs differ, P != Q). Hb/Gb: the bra pair's Hermite densities and potentials, nherm(lab)
 * per primitive pair; likewise Hk/Gk. boys: the Boys table for order L (eri_boys).
 * Scratch from the caller, sized for the classes it runs: W and V nherm(lab) and nherm(lcd),
 * F L+1, R nherm(L). (The CUDA kernels of the generated classes keep the sizes of l <= 2, so
 * that their code does not depend on ERI_LMAX.) */
ERI_JE_FN void eri_je_quartet(int lab, int lcd, ERI_PRIMS bra, int nb, ERI_PRIMS ket, int nk, const double *Hb,
                              const double *Hk, const double *boys, double fcd, double fab, int other, double *Gb,
                              double *Gk, double *W, double *F, double *R, double *V)
{
    const int L = lab + lcd, nhb = ERI_NHERM(lab), nhk = ERI_NHERM(lcd);
    ERI_JE_BRA_RUNS(bra_runs, Gb);
    for (int i = 0; i < nb; i++) {
        ERI_PRIMS bp = ERI_PRIM_AT(bra, i);
        const double p = ERI_PF(bp, p), Kb = ERI_PF(bp, K);
        const double Px = ERI_PV(bp, P, 0), Py = ERI_PV(bp, P, 1), Pz = ERI_PV(bp, P, 2);
        const double *hb = Hb + (long)i * nhb;
        ERI_JE_UNROLL
        for (int k = 0; k < ERI_NHERM(lab); k++) W[k] = 0.0;
        const int nkb = ERI_PQ_COUNT(ket, nk, bp);
        for (int j = 0; j < nkb; j++) {
            ERI_PRIMS kp = ERI_PRIM_AT(ket, j);
            const double q = ERI_PF(kp, p), pq = p + q, spq = ERI_SPQ(pq), ipq = ERI_IPQ(pq, spq);
            const double alpha = p * q * ipq, s = Kb * ERI_PF(kp, K) * spq;
            const double X = Px - ERI_PV(kp, P, 0), Y = Py - ERI_PV(kp, P, 1), Z = Pz - ERI_PV(kp, P, 2);
            eri_boys(boys, L, alpha * (X * X + Y * Y + Z * Z), F);
            eri_je_R(L, F, -2.0 * alpha, X, Y, Z, R, 1);
            const double *hk = Hk + (long)j * nhk;
            if (other) {
                ERI_JE_UNROLL
                for (int k = 0; k < ERI_NHERM(lcd); k++) V[k] = 0.0;
                eri_je_contract(lab, lcd, R, s, hb, hk, W, V);
                const double fs = fab * s;
                int ik = 0;
                ERI_JE_UNROLL
                for (int n2 = 0; n2 <= lcd; n2++)
                    ERI_JE_UNROLL
                    for (int m = 0; m < (n2 + 1) * (n2 + 2) / 2; m++, ik++)
                        ERI_JE_ADD(Gk + (long)j * nhk + ik, (n2 & 1) ? -fs * V[ik] : fs * V[ik]);
            } else {
                eri_je_contract(lab, lcd, R, s, hb, hk, W, (double *)0);
            }
        }
        ERI_JE_UNROLL
        for (int k = 0; k < ERI_NHERM(lab); k++) ERI_JE_ADD_BRA(Gb + (long)i * nhb + k, fcd * W[k], bra_runs);
    }
}

/* The x, y and z E tables of one primitive pair. */
ERI_JE_FN void eri_je_E3(int la, int lb, ERI_PRIMS pr, double *ex, double *ey, double *ez)
{
    const double h = ERI_PF(pr, h);
    eri_je_E(la, lb, ERI_PV(pr, PA, 0), ERI_PV(pr, PB, 0), h, ex);
    eri_je_E(la, lb, ERI_PV(pr, PA, 1), ERI_PV(pr, PB, 1), h, ey);
    eri_je_E(la, lb, ERI_PV(pr, PA, 2), ERI_PV(pr, PB, 2), h, ez);
}

/* A pair's Hermite densities: its block of D (pure functions where the shells are) into
 * Cartesian functions with T (eri_je_sph_table: Dc = T^t D), then per primitive pair. */
ERI_JE_FN void eri_je_pair_density(int la, int lb, ERI_PRIMS pp, int npp, const double *T, int nfa, int nfb,
                                   const double *D, int nbf, int bf0a, int bf0b, double *H)
{
    const int nc = ERI_NCART(la) * ERI_NCART(lb), nh = ERI_NHERM(la + lb);
    double Dc[ERI_JE_NC], ex[ERI_JE_NE], ey[ERI_JE_NE], ez[ERI_JE_NE];
    for (int c = 0; c < nc; c++) Dc[c] = 0.0;
    for (int i = 0; i < nfa; i++)
        for (int j = 0; j < nfb; j++) {
            const double d = D[(long)(bf0a + i) * nbf + bf0b + j];
            const double *Tr = T + (long)(i * nfb + j) * nc;
            for (int c = 0; c < nc; c++) Dc[c] += Tr[c] * d;
        }
    for (int k = 0; k < npp; k++) {
        eri_je_E3(la, lb, ERI_PRIM_AT(pp, k), ex, ey, ez);
        eri_je_density(la, lb, ex, ey, ez, Dc, H + (long)k * nh);
    }
}

/* A pair's block of M from its Hermite potentials: Mc = sum over primitive pairs, then
 * Mblk[i][j] = (T Mc)_ij, nfa x nfb (written, not added). */
ERI_JE_FN void eri_je_pair_finish(int la, int lb, ERI_PRIMS pp, int npp, const double *T, int nfa, int nfb,
                                  const double *G, double *Mblk)
{
    const int nc = ERI_NCART(la) * ERI_NCART(lb), nh = ERI_NHERM(la + lb);
    double Mc[ERI_JE_NC], ex[ERI_JE_NE], ey[ERI_JE_NE], ez[ERI_JE_NE];
    for (int c = 0; c < nc; c++) Mc[c] = 0.0;
    for (int k = 0; k < npp; k++) {
        eri_je_E3(la, lb, ERI_PRIM_AT(pp, k), ex, ey, ez);
        eri_je_potential(la, lb, ex, ey, ez, G + (long)k * nh, Mc);
    }
    for (int f = 0; f < nfa * nfb; f++) {
        double s = 0.0;
        for (int c = 0; c < nc; c++) s += T[(long)f * nc + c] * Mc[c];
        Mblk[f] = s;
    }
}

/* ---- host side (jengine.c) ---------------------------------------------------------- */
#ifdef __cplusplus
extern "C" {
#endif
/* T of pair class pc at T + pc * ERI_JE_TMAX: rows the pair's functions (nfun a x nfun b),
 * columns its Cartesian functions; the identity where no shell is pure. */
void eri_je_sph_tables(int pure, double *T);
/* Offsets of each pair's Hermite vectors (npp x nherm(la+lb)); returns the total. */
long eri_je_layout(const eri_pairs *ps, long *hoff);
/* Bit pc set when pair class pc is the bra or ket of a J-engine segment: the pair passes
 * (densities, blocks of J) skip the other pairs. */
unsigned eri_je_pair_classes(const eri_worklist *w);
#ifdef __cplusplus
}
#endif


#endif
