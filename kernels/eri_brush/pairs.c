/* eri_brush: shell pairs, their primitive pairs and Schwarz factors, and the screened
 * canonical quartet list sorted into segments (one class, one contraction pattern). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "sb.h"

/* sqrt(2) pi^(5/4): with K_bra K_ket / sqrt(p+q) it gives 2 pi^(5/2) / (p q sqrt(p+q)) */
#define ERI_KFAC 5.9149671727956128778

/* Pairs of one class and one primitive-pair count form a group; a segment is a pair of
 * groups, so its quartets share class and contraction pattern. */
typedef struct {
    int cls, npp;
    long n;
    int *pair; /* pair indices, Schwarz factor descending */
} pgroup;

static int pair_orient(const eri_basis *bs, int s, int t, int *a, int *b)
{
    int ls = bs->sh[s].l, lt = bs->sh[t].l;
    if (ls > lt || (ls == lt && s >= t)) *a = s, *b = t;
    else *a = t, *b = s;
    return 0;
}

/* sqrt(max |(ab|ab)|) over the functions of shells a, b of bs (the Schwarz factor) */
static double diag_schwarz(const eri_basis *bs, int a, int b, double *buf)
{
    int na = bs->sh[a].nbf, nb = bs->sh[b].nbf;
    eri_ref_quartet(bs, a, b, a, b, buf);
    double m = 0.0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            double v = fabs(buf[((i * nb + j) * na + i) * nb + j]);
            if (v > m) m = v;
        }
    return sqrt(m);
}

/* The Schwarz factor of primitive pair (i, j) of pair pr alone, its coefficients included. */
static double prim_schwarz(const eri_basis *bs, const eri_pair *pr, int i, int j, double *buf)
{
    const eri_shell *A = &bs->sh[pr->a], *B = &bs->sh[pr->b];
    eri_shell s[2] = {*A, *B};
    s[0].nprim = s[1].nprim = 1;
    s[0].alpha[0] = A->alpha[i], s[0].coef[0] = A->coef[i];
    s[1].alpha[0] = B->alpha[j], s[1].coef[0] = B->coef[j];
    eri_basis t = {.nshell = 2, .sh = s};
    return diag_schwarz(&t, 0, 1, buf);
}

static void prim_screen(eri_pairs *ps, double *q, double eps);

int eri_pairs_build(const eri_basis *bs, double prim_eps, eri_pairs *ps)
{
    memset(ps, 0, sizeof *ps);
    long ns = bs->nshell;
    ps->npair = ns * (ns + 1) / 2;
    ps->pair = calloc((size_t)ps->npair, sizeof *ps->pair);
    long nprim = 0;
    for (long s = 0; s < ns; s++)
        for (long t = 0; t <= s; t++) nprim += (long)bs->sh[s].nprim * bs->sh[t].nprim;
    ps->nprim = nprim;
    ps->prim = calloc((size_t)nprim, sizeof *ps->prim);
    ps->ij = malloc(sizeof(int) * (size_t)(nprim ? nprim : 1));
    if (!ps->pair || !ps->prim || !ps->ij) {
        sb_error("eri_brush: out of memory for %ld shell pairs", ps->npair);
        eri_pairs_free(ps);
        return SB_EXIT_RUNTIME;
    }
    long k = 0, pp = 0;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t <= s; t++, k++) {
            eri_pair *pr = &ps->pair[k];
            pair_orient(bs, s, t, &pr->a, &pr->b);
            const eri_shell *A = &bs->sh[pr->a], *B = &bs->sh[pr->b];
            pr->la = A->l, pr->lb = B->l, pr->cls = eri_pair_class(A->l, B->l);
            pr->pp0 = (int)pp, pr->npp = pr->npp_full = A->nprim * B->nprim;
            double ab2 = 0;
            for (int x = 0; x < 3; x++) {
                pr->AB[x] = A->O[x] - B->O[x];
                ab2 += pr->AB[x] * pr->AB[x];
            }
            for (int i = 0; i < A->nprim; i++)
                for (int j = 0; j < B->nprim; j++, pp++) {
                    eri_prim *q = &ps->prim[pp];
                    ps->ij[pp] = i * B->nprim + j;
                    double a = A->alpha[i], b = B->alpha[j], p = a + b;
                    q->p = p;
                    q->h = 0.5 / p;
                    q->K = A->coef[i] * B->coef[j] * exp(-a * b / p * ab2) * ERI_KFAC / p;
                    for (int x = 0; x < 3; x++) {
                        q->P[x] = (a * A->O[x] + b * B->O[x]) / p;
                        q->PA[x] = q->P[x] - A->O[x];
                        q->PB[x] = q->P[x] - B->O[x];
                    }
                }
        }
    int nmax = ERI_NCART(bs->lmax) * ERI_NCART(bs->lmax);
    int rc = SB_OK;
    /* per primitive pair its own Schwarz factor: the primitive-pair and primitive-quartet
     * screens */
    double *q = ps->q = malloc(sizeof(double) * (size_t)(nprim ? nprim : 1));
    if (!q) rc = SB_EXIT_RUNTIME;
