/* dfratom_scf: the closed-shell Dirac-Fock-Roothaan SCF (host side; the backends only
 * build the two-electron matrices G). Per symmetry kappa, in the kinetically balanced basis
 * (dfr.h):
 *   [ V^LL + G^LL        c S^SS + G^LS             ] [C^L]       [S^LL   0  ] [C^L]
 *   [ c S^SS + G^SL      V^SS - 2c^2 S^SS + G^SS   ] [C^S] = eps [ 0   S^SS ] [C^S]
 * solved with LAPACKE dsygvd (or the backend's g->eig: cuSOLVER); the first N_s eigenvalues are
 * the positronic states. The Schrodinger Hamiltonian (c -> infinity taken exactly) keeps the LL
 * block with T = S^SS/2. Nothing depends on the sign of an eigenvector (the densities are
 * products c_i c_j), so the two eigensolvers' sign conventions need no reconciling. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr.h"
#include "sb_omp.h"

#define DIIS_MAX 10

typedef struct {
    int dim[DFR_NSYM];
    long foff[DFR_NSYM], fsize; /* full dim x dim matrices, concatenated */
} layout;

static void make_layout(const dfr_sym *y, int dirac, layout *L)
{
    L->fsize = 0;
    for (int s = 0; s < y->ns; ++s) {
        L->dim[s] = dirac ? 2 * y->n[s] : y->n[s];
        L->foff[s] = L->fsize;
        L->fsize += (long)L->dim[s] * L->dim[s];
    }
}

/* Full matrix of symmetry s from a packed set (LL, LS, SS; SL = LS^T) */
static void unpack(const dfr_sym *y, const layout *L, int s, const double *P, double *F)
{
    int N = y->n[s], d = L->dim[s];
    const double *ll = P + y->moff[s], *ls = ll + (long)N * N, *ss = ls + (long)N * N;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            F[i + (long)j * d] = ll[i + (long)j * N];
            if (d == N) continue;
            F[i + (long)(N + j) * d] = ls[i + (long)j * N];
            F[N + j + (long)i * d] = ls[i + (long)j * N];
            F[N + i + (long)(N + j) * d] = ss[i + (long)j * N];
        }
}

/* sum_ij D_ij A_ij of two packed sets of symmetric full matrices (LS counts twice) */
static double trace_set(const dfr_sym *y, const double *D, const double *A)
{
    double t = 0.0;
    for (int s = 0; s < y->ns; ++s) {
        long NN = (long)y->n[s] * y->n[s], o = y->moff[s];
        for (long e = 0; e < NN; ++e) t += D[o + e] * A[o + e] + 2.0 * D[o + NN + e] * A[o + NN + e] + D[o + 2 * NN + e] * A[o + 2 * NN + e];
    }
    return t;
}

typedef struct {
    int n, next;
    double *F[DIIS_MAX], *E[DIIS_MAX];
    double dot[DIIS_MAX][DIIS_MAX]; /* E[i] . E[j] by slot: each vector's dots are taken once */
} diis;

