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

/* ---- fput / toda: bond force f(r) = V'(r), r = q_{i+1} - q_i; F_i = f_i - f_{i-1} ---- */
NLC_HD double nlc_fput_bond_force(double r, double alpha, double beta)
{
    return r * (1.0 + r * (alpha + beta * r));
}
NLC_HD double nlc_fput_bond_energy(double r, double alpha, double beta)
{
    return r * r * (0.5 + r * (alpha / 3.0 + beta * r / 4.0));
}
/* expm1(x) from + - * fma alone, so that it vectorises on the CPU (libm has no vector
 * expm1 without -ffast-math) and runs the same on the GPU. x = k ln2 + r with
 * |r| <= ln2/2 (Cody-Waite, two-part ln2); expm1(r) by its Taylor series to r^13
 * (truncation < 3e-17 relative); expm1(x) = 2^k expm1(r) + (2^k - 1), exact for k = 0,
 * so small x keep full relative accuracy. Rounding to the nearest integer and 2^k are
 * built with the 1.5 * 2^52 trick: no float-to-int conversion, which AVX2 lacks for
 * doubles. Valid for |x| <= 700 (clamped beyond); within 2 ulp of libm (tested). */
NLC_HD double nlc_expm1(double x)
{
    const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
    double xc = x < -700.0 ? -700.0 : x > 700.0 ? 700.0 : x; /* not fmin/fmax: they block vectorisation */
    double t = fma(xc, 1.44269504088896338700e+00, magic);
    double k = t - magic;
    double r = fma(-k, 6.93147180369123816490e-01, xc); /* ln2, high part: k * hi is exact */
    r = fma(-k, 1.90821492927058770002e-10, r);          /* ln2, low part */
    double q = 1.0 / 6227020800.0;                       /* 1/13! */
    q = fma(q, r, 1.0 / 479001600.0);
    q = fma(q, r, 1.0 / 39916800.0);
    q = fma(q, r, 1.0 / 3628800.0);
    q = fma(q, r, 1.0 / 362880.0);
    q = fma(q, r, 1.0 / 40320.0);
    q = fma(q, r, 1.0 / 5040.0);
    q = fma(q, r, 1.0 / 720.0);
    q = fma(q, r, 1.0 / 120.0);
    q = fma(q, r, 1.0 / 24.0);
    q = fma(q, r, 1.0 / 6.0);
    q = fma(q, r, 0.5);
    double em = fma(q * r, r, r); /* r + r^2 (1/2 + r/6 + ...) */
    /* 2^k: k + 1023 into the exponent field. A union, not memcpy: GCC vectorises
     * the union pun, not a memcpy through a local. */
#ifdef __CUDA_ARCH__
    double p2 = __longlong_as_double((long long)(((uint64_t)__double_as_longlong(t) + 1023u) << 52));
#else
    union {
        double d;
        uint64_t u;
    } v = {t};
    v.u = (v.u + 1023u) << 52;
    double p2 = v.d;
#endif
    return fma(p2, em, p2 - 1.0);
}

NLC_HD double nlc_toda_bond_force(double r, double alpha) { return nlc_expm1(2.0 * alpha * r) * (0.5 / alpha); }
NLC_HD double nlc_toda_bond_energy(double r, double alpha)
{
    return (nlc_expm1(2.0 * alpha * r) - 2.0 * alpha * r) / (4.0 * alpha * alpha);
}

/* ---- dnkg: F_i = (q_{i+1} - 2 q_i + q_{i-1}) - m q_i - beta q_i^3 ---- */
NLC_HD double nlc_dnkg_force(double qm, double q, double qp, double m, double beta)
{
    return (qp - 2.0 * q + qm) - q * (m + beta * q * q);
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