#pragma omp parallel
    {
        double *buf = malloc(sizeof(double) * (size_t)nmax * nmax);
        if (!buf) {
#pragma omp atomic write
            rc = SB_EXIT_RUNTIME;
        }
#pragma omp for schedule(dynamic, 64)
        for (long i = 0; i < ps->npair; i++) {
            eri_pair *pr = &ps->pair[i];
            if (!buf) continue;
            pr->schwarz = diag_schwarz(bs, pr->a, pr->b, buf);
            if (!q) continue;
            if (pr->npp == 1) q[pr->pp0] = pr->schwarz; /* nothing to drop: no second call */
            else
                for (int k = 0; k < pr->npp; k++)
                    q[pr->pp0 + k] = prim_schwarz(bs, pr, k / bs->sh[pr->b].nprim, k % bs->sh[pr->b].nprim, buf);
        }
        free(buf);
    }
    if (!rc) prim_screen(ps, q, prim_eps); /* with prim_eps 0 it only sorts */
    if (rc) {
        sb_error("eri_brush: out of memory for the Schwarz factors");
        eri_pairs_free(ps);
    }
    return rc;
}

/* ---- primitive-pair screening --------------------------------------------------------
 * A contracted product of pair AB is the sum of its primitive pairs' products, and for the
 * Coulomb kernel (positive definite) each primitive pair ij, primitive pair kl of CD add at
 * most q_ij q_kl to any integral (ab|cd) of their functions (Schwarz inequality; q is the
 * primitive pair's own Schwarz factor, coefficients included, prim_schwarz). Dropping from
 * AB primitive pairs whose q sum to e_AB, and from CD e_CD, changes (ab|cd) by at most
 * e_AB S_CD + S_AB e_CD, S a pair's sum of q. Each pair drops its smallest primitive pairs
 * while e <= eps / max S, so no integral moves by more than 2 eps: a bound, not an estimate.
 * The kept count is rounded up to eri_prim_bucket() with the next primitive pairs in order (so
 * rounding only adds accuracy), so that pairs of a class fall into few groups: a group, and
 * so a segment, needs one count. The pair's primitives are reordered, largest q first. */
int eri_prim_bucket(int n, int full)
{
    static const int b[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 576};
    int i = 0;
    while (i + 1 < (int)(sizeof b / sizeof *b) && b[i] < n) i++;
    return b[i] < full ? b[i] : full;
}

static void prim_screen(eri_pairs *ps, double *q, double eps)
{
    double smax = 0;
    for (long i = 0; i < ps->npair; i++) {
        const eri_pair *pr = &ps->pair[i];
        double s = 0;
        for (int k = 0; k < pr->npp; k++) s += q[pr->pp0 + k];
        if (s > smax) smax = s;
    }
    if (smax <= 0) return;
    const double tau = eps > 0 ? eps / smax : -1.0; /* -1: drops nothing, sorts */
    eri_prim tmp[ERI_MAXPRIM * ERI_MAXPRIM];
    int idx[ERI_MAXPRIM * ERI_MAXPRIM], tij[ERI_MAXPRIM * ERI_MAXPRIM];
    double tq[ERI_MAXPRIM * ERI_MAXPRIM];
    for (long i = 0; i < ps->npair; i++) {
        eri_pair *pr = &ps->pair[i];
        double *qp = q + pr->pp0;
        /* the pair's primitive pairs by q, largest first, ties in index order (insertion sort:
         * at most ERI_MAXPRIM^2 of them) */
        for (int k = 0; k < pr->npp; k++) {
            int j = k;
            for (; j > 0 && qp[idx[j - 1]] < qp[k]; j--) idx[j] = idx[j - 1];
            idx[j] = k;
        }
        double drop = 0;
        int n = pr->npp;
        while (n > 1 && drop + qp[idx[n - 1]] <= tau) drop += qp[idx[--n]];
        for (int k = 0; k < pr->npp_full; k++)
            tmp[k] = ps->prim[pr->pp0 + idx[k]], tij[k] = ps->ij[pr->pp0 + idx[k]], tq[k] = qp[idx[k]];
        memcpy(ps->prim + pr->pp0, tmp, sizeof *tmp * (size_t)pr->npp_full);
        memcpy(ps->ij + pr->pp0, tij, sizeof *tij * (size_t)pr->npp_full);
        memcpy(qp, tq, sizeof *tq * (size_t)pr->npp_full);
        pr->npp = eri_prim_bucket(n, pr->npp_full);
    }
}

