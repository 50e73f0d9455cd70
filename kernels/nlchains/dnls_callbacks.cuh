/* nlchains dnls: cuFFT store callbacks (LTO, JIT-linked into the transforms by cuFFT;
 * compiled by the Makefile with -dlto into a fatbin that cuda.cu embeds). They fold the
 * two element-wise passes of a stage into the transforms' stores:
 *   nlc_cb_store_phase: forward transform, psi_hat_k *= exp(i 2 cos(2 pi k/N) w h) / N;
 *   nlc_cb_store_rot:   inverse transform, psi_j <- psi_j exp(-i beta |psi_j|^2 t).
 * callerInfo points to a nlc_cb_par in device memory that the host rewrites (stream
 * ordered) before each transform. */
#include <cufftXt.h>

#include "nlchains/cb_par.h"
#include "nlchains/physics.h"

extern "C" __device__ void nlc_cb_store_phase(void *out, unsigned long long off, cufftDoubleComplex e, void *info,
                                              void *shared)
{
    (void)shared;
    const nlc_cb_par *p = static_cast<const nlc_cb_par *>(info);
    const cufftDoubleComplex b = p->phase[off % (unsigned long long)p->N];
    cufftDoubleComplex r;
    r.x = e.x * b.x - e.y * b.y;
    r.y = e.x * b.y + e.y * b.x;
    static_cast<cufftDoubleComplex *>(out)[off] = r;
}

extern "C" __device__ void nlc_cb_store_rot(void *out, unsigned long long off, cufftDoubleComplex e, void *info,
                                            void *shared)
{
    (void)shared;
    const nlc_cb_par *p = static_cast<const nlc_cb_par *>(info);
    double re = e.x, im = e.y;
    nlc_dnls_nonlinear(&re, &im, p->beta, p->t);
    cufftDoubleComplex r;
    r.x = re;
    r.y = im;
    static_cast<cufftDoubleComplex *>(out)[off] = r;
}
