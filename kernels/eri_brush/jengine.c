/* eri_brush J engine, host side: the spherical tables, the Hermite layout and the flop model
 * (the arithmetic is jengine.h). */
#include "eri_brush/jengine.h"
#include "eri_brush/jengine_host.h"

#include <stdlib.h>
#include <string.h>

#include "sb.h"
#include "sb_omp.h"

#include "eri_brush/dispatch.h"
#include "eri_brush/eri_gen_2000.h" /* the (d l|ss) transforms */
#include "eri_brush/eri_gen_2100.h"
#include "eri_brush/eri_gen_2200.h"

/* Column c of T is the generated transform of the c-th Cartesian unit block, so T is exactly
 * the transform the other paths apply (eri_sph_<la><lb>00 of class (la lb|ss)). Only the
 * classes with a d shell transform anything. */
_Static_assert(ERI_CODE_LMAX == 2, "sph_columns names the (d l|ss) transforms");
static void sph_columns(int la, int lb, double *T)
{
    const int nc = ERI_NCART(la) * ERI_NCART(lb), nf = ERI_NSPH(la) * ERI_NSPH(lb);
    double cart[ERI_JE_NC], out[ERI_JE_NC];
    for (int c = 0; c < nc; c++) {
        memset(cart, 0, sizeof cart);
        cart[c] = 1.0;
        if (lb == 0)
            ERI_GEN_FN(sph, 2, 0, 0, 0)(cart, out);
        else if (lb == 1)
            ERI_GEN_FN(sph, 2, 1, 0, 0)(cart, out);
        else
            ERI_GEN_FN(sph, 2, 2, 0, 0)(cart, out);
        for (int f = 0; f < nf; f++) T[(size_t)f * nc + c] = out[f];
    }
}

/* A pair with an f shell, for which no class has generated code: the scalar reference's
 * solid harmonics on each shell (the identity on s and p), T = S_a x S_b. */
static void sph_reference(int la, int lb, double *T)
{
    const int nca = ERI_NCART(la), ncb = ERI_NCART(lb), nfb = ERI_NSPH(lb);
    double Sa[ERI_NSPH(ERI_LMAX) * ERI_NCART(ERI_LMAX)], Sb[ERI_NSPH(ERI_LMAX) * ERI_NCART(ERI_LMAX)];
    eri_ref_sph_matrix(la, Sa);
    eri_ref_sph_matrix(lb, Sb);
    for (int i = 0; i < ERI_NSPH(la); i++)
        for (int j = 0; j < nfb; j++)
            for (int ca = 0; ca < nca; ca++)
                for (int cb = 0; cb < ncb; cb++)
                    T[(size_t)(i * nfb + j) * nca * ncb + ca * ncb + cb] = Sa[i * nca + ca] * Sb[j * ncb + cb];
}

void eri_je_sph_tables(int pure, double *T)
{
    memset(T, 0, sizeof(double) * ERI_NPAIRCLASS * ERI_JE_TMAX);
    for (int la = 0; la <= ERI_LMAX; la++)
        for (int lb = 0; lb <= la; lb++) {
            double *t = T + (size_t)eri_pair_class(la, lb) * ERI_JE_TMAX;
            const int nc = ERI_NCART(la) * ERI_NCART(lb);
            if (pure && la > ERI_CODE_LMAX)
                sph_reference(la, lb, t);
            else if (pure && la >= 2)
                sph_columns(la, lb, t);
            else
                for (int c = 0; c < nc; c++) t[(size_t)c * nc + c] = 1.0;
        }
}

long eri_je_layout(const eri_pairs *ps, long *hoff)
{
    long n = 0;
    for (long i = 0; i < ps->npair; i++) {
        hoff[i] = n;
        n += (long)ps->pair[i].npp * ERI_NHERM(ps->pair[i].la + ps->pair[i].lb);
    }
    return n;
}


unsigned eri_je_pair_classes(const eri_worklist *w)
{
    unsigned m = 0;
    for (int k = 0; k < w->nseg; k++) {
        const eri_class_info *c = eri_class(w->seg[k].cls);
        if (w->seg[k].path == ERI_PATH_JENG && c)
            m |= 1u << eri_pair_class(c->la, c->lb) | 1u << eri_pair_class(c->lc, c->ld);
    }
    return m;
}

