/* nlchains: the per-site physics shared by the scalar reference, the OpenMP-SIMD
 * loops and the CUDA kernels. Double precision throughout. Units: masses, the
 * harmonic coupling and the lattice spacing are 1; time in the inverse of the
 * harmonic chain's natural frequency.
 *
 * Models (periodic chains of N sites, q_{N} = q_0):
 *   fput: H = sum p^2/2 + sum V(q_{i+1} - q_i),   V(r) = r^2/2 + alpha r^3/3 + beta r^4/4
 *   toda: V(r) = (exp(2 alpha r) - 1 - 2 alpha r) / (4 alpha^2)
 *   dnkg: H = sum p^2/2 + m q^2/2 + (q_{i+1} - q_i)^2/2 + beta q^4/4
 *   dnls: i dpsi_i/dt = -(psi_{i+1} + psi_{i-1}) + beta |psi_i|^2 psi_i,  psi = q + i p
 *
 * Integrator: the 6th-order symmetric composition of Yoshida (Phys. Lett. A 150,
 * 262 (1990), solution A) of a 2nd-order symmetric map S2:
 *   S6(h) = S2(w3 h) S2(w2 h) S2(w1 h) S2(w0 h) S2(w1 h) S2(w2 h) S2(w3 h),
 * w0 = 1 - 2 (w1 + w2 + w3). For fput/toda/dnkg S2(t) is kick(t/2) drift(t) kick(t/2)
 * (drift: q += t p; kick: p += t F(q)); for dnls S2(t) is N(t/2) L(t) N(t/2), with the
 * nonlinear flow N a local phase rotation and the linear flow L exact in Fourier space.
 * Adjacent half-kicks (half-N's) of consecutive stages and steps add into one, so a
 * step costs 7 force evaluations (7 linear flows for dnls). Verified here: halving dt
 * divides a pendulum's energy error by 64.0. */
#ifndef NLCHAINS_PHYSICS_H
#define NLCHAINS_PHYSICS_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define NLC_HD __host__ __device__ __forceinline__
#else
#define NLC_HD static inline __attribute__((always_inline))
#endif

#define NLC_STAGES 7
#define NLC_W1 (-1.17767998417887100695)
#define NLC_W2 (0.235573213359358133684)
#define NLC_W3 (0.784513610477557263819)
#define NLC_W0 (1.0 - 2.0 * (NLC_W1 + NLC_W2 + NLC_W3))

/* Stage weight s = 0..6 (symmetric). */
NLC_HD double nlc_weight(int s)
{
    return s == 3 ? NLC_W0 : (s == 2 || s == 4) ? NLC_W1 : (s == 1 || s == 5) ? NLC_W2 : NLC_W3;
}

/* The flows as every backend writes them: explicit fma, so that the CPU (built with
 * -ffp-contract=off) and the GPU (which contracts) round the same, and the CPU's
 * vector loops issue FMAs. */
NLC_HD double nlc_kick(double p, double c, double F) { return fma(c, F, p); }
NLC_HD double nlc_drift(double q, double d, double p) { return fma(d, p, q); }

