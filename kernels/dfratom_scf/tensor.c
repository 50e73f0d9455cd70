/* dfratom_scf: the batch tensors on the host (layout in dfr.h, entries in dfr_math.h). */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr_math.h"

/* Exponents numbered by distinct value, ascending */
typedef struct {
    double zeta;
    int fn;
} etab_key;

static int by_zeta(const void *a, const void *b)
{
    const etab_key *x = a, *y = b;
    return x->zeta < y->zeta ? -1 : x->zeta > y->zeta ? 1 : (x->fn > y->fn) - (x->fn < y->fn);
}

static void etab_number(dfr_etab *tb, const dfr_sym *y, const dfr_fun *f)
{
    etab_key key[DFR_NSYM * DFR_MAXN];
    for (int i = 0; i < y->nf; ++i) key[i].zeta = f[i].zeta, key[i].fn = i;
    qsort(key, (size_t)y->nf, sizeof *key, by_zeta);
    tb->nexp = 0;
    for (int r = 0; r < y->nf; ++r) {
        if (!r || key[r].zeta != key[r - 1].zeta) tb->rep[tb->nexp++] = key[r].fn;
        tb->eidx[key[r].fn] = tb->nexp - 1;
    }
}

/* Reads of R^k between densities (X; s1, s2) and (Y; s3, s4): every power pair, the pair ranges */
static void etab_need(dfr_etab *tb, const dfr_sym *y, const int *mx, int k, int X, int s1, int s2, int Y, int s3,
                      int s4)
{
    long la = dfr_pair(mx[s1], mx[s2]) + 1, lb = dfr_pair(mx[s3], mx[s4]) + 1;
    for (int t1 = 0; t1 < y->nterm[s1][X]; ++t1)
        for (int t2 = 0; t2 < y->nterm[s2][X]; ++t2)
            for (int t3 = 0; t3 < y->nterm[s3][Y]; ++t3)
                for (int t4 = 0; t4 < y->nterm[s4][Y]; ++t4) {
                    int P = y->pw[s1][X][t1] + y->pw[s2][X][t2], Q = y->pw[s3][Y][t3] + y->pw[s4][Y][t4];
                    long na = la, nb = lb;
                    if (P > Q) {
                        int t = P;
                        P = Q, Q = t, na = lb, nb = la;
                    }
                    int c = tb->id[k][P][Q];
                    if (c < 0) {
                        c = tb->id[k][P][Q] = (short)tb->ncombo++;
                        tb->k[c] = k, tb->P[c] = P, tb->Q[c] = Q, tb->na[c] = tb->nb[c] = 0;
                    }
                    if (na > tb->na[c]) tb->na[c] = (int)na;
                    if (nb > tb->nb[c]) tb->nb[c] = (int)nb;
                }
}

/* The combos and pair ranges the tensor's entries read: dfr_t_entry's two kinds of terms for
 * every row kind (s, blk), density block h and density symmetry sp */
static void etab_layout(dfr_etab *tb, const dfr_sym *y, const dfr_fun *f, const dfr_tshape *t, int nout,
                        const int *out)
{
    int mx[DFR_NSYM] = {0}, seen[DFR_NSYM][3] = {{0}};
    etab_number(tb, y, f);
    for (int s = 0; s < y->ns; ++s)
        for (int i = 0; i < y->n[s]; ++i)
            if (tb->eidx[y->fun0[s] + i] > mx[s]) mx[s] = tb->eidx[y->fun0[s] + i];
    memset(tb->id, 0xff, sizeof tb->id);
    tb->ncombo = 0;
    for (int o = 0; o < nout; ++o) {
        int s, blk, i, j;
        dfr_out_decode(out[o], &s, &blk, &i, &j);
        if (seen[s][blk]++) continue;
        int X = blk == DFR_SS ? 1 : 0, Y = blk == DFR_LS ? 1 : X;
        for (int h = 0; h < (blk == DFR_LS ? 1 : t->nh); ++h)
            for (int sp = 0; sp < y->ns; ++sp) {
                if (blk != DFR_LS) etab_need(tb, y, mx, 0, X, s, s, h, sp, sp);
                if (blk == DFR_LS || h == X)
                    for (int k = 0; k <= DFR_KMAX; ++k)
                        if (y->gam[s][sp][k] != 0.0) etab_need(tb, y, mx, k, X, s, sp, Y, sp, s);
            }
    }
    tb->per = 0;
    for (int c = 0; c < tb->ncombo; ++c) tb->off[c] = tb->per, tb->per += (long)tb->na[c] * tb->nb[c];
}

int dfr_etab_fits(const dfr_etab *tb, const dfr_sym *y, const dfr_fun *f)
{
    for (int i = 0; i < y->nf; ++i)
        if (f[i].zeta != f[tb->rep[tb->eidx[i]]].zeta) return 0;
    return 1;
}

