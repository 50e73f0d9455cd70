/* eri_brush: what the screening can have moved J by, as a bound on every element.
 *
 * A dropped quartet (P|Q) has schwarz_P schwarz_Q < screen, and by the Schwarz inequality
 * every integral (ij|kl) of it is at most schwarz_P schwarz_Q in size. J_ij (i, j in pair P)
 * loses at most schwarz_P schwarz_Q S_Q to it, S_Q = f_cd sum_{k in c, l in d} |D_kl|
 * (f_cd = 2 for c != d: the block and its transpose). Summed over every Q whose product with
 * P falls under the screen:
 *   |dJ_ij| <= schwarz_P sum_{Q: schwarz_P schwarz_Q < screen} schwarz_Q S_Q.
 * With the pairs sorted by Schwarz factor the Q of a P are a suffix, so one sort and suffix
 * sums give every P's bound. Primitive screening moves each kept integral by at most
 * 2 prim_screen (pairs.c), so J_ij by at most 2 prim_screen sum_kl |D_kl|.
 * The primitive-quartet screen (ps->pq_screen = t) skips, within a kept quartet, the primitive
 * quartets with q_ab q_cd < t, each of which adds less than t to every integral of it. A
 * quartet's primitive loop runs at most n_P n_Q of them (n: the contraction's primitive pairs,
 * npp_full, which bounds a family's count too), so J_ij loses at most
 *   t n_P sum_{Q kept with P} n_Q S_Q,
 * and the Q kept with P are the prefix the Schwarz test leaves: prefix sums again. */
#include <math.h>
#include <stdlib.h>

#include "eri_brush/eri.h"

static const double *by_q; /* schwarz factors, for the sort */
static int desc(const void *x, const void *y)
{
    const double a = by_q[*(const int *)x], b = by_q[*(const int *)y];
    return (a < b) - (a > b);
}

double eri_screen_bound(const eri_basis *bs, const eri_pairs *ps, double screen, double prim_screen,
                        const double *D)
{
    const long np = ps->npair;
    const int n = bs->nbf;
    int *ord = malloc(sizeof(int) * (size_t)(np ? np : 1));
    double *q = malloc(sizeof(double) * (size_t)(np ? np : 1));
    double *suf = malloc(sizeof(double) * (size_t)(np + 1)), *pre = malloc(sizeof(double) * (size_t)(np + 1));
    if (!ord || !q || !suf || !pre) {
        free(ord), free(q), free(suf), free(pre);
        return INFINITY;
    }
    const double t = ps->pq_screen;
    double dsum = 0.0;
    for (long i = 0; i < (long)n * n; i++) dsum += fabs(D[i]);
    for (long p = 0; p < np; p++) {
        ord[p] = (int)p;
        q[p] = ps->pair[p].nmem ? 0.0 : ps->pair[p].schwarz;
    }
    by_q = q;
    qsort(ord, (size_t)np, sizeof *ord, desc);
    suf[np] = 0.0;
    for (long r = np - 1; r >= 0; r--) {
        const eri_pair *pr = &ps->pair[ord[r]];
        const eri_shell *c = &bs->sh[pr->a], *d = &bs->sh[pr->b];
        double s = 0.0;
        for (int k = c->bf0; k < c->bf0 + c->nbf; k++)
            for (int l = d->bf0; l < d->bf0 + d->nbf; l++) s += fabs(D[(long)k * n + l]);
        if (pr->a != pr->b) s *= 2.0;
        suf[r] = suf[r + 1] + q[ord[r]] * s;
        pre[r + 1] = pr->npp_full * s; /* summed below */
    }
    pre[0] = 0.0;
    for (long r = 0; r < np; r++) pre[r + 1] += pre[r];
    double worst = 0.0;
    for (long p = 0; p < np; p++) {
        if (q[p] <= 0.0) continue;
        /* first place whose factor times q[p] falls under the screen */
        long lo = 0, hi = np;
        while (lo < hi) {
            const long mid = (lo + hi) / 2;
            if (q[p] * q[ord[mid]] >= screen) lo = mid + 1;
            else hi = mid;
        }
        const double b = q[p] * suf[lo] + (t > 0.0 ? t * ps->pair[p].npp_full * pre[lo] : 0.0);
        if (b > worst) worst = b;
    }
    free(ord), free(q), free(suf), free(pre);
    return worst + 2.0 * prim_screen * dsum;
}
