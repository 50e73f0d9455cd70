/* dfratom_scf: the batch tensors on the host (layout in dfr.h, entries in dfr_math.h). */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr_math.h"

int dfr_tshape_init(dfr_tshape *t, const dfr_gbuild *g, int dirac)
{
    memset(t, 0, sizeof *t);
    const dfr_sym *y = g->sym;
    for (int s = 0; s < y->ns; ++s) t->E += y->n[s] * y->n[s];
    t->nh = dirac ? 2 : 1;
    t->outd = malloc(sizeof(int) * (size_t)g->nout);
    t->outx = malloc(sizeof(int) * (size_t)g->nout);
    if (!t->outd || !t->outx) return SB_EXIT_RUNTIME;
    for (int o = 0; o < g->nout; ++o) {
        int s, blk, i, j;
        dfr_out_decode(g->out[o], &s, &blk, &i, &j);
        if (blk == DFR_LS) t->outx[t->nx++] = g->out[o];
        else t->outd[t->nd++] = g->out[o];
    }
    t->per = (long)t->nd * t->nh * t->E + (long)t->nx * t->E;
    t->xlen = t->nh * t->E + (t->nx ? t->E : 0);
    t->ylen = t->nd + t->nx;
    return SB_OK;
}

void dfr_tshape_free(dfr_tshape *t)
{
    free(t->outd);
    free(t->outx);
    t->outd = t->outx = NULL;
}

/* x_d = (D'LL | D'SS), x_x = D'LS: each symmetry's block is contiguous in both */
void dfr_tshape_gather(const dfr_tshape *t, const dfr_sym *y, const double *Dw, double *x)
{
    for (int s = 0, e = 0; s < y->ns; e += y->n[s] * y->n[s], ++s) {
        size_t NN = (size_t)y->n[s] * y->n[s], bytes = sizeof(double) * NN;
        const double *P = Dw + y->moff[s];
        memcpy(x + e, P, bytes);
        if (t->nh == 2) memcpy(x + t->E + e, P + 2 * NN, bytes);
        if (t->nx) memcpy(x + (size_t)t->nh * t->E + e, P + NN, bytes);
    }
}

void dfr_tshape_scatter(const dfr_tshape *t, const dfr_sym *y, const double *yv, double *G)
{
    for (int r = 0; r < t->nd; ++r) *dfr_g_slot(y, G, t->outd[r]) = yv[r];
    for (int r = 0; r < t->nx; ++r) *dfr_g_slot(y, G, t->outx[r]) = yv[t->nd + r];
}

void dfr_tensor_host(const dfr_tshape *t, const dfr_sym *y, const dfr_fun *f, int B, double *T, int parallel)
{
    const long total = (long)B * t->per;
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
    for (long u = 0; u < total; ++u) {
        long c = u / t->per;
        T[u] = dfr_tensor_entry(y, f + c * y->nf, t->nd, t->nx, t->nh, t->E, t->outd, t->outx, u - c * t->per);
    }
}

void dfr_contract_host(const dfr_tshape *t, int B, const double *T, const double *x, double *yv, int parallel)
{
    const long dsz = (long)t->nd * t->nh * t->E;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (int c = 0; c < B; ++c) {
        const double *Tc = T + c * t->per, *xc = x + (long)c * t->xlen;
        double *yc = yv + (long)c * t->ylen;
        cblas_dgemv(CblasColMajor, CblasNoTrans, t->nd, t->nh * t->E, 1.0, Tc, t->nd, xc, 1, 0.0, yc, 1);
        if (t->nx)
            cblas_dgemv(CblasColMajor, CblasNoTrans, t->nx, t->E, 1.0, Tc + dsz, t->nx, xc + (long)t->nh * t->E, 1,
                        0.0, yc + t->nd, 1);
    }
}