void eri_pairs_free(eri_pairs *ps)
{
    free(ps->pair);
    free(ps->prim);
    free(ps->ij);
    free(ps->q);
    memset(ps, 0, sizeof *ps);
}

/* ---- grouping ---------------------------------------------------------------------- */
static const eri_pairs *sort_ps; /* qsort has no context argument in C11 */
static int by_group_schwarz(const void *x, const void *y)
{
    const eri_pair *a = &sort_ps->pair[*(const int *)x], *b = &sort_ps->pair[*(const int *)y];
    if (a->cls != b->cls) return a->cls - b->cls;
    if (a->npp != b->npp) return a->npp - b->npp;
    if (a->nmem != b->nmem) return a->nmem - b->nmem;
    if (a->schwarz != b->schwarz) return a->schwarz > b->schwarz ? -1 : 1;
    return *(const int *)x - *(const int *)y;
}

int *eri_pair_order(const eri_pairs *ps)
{
    int *order = malloc(sizeof(int) * (size_t)(ps->npair ? ps->npair : 1));
    if (!order) return NULL;
    for (long i = 0; i < ps->npair; i++) order[i] = (int)i;
#pragma omp critical(eri_pair_order)
    {
        sort_ps = ps;
        qsort(order, (size_t)ps->npair, sizeof *order, by_group_schwarz);
    }
    return order;
}

static int groups_build(const eri_pairs *ps, int **order_out, pgroup **g_out, int *ng_out)
{
    int *order = eri_pair_order(ps);
    pgroup *g = calloc((size_t)ps->npair + 1, sizeof *g);
    if (!order || !g) {
        free(order), free(g);
        return SB_EXIT_RUNTIME;
    }
    int ng = 0;
    for (long i = 0; i < ps->npair; i++) {
        const eri_pair *p = &ps->pair[order[i]];
        if (!ng || !eri_pair_same_group(&ps->pair[*g[ng - 1].pair], p)) {
            g[ng].cls = p->cls, g[ng].npp = p->npp, g[ng].pair = order + i;
            ng++;
        }
        g[ng - 1].n++;
    }
    *order_out = order, *g_out = g, *ng_out = ng;
    return SB_OK;
}

/* Kets of group gk that survive screening with bra P of rank r in gb: a prefix of gk,
 * because gk is sorted by Schwarz factor; within one group only ranks <= r (8-fold
 * symmetry: each unordered pair of pairs once). */
static long ket_count(const eri_pairs *ps, const pgroup *gb, long r, const pgroup *gk,
                      double screen)
{
    double sp = ps->pair[gb->pair[r]].schwarz;
    long lo = 0, hi = gk->n; /* first index failing the test */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (sp * ps->pair[gk->pair[mid]].schwarz >= screen) lo = mid + 1;
        else hi = mid;
    }
    if (gb == gk && lo > r + 1) lo = r + 1;
    return lo;
}

static int finish_segments(const eri_basis *bs, const eri_pairs *ps, eri_worklist *w);