/* Pulay's extrapolation over the last m Fock sets; error FDM - MDF per symmetry */
static void diis_step(diis *d, int m, long size, double *F, const double *err)
{
    int slot = d->next % m;
    if (!d->F[slot]) {
        d->F[slot] = malloc(sizeof(double) * size);
        d->E[slot] = malloc(sizeof(double) * size);
    }
    memcpy(d->F[slot], F, sizeof(double) * size);
    memcpy(d->E[slot], err, sizeof(double) * size);
    d->next++;
    if (d->n < m) d->n++;
    for (int a = 0; a < d->n; ++a) { /* the new vector against every kept one (and itself) */
        const int j = (d->next - d->n + a) % m;
        double dot = 0.0;
        for (long e = 0; e < size; ++e) dot += d->E[j][e] * d->E[slot][e];
        d->dot[slot][j] = d->dot[j][slot] = dot;
    }
    for (int n = d->n; n >= 2; --n) { /* drop the oldest vectors while the system is singular */
        double B[(DIIS_MAX + 1) * (DIIS_MAX + 1)], rhs[DIIS_MAX + 1];
        lapack_int ipiv[DIIS_MAX + 1];
        int idx[DIIS_MAX];
        for (int a = 0; a < n; ++a) idx[a] = (d->next - n + a) % m;
        for (int a = 0; a < n; ++a) {
            for (int b = 0; b <= a; ++b) B[a + b * (n + 1)] = B[b + a * (n + 1)] = d->dot[idx[a]][idx[b]];
            B[a + n * (n + 1)] = B[n + a * (n + 1)] = -1.0;
            rhs[a] = 0.0;
        }
        B[n + n * (n + 1)] = 0.0;
        rhs[n] = -1.0;
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, n + 1, 1, B, n + 1, ipiv, rhs, n + 1) != 0) continue;
        memset(F, 0, sizeof(double) * size);
        for (int a = 0; a < n; ++a)
            for (long e = 0; e < size; ++e) F[e] += rhs[a] * d->F[idx[a]][e];
        return;
    }
}

static void diis_free(diis *d)
{
    for (int i = 0; i < DIIS_MAX; ++i) {
        free(d->F[i]);
        free(d->E[i]);
    }
}

/* Padding functions (dfr_fun_is_pad) of symmetry s have zero rows and columns in every
 * one-electron and two-electron block. A unit metric and a diagonal away from the occupied
 * orbitals decouple them exactly, so that the occupied orbitals, the densities and the energy are
 * those of the basis without them: L at +DFR_PAD_LEVEL, S (Dirac) at -(2c^2 + DFR_PAD_LEVEL),
 * among the positronic states. The level sits above every occupied orbital energy an SCF passes
 * through (Ne's 2p is at +1.5 Eh in the second iteration from the core guess, and a pad at +1 Eh
 * was occupied there instead) and within the spectrum of the real functions (a pad at the size of
 * the largest diagonal element, 1e9 Eh for Be, made every eigenvector noisier and the SCF ten
 * times longer). An occupied orbital with weight on the padding ends no SCF as converged. */
#define DFR_PAD_LEVEL 1e4
static void decouple_padding(const dfr_sym *y, const dfr_fun *f, int s, int dirac, double c, double *S, double *H)
{
    const int N = y->n[s];
    const long NN = (long)N * N, m = y->moff[s];
    for (int i = 0; i < N; ++i) {
        if (!dfr_fun_is_pad(&f[y->fun0[s] + i])) continue;
        const long e = m + i + (long)i * N;
        S[e] = 1.0, H[e] = DFR_PAD_LEVEL;
        if (dirac) S[e + 2 * NN] = 1.0, H[e + 2 * NN] = -(2.0 * c * c + DFR_PAD_LEVEL);
    }
}

/* One SCF in steps (dfr.h): everything an iteration carries over */
struct dfr_scf_run {
    const dfr_atom *a;
    const dfr_sym *y;
    const dfr_scf_opts *o;
    const dfr_gbuild *g;
    dfr_result r;
    layout L;
    long psize;
    int dirac, it, m_diis, verbose;
    double Eold;
    double stall_mark;    /* the convergence ratio that the next one must halve */
    int stall_it;         /* the iteration that set it */
    double *S, *V, *H, *K, *G, *D, *Dw, *Dold, *Hf, *Mf, *Ff, *Df, *Ef, *tmp, *Lf;
    /* the density step's workspace, a slice per symmetry block (A, B at foff, w at woff,
     * isuppz at 2 woff) so that the blocks may be solved on threads of their own */
    double *A, *B, *w;
    lapack_int *isuppz; /* occupied_eig's dsyevr */
    long woff[DFR_NSYM];
    double blk_teig[DFR_NSYM], blk_pad[DFR_NSYM], blk_minocc[DFR_NSYM]; /* per block, combined in order */
    const double *given_w[DFR_NSYM], *given_C[DFR_NSYM]; /* dfr_scf_eig_given, for one density step */
    const double *guess;  /* dfr_scf_guess: the first density step's weighted density */
    unsigned char *pad;   /* per function: padding (dfr_fun_is_pad) */
    double pad_occ;       /* largest weight of the padding in an occupied orbital, this iteration */
    diis dd;
};

