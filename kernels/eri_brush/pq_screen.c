/* eri_brush: how many primitive quartets the primitive-quartet screen (eri_pairs.pq_screen)
 * leaves to compute, segment by segment, so that the counters and the flop model count the
 * work done rather than the loops' full extent.
 *
 * A segment's quartet (P|Q) runs nb x nk primitive quartets (the pairs' first npp primitive
 * pairs); the screen skips those with q_b q_k < t. With both lists sorted, largest first, the
 * kets kept by bra primitive b are a prefix that shrinks as b goes down the list: one pass of
 * two pointers per quartet. */
#include <stdlib.h>
#include <string.h>

#include "eri_brush/ericase.h"

static int desc(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a < b) - (a > b);
}

int eri_pq_kept(const eri_pairs *ps, const eri_worklist *w, double *kept)
{
    const double t = ps->pq_screen;
    double *qs = malloc(sizeof(double) * (size_t)(ps->nprim ? ps->nprim : 1));
    if (!qs) return SB_EXIT_RUNTIME;
    /* each pair's first npp factors, sorted, at its pp0 */
    for (long i = 0; i < ps->npair; i++) {
        const eri_pair *p = &ps->pair[i];
        memcpy(qs + p->pp0, ps->q + p->pp0, sizeof(double) * (size_t)p->npp);
        qsort(qs + p->pp0, (size_t)p->npp, sizeof(double), desc);
    }
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        double n = 0.0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : n)
        for (long i = s->q0; i < s->q1; i++) {
            const eri_pair *P = &ps->pair[w->q[i].P], *Q = &ps->pair[w->q[i].Q];
            const double *qb = qs + P->pp0, *qk = qs + Q->pp0;
            long m = 0;
            int j = Q->npp;
            for (int b = 0; b < P->npp; b++) {
                while (j > 0 && qb[b] * qk[j - 1] < t) j--;
                m += j;
            }
            n += (double)m;
        }
        kept[k] = n;
    }
    free(qs);
    return SB_OK;
}
