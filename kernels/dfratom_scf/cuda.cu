// dfratom_scf: the two-electron Fock build on the GPU. One block per output element of G
// (symmetry, block, i, j); its threads stride over the flat index of every density element
// (kappa', m, n) of every symmetry, evaluate the closed-form radial integrals of dfr_math.h,
// and reduce in shared memory. No atomics: the result is deterministic, and every thread of
// the device is busy while outputs remain (a few thousand blocks per build).
#include <cuda_runtime.h>
#include <stdlib.h>

#include "dfratom_scf/dfr_math.h"
#include "sb_cuda.h"

#define DFR_BLOCK 128

__constant__ dfr_sym c_sym;

typedef struct {
    dfr_fun *fun;
    int *out;
    double *D, *G;
    long set;
} dfr_dev;

__global__ void __launch_bounds__(DFR_BLOCK) dfr_g_kernel(const dfr_fun *__restrict__ fun, const int *__restrict__ out,
                                                         const double *__restrict__ D, double *__restrict__ G)
{
    __shared__ double part[DFR_BLOCK];
    const dfr_sym *y = &c_sym;
    int code = out[blockIdx.x], s, blk, i, j;
    dfr_out_decode(code, &s, &blk, &i, &j);
    int total = 0;
    for (int sp = 0; sp < y->ns; ++sp) total += y->n[sp] * y->n[sp];
    double v = 0.0;
    for (int t = threadIdx.x; t < total; t += DFR_BLOCK) {
        int sp = 0, r = t;
        while (r >= y->n[sp] * y->n[sp]) r -= y->n[sp] * y->n[sp], ++sp;
        int N = y->n[sp];
        v += dfr_g_term(y, fun, D, s, blk, i, j, sp, r % N, r / N);
    }
    part[threadIdx.x] = v;
    __syncthreads();
    for (int h = DFR_BLOCK / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        int N = y->n[s];
        G[y->moff[s] + (long)blk * N * N + i + (long)j * N] = part[0];
    }
}

static int g_cuda(dfr_gbuild *g, const double *D, double *G)
{
    dfr_dev *d = (dfr_dev *)g->priv;
    size_t bytes = sizeof(double) * d->set;
    SB_CU(cudaMemcpy(d->D, D, bytes, cudaMemcpyHostToDevice));
    dfr_g_kernel<<<g->nout, DFR_BLOCK>>>(d->fun, d->out, d->D, d->G);
    SB_CU(cudaGetLastError());
    SB_CU(cudaMemcpy(G, d->G, bytes, cudaMemcpyDeviceToHost));
    return SB_OK;
}

extern "C" int dfr_g_cuda_init(dfr_gbuild *g)
{
    dfr_dev *d = (dfr_dev *)calloc(1, sizeof *d);
    if (!d) return SB_EXIT_RUNTIME;
    g->priv = d;
    g->build = g_cuda;
    d->set = dfr_set_size(g->sym);
    SB_CU(cudaMemcpyToSymbol(c_sym, g->sym, sizeof(dfr_sym)));
    SB_CU(cudaMalloc(&d->fun, sizeof(dfr_fun) * g->sym->nf));
    SB_CU(cudaMalloc(&d->out, sizeof(int) * g->nout));
    SB_CU(cudaMalloc(&d->D, sizeof(double) * d->set));
    SB_CU(cudaMalloc(&d->G, sizeof(double) * d->set));
    SB_CU(cudaMemcpy(d->fun, g->fun, sizeof(dfr_fun) * g->sym->nf, cudaMemcpyHostToDevice));
    SB_CU(cudaMemcpy(d->out, g->out, sizeof(int) * g->nout, cudaMemcpyHostToDevice));
    SB_CU(cudaMemset(d->G, 0, sizeof(double) * d->set));
    return SB_OK;
}

extern "C" void dfr_g_cuda_free(dfr_gbuild *g)
{
    dfr_dev *d = (dfr_dev *)g->priv;
    if (!d) return;
    cudaFree(d->fun);
    cudaFree(d->out);
    cudaFree(d->D);
    cudaFree(d->G);
    free(d);
    g->priv = NULL;
}

extern "C" int dfr_g_cuda_launches(dfr_gbuild *g, sb_launch *l, int max)
{
    if (max < 1) return 0;
    if (sb_cuda_occupancy((const void *)dfr_g_kernel, "dfr_g_kernel", DFR_BLOCK, 0, g->nout, l)) return -1;
    return 1;
}
