/* nlchains dnls: the nonlinear flow, shared by physics.h and the cuFFT callbacks
 * (dnls_callbacks.cuh), which are compiled to LTO-IR on their own and must not pull in
 * physics.h's shared-memory table. */
#ifndef NLCHAINS_DNLS_FLOW_H
#define NLCHAINS_DNLS_FLOW_H
#include <math.h>

#ifndef NLC_HD
#ifdef __CUDACC__
#define NLC_HD __host__ __device__ __forceinline__
#else
#define NLC_HD static inline __attribute__((always_inline))
#endif
#endif

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
#endif