void dfr_scf_end(dfr_scf_run *s, dfr_result *r, double *Dw_out)
{
    if (!s) return;
    if (r) *r = s->r;
    if (Dw_out) memcpy(Dw_out, s->Dw, sizeof(double) * s->psize);
    diis_free(&s->dd);
    free(s->S); free(s->V); free(s->H); free(s->K); free(s->G); free(s->D); free(s->Dw); free(s->Dold);
    free(s->Hf); free(s->Mf); free(s->Ff); free(s->Df); free(s->Ef); free(s->tmp); free(s->Lf);
    free(s->A); free(s->B); free(s->w); free(s->pad); free(s->isuppz);
    free(s);
}

static int scf_begin(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o,
                     const dfr_gbuild *g, int verbose, dfr_scf_run **out)
{
    dfr_scf_run *st = calloc(1, sizeof *st);
    *out = st;
    if (!st) return SB_EXIT_RUNTIME;
    st->a = a, st->y = y, st->o = o, st->g = g, st->verbose = verbose;
    const int dirac = st->dirac = o->ham == DFR_DIRAC;
    const double c = o->c;
    layout *L = &st->L;
    make_layout(y, dirac, L);
    long psize = st->psize = dfr_set_size(y);
    long wsize = 0;
    for (int s = 0; s < y->ns; ++s) st->woff[s] = wsize, wsize += L->dim[s];
    double **packed[] = {&st->S, &st->V, &st->H, &st->K, &st->G, &st->D, &st->Dw, &st->Dold};
    double **full[] = {&st->Hf, &st->Mf, &st->Ff, &st->Df, &st->Ef, &st->tmp, &st->Lf};
    for (unsigned i = 0; i < sizeof packed / sizeof *packed; ++i)
        if (!(*packed[i] = calloc(psize, sizeof(double)))) return SB_EXIT_RUNTIME;
    for (unsigned i = 0; i < sizeof full / sizeof *full; ++i)
        if (!(*full[i] = calloc(L->fsize, sizeof(double)))) return SB_EXIT_RUNTIME;
    st->A = malloc(sizeof(double) * (L->fsize > 0 ? L->fsize : 1));
    st->B = malloc(sizeof(double) * (L->fsize > 0 ? L->fsize : 1));
    st->w = malloc(sizeof(double) * (wsize > 0 ? wsize : 1));
    st->isuppz = malloc(sizeof(lapack_int) * 2 * (wsize > 0 ? wsize : 1));
    if (!st->A || !st->B || !st->w || !st->isuppz) return SB_EXIT_RUNTIME;
    if (!(st->pad = malloc(y->nf > 0 ? y->nf : 1))) return SB_EXIT_RUNTIME;
    for (int i = 0; i < y->nf; ++i) st->pad[i] = (unsigned char)dfr_fun_is_pad(&f[i]);
    for (int s = 0; s < y->ns; ++s) {
        int real = 0;
        for (int i = 0; i < y->n[s]; ++i) real += !st->pad[y->fun0[s] + i];
        if (real < a->nocc[s]) {
            sb_error("dfratom_scf: kappa=%d needs %d occupied orbitals but the basis has %d functions", dfr_kappa[s],
                     a->nocc[s], real);
            return SB_EXIT_USAGE;
        }
    }
    double *S = st->S, *V = st->V, *H = st->H, *K = st->K;
    dfr_oneint(y, f, a->Z, o, S, V);
    /* H = V + kinetic part K (packed); metric M = diag(S^LL, S^SS) */
    for (int s = 0; s < y->ns; ++s) {
        long NN = (long)y->n[s] * y->n[s], m = y->moff[s];
        for (long e = 0; e < NN; ++e) {
            if (dirac) {
                K[m + NN + e] = c * S[m + 2 * NN + e];
                K[m + 2 * NN + e] = -2.0 * c * c * S[m + 2 * NN + e];
                H[m + 2 * NN + e] = V[m + 2 * NN + e] + K[m + 2 * NN + e];
                H[m + NN + e] = K[m + NN + e];
            } else {
                K[m + e] = 0.5 * S[m + 2 * NN + e];
            }
            H[m + e] = V[m + e] + K[m + e];
        }
        decouple_padding(y, f, s, dirac, c, S, H);
        unpack(y, L, s, S, st->Mf + L->foff[s]);
        unpack(y, L, s, H, st->Hf + L->foff[s]);
    }
    /* Cholesky factors of the metric: DIIS errors are measured in the orthonormalised basis,
     * where the tight and the small-component functions do not dominate them by scale; a
     * batch's eigen-solves on the GPU use them too (dfr_scf_eig_input) */
    for (int s = 0; s < y->ns; ++s) {
        int d = L->dim[s];
        memcpy(st->Lf + L->foff[s], st->Mf + L->foff[s], sizeof(double) * d * d);
        if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', d, st->Lf + L->foff[s], d) != 0) {
            sb_error("dfratom_scf: the overlap matrix of kappa=%d is not positive definite (basis linearly dependent)",
                     dfr_kappa[s]);
            return SB_EXIT_USAGE;
        }
    }
    memcpy(st->Ff, st->Hf, sizeof(double) * L->fsize);
    st->m_diis = o->diis > DIIS_MAX ? DIIS_MAX : o->diis;
    return SB_OK;
}