/* ---- fput / toda: bond force f(r) = V'(r), r = q_{i+1} - q_i; F_i = f_i - f_{i-1} ---- */
NLC_HD double nlc_fput_bond_force(double r, double alpha, double beta)
{
    return fma(r * r, fma(beta, r, alpha), r); /* r + r^2 (alpha + beta r) */
}
NLC_HD double nlc_fput_bond_energy(double r, double alpha, double beta)
{
    return r * r * (0.5 + r * (alpha / 3.0 + beta * r / 4.0));
}
/* ---- toda: the integrator's bond term is e(r) = exp(2 alpha r), so V'(r) = (e(r) - 1) / (2 alpha)
 * and the site force (e_i - e_{i-1}) / (2 alpha): the backends fold 1/(2 alpha) into the
 * kick coefficients (nlc_kick_scale, setup.c), and the 1 cancels in the difference, so
 * it is never subtracted. History on the H100 (FP64 instructions per site-stage against
 * fput's 6.9, SASS): a Cody-Waite reduction and a degree-13 series ~22 (toda 4.2x slower
 * than fput); Tang's table method with 2^(j/128) and a degree-5 series for expm1 13.5
 * (2.3x); this version, a 2^(j/2048) table, a degree-3 series and no "- 1", ~10.5.
 * x = 2 alpha r = (2048 m + j) ln2/2048 + 2 alpha rs, j = 0..2047, |2 alpha rs| <= ln2/4096,
 * e^x = 2^m 2^(j/2048) e^(2 alpha rs). The reduction works on r itself (scale = 2048
 * (2 alpha) / ln2, lred = ln2 / (2048 (2 alpha)), one rounding each: a ~1e-16 relative
 * perturbation of x, as forming 2 alpha r would make); the series em = expm1(2 alpha rs)
 * to degree 3 carries the powers of 2 alpha in its coefficients (truncation y^4/24 <=
 * 3.4e-17); e^x = s + s em with s = 2^m 2^(j/2048) from exp2_table.h. Error: about an ulp
 * of e^x, absolute, for every x: the table's half ulp, the final rounding and the
 * perturbation of x (tests/kernels/nlchains/test_nlchains.c). The expm1 form had the same absolute error
 * once a table entry entered (|x| > ln2/256); it kept relative accuracy only below that,
 * which costs one FP64 add a bond and matters only for chains whose bonds all stay
 * under 0.003 in x.
 * 2^m is added into the exponent field: the table stores the bits of 2^(j/2048) less
 * j << 41, so that adding k << 41 for k = 2048 m + j gives the bits of 2^m 2^(j/2048)
 * (on the device: the high word plus k << 9, one integer multiply-add, no shift). k is
 * clamped to m in [-1022, 1023]: e -> a subnormal (0 to within 1e-308) for x < -708,
 * right; finite, saturated near DBL_MAX for x > 709 (exp overflows there; the energy
 * check then fails). The CPU forms the same bits in 64-bit arithmetic, so every backend
 * returns the same e for every r with |x| < 7e5 (the device reads k from t's low 32
 * bits; a bond that far out has an energy check that fails anyway).
 * The device reads the table from shared memory as two 32-bit halves (nlc_exp2_sh, 16
 * KiB, filled by each kernel that integrates toda): a warp's random j costs a few-way
 * bank conflict. A copy per lane of the old 128-entry table (conflict-free) was measured
 * slower on the H100: the shared-memory pipe is not what holds toda back. */
#include "nlchains/exp2_table.h"

#define NLC_EXP2_KMIN (-1022 * NLC_EXP2_N)
#define NLC_EXP2_KMAX (1023 * NLC_EXP2_N + NLC_EXP2_N - 1)

typedef struct {
    double scale, lred; /* 2048 (2 alpha) / ln2, ln2 / (2048 (2 alpha)) */
    double c1, c2, c3;  /* (2 alpha)^n / n! */
} nlc_toda_k;

NLC_HD nlc_toda_k nlc_toda_prepare(double alpha)
{
    const double ln2 = 0.693147180559945309417232121458, a = 2.0 * alpha;
    nlc_toda_k t;
    t.scale = a * (NLC_EXP2_N / ln2);
    t.lred = (ln2 / NLC_EXP2_N) / a;
    t.c1 = a;
    t.c2 = t.c1 * a / 2.0;
    t.c3 = t.c2 * a / 3.0;
    return t;
}

#ifdef __CUDACC__
/* the table's high words at j, its low words at 2048 + j */
static __shared__ uint32_t nlc_exp2_sh[2 * NLC_EXP2_N];
#endif
#ifndef __CUDA_ARCH__
static const uint64_t nlc_exp2_tab[NLC_EXP2_N] __attribute__((unused)) = NLC_EXP2_TABLE;
#endif