int eri_worklist_build(const eri_basis *bs, const eri_pairs *ps, double screen, eri_worklist *w)
{
    memset(w, 0, sizeof *w);
    w->screen = screen;
    int *order, ng;
    pgroup *g;
    if (groups_build(ps, &order, &g, &ng)) goto oom;
    /* segment (gb, gk), gb >= gk: groups are sorted by class first, so class(gb) >= class(gk) */
    int nseg = ng * (ng + 1) / 2;
    long *cnt = calloc((size_t)nseg + 1, sizeof *cnt);
    w->seg = calloc((size_t)nseg, sizeof *w->seg);
    if (!cnt || !w->seg) {
        free(cnt);
        free(order), free(g);
        goto oom;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int s = 0; s < nseg; s++) {
        int gb = 0;
        while ((gb + 1) * (gb + 2) / 2 <= s) gb++;
        int gk = s - gb * (gb + 1) / 2;
        long n = 0;
        for (long r = 0; r < g[gb].n; r++) n += ket_count(ps, &g[gb], r, &g[gk], screen);
        cnt[s] = n;
    }
    long nq = 0;
    for (int s = 0; s < nseg; s++) nq += cnt[s];
    w->q = malloc(sizeof *w->q * (size_t)(nq ? nq : 1));
    if (!w->q) {
        free(cnt), free(order), free(g);
        goto oom;
    }
    w->nq = nq;
    long q0 = 0;
    int kseg = 0;
    int *sgb = malloc(sizeof(int) * (size_t)nseg * 2);
    if (!sgb) {
        free(cnt), free(order), free(g);
        goto oom;
    }
    for (int s = 0; s < nseg; s++) {
        if (!cnt[s]) continue;
        int gb = 0;
        while ((gb + 1) * (gb + 2) / 2 <= s) gb++;
        int gk = s - gb * (gb + 1) / 2;
        sgb[2 * kseg] = gb, sgb[2 * kseg + 1] = gk;
        eri_segment *sg = &w->seg[kseg++];
        sg->cls = eri_quartet_class(g[gb].cls, g[gk].cls);
        sg->nb = g[gb].npp, sg->nk = g[gk].npp;
        sg->q0 = q0, sg->q1 = q0 + cnt[s];
        q0 = sg->q1;
    }
    w->nseg = kseg;
    /* each segment's slice is known: fill them in parallel */
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < w->nseg; k++) {
        const pgroup *gb = &g[sgb[2 * k]], *gk = &g[sgb[2 * k + 1]];
        long i = w->seg[k].q0;
        for (long r = 0; r < gb->n; r++) {
            long n = ket_count(ps, gb, r, gk, screen);
            int P = gb->pair[r];
            for (long j = 0; j < n; j++, i++) {
                w->q[i].P = P;
                w->q[i].Q = gk->pair[j];
            }
        }
    }
    free(sgb);
    free(cnt), free(order), free(g);
    return finish_segments(bs, ps, w);
oom:
    sb_error("eri_brush: out of memory for the quartet list");
    eri_worklist_free(w);
    return SB_EXIT_RUNTIME;
}

static int basis_pure(const eri_basis *bs)
{
    for (int i = 0; i < bs->nshell; i++)
        if (bs->sh[i].pure) return 1;
    return 0;
}

/* 2^28 quartets is beyond any store-mode case that fits in memory. */
#define ERI_STORE_MAX_QUARTETS (1L << 28)

static int finish_segments(const eri_basis *bs, const eri_pairs *ps, eri_worklist *w)
{
    int pure = basis_pure(bs);
    w->neris = w->nprimq = w->nprimq_full = w->flops = 0;
    for (int k = 0; k < w->nseg; k++) {
        eri_segment *sg = &w->seg[k];
        sg->path = eri_path_choose(sg->cls, sg->nb, sg->nk, -1);
        double n = (double)(sg->q1 - sg->q0);
        w->nprimq += n * sg->nb * sg->nk;
        w->flops += n * eri_quartet_flops(sg->cls, sg->path, sg->nb, sg->nk, pure);
    }
    if (w->nq <= ERI_STORE_MAX_QUARTETS) {
        w->store_off = malloc(sizeof(long) * (size_t)(w->nq + 1));
        if (!w->store_off) return SB_EXIT_RUNTIME;
    }
    long off = 0;
    double neris = 0;
    for (long i = 0; i < w->nq; i++) {
        const eri_pair *P = &ps->pair[w->q[i].P], *Q = &ps->pair[w->q[i].Q];
        long n = (long)bs->sh[P->a].nbf * bs->sh[P->b].nbf * bs->sh[Q->a].nbf * bs->sh[Q->b].nbf;
        if (w->store_off) w->store_off[i] = off;
        off += n;
        neris += (double)n;
        w->nprimq_full += (double)P->npp_full * Q->npp_full;
    }
    if (w->store_off) w->store_off[w->nq] = off;
    w->neris = neris;
    return SB_OK;
}

