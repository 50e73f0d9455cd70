/* fullerene_ff generator: the Fowler-Manolopoulos ring spiral in both directions.
 * (The rest of the generator: spiral_enum.c ff_enumerate, spiral_sample.c ff_sample and how
 * its sample is drawn, spiral_io.c ff_read_spirals.)
 *
 * Windup (spiral -> dual triangulation). The faces are placed in spiral order as the
 * vertices of the dual. The placed vertices always form a triangulated disc whose boundary
 * is a cycle b_0 .. b_m: b_0 (the "front") is the oldest vertex that still lacks neighbours,
 * b_m (the "back") the newest. Vertex k joins b_m and b_0 (triangle b_m b_0 k); a boundary
 * vertex whose degree is then used up (remaining valency 0) must close its fan, so k also
 * joins the next boundary vertex behind it, repeatedly, on both ends. The last face must
 * join the whole remaining boundary (every remaining valency 1, boundary length = degree).
 * A negative or premature zero valency, a boundary that shrinks below three vertices
 * before the end, or a last face that does not close it, means no fullerene.
 *
 * Orientation. With counter-clockwise (CCW) rotations, each boundary vertex b_j lists its
 * placed neighbours CCW from its boundary successor b_{j+1} to its predecessor b_{j-1}.
 * So k enters b_0's list after b_m (appended), b_m's list before b_0 (prepended), and
 * k's own list is CCW [front pops ..., b_1, b_0, b_m, b_{m-1}, ... back pops]. Every vertex
 * gets the same orientation, which is all ff.h asks.
 *
 * Unwinding (triangulation + start -> spiral). With the rotation system, a spiral from
 * (v0, v1, direction) is a walk: the next vertex is the neighbour of the front that follows
 * the newest vertex in the walk's direction; when the front's neighbours are all placed, the
 * next boundary vertex becomes the front (it is the front's neighbour after the newest one).
 * The walk reproduces a windup exactly when every new vertex's placed neighbours are one
 * contiguous arc of its rotation (then the disc grows by a fan, as in the windup); a vertex
 * already placed, or a broken arc, means this start has no spiral.
 *
 * Canonical spiral: the lexicographically smallest pentagon sequence over every start.
 * A start at a pentagon begins with position 0, so when any pentagon start gives a spiral
 * only the 12 x 5 x 2 pentagon starts are walked, and a walk stops as soon as its prefix
 * exceeds the best so far. Hexagon starts are walked only when no pentagon start works
 * (rare: the smallest such isomer is one C100, see spiral_enum.c). */
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/spiral_internal.h"

int ff_valid_n(int N) { return N >= FF_MIN_N && N <= FF_MAX_N && N % 2 == 0 && N != 22; }