NLC_HD double nlc_toda_exp(double r, const nlc_toda_k *tk)
{
    const double magic = 6755399441055744.0; /* 1.5 * 2^52: t's low bits hold k = round(r scale) */
    const double t = fma(r, tk->scale, magic);
    const double k = t - magic;
    const double rs = fma(-k, tk->lred, r);
    const double em = rs * fma(fma(tk->c3, rs, tk->c2), rs, tk->c1); /* expm1(2 alpha rs) */
#ifdef __CUDA_ARCH__
    const int kl = __double2loint(t);
    const int j = kl & (NLC_EXP2_N - 1), kc = max(NLC_EXP2_KMIN, min(NLC_EXP2_KMAX, kl));
    const double s = __hiloint2double((int)(nlc_exp2_sh[j] + ((unsigned)kc << (20 - NLC_EXP2_BITS))),
                                      (int)nlc_exp2_sh[NLC_EXP2_N + j]);
#else
    /* a union, not memcpy: GCC vectorises the union pun (and gathers the table) */
    union {
        double d;
        uint64_t u;
    } v = {t}, w;
    const int64_t kk = (int64_t)(v.u - 0x4338000000000000ull);
    const int64_t j = kk & (NLC_EXP2_N - 1),
                  kc = kk < NLC_EXP2_KMIN ? NLC_EXP2_KMIN : kk > NLC_EXP2_KMAX ? NLC_EXP2_KMAX : kk;
    w.u = nlc_exp2_tab[j] + ((uint64_t)kc << (52 - NLC_EXP2_BITS));
    const double s = w.d;
#endif
    return fma(s, em, s); /* s (1 + em) */
}

/* The physical bond force and energy (tests, host-side energies). */
NLC_HD double nlc_toda_bond_force(double r, double alpha)
{
    const nlc_toda_k tk = nlc_toda_prepare(alpha);
    return (nlc_toda_exp(r, &tk) - 1.0) * (0.5 / alpha);
}
NLC_HD double nlc_toda_bond_energy(double r, double alpha)
{
    return (expm1(2.0 * alpha * r) - 2.0 * alpha * r) / (4.0 * alpha * alpha); /* libm: independent of nlc_toda_exp */
}

/* ---- dnkg: F_i = (q_{i+1} - 2 q_i + q_{i-1}) - m q_i - beta q_i^3 ---- */
NLC_HD double nlc_dnkg_force(double qm, double q, double qp, double m, double beta)
{
    return fma(-q, fma(beta, q * q, m), (qp - 2.0 * q) + qm);
}
NLC_HD double nlc_dnkg_site_energy(double q, double qp, double p, double m, double beta)
{
    double r = qp - q;
    return 0.5 * p * p + 0.5 * m * q * q + 0.5 * r * r + 0.25 * beta * q * q * q * q;
}

/* ---- dnls ---- */
/* Nonlinear flow for time t: psi <- psi exp(-i beta |psi|^2 t) (|psi| is conserved). */
NLC_HD void nlc_dnls_nonlinear(double *re, double *im, double beta, double t)
{
    double a = -beta * (*re * *re + *im * *im) * t;
    double c = cos(a), s = sin(a);
#ifdef __CUDA_ARCH__
    /* The device's sin/cos can leave c^2 + s^2 off 1 by a biased ulp, which, applied
     * 7 times a step at every site, makes the norm drift linearly (1.1e-15 per step
     * seen on the H100); rescaling leaves one unbiased rounding. On the CPU, glibc's
     * sin/cos are closer than the rescale's own roundings, so it is not applied there. */
    double u = 1.0 / sqrt(c * c + s * s);
    c *= u;
    s *= u;
#endif
    double r = *re * c - *im * s, i = *re * s + *im * c;
    *re = r;
    *im = i;
}
/* Linear flow in Fourier space: with psi_hat_k = sum_j psi_j exp(-2 pi i j k / N),
 * psi_hat_k <- psi_hat_k exp(i 2 cos(2 pi k / N) t). This is the phase of mode k. */
NLC_HD double nlc_dnls_linear_phase(int k, int N, double t)
{
    return 2.0 * cos(2.0 * 3.14159265358979323846 * k / N) * t;
}

/* ---- normal modes of the linear chain ----
 * omega_k = 2 sin(pi k / N) for fput/toda (the harmonic chain), and
 * sqrt(m + 4 sin^2(pi k / N)) for dnkg. With the unitary DFT
 * Q_k = N^{-1/2} sum_j q_j exp(-2 pi i j k / N) (P_k likewise), the linear energy of
 * mode k is E_k = (|P_k|^2 + omega_k^2 |Q_k|^2) / 2; the E_k sum to the harmonic part
 * of H. For dnls, E_k = |psi_hat_k|^2 / N, the mode's share of the norm sum |psi|^2. */
NLC_HD double nlc_omega2(int model, int k, int N, double m)
{
    double s = sin(3.14159265358979323846 * k / N);
    return model == 2 /* NLC_DNKG */ ? m + 4.0 * s * s : 4.0 * s * s;
}

#endif