int eri_je_used(const eri_batch *b) { return b->mode == ERI_MODE_DIGEST && eri_je_pair_classes(b->w) != 0; }

struct eri_je_host {
    int nt, pure;
    unsigned used; /* eri_je_pair_classes */
    long n;      /* Hermite values over all primitive pairs */
    long *hoff;  /* per pair */
    double *H;   /* n */
    double **Gt; /* nt x n */
    double T[ERI_NPAIRCLASS * ERI_JE_TMAX];
};

eri_je_host *eri_je_host_new(const eri_batch *b, int nt)
{
    eri_je_host *jh = calloc(1, sizeof *jh);
    if (!jh) return NULL;
    jh->nt = nt;
    jh->used = eri_je_pair_classes(b->w);
    for (int s = 0; s < b->bas->nshell; s++) jh->pure |= b->bas->sh[s].pure;
    eri_je_sph_tables(jh->pure, jh->T);
    jh->hoff = malloc(sizeof(long) * (size_t)(b->ps->npair ? b->ps->npair : 1));
    if (!jh->hoff) return eri_je_host_free(jh), NULL;
    jh->n = eri_je_layout(b->ps, jh->hoff);
    const size_t bytes = sizeof(double) * (size_t)(jh->n ? jh->n : 1);
    jh->H = sb_aligned_alloc(bytes);
    jh->Gt = calloc((size_t)nt, sizeof *jh->Gt);
    int ok = jh->H && jh->Gt;
    for (int t = 0; ok && t < nt; t++) ok = (jh->Gt[t] = sb_aligned_alloc(bytes)) != NULL;
    if (!ok) eri_je_host_free(jh), jh = NULL;
    return jh;
}

void eri_je_host_free(eri_je_host *jh)
{
    if (!jh) return;
    if (jh->Gt)
        for (int t = 0; t < jh->nt; t++) sb_aligned_free(jh->Gt[t]);
    free(jh->Gt);
    sb_aligned_free(jh->H);
    free(jh->hoff);
    free(jh);
}

/* Pair k's spherical table and function counts, or NULL when no J-engine segment uses its class. */
static const double *pair_use(const eri_je_host *jh, const eri_batch *b, long k, int *nfa, int *nfb)
{
    const eri_pair *P = &b->ps->pair[k];
    if (!(jh->used >> P->cls & 1)) return NULL;
    *nfa = b->bas->sh[P->a].nbf, *nfb = b->bas->sh[P->b].nbf;
    return jh->T + (size_t)P->cls * ERI_JE_TMAX;
}

void eri_je_host_begin(eri_je_host *jh, const eri_batch *b, int t)
{
    memset(jh->Gt[t], 0, sizeof(double) * (size_t)jh->n);
    const eri_pairs *ps = b->ps;
#pragma omp for schedule(dynamic, 64)
    for (long k = 0; k < ps->npair; k++) {
        const eri_pair *P = &ps->pair[k];
        int nfa, nfb;
        const double *T = pair_use(jh, b, k, &nfa, &nfb);
        if (!T) continue;
        eri_je_pair_density(P->la, P->lb, ps->prim + P->pp0, P->npp, T, nfa, nfb, b->D, b->bas->nbf, b->bas->sh[P->a].bf0, b->bas->sh[P->b].bf0, jh->H + jh->hoff[k]);
    }
}

/* Instanced at constant angular momenta (je_quartets_code), so that the loops unroll. */
static inline __attribute__((always_inline)) void je_quartets(const eri_je_host *jh, const eri_batch *b,
                                                               const eri_segment *sg, long q0, long q1, double *G,
                                                               int lab, int lcd)
{
    const eri_pairs *ps = b->ps;
    double W[ERI_JE_NH], F[2 * ERI_JE_LPAIR + 1], R[ERI_JE_NR], V[ERI_JE_NH];
    for (long i = q0; i < q1; i++) {
        const eri_quartet qu = b->w->q[i];
        const eri_pair *P = &ps->pair[qu.P], *Q = &ps->pair[qu.Q];
        eri_je_quartet(lab, lcd, ps->prim + P->pp0, sg->nb, ps->prim + Q->pp0, sg->nk, jh->H + jh->hoff[qu.P],
                       jh->H + jh->hoff[qu.Q], b->boys, Q->a == Q->b ? 1.0 : 2.0, P->a == P->b ? 1.0 : 2.0,
                       qu.P != qu.Q, G + jh->hoff[qu.P], G + jh->hoff[qu.Q], W, F, R, V);
    }
}

