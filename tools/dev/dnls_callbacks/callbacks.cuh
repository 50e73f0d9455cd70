/* The two store callbacks of a dnls stage (bench.cu), shared by the legacy (function
 * pointer, static cuFFT) and the LTO (JIT-linked) builds; OFF is size_t for the legacy
 * signature, unsigned long long for the LTO one. The math is nlchains' own (physics.h):
 *   store_phase: forward transform, psi_hat_k *= exp(i 2 cos(2 pi k/N) t) / N (a table);
 *   store_rot:   inverse transform, psi_j <- psi_j exp(-i beta |psi_j|^2 t). */
#include <cufftXt.h>

#include "nlchains/physics.h"

struct cb_par {
    const cufftDoubleComplex *phase; /* N entries */
    double beta, t;
    int N;
};

#define CB_DEFINE(PREFIX, OFF)                                                                              \
    extern "C" __device__ void PREFIX##store_phase(void *out, OFF off, cufftDoubleComplex e, void *info, void *) \
    {                                                                                                       \
        const cb_par *p = static_cast<const cb_par *>(info);                                                \
        const cufftDoubleComplex b = p->phase[off % (OFF)p->N];                                             \
        cufftDoubleComplex r;                                                                               \
        r.x = e.x * b.x - e.y * b.y;                                                                        \
        r.y = e.x * b.y + e.y * b.x;                                                                        \
        static_cast<cufftDoubleComplex *>(out)[off] = r;                                                    \
    }                                                                                                       \
    extern "C" __device__ void PREFIX##store_rot(void *out, OFF off, cufftDoubleComplex e, void *info, void *)   \
    {                                                                                                       \
        const cb_par *p = static_cast<const cb_par *>(info);                                                \
        nlc_dnls_nonlinear(&e.x, &e.y, p->beta, p->t);                                                      \
        static_cast<cufftDoubleComplex *>(out)[off] = e;                                                    \
    }