int dfr_etab_group(const dfr_etab *tb, int Bmax)
{
    long g = (1L << 30) / (8 * (tb->per > 0 ? tb->per : 1));
    return g < 1 ? 1 : g > Bmax ? Bmax : (int)g;
}

int dfr_tshape_init(dfr_tshape *t, const dfr_gbuild *g, int dirac)
{
    memset(t, 0, sizeof *t);
    const dfr_sym *y = g->sym;
    for (int s = 0; s < y->ns; ++s) t->E += y->n[s] * y->n[s], t->Ed += y->n[s] * (y->n[s] + 1) / 2;
    t->nh = dirac ? 2 : 1;
    t->outd = malloc(sizeof(int) * (size_t)g->nout);
    t->outx = malloc(sizeof(int) * (size_t)g->nout);
    t->tab = malloc(sizeof *t->tab);
    if (!t->outd || !t->outx || !t->tab) return SB_EXIT_RUNTIME;
    for (int o = 0; o < g->nout; ++o) {
        int s, blk, i, j;
        dfr_out_decode(g->out[o], &s, &blk, &i, &j);
        if (blk == DFR_LS) t->outx[t->nx++] = g->out[o];
        else t->outd[t->nd++] = g->out[o];
    }
    t->per = (long)t->nd * t->nh * t->Ed + (long)t->nx * t->E;
    t->xlen = t->nh * t->Ed + (t->nx ? t->E : 0);
    t->ylen = t->nd + t->nx;
    etab_layout(t->tab, y, g->fun, t, g->nout, g->out);
    return SB_OK;
}

void dfr_tshape_free(dfr_tshape *t)
{
    free(t->outd);
    free(t->outx);
    free(t->tab);
    t->outd = t->outx = NULL;
    t->tab = NULL;
}

/* x_d = (D'LL | D'SS) upper triangles, x_x = D'LS: each symmetry's block is contiguous in both */
void dfr_tshape_gather(const dfr_tshape *t, const dfr_sym *y, const double *Dw, double *x)
{
    double *xl = x, *xs = x + t->Ed;
    for (int s = 0, e = 0; s < y->ns; e += y->n[s] * y->n[s], ++s) {
        const int N = y->n[s];
        const size_t NN = (size_t)N * N;
        const double *P = Dw + y->moff[s];
        for (int n = 0; n < N; ++n)
            for (int m = 0; m <= n; ++m) {
                *xl++ = P[m + (size_t)n * N];
                if (t->nh == 2) *xs++ = P[2 * NN + m + (size_t)n * N];
            }
        if (t->nx) memcpy(x + (size_t)t->nh * t->Ed + e, P + NN, sizeof(double) * NN);
    }
}

void dfr_tshape_scatter(const dfr_tshape *t, const dfr_sym *y, const double *yv, double *G)
{
    for (int r = 0; r < t->nd; ++r) *dfr_g_slot(y, G, t->outd[r]) = yv[r];
    for (int r = 0; r < t->nx; ++r) *dfr_g_slot(y, G, t->outx[r]) = yv[t->nd + r];
}

int dfr_tensor_host(const dfr_tshape *t, const dfr_sym *y, const dfr_fun *f, int B, double *T, int parallel)
{
    const dfr_etab *tb = t->tab;
    int tabulated = 0;
    double *tab = malloc(sizeof(double) * (size_t)tb->per);
    for (int c = 0; c < B; ++c) {
        const dfr_fun *fc = f + (long)c * y->nf;
        const dfr_etab *use = tab && dfr_etab_fits(tb, y, fc) ? tb : NULL;
        if (use) {
            tabulated++;
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
            for (long r = 0; r < tb->per; ++r) tab[r] = dfr_etab_entry(tb, fc, r);
        }
        double *Tc = T + c * t->per;
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
        for (long u = 0; u < t->per; ++u)
            Tc[u] = dfr_tensor_entry(y, fc, use, tab, t, t->outd, t->outx, u);
    }
    free(tab);
    return tabulated;
}

void dfr_contract_one(const dfr_tshape *t, const double *Tc, const double *xc, double *yc)
{
    cblas_dgemv(CblasColMajor, CblasNoTrans, t->nd, t->nh * t->Ed, 1.0, Tc, t->nd, xc, 1, 0.0, yc, 1);
    if (t->nx)
        cblas_dgemv(CblasColMajor, CblasNoTrans, t->nx, t->E, 1.0, Tc + (long)t->nd * t->nh * t->Ed, t->nx,
                    xc + (long)t->nh * t->Ed, 1, 0.0, yc + t->nd, 1);
}

void dfr_contract_host(const dfr_tshape *t, int B, const double *T, const double *x, double *yv, int parallel)
{
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (int c = 0; c < B; ++c) dfr_contract_one(t, T + c * t->per, x + (long)c * t->xlen, yv + (long)c * t->ylen);
}