/* The classes without generated code (f shells): one instance with the angular momenta at
 * run time. */
static void je_quartets_any(const eri_je_host *jh, const eri_batch *b, const eri_segment *sg, long q0, long q1,
                            double *G)
{
    const eri_class_info *c = eri_class(sg->cls);
    if (!c) return;
    const int lab = c->la + c->lb, lcd = c->lc + c->ld;
    /* bounds the compiler can see, so that it proves the array indices */
    if (lab < 0 || lab > ERI_JE_LPAIR || lcd < 0 || lcd > ERI_JE_LPAIR) return;
    je_quartets(jh, b, sg, q0, q1, G, lab, lcd);
}

/* The classes with generated code: one instance per (la+lb, lc+ld), lc+ld <= la+lb <= 4 (the
 * classes that share both sums share it). */
_Static_assert(ERI_CODE_LMAX == 2, "je_quartets_code lists the sums up to (dd|dd)");
static void je_quartets_code(const eri_je_host *jh, const eri_batch *b, const eri_segment *sg, long q0, long q1,
                             double *G, int lab, int lcd)
{
    switch (lab * 8 + lcd) {
#define JE_SUMS(x, y)                                \
    case x * 8 + y:                                  \
        je_quartets(jh, b, sg, q0, q1, G, x, y); \
        break;
        JE_SUMS(0, 0) JE_SUMS(1, 0) JE_SUMS(1, 1) JE_SUMS(2, 0) JE_SUMS(2, 1) JE_SUMS(2, 2) JE_SUMS(3, 0) JE_SUMS(3, 1)
        JE_SUMS(3, 2) JE_SUMS(3, 3) JE_SUMS(4, 0) JE_SUMS(4, 1) JE_SUMS(4, 2) JE_SUMS(4, 3) JE_SUMS(4, 4)
#undef JE_SUMS
    default:
        je_quartets_any(jh, b, sg, q0, q1, G);
        break;
    }
}

void eri_je_host_quartets(const eri_je_host *jh, const eri_batch *b, const eri_segment *sg, long q0, long q1, int t)
{
#define ERI_CLASS_CASE(la, lb, lc, ld) je_quartets_code(jh, b, sg, q0, q1, jh->Gt[t], la + lb, lc + ld)
#define ERI_CLASS_DEFAULT je_quartets_any(jh, b, sg, q0, q1, jh->Gt[t])
    ERI_CLASS_SWITCH(sg->cls)
#undef ERI_CLASS_CASE
#undef ERI_CLASS_DEFAULT
}

void eri_je_host_end(eri_je_host *jh, const eri_batch *b, double *M)
{
    double *G = jh->Gt[0];
#pragma omp for schedule(static)
    for (long e = 0; e < jh->n; e++) {
        double s = G[e];
        for (int u = 1; u < jh->nt; u++) s += jh->Gt[u][e];
        G[e] = s;
    }
    const eri_pairs *ps = b->ps;
    const int nbf = b->bas->nbf;
#pragma omp for schedule(dynamic, 64)
    for (long k = 0; k < ps->npair; k++) {
        const eri_pair *P = &ps->pair[k];
        int nfa, nfb;
        const double *T = pair_use(jh, b, k, &nfa, &nfb);
        if (!T) continue;
        double blk[ERI_JE_NC]; /* nfa x nfb, at most the Cartesian block */
        eri_je_pair_finish(P->la, P->lb, ps->prim + P->pp0, P->npp, T, nfa, nfb, G + jh->hoff[k], blk);
        const int a0 = b->bas->sh[P->a].bf0, b0 = b->bas->sh[P->b].bf0;
        for (int i = 0; i < nfa; i++)
            for (int j = 0; j < nfb; j++) M[(size_t)(a0 + i) * nbf + b0 + j] += blk[i * nfb + j];
    }
}