/* The eigenpairs the density needs, and no more: the Roothaan problem F C = M C e reduced with
 * the metric's stored Cholesky factor (dsygst), then dsyevr for eigenpairs first .. first +
 * nocc - 1 only (Dirac: one below, the highest positronic state, and at least one above), and
 * the vectors transformed back. Eigenvalue k and vector k land where dsygvd puts them (w[k],
 * column k of A); the others are not computed. dsygvd computes all d of them, and their
 * tridiagonal eigen-solve and back-transformation are most of its time at these sizes.
 * Used only where the options ask for it (eig_occupied). Returns 0 where the caller must run
 * dsygvd instead: the positronic count is not exactly N (the check then needs every
 * eigenvalue), or dsygst or dsyevr fails or finds fewer eigenpairs than asked (dsygvd then
 * decides whether the basis is at fault). */
static int occupied_eig(dfr_scf_run *st, int s, int d, int first, int nocc, double *A, double *w)
{
    const int dirac = st->dirac;
    const int il = dirac ? first : 1, iu = first + (nocc > 0 ? nocc : 1); /* 1-based */
    if (!st->o->eig_occupied || iu > d || il < 1) return 0;
    const double *Lc = st->Lf + st->L.foff[s];
    double *Z = st->B + st->L.foff[s];
    lapack_int m = 0, *isuppz = st->isuppz + 2 * st->woff[s];
    if (LAPACKE_dsygst(LAPACK_COL_MAJOR, 1, 'L', d, A, d, Lc, d)) return 0;
    if (LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'L', d, A, d, 0.0, 0.0, il, iu, 0.0, &m, w + il - 1, Z, d, isuppz) ||
        m != iu - il + 1)
        return 0;
    if (dirac) { /* exactly `first` below -c^2: the lowest computed one below, the next not */
        const double c2 = st->o->c * st->o->c;
        if (!(w[il - 1] < -c2 && (il >= d || w[il] >= -c2))) return 0;
    }
    for (int e = 0; e < il - 1; ++e) w[e] = -INFINITY; /* uncomputed: below and above the range */
    for (int e = iu; e < d; ++e) w[e] = INFINITY;
    /* C = L^-T Z */
    if (LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'T', 'N', d, m, Lc, d, Z, d)) return 0;
    memcpy(A + (long)(il - 1) * d, Z, sizeof(double) * d * (size_t)m);
    return 1;
}