/* ---- explicit quartet lists (MPI shares, validation samples) --------------------------- */
/* In the order eri_worklist_build gives the same quartets: the bra is the pair placed later
 * by eri_pair_order, and a segment's quartets go by the bra's place, then the ket's. The
 * CUDA backend lays the primitive pairs out in that order, so a warp's consecutive kets
 * read consecutive memory; sorted by pair index instead, an MPI rank's share ran at half
 * the speed per quartet (taxol/cc-pVDZ on two H200s: no faster than one). */
static const int *sort_pos; /* place of each pair in eri_pair_order */
static int by_segment_key(const void *x, const void *y)
{
    const eri_quartet *a = x, *b = y;
    const eri_pair *pa = &sort_ps->pair[a->P], *qa = &sort_ps->pair[a->Q];
    const eri_pair *pb = &sort_ps->pair[b->P], *qb = &sort_ps->pair[b->Q];
    int ca = eri_quartet_class(pa->cls, qa->cls), cb = eri_quartet_class(pb->cls, qb->cls);
    if (ca != cb) return ca - cb;
    if (pa->npp != pb->npp) return pa->npp - pb->npp;
    if (qa->npp != qb->npp) return qa->npp - qb->npp;
    if (a->P != b->P) return sort_pos[a->P] - sort_pos[b->P];
    return sort_pos[a->Q] - sort_pos[b->Q];
}

int eri_worklist_from(const eri_basis *bs, const eri_pairs *ps, const eri_quartet *q, long nq,
                      eri_worklist *w)
{
    memset(w, 0, sizeof *w);
    w->screen = -1;
    w->q = malloc(sizeof *w->q * (size_t)(nq ? nq : 1));
    w->seg = calloc((size_t)(nq ? nq : 1), sizeof *w->seg);
    int *order = eri_pair_order(ps), *pos = malloc(sizeof(int) * (size_t)(ps->npair ? ps->npair : 1));
    if (!w->q || !w->seg || !order || !pos) {
        free(order), free(pos);
        eri_worklist_free(w);
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < ps->npair; i++) pos[order[i]] = (int)i;
    free(order);
    /* the later pair in eri_pair_order is the bra: its class is never the smaller one */
    for (long i = 0; i < nq; i++) {
        eri_quartet c = q[i];
        if (pos[c.P] < pos[c.Q]) c.P = q[i].Q, c.Q = q[i].P;
        w->q[i] = c;
    }
    w->nq = nq;
#pragma omp critical(eri_pair_order)
    {
        sort_ps = ps;
        sort_pos = pos;
        qsort(w->q, (size_t)nq, sizeof *w->q, by_segment_key);
    }
    free(pos);
    for (long i = 0; i < nq; i++) {
        const eri_pair *P = &ps->pair[w->q[i].P], *Q = &ps->pair[w->q[i].Q];
        int cls = eri_quartet_class(P->cls, Q->cls);
        eri_segment *last = w->nseg ? &w->seg[w->nseg - 1] : NULL;
        if (!last || last->cls != cls || last->nb != P->npp || last->nk != Q->npp) {
            last = &w->seg[w->nseg++];
            last->cls = cls, last->nb = P->npp, last->nk = Q->npp, last->q0 = i;
        }
        last->q1 = i + 1;
    }
    return finish_segments(bs, ps, w);
}

void eri_worklist_free(eri_worklist *w)
{
    free(w->q);
    free(w->seg);
    free(w->store_off);
    memset(w, 0, sizeof *w);
}

/* ---- Coulomb matrix ---------------------------------------------------------------- */
void eri_coulomb_finish(const eri_basis *bs, double *M)
{
    int n = bs->nbf;
    /* shell of each function, to tell a shell's own diagonal block from the rest */
    int *shell_of = malloc(sizeof(int) * (size_t)n);
    if (!shell_of) return;
    for (int s = 0; s < bs->nshell; s++)
        for (int f = 0; f < bs->sh[s].nbf; f++) shell_of[bs->sh[s].bf0 + f] = s;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (shell_of[i] == shell_of[j]) continue; /* already the full symmetric block */
            double v = M[(size_t)i * n + j] + M[(size_t)j * n + i];
            M[(size_t)i * n + j] = M[(size_t)j * n + i] = v;
        }
    free(shell_of);
}