int ff_spiral_cmp(const void *a, const void *b)
{
    const uint16_t *x = ((const ff_spiral *)a)->pent, *y = ((const ff_spiral *)b)->pent;
    for (int i = 0; i < 12; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* ---- windup ---------------------------------------------------------------- */

/* Each vertex's list is built in its own dual[6v..6v+deg-1], cyclically: appends go forward
 * from slot 0, prepends backward from slot deg-1; the windup never gives a vertex more than
 * deg neighbours, so the two ends meet exactly when it is complete. */
typedef struct {
    uint16_t *dual;
    uint8_t deg[FF_MAX_F], lo[FF_MAX_F], hi[FF_MAX_F], cnt[FF_MAX_F];
    uint16_t bv[FF_MAX_F + 2]; /* boundary vertices, front at blo, back at bhi-1 */
    int8_t br[FF_MAX_F + 2];   /* their remaining valencies */
} windup_state;

static void append(windup_state *s, int v, int w)
{
    s->dual[6 * v + s->hi[v]] = (uint16_t)w;
    s->hi[v] = (uint8_t)(s->hi[v] + 1 == s->deg[v] ? 0 : s->hi[v] + 1);
    s->cnt[v]++;
}

static void prepend(windup_state *s, int v, int w)
{
    s->lo[v] = (uint8_t)(s->lo[v] == 0 ? s->deg[v] - 1 : s->lo[v] - 1);
    s->dual[6 * v + s->lo[v]] = (uint16_t)w;
    s->cnt[v]++;
}

int ff_windup_faces(int F, const uint16_t *pent, uint16_t *dual)
{
    windup_state s;
    s.dual = dual;
    memset(s.deg, 6, (size_t)F);
    for (int i = 0; i < 12; i++) s.deg[pent[i]] = 5;
    memset(s.lo, 0, (size_t)F), memset(s.hi, 0, (size_t)F), memset(s.cnt, 0, (size_t)F);

    append(&s, 0, 1), append(&s, 1, 0);
    int blo = 0, bhi = 2;
    s.bv[0] = 0, s.br[0] = (int8_t)(s.deg[0] - 1);
    s.bv[1] = 1, s.br[1] = (int8_t)(s.deg[1] - 1);
    for (int k = 2; k < F - 1; k++) {
        const int f = s.bv[blo], b = s.bv[bhi - 1];
        append(&s, f, k), prepend(&s, b, k);
        append(&s, k, f), append(&s, k, b);
        s.br[blo]--, s.br[bhi - 1]--;
        int rk = s.deg[k] - 2;
        /* each closing fan takes one more of k's valencies, and k must keep one */
        while (s.br[bhi - 1] == 0) { /* the back's fan closes */
            if (bhi - blo <= 2 || rk <= 1) return -1;
            const int w = s.bv[--bhi - 1];
            prepend(&s, w, k), append(&s, k, w);
            s.br[bhi - 1]--, rk--;
        }
        while (s.br[blo] == 0) { /* the front's fan closes */
            if (bhi - blo <= 2 || rk <= 1) return -1;
            const int w = s.bv[++blo];
            append(&s, w, k), prepend(&s, k, w);
            s.br[blo]--, rk--;
        }
        s.bv[bhi] = (uint16_t)k, s.br[bhi++] = (int8_t)rk;
    }
    /* the last face closes the sphere: it takes every remaining valency, one each */
    const int k = F - 1, m = bhi - blo;
    if (m != s.deg[k]) return -1;
    for (int j = blo; j < bhi; j++)
        if (s.br[j] != 1) return -1;
    append(&s, k, s.bv[blo]), append(&s, k, s.bv[bhi - 1]);
    append(&s, s.bv[blo], k), prepend(&s, s.bv[bhi - 1], k);
    for (int j = blo + 1; j < bhi - 1; j++) append(&s, s.bv[j], k), prepend(&s, k, s.bv[j]);

    for (int v = 0; v < F; v++) {
        if (s.cnt[v] != s.deg[v]) return -1;
        if (s.deg[v] == 5) dual[6 * v + 5] = FF_NONE;
    }
    return 0;
}

int ff_windup(int N, const ff_spiral *sp, uint16_t *dual)
{
    if (!sp || !dual || !ff_valid_n(N)) return -1;
    const int F = ff_faces(N);
    for (int i = 0; i < 12; i++)
        if (sp->pent[i] >= F || (i > 0 && sp->pent[i] <= sp->pent[i - 1])) return -1;
    return ff_windup_faces(F, sp->pent, dual);
}

/* ---- checking a triangulation ------------------------------------------------ */

static int degree(const uint16_t *dual, int v) { return dual[6 * v + 5] == FF_NONE ? 5 : 6; }

static int index_of(const uint16_t *dual, int d, int v, int w)
{
    for (int i = 0; i < d; i++)
        if (dual[6 * v + i] == w) return i;
    return -1;
}

int ff_check_dual(int F, const uint16_t *dual)
{
    if (F < ff_faces(FF_MIN_N) || F > FF_MAX_F) return -1;
    int npent = 0;
    for (int v = 0; v < F; v++) {
        const int d = degree(dual, v);
        npent += d == 5;
        for (int i = 0; i < d; i++) {
            const int w = dual[6 * v + i];
            if (w >= F || w == v) return -1;
            for (int j = 0; j < i; j++)
                if (dual[6 * v + j] == w) return -1;
        }
    }
    if (npent != 12) return -1;
    /* every corner (v; w, u) with u after w around v is the same triangle at w and at u */
    for (int v = 0; v < F; v++) {
        const int d = degree(dual, v);
        for (int i = 0; i < d; i++) {
            const int w = dual[6 * v + i], u = dual[6 * v + (i + 1) % d];
            const int dw = degree(dual, w), du = degree(dual, u);
            const int iw = index_of(dual, dw, w, u), iu = index_of(dual, du, u, v);
            if (iw < 0 || iu < 0 || dual[6 * w + (iw + 1) % dw] != v || dual[6 * u + (iu + 1) % du] != w)
                return -1;
        }
    }
    /* with that, V - E + T = 2 over all components; a sphere plus an all-hexagon torus
     * would also give 2, so connectivity is checked too */
    uint16_t queue[FF_MAX_F];
    uint8_t seen[FF_MAX_F] = {0};
    int head = 0, tail = 0;
    queue[tail++] = 0, seen[0] = 1;
    while (head < tail) {
        const int v = queue[head++];
        for (int i = 0; i < degree(dual, v); i++) {
            const int w = dual[6 * v + i];
            if (!seen[w]) seen[w] = 1, queue[tail++] = (uint16_t)w;
        }
    }
    return tail == F ? 0 : -1;
}

/* ---- unwinding ------------------------------------------------------------------ */

void ff_walker_init(ff_walker *w, int F, const uint16_t *dual)
{
    for (int v = 0; v < F; v++) w->deg[v] = (uint8_t)degree(dual, v);
    if (w->mark == 0) memset(w->stamp, 0, sizeof w->stamp); /* a fresh walker */
}

enum { WALK_NONE = -1, WALK_NOT_LESS = 0, WALK_LESS = 1 };

static inline int step(int i, int dir, int d)
{
    i += dir;
    return i == d ? 0 : i < 0 ? d - 1 : i;
}

/* The spiral from start (v0, its neighbour j0, direction dir = +1 CCW / -1 CW), compared
 * with bound as it grows: WALK_NOT_LESS as soon as it cannot be smaller (also when equal),
 * WALK_LESS (out = its pentagon sequence) when it is a complete spiral smaller than bound,
 * WALK_NONE when this start has no spiral. */
static int walk(int F, const uint16_t *dual, ff_walker *w, int v0, int j0, int dir,
                const uint16_t *bound, uint16_t *out)
{
    if (++w->mark == 0) { /* after 2^32 walks the marks wrap: start afresh */
        memset(w->stamp, 0, sizeof w->stamp);
        w->mark = 1;
    }
    const uint32_t mark = w->mark;
    uint32_t *stamp = w->stamp;
    const uint8_t *deg = w->deg;
    int np = 0, less = 0;

#define PLACE(pos, v)                                                     \
    do {                                                                  \
        if (deg[v] == 5) {                                                \
            if (np == 12) return WALK_NONE;                               \
            if (!less && (pos) < bound[np]) less = 1;                     \
            out[np++] = (uint16_t)(pos);                                  \
        } else if (!less && np < 12 && (pos) == bound[np]) {              \
            return WALK_NOT_LESS;                                         \
        }                                                                 \
        stamp[v] = mark;                                                  \
    } while (0)

    const int v1 = dual[6 * v0 + j0];
    PLACE(0, v0);
    PLACE(1, v1);
    int f = v0, fi = j0; /* the front and the index of the newest vertex in its rotation */
    int pops = 0;
    for (int pos = 2; pos < F; pos++) {
        const int ni = step(fi, dir, deg[f]);
        const int k = dual[6 * f + ni];
        if (stamp[k] == mark) return WALK_NONE;
        /* k's placed neighbours must form one arc: count the arc starts around k */
        const int dk = deg[k];
        int starts = 0, prev = stamp[dual[6 * k + dk - 1]] == mark;
        for (int i = 0; i < dk; i++) {
            const int cur = stamp[dual[6 * k + i]] == mark;
            starts += cur && !prev;
            prev = cur;
        }
        if (starts != 1 && !(starts == 0 && pos == F - 1)) return WALK_NONE;
        PLACE(pos, k);
        if (pos == F - 1) break;
        fi = ni;
        for (;;) { /* pop saturated fronts: the next boundary vertex follows k around f */
            const int bi = step(fi, dir, deg[f]);
            const int b = dual[6 * f + bi];
            if (stamp[b] != mark) break;
            if (++pops > F) return WALK_NONE;
            const int db = deg[b];
            int fb = 0;
            while (fb < db && dual[6 * b + fb] != f) fb++;
            if (fb == db) return WALK_NONE;
            fi = step(fb, dir, db);
            f = b;
            if (dual[6 * f + fi] != k) return WALK_NONE;
        }
    }
#undef PLACE
    if (np != 12) return WALK_NONE;
    return less ? WALK_LESS : WALK_NOT_LESS;
}

/* A spiral from pentagon v first goes once around v: positions 1..5 are v's neighbours in
 * rotation order from the start neighbour. So the second pentagon's position p1 of every
 * pentagon start whose ring holds a pentagon is known without walking, and a start with
 * p1 > pent[1] cannot give a smaller spiral. The starts that can (p1 < pent[1]) are walked
 * first: most spirals are not canonical, and one such start usually proves it. */
int ff_is_canonical(int F, const uint16_t *dual, const uint16_t *pent, ff_walker *w)
{
    uint16_t tmp[12];
    int sv[120], sj[120], sd[120], sp[120], n = 0;
    const int s1 = pent[1];
    for (int v = 0; v < F; v++) {
        if (w->deg[v] != 5) continue;
        int ring = 0, rev = 0; /* bit i: neighbour i (rev: neighbour 4 - i) is a pentagon */
        for (int i = 0; i < 5; i++) {
            const int p = w->deg[dual[6 * v + i]] == 5;
            ring |= p << i, rev |= p << (4 - i);
        }
        if (!ring && s1 < 6) continue;
        for (int j = 0; j < 5; j++)
            for (int dir = 1; dir >= -1; dir -= 2) {
                /* the ring read from neighbour j in direction dir, as bits from bit 0 */
                const int m = dir > 0 ? ring : rev, at = dir > 0 ? j : 4 - j;
                const int seq = ((m >> at) | (m << (5 - at))) & 31;
                const int p1 = seq ? __builtin_ctz((unsigned)seq) + 1 : 6; /* 6: 6 or later */
                if (p1 > s1) continue;
                sv[n] = v, sj[n] = j, sd[n] = dir, sp[n] = p1;
                n++;
            }
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            if ((sp[i] < s1 && sp[i] < 6) != (pass == 0)) continue;
            if (walk(F, dual, w, sv[i], sj[i], sd[i], pent, tmp) == WALK_LESS) return 0;
        }
    return 1;
}

int ff_has_pentagon_spiral(int F, const uint16_t *dual, ff_walker *w)
{
    uint16_t none[12], tmp[12];
    for (int i = 0; i < 12; i++) none[i] = UINT16_MAX;
    for (int v = 0; v < F; v++)
        if (w->deg[v] == 5)
            for (int j = 0; j < 5; j++)
                for (int dir = 1; dir >= -1; dir -= 2)
                    if (walk(F, dual, w, v, j, dir, none, tmp) == WALK_LESS) return 1;
    return 0;
}

int ff_spiral_from(int F, const uint16_t *dual, int v, int j, int dir, uint16_t *out, ff_walker *w)
{
    uint16_t none[12];
    for (int i = 0; i < 12; i++) none[i] = UINT16_MAX;
    if (v < 0 || v >= F || j < 0 || j >= w->deg[v] || (dir != 1 && dir != -1)) return -1;
    return walk(F, dual, w, v, j, dir, none, out) == WALK_LESS ? 0 : -1;
}

int ff_canonical_faces(int F, const uint16_t *dual, uint16_t *out, ff_walker *w)
{
    uint16_t best[12], tmp[12];
    for (int i = 0; i < 12; i++) best[i] = UINT16_MAX;
    int found = 0;
    for (int want = 5; want <= 6 && !found; want++)
        for (int v = 0; v < F; v++) {
            if (w->deg[v] != want) continue;
            for (int j = 0; j < want; j++)
                for (int dir = 1; dir >= -1; dir -= 2)
                    if (walk(F, dual, w, v, j, dir, best, tmp) == WALK_LESS) {
                        memcpy(best, tmp, sizeof best);
                        found = 1;
                    }
        }
    if (!found) return -1;
    memcpy(out, best, sizeof best);
    return 0;
}

int ff_canonical_spiral(int N, const uint16_t *dual, ff_spiral *out)
{
    if (!dual || !out || !ff_valid_n(N)) return -1;
    const int F = ff_faces(N);
    if (ff_check_dual(F, dual) != 0) return -1;
    ff_walker *w = calloc(1, sizeof *w);
    if (!w) return -1;
    ff_walker_init(w, F, dual);
    const int rc = ff_canonical_faces(F, dual, out->pent, w);
    free(w);
    return rc;
}