/* The density step in three parts: begin (1 where the given guess density ends the step),
 * one call per symmetry block, which touch only that block's slices and may run at once, and
 * end, which combines the blocks' results in block order. */
static int density_begin(dfr_scf_run *st, const double **Dw_build, double **G_build)
{
    const dfr_atom *a = st->a;
    const dfr_sym *y = st->y;
    double *D = st->D;
    ++st->it;
    memcpy(st->Dold, D, sizeof(double) * st->psize);
    if (st->guess) { /* the given density instead of the core Hamiltonian's orbitals */
        for (int s = 0; s < y->ns; ++s) {
            const long NN = (long)y->n[s] * y->n[s], m = y->moff[s];
            const double q = a->one_electron ? 1.0 : dfr_degeneracy(dfr_kappa[s]);
            for (long e = 0; e < 3 * NN; ++e) st->Dw[m + e] = st->guess[m + e], D[m + e] = st->guess[m + e] / q;
        }
        st->guess = NULL;
        memset(st->G, 0, sizeof(double) * st->psize);
        *Dw_build = a->one_electron ? NULL : st->Dw;
        *G_build = st->G;
        return 1;
    }
    memset(D, 0, sizeof(double) * st->psize);
    return 0;
}

/* Diagonalise block s, occupy, and its density */
static int density_block(dfr_scf_run *st, int s)
{
    const dfr_atom *a = st->a;
    const dfr_sym *y = st->y;
    const dfr_gbuild *g = st->g;
    const layout *L = &st->L;
    const int dirac = st->dirac, it = st->it;
    const double c = st->o->c;
    dfr_result *r = &st->r;
    double *D = st->D, *A = st->A + L->foff[s], *B = st->B + L->foff[s], *w = st->w + st->woff[s];
    int rc = SB_OK;
    const int d = L->dim[s], N = y->n[s], first = dirac ? N : 0;
    st->blk_teig[s] = 0.0, st->blk_pad[s] = 0.0, st->blk_minocc[s] = 0.0;
    memcpy(A, st->Ff + L->foff[s], sizeof(double) * d * d);
    memcpy(B, st->Mf + L->foff[s], sizeof(double) * d * d);
    int info = 0;
    double t0 = sb_clock_seconds();
    if (st->given_C[s]) {
        memcpy(A, st->given_C[s], sizeof(double) * d * d);
        memcpy(w, st->given_w[s], sizeof(double) * d);
        st->given_C[s] = st->given_w[s] = NULL;
    } else if (g && g->eig) {
        if ((rc = g->eig(g->eig_priv, d, A, B, w, &info))) return rc;
    } else if (!occupied_eig(st, s, d, first, a->nocc[s], A, w)) { /* it may have used both */
        memcpy(A, st->Ff + L->foff[s], sizeof(double) * d * d);
        memcpy(B, st->Mf + L->foff[s], sizeof(double) * d * d);
        info = (int)LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', d, A, d, B, d, w);
    }
    st->blk_teig[s] = sb_clock_seconds() - t0;
    if (info != 0) {
        sb_error("dfratom_scf: %s failed (info %d) for kappa=%d at iteration %d: the basis is "
                 "numerically linearly dependent or the Fock matrix is not finite",
                 g && g->eig ? "cusolverDnDsygvd" : "dsygvd", info, dfr_kappa[s], it);
        return SB_EXIT_RUNTIME;
    }
    r->below_minus_c2[s] = 0;
    for (int e = 0; e < d; ++e) r->below_minus_c2[s] += dirac && w[e] < -c * c;
    if (first + a->nocc[s] > d) {
        sb_error("dfratom_scf: kappa=%d needs %d occupied orbitals but the basis has %d", dfr_kappa[s], a->nocc[s],
                 N);
        return SB_EXIT_USAGE;
    }
    long NN = (long)N * N, m = y->moff[s];
    for (int b = 0; b < a->nocc[s]; ++b) {
        const double *cv = A + (long)(first + b) * d;
        double pad = 0.0;
        for (int i = 0; i < N; ++i)
            if (st->pad[y->fun0[s] + i]) pad += cv[i] * cv[i] + (dirac ? cv[N + i] * cv[N + i] : 0.0);
        st->blk_pad[s] = fmax(st->blk_pad[s], pad);
        if (b < 8) r->eps[s][b] = w[first + b];
        if (w[first + b] < st->blk_minocc[s]) st->blk_minocc[s] = w[first + b];
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < N; ++i) {
                D[m + i + j * N] += cv[i] * cv[j];
                if (!dirac) continue;
                D[m + NN + i + j * N] += cv[i] * cv[N + j];
                D[m + 2 * NN + i + j * N] += cv[N + i] * cv[N + j];
            }
    }
    double q = a->one_electron ? 1.0 : dfr_degeneracy(dfr_kappa[s]);
    for (long e = 0; e < 3 * NN; ++e) st->Dw[m + e] = q * D[m + e];
    return SB_OK;
}

