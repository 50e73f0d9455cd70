/* eri_brush: how many primitive quartets the primitive-quartet screen (eri_pairs.pq_screen)
 * leaves to compute, segment by segment, so that the counters and the flop model count the
 * work done rather than the loops' full extent.
 *
 * A segment's quartet (P|Q) runs nb x nk primitive quartets (the pairs' first npp primitive
 * pairs); the screen skips those with q_b q_k < t. Both lists go largest q first (pairs.c), so
 * the kets kept by bra primitive b are a prefix that shrinks as b goes down the list: one pass
 * of two pointers per quartet. */
#include "eri_brush/ericase.h"

int eri_pq_kept(const eri_pairs *ps, const eri_worklist *w, double *kept)
{
    const double t = ps->pq_screen;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        double n = 0.0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : n)
        for (long i = s->q0; i < s->q1; i++) {
            const eri_pair *P = &ps->pair[w->q[i].P], *Q = &ps->pair[w->q[i].Q];
            const double *qb = ps->q + P->pp0, *qk = ps->q + Q->pp0;
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
    return SB_OK;
}
