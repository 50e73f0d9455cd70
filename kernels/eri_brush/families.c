/* eri_brush: families of shell pairs that share their primitive pairs (contract in eri.h).
 * Both backends run a family quartet's primitive loop once for all its member quartets
 * (eri_hgpf_* on CUDA, eri_hgpfv_* on the CPU's lanes; gen/eri_gen_fam.py); here the families
 * and their primitive data are built. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "sb.h"

/* First shell of the set that shell s belongs to: the same atom, l and exponents. Shells
 * of an atom are consecutive (eri_basis_build), so only those before s are looked at. */
static int shell_set(const eri_basis *bs, int s)
{
    const eri_shell *x = &bs->sh[s];
    int first = s;
    for (int t = s - 1; t >= 0 && bs->sh[t].atom == x->atom; t--) {
        const eri_shell *y = &bs->sh[t];
        if (y->l == x->l && y->nprim == x->nprim && !memcmp(y->alpha, x->alpha, sizeof(double) * (size_t)x->nprim))
            first = t;
    }
    return first;
}

typedef struct {
    long key; /* set(a) * nshell + set(b) */
    int pair;
} keyed;

static int by_key(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->pair - b->pair;
}

/* Family pair k of f from the source pairs mem[0..n): primitive pairs and coefficients. */
static void family_fill(const eri_pairs *src, const int *mem, int n, eri_families *f, long k, long *pp)
{
    const eri_pair *p0 = &src->pair[mem[0]];
    eri_pair *fp = &f->ps.pair[k];
    *fp = *p0;
    fp->nmem = n;
    fp->pp0 = (int)*pp;
    int pos[ERI_FAM_MAXMEM][ERI_MAXPRIM * ERI_MAXPRIM]; /* member m: ij -> place in its list */
    char kept[ERI_MAXPRIM * ERI_MAXPRIM] = {0};
    for (int m = 0; m < n; m++) {
        const eri_pair *pm = &src->pair[mem[m]];
        if (pm->schwarz > fp->schwarz) fp->schwarz = pm->schwarz;
        for (int i = 0; i < pm->npp_full; i++) pos[m][src->ij[pm->pp0 + i]] = i;
        for (int i = 0; i < pm->npp; i++) kept[src->ij[pm->pp0 + i]] = 1;
    }
    /* member 0's order: the union's primitive pairs first, then the rest */
    int nu = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p0->npp_full; i++) {
            const int ij = src->ij[p0->pp0 + i];
            if (kept[ij] != !pass) continue;
            const long d = *pp + nu++;
            f->ps.prim[d] = src->prim[p0->pp0 + i];
            f->ps.ij[d] = ij;
            f->ps.q[d] = 0.0;
            for (int m = 0; m < ERI_FAM_MAXMEM; m++) {
                f->K[ERI_FAM_MAXMEM * d + m] = m < n ? src->prim[src->pair[mem[m]].pp0 + pos[m][ij]].K : 0.0;
                if (m < n) f->ps.q[d] = fmax(f->ps.q[d], src->q[src->pair[mem[m]].pp0 + pos[m][ij]]);
            }
        }
    int nk = 0;
    for (int i = 0; i < p0->npp_full; i++) nk += kept[src->ij[p0->pp0 + i]];
    fp->npp = eri_prim_bucket(nk, p0->npp_full);
    /* the primitive pairs that run, largest Schwarz factor first (eri.h, ERI_PQ_COUNT);
     * insertion sort, ties in place */
    const long d0 = *pp;
    for (int i = 1; i < fp->npp; i++)
        for (long d = d0 + i; d > d0 && f->ps.q[d - 1] < f->ps.q[d]; d--) {
            const eri_prim tp = f->ps.prim[d];
            f->ps.prim[d] = f->ps.prim[d - 1], f->ps.prim[d - 1] = tp;
            const int tij = f->ps.ij[d];
            f->ps.ij[d] = f->ps.ij[d - 1], f->ps.ij[d - 1] = tij;
            const double tq = f->ps.q[d];
            f->ps.q[d] = f->ps.q[d - 1], f->ps.q[d - 1] = tq;
            for (int m = 0; m < ERI_FAM_MAXMEM; m++) {
                const double tk = f->K[ERI_FAM_MAXMEM * d + m];
                f->K[ERI_FAM_MAXMEM * d + m] = f->K[ERI_FAM_MAXMEM * (d - 1) + m];
                f->K[ERI_FAM_MAXMEM * (d - 1) + m] = tk;
            }
        }
    for (int m = 0; m < ERI_FAM_MAXMEM; m++) f->mem[ERI_FAM_MAXMEM * k + m] = m < n ? mem[m] : -1;
    *pp += p0->npp_full;
}