static void density_end(dfr_scf_run *st, const double **Dw_build, double **G_build)
{
    dfr_result *r = &st->r;
    r->min_occ_eps = 0.0;
    st->pad_occ = 0.0;
    for (int s = 0; s < st->y->ns; ++s) {
        r->t_eig += st->blk_teig[s];
        st->pad_occ = fmax(st->pad_occ, st->blk_pad[s]);
        if (st->blk_minocc[s] < r->min_occ_eps) r->min_occ_eps = st->blk_minocc[s];
    }
    memset(st->G, 0, sizeof(double) * st->psize);
    *Dw_build = st->a->one_electron ? NULL : st->Dw;
    *G_build = st->G;
}

static int scf_density(dfr_scf_run *st, const double **Dw_build, double **G_build)
{
    if (density_begin(st, Dw_build, G_build)) return SB_OK;
    for (int s = 0; s < st->y->ns; ++s) {
        const int rc = density_block(st, s);
        if (rc) return rc;
    }
    density_end(st, Dw_build, G_build);
    return SB_OK;
}

void dfr_scf_guess(dfr_scf_run *st, const double *Dw0) { st->guess = Dw0; }

int dfr_scf_eig_input(const dfr_scf_run *st, int s, const double **F, const double **L)
{
    *F = st->Ff + st->L.foff[s];
    *L = st->Lf + st->L.foff[s];
    return st->L.dim[s];
}

void dfr_scf_eig_given(dfr_scf_run *st, int s, const double *w, const double *C)
{
    st->given_w[s] = w;
    st->given_C[s] = C;
}

/* The Fock step in three parts like the density step: begin (Fock matrices, energy,
 * convergence; 1 where DIIS follows), one call per symmetry block for its DIIS error, which
 * touch only that block's slices, and end, the extrapolation over every block. */
