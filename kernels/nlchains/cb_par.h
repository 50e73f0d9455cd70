/* Parameters of the dnls cuFFT store callbacks (dnls_callbacks.cuh, cuda.cu). */
#ifndef NLCHAINS_CB_PAR_H
#define NLCHAINS_CB_PAR_H
#include <cufft.h>

typedef struct {
    const cufftDoubleComplex *phase; /* nlc_cb_store_phase: this stage's table, N entries */
    double beta, t;                  /* nlc_cb_store_rot: the nonlinear flow N(t) */
    int N;
} nlc_cb_par;
#endif
