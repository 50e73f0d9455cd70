/* dfratom_scf: the openmp_simd backend. The direct Fock build computes the elements of G in
 * parallel. The batched engine has no entries here: its tensors (tensor.c, OpenMP over the
 * entries), contractions (OpenBLAS dgemv, OpenMP over the candidates) and eigen-solves (LAPACKE)
 * run on the host for both CPU backends, parallel only on this one. */
#include "dfratom_scf/dfr_math.h"

int dfr_g_openmp(dfr_gbuild *g, const double *D, double *G)
{
    /* each element's sum runs in the reference's order: bit-identical to it */
#pragma omp parallel for schedule(dynamic, 4)
    for (int o = 0; o < g->nout; ++o) *dfr_g_slot(g->sym, G, g->out[o]) = dfr_g_element(g->sym, g->fun, D, g->out[o]);
    return SB_OK;
}

static int omp_init(dfr_gbuild *g)
{
    g->build = dfr_g_openmp;
    return SB_OK;
}

const dfr_ops dfr_ops_openmp_simd = {.g_init = omp_init};