static int fock_begin(dfr_scf_run *st, int *done)
{
    const dfr_sym *y = st->y;
    const dfr_scf_opts *o = st->o;
    const layout *L = &st->L;
    const int it = st->it;
    dfr_result *r = &st->r;
    double *G = st->G, *D = st->D, *Dold = st->Dold, *Ff = st->Ff;
    *done = 0;
    if (!st->a->one_electron) {
        dfr_g_mirror(y, G);
        r->fock_builds++;
    }
    for (int s = 0; s < y->ns; ++s) {
        double *F = Ff + L->foff[s];
        unpack(y, L, s, G, F);
        for (long e = 0; e < (long)L->dim[s] * L->dim[s]; ++e) F[e] += st->Hf[L->foff[s] + e];
    }
    r->e_kin = trace_set(y, st->Dw, st->K);
    r->e_ne = trace_set(y, st->Dw, st->V);
    r->e_ee = 0.5 * trace_set(y, st->Dw, G);
    r->energy = r->e_kin + r->e_ne + r->e_ee;
    r->iterations = it;
    /* convergence: density change per block, measured in normalised functions (the small
     * components are unnormalised, |g^S_i| = sqrt(S^SS_ii)), and energy change */
    r->dd_ll = r->dd_ls = r->dd_ss = 0.0;
    for (int s = 0; s < y->ns; ++s) {
        long NN = (long)y->n[s] * y->n[s], m = y->moff[s];
        int N = y->n[s];
        const double *sss = st->S + m + 2 * NN;
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < N; ++i) {
                long e = i + (long)j * N;
                double ni = sqrt(sss[i + (long)i * N]), nj = sqrt(sss[j + (long)j * N]);
                r->dd_ll = fmax(r->dd_ll, fabs(D[m + e] - Dold[m + e]));
                r->dd_ls = fmax(r->dd_ls, fabs(D[m + NN + e] - Dold[m + NN + e]) * nj);
                r->dd_ss = fmax(r->dd_ss, fabs(D[m + 2 * NN + e] - Dold[m + 2 * NN + e]) * ni * nj);
            }
    }
    r->de = fabs(r->energy - st->Eold);
    st->Eold = r->energy;
    const double ratio = it == 1 ? INFINITY
                                 : fmax(fmax(r->de / o->conv_e, r->dd_ll / o->conv_ll),
                                        fmax(r->dd_ls / o->conv_ls, r->dd_ss / o->conv_ss));
    if (it <= DFR_HIST) r->conv_ratio[it - 1] = ratio;
    if (it == 1 || ratio < 0.5 * st->stall_mark) st->stall_mark = ratio, st->stall_it = it;
    if (st->verbose)
        sb_progress("dfratom_scf: iteration %3d  E = %.12f Eh  dE = %.1e Eh  dD(LL) = %.1e", it, r->energy, r->de,
                    r->dd_ll);
    if (st->a->one_electron || (it > 1 && r->de < o->conv_e && r->dd_ll < o->conv_ll && r->dd_ls < o->conv_ls &&
                                r->dd_ss < o->conv_ss && st->pad_occ < 1e-12)) {
        r->converged = *done = 1;
        return 0;
    }
    if (it >= o->maxit) {
        *done = 1;
        return 0;
    }
    if (o->stall > 0 && it - st->stall_it >= o->stall) {
        r->stalled = *done = 1;
        return 0;
    }
    return st->m_diis >= 2;
}

/* DIIS error FDM - MDF of block s, D the unweighted full density */
static void fock_block(dfr_scf_run *st, int s)
{
    const dfr_sym *y = st->y;
    const layout *L = &st->L;
    const int d = L->dim[s];
    double *Ds = st->Df + L->foff[s], *Es = st->Ef + L->foff[s], *tmp = st->tmp + L->foff[s];
    const double *F = st->Ff + L->foff[s], *M = st->Mf + L->foff[s];
    unpack(y, L, s, st->D, Ds);
    /* tmp = D M, E = F tmp - (F tmp)^T since (M D F)^T = F D M */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0, Ds, d, M, d, 0.0, tmp, d);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d, d, d, 1.0, F, d, tmp, d, 0.0, Es, d);
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < j; ++i) {
            double e = Es[i + j * d] - Es[j + i * d];
            Es[i + j * d] = e;
            Es[j + i * d] = -e;
        }
    for (int i = 0; i < d; ++i) Es[i + i * d] = 0.0;
    /* L^-1 E L^-T, up to a transpose (which leaves the DIIS dot products alone) */
    const double *Ls = st->Lf + L->foff[s];
    LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', d, d, Ls, d, Es, d);
    for (int j = 0; j < d; ++j)
        for (int i = 0; i < d; ++i) tmp[i + j * d] = Es[j + i * d];
    LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', d, d, Ls, d, tmp, d);
    memcpy(Es, tmp, sizeof(double) * d * d);
}

