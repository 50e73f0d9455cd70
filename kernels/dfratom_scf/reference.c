/* dfratom_scf: the scalar reference Fock build (the oracle) and the output bookkeeping
 * every backend shares. */
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr_math.h"

int dfr_gbuild_init(dfr_gbuild *g, const dfr_sym *y, const dfr_fun *f, int dirac)
{
    memset(g, 0, sizeof *g);
    g->sym = y;
    g->fun = f;
    long cap = 0;
    for (int s = 0; s < y->ns; ++s) cap += 3L * y->n[s] * y->n[s];
    g->out = malloc(sizeof(int) * (size_t)cap);
    if (!g->out) return SB_EXIT_RUNTIME;
    for (int s = 0; s < y->ns; ++s)
        for (int blk = 0; blk < (dirac ? 3 : 1); ++blk)
            for (int j = 0; j < y->n[s]; ++j)
                for (int i = 0; i < y->n[s]; ++i)
                    if (blk == DFR_LS || i <= j) g->out[g->nout++] = dfr_out_code(s, blk, i, j);
    return SB_OK;
}

void dfr_gbuild_free(dfr_gbuild *g)
{
    free(g->out);
    g->out = NULL;
}

double *dfr_g_slot(const dfr_sym *y, double *G, int code)
{
    int s, blk, i, j, N;
    dfr_out_decode(code, &s, &blk, &i, &j);
    N = y->n[s];
    return G + y->moff[s] + (long)blk * N * N + i + (long)j * N;
}

void dfr_g_mirror(const dfr_sym *y, double *G)
{
    for (int s = 0; s < y->ns; ++s) {
        int N = y->n[s];
        for (int blk = DFR_LL; blk <= DFR_SS; blk += 2) {
            double *a = G + y->moff[s] + (long)blk * N * N;
            for (int j = 0; j < N; ++j)
                for (int i = j + 1; i < N; ++i) a[i + (long)j * N] = a[j + (long)i * N];
        }
    }
}

int dfr_g_reference(dfr_gbuild *g, const double *D, double *G)
{
    for (int o = 0; o < g->nout; ++o) *dfr_g_slot(g->sym, G, g->out[o]) = dfr_g_element(g->sym, g->fun, D, g->out[o]);
    return SB_OK;
}

static int ref_init(dfr_gbuild *g)
{
    g->build = dfr_g_reference;
    return SB_OK;
}

/* one element after another on one core; everything else on the host */
const dfr_ops dfr_ops_reference = {.g_init = ref_init};

/* Integral calls per G build, from dfr_g_term's structure (every density element nonzero) */
void dfr_count(const dfr_sym *y, const dfr_fun *f, int dirac, dfr_counts *c)
{
    memset(c, 0, sizeof *c);
    int P[4];
    double C[4];
    for (int s = 0; s < y->ns; ++s)
        for (int blk = 0; blk < (dirac ? 3 : 1); ++blk) {
            int N = y->n[s], fs = y->fun0[s], X = blk == DFR_SS;
            double outs = blk == DFR_LS ? (double)N * N : 0.5 * N * (N + 1);
            for (int sp = 0; sp < y->ns; ++sp) {
                int nk = 0, fp = y->fun0[sp];
                for (int k = 0; k <= DFR_KMAX; ++k) nk += y->gam[s][sp][k] != 0.0;
                /* merged density term counts of the products that occur */
                int xx = dfr_density(y, f, X, s, fs, s, fs, P, C);
                int ll = dfr_density(y, f, 0, sp, fp, sp, fp, P, C);
                int ss = dfr_density(y, f, 1, sp, fp, sp, fp, P, C);
                int xm = dfr_density(y, f, X, s, fs, sp, fp, P, C);
                int lm = dfr_density(y, f, 0, s, fs, sp, fp, P, C);
                int sm = dfr_density(y, f, 1, s, fs, sp, fp, P, C);
                double calls, elem;
                if (blk == DFR_LS) {
                    calls = nk;
                    elem = nk * (double)lm * sm;
                } else {
                    calls = (dirac ? 2 : 1) + nk;
                    elem = (double)xx * ll + (dirac ? (double)xx * ss : 0.0) + nk * (double)xm * xm;
                }
                double pairs = outs * (double)y->n[sp] * y->n[sp];
                c->rint_per_build += pairs * calls;
                c->elem_per_build += pairs * elem;
            }
        }
}