int eri_families_build(const eri_basis *bs, const eri_pairs *src, eri_families *f)
{
    memset(f, 0, sizeof *f);
    const long np = src->npair;
    int *set = malloc(sizeof(int) * (size_t)(bs->nshell ? bs->nshell : 1));
    keyed *kp = malloc(sizeof(keyed) * (size_t)(np ? np : 1));
    if (!set || !kp) goto oom;
    for (int s = 0; s < bs->nshell; s++) set[s] = shell_set(bs, s);
    for (long i = 0; i < np; i++) {
        const eri_pair *p = &src->pair[i];
        kp[i] = (keyed){(long)set[p->a] * bs->nshell + set[p->b], (int)i};
    }
    qsort(kp, (size_t)np, sizeof *kp, by_key);
    /* families: runs of one key, cut into pieces of at most ERI_FAM_MAXMEM; a family keeps
     * all of its first member's primitive pairs */
    long nf = 0, nprim = 0;
    for (long i = 0, r = 0; i < np; i++, r++) {
        if (i && kp[i].key != kp[i - 1].key) r = 0;
        if (r % ERI_FAM_MAXMEM == 0) nf++, nprim += src->pair[kp[i].pair].npp_full;
    }
    f->ps.npair = nf;
    f->ps.pair = calloc((size_t)(nf ? nf : 1), sizeof *f->ps.pair);
    f->mem = malloc(sizeof(int) * ERI_FAM_MAXMEM * (size_t)(nf ? nf : 1));
    f->ps.nprim = nprim;
    f->ps.prim = malloc(sizeof *f->ps.prim * (size_t)(nprim ? nprim : 1));
    f->ps.ij = malloc(sizeof(int) * (size_t)(nprim ? nprim : 1));
    f->ps.q = malloc(sizeof(double) * (size_t)(nprim ? nprim : 1));
    f->ps.pq_screen = src->pq_screen;
    f->K = malloc(sizeof(double) * ERI_FAM_MAXMEM * (size_t)(nprim ? nprim : 1));
    if (!f->ps.pair || !f->mem || !f->ps.prim || !f->ps.ij || !f->ps.q || !f->K) goto oom;
    long k = 0, pp = 0;
    for (long i = 0; i < np;) {
        int mem[ERI_FAM_MAXMEM], n = 0;
        const long key = kp[i].key;
        while (i < np && kp[i].key == key && n < ERI_FAM_MAXMEM) mem[n++] = kp[i++].pair;
        family_fill(src, mem, n, f, k++, &pp);
        if (n > f->maxmem) f->maxmem = n;
    }
    free(set), free(kp);
    return SB_OK;
oom:
    free(set), free(kp);
    eri_families_free(f);
    sb_error("eri_brush: out of memory for the pair families of %ld pairs", np);
    return SB_EXIT_RUNTIME;
}

int eri_families_prepare(const eri_batch *b, const char *who, eri_families *f, eri_worklist *fw)
{
    memset(f, 0, sizeof *f);
    memset(fw, 0, sizeof *fw);
    const char *e = getenv("SB_ERI_FAMILY");
    if (e && strcmp(e, "0") && strcmp(e, "1")) {
        sb_error("eri_brush %s: SB_ERI_FAMILY='%s': expected 1 (pairs that share primitives computed together, "
                 "the default) or 0 (one pair at a time)",
                 who, e);
        return SB_EXIT_USAGE;
    }
    if ((e && !strcmp(e, "0")) || b->mode != ERI_MODE_DIGEST || b->w->screen < 0) return SB_OK;
    int rc = eri_families_build(b->bas, b->ps, f);
    if (!rc && f->maxmem >= 2) rc = eri_worklist_build(b->bas, &f->ps, b->w->screen, fw);
    if (rc || f->maxmem < 2) {
        eri_families_free(f);
        eri_worklist_free(fw);
    }
    return rc;
}

void eri_families_free(eri_families *f)
{
    eri_pairs_free(&f->ps);
    free(f->K);
    free(f->mem);
    memset(f, 0, sizeof *f);
}