static void fock_end(dfr_scf_run *st) { diis_step(&st->dd, st->m_diis, st->L.fsize, st->Ff, st->Ef); }

static int scf_fock(dfr_scf_run *st, int *done)
{
    if (fock_begin(st, done)) {
        for (int s = 0; s < st->y->ns; ++s) fock_block(st, s);
        fock_end(st);
    }
    return SB_OK;
}

/* The steps' LAPACK and BLAS calls on one thread. OpenBLAS's OpenMP build takes its thread
 * count from OpenMP's at every call and runs a parallel region for a symmetry's block of a few
 * dozen rows (a dsymv inside dsygvd); called from inside a parallel region it already runs on
 * one. Outside one, OpenMP's count is lowered to one around the step, not around the Fock
 * build between the steps, whose own parallel regions keep it. */
static int blas_one_begin(void)
{
    if (omp_in_parallel()) return 0;
    const int n = omp_get_max_threads();
    if (n > 1) omp_set_num_threads(1);
    return n;
}

static void blas_one_end(int n)
{
    if (n > 1) omp_set_num_threads(n);
}

int dfr_scf_begin(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o,
                  const dfr_gbuild *g, int verbose, dfr_scf_run **out)
{
    const int n = blas_one_begin();
    const int rc = scf_begin(a, y, f, o, g, verbose, out);
    blas_one_end(n);
    return rc;
}

int dfr_scf_density(dfr_scf_run *st, const double **Dw_build, double **G_build)
{
    const int n = blas_one_begin();
    const int rc = scf_density(st, Dw_build, G_build);
    blas_one_end(n);
    return rc;
}

int dfr_scf_density_begin(dfr_scf_run *st, const double **Dw, double **G)
{
    const int n = blas_one_begin();
    const int more = !density_begin(st, Dw, G);
    blas_one_end(n);
    return more ? st->y->ns : 0;
}

int dfr_scf_density_block(dfr_scf_run *st, int s)
{
    const int n = blas_one_begin();
    const int rc = density_block(st, s);
    blas_one_end(n);
    return rc;
}

void dfr_scf_density_end(dfr_scf_run *st, const double **Dw, double **G) { density_end(st, Dw, G); }

int dfr_scf_fock_begin(dfr_scf_run *st, int *done)
{
    const int n = blas_one_begin();
    const int more = fock_begin(st, done);
    blas_one_end(n);
    return more ? st->y->ns : 0;
}

void dfr_scf_fock_block(dfr_scf_run *st, int s)
{
    const int n = blas_one_begin();
    fock_block(st, s);
    blas_one_end(n);
}

void dfr_scf_fock_end(dfr_scf_run *st) { fock_end(st); }

int dfr_scf_fock(dfr_scf_run *st, int *done)
{
    const int n = blas_one_begin();
    const int rc = scf_fock(st, done);
    blas_one_end(n);
    return rc;
}

int dfr_scf(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o, dfr_gbuild *g,
            dfr_result *r, int verbose, double *Dw_out)
{
    return dfr_scf_from(a, y, f, o, g, NULL, r, verbose, Dw_out);
}

int dfr_scf_from(const dfr_atom *a, const dfr_sym *y, const dfr_fun *f, const dfr_scf_opts *o, dfr_gbuild *g,
                 const double *Dw0, dfr_result *r, int verbose, double *Dw_out)
{
    dfr_scf_run *st;
    int rc = dfr_scf_begin(a, y, f, o, g, verbose, &st), done = 0;
    if (!rc && Dw0) dfr_scf_guess(st, Dw0);
    while (!rc && !done) {
        const double *Dw;
        double *G;
        if ((rc = dfr_scf_density(st, &Dw, &G))) break;
        if (Dw && (rc = g->build(g, Dw, G))) break;
        rc = dfr_scf_fock(st, &done);
    }
    if (verbose) sb_progress_done();
    if (st) dfr_scf_end(st, r, rc ? NULL : Dw_out);
    else memset(r, 0, sizeof *r);
    return rc;
}
