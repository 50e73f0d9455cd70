/* fullerene_ff: dual triangulation -> cubic graph (the oracle's ff_dualise; cuda.cu mirrors it).
 *
 * Atoms are the triangles of the dual. Triangle (u, k) is (u, dual[6u+k], dual[6u+(k+1)%deg(u)]);
 * since every vertex lists its neighbours in the same cyclic orientation, the three vertices
 * of a triangle list it as the same cyclic triple: (u, v, w) at u is (v, w, u) at v and
 * (w, u, v) at w. Numbering (ff.h): u = 0..F-1, k = 0..deg(u)-1, a new atom when u is the
 * triangle's smallest vertex. So the atoms of face 0 are atoms 0..deg(0)-1 in its cyclic order.
 *
 * Atom t = triangle (u, k) = (u, v, w), u smallest:
 *   face[] = (u, v, w)                     (face[j] lies between nbr[j] and nbr[j+1])
 *   nbr[0] = triangle across edge w-u = (u, k+1)
 *   nbr[1] = triangle across edge u-v = (u, k-1)
 *   nbr[2] = triangle across edge v-w = (v, i-1), where dual[6v+i] = w
 * (k+-1 mod deg(u), i-1 mod deg(v)). This is the embedding's cyclic order around t, in the
 * dual's orientation. back[j] is found by searching nbr[j]'s three neighbours for t. */
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ff.h"

static int degree(const uint16_t *dual, int u) { return dual[6 * u + 5] == FF_NONE ? 5 : 6; }

/* position of w in u's list, -1 if absent */
static int position(const uint16_t *dual, int u, int w)
{
    const int d = degree(dual, u);
    for (int i = 0; i < d; i++)
        if (dual[6 * u + i] == w) return i;
    return -1;
}

int ff_dualise(int N, const uint16_t *dual, ff_atom *g)
{
    const int F = ff_faces(N);
    if (N < FF_MIN_N || N > FF_MAX_N || N % 2) return -1;
    int pent = 0;
    for (int u = 0; u < F; u++) {
        const int d = degree(dual, u);
        pent += d == 5;
        for (int k = 0; k < d; k++)
            if (dual[6 * u + k] >= F || dual[6 * u + k] == u) return -1;
    }
    if (pent != 12) return -1;

    /* atom of triangle (u, k), FF_MAX_F * 6 entries */
    int *tri = malloc(sizeof(int) * 6 * (size_t)F);
    if (!tri) return -1;
    int n = 0, ok = 1;
    for (int u = 0; u < F && ok; u++) {
        const int d = degree(dual, u);
        for (int k = 0; k < d; k++) {
            const int v = dual[6 * u + k], w = dual[6 * u + (k + 1) % d];
            if (u < v && u < w) {
                if (n == N) ok = 0;
                tri[6 * u + k] = n++;
            }
        }
    }
    ok = ok && n == N;
    for (int u = 0; u < F && ok; u++) {
        const int d = degree(dual, u);
        for (int k = 0; k < d && ok; k++) {
            const int v = dual[6 * u + k], w = dual[6 * u + (k + 1) % d];
            if (u < v && u < w) continue;
            /* the same triangle seen from its smallest vertex m: (m, next, third) */
            const int m = v < w ? v : w, next = m == v ? w : u, third = m == v ? u : v;
            const int i = position(dual, m, next), dm = degree(dual, m);
            if (i < 0 || dual[6 * m + (i + 1) % dm] != third) ok = 0;
            else tri[6 * u + k] = tri[6 * m + i];
        }
    }
    for (int u = 0; u < F && ok; u++) {
        const int d = degree(dual, u);
        for (int k = 0; k < d && ok; k++) {
            const int v = dual[6 * u + k], w = dual[6 * u + (k + 1) % d];
            if (!(u < v && u < w)) continue;
            const int i = position(dual, v, w);
            if (i < 0) {
                ok = 0;
                break;
            }
            ff_atom *a = &g[tri[6 * u + k]];
            a->nbr[0] = (uint16_t)tri[6 * u + (k + 1) % d];
            a->nbr[1] = (uint16_t)tri[6 * u + (k + d - 1) % d];
            a->nbr[2] = (uint16_t)tri[6 * v + (i + degree(dual, v) - 1) % degree(dual, v)];
            a->face[0] = (uint16_t)u, a->face[1] = (uint16_t)v, a->face[2] = (uint16_t)w;
            for (int j = 0; j < 3; j++) a->ftype[j] = (uint8_t)(degree(dual, a->face[j]) == 6);
        }
    }
    free(tri);
    if (!ok) return -1;
    for (int t = 0; t < N; t++)
        for (int j = 0; j < 3; j++) {
            const ff_atom *b = &g[g[t].nbr[j]];
            int found = -1;
            for (int i = 0; i < 3; i++)
                if (b->nbr[i] == t) found = i;
            if (found < 0 || g[t].nbr[j] == t) return -1;
            g[t].back[j] = (uint8_t)found;
        }
    return 0;
}
