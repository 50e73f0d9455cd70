/* fullerene_ff generator: every isomer of C_N (ff_enumerate).
 *
 * Depth-first placement of the 12 pentagons over the F spiral positions. The windup runs
 * along: level k holds the open boundary (remaining valencies only) after faces 0..k-1, so a
 * prefix that cannot wind up is dropped the moment it fails, with its whole subtree. A closed
 * spiral is wound up into its triangulation and kept only if it is the canonical spiral.
 *
 * Two kinds of spiral are searched. A canonical spiral starts at a pentagon (position 0)
 * whenever the isomer has any spiral that does, 0 being the smallest first position, so
 * spirals that start at a pentagon find almost every isomer. Not all: C100 has one isomer
 * (canonical spiral 2 8 9 23 24 28 29 37 41 45 46 52, 1-based; its 12 pentagons form four
 * triangles) with no spiral from any pentagon, which is why a pentagon-start search counts
 * 285913 isomers of C100 where OEIS A007894 has 285914. So from N = HEX_START_N on, spirals
 * that start at a hexagon followed by a pentagon are searched too, and one is kept when no
 * pentagon start of its isomer gives a spiral and it is the canonical spiral. That search
 * costs as much again as the pentagon-start one and finds nothing below C100 (run for every
 * N = 20..98: no isomer without a pentagon-start spiral; and the counts match OEIS A007894
 * for N = 20..100, tools/isomer_counts.sh), so it is skipped there. An isomer whose spirals
 * all start at a hexagon followed by another hexagon is still not generated; none exists up
 * to C100, and the first isomer with no spiral at all is a C380.
 *
 * Three prunings keep the search near the size of its output:
 *  1. Boundary length: a face that is not the last joins c = 2 + (closed fans) boundary
 *     vertices and keeps a free valency, so the boundary shrinks by at most deg - 3 per face,
 *     and the last face closes a boundary of exactly its degree: m <= 2R + 4 - max(p - 1, 0)
 *     with R faces and p pentagons left.
 *  2. The cap (ff_wind_cap_closes): the unplaced faces form a disc whose boundary turns by
 *     (2 - r) x 60 degrees at a vertex with r free valencies. With no pentagon left it lies
 *     flat in the triangular lattice: the developed boundary must close, and its area must be
 *     the 2R + m - 2 triangles of a disc with R inner vertices. With one pentagon left it is a
 *     300-degree cone: the developed boundary plus the apex (fixed by the -60 degree holonomy)
 *     must enclose that same area. Both are necessary conditions only; at C60 and C70 they
 *     reject more than 95% of the dead boundary states with <= 1 pentagon left, and never a
 *     live one (checked against the exhaustive search while developing this).
 *  3. Memo: below MEMO_LEFT pentagons left, the subtree depends only on the boundary state
 *     (position, pentagons left, remaining valencies front to back), and the same state is
 *     reached from very many prefixes (at C60, 6.1 million visits of states with one pentagon
 *     left are 86 thousand distinct states). Dead states go to a table shared by the threads;
 *     live ones keep their list of tails (remaining pentagon positions) per thread.
 *
 * Parallel: the tree is cut at a depth that gives enough prefixes, each prefix is a task
 * (replayed from the root, dynamic schedule), every thread keeps its own list, and the
 * lists are sorted at the end, so the result does not depend on the thread count. */
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE), where the C library has it */
#include <omp.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/spiral_internal.h"

#define MEMO_LEFT 4          /* memo for states with 2..MEMO_LEFT pentagons left */
#define LIVE_BITS 18         /* per-thread table of live states */
#define ARENA_MAX ((size_t)256 << 20)
#define DEAD_PROBES 8
#define HEX_START_N 100      /* the smallest C_N with an isomer lacking a pentagon-start spiral */

typedef struct {
    uint64_t key;
    uint32_t off, n;
} live_entry;

typedef struct {
    ff_wind w;
    int F;
    uint16_t pent[12];
    uint16_t dual[6 * FF_MAX_F];
    ff_walker walker;
    int store, failed;
    ff_spiral *out;
    long n, cap;
    _Atomic uint64_t *dead; /* shared; NULL: no memo */
    uint64_t dead_mask;
    live_entry *live;
    long live_used;
    uint8_t *arena; /* tails, `left` bytes each */
    size_t arena_len, arena_cap;
} dfs_ctx;

int ff_wind_init(ff_wind *w, int F)
{
    w->F = F, w->W = F + 2;
    w->r = malloc((size_t)(F + 1) * (size_t)w->W);
    return w->r ? 0 : -1;
}

void ff_wind_root(ff_wind *w, int d0, int d1)
{
    int8_t *r = w->r + 2 * (size_t)w->W;
    w->lo[2] = 0, w->hi[2] = 2;
    r[0] = (int8_t)(d0 - 1), r[1] = (int8_t)(d1 - 1);
}

int ff_wind_place(ff_wind *w, int k, int d, int left)
{
    const int W = w->W, F = w->F;
    const int8_t *src = w->r + (size_t)k * W;
    int8_t *r = w->r + (size_t)(k + 1) * W;
    int lo = w->lo[k], hi = w->hi[k];
    if (k == F - 1) { /* the last face takes every remaining valency, one each */
        if (hi - lo != d) return -1;
        for (int j = lo; j < hi; j++)
            if (src[j] != 1) return -1;
        w->lo[k + 1] = w->hi[k + 1] = 0;
        return 0;
    }
    memcpy(r + lo, src + lo, (size_t)(hi - lo));
    r[lo]--, r[hi - 1]--;
    int rk = d - 2;
    while (r[hi - 1] == 0) {
        if (hi - lo <= 2 || rk <= 1) return -1;
        hi--, r[hi - 1]--, rk--;
    }
    while (r[lo] == 0) {
        if (hi - lo <= 2 || rk <= 1) return -1;
        lo++, r[lo]--, rk--;
    }
    r[hi++] = (int8_t)rk;
    const int R = F - 1 - k, m = hi - lo;
    if (m > 2 * R + 4 - (left > 1 ? left - 1 : 0)) return -1;
    w->lo[k + 1] = lo, w->hi[k + 1] = hi;
    return 0;
}

int ff_wind_cap_closes(const ff_wind *w, int k, int left)
{
    static const int ex[6] = {1, 0, -1, -1, 0, 1}, ey[6] = {0, 1, 1, 0, -1, -1};
    const int lo = w->lo[k], m = w->hi[k] - lo, R = w->F - k;
    if (left > 1) return 1;
    if (R == 0) return m == 0;
    const int8_t *r = w->r + (size_t)k * w->W + lo;
    long x = 0, y = 0, area = 0; /* axial lattice coordinates; twice-area = triangles */
    int dir = 0;
    for (int j = 0; j < m; j++) {
        const long nx = x + ex[dir], ny = y + ey[dir];
        area += x * ny - nx * y;
        x = nx, y = ny;
        if (j + 1 < m) dir = (dir + 8 - r[j + 1]) % 6;
    }
    if (left == 0) {
        if (x != 0 || y != 0) return 0;
    } else { /* apex a with P_m = a + rot(-60)(P_0 - a), P_0 = 0: a = rot(-60) P_m */
        const long ax = x + y, ay = -x;
        area += x * ay - ax * y;
    }
    if (area < 0) area = -area;
    return area == 2L * R + m - 2;
}

/* ---- leaves ------------------------------------------------------------------ */

static void leaf(dfs_ctx *c)
{
    if (ff_windup_faces(c->F, c->pent, c->dual) != 0) return; /* same rules: cannot happen */
    ff_walker_init(&c->walker, c->F, c->dual);
    if (c->pent[0] == 0) {
        if (!ff_is_canonical(c->F, c->dual, c->pent, &c->walker)) return;
    } else { /* a hexagon start: only for isomers without a pentagon-start spiral */
        uint16_t canon[12];
        if (ff_has_pentagon_spiral(c->F, c->dual, &c->walker)) return;
        if (ff_canonical_faces(c->F, c->dual, canon, &c->walker) != 0) return;
        if (memcmp(canon, c->pent, sizeof canon) != 0) return;
    }
    if (c->store) {
        if (c->n == c->cap) {
            const long cap = c->cap ? 2 * c->cap : 1024;
            ff_spiral *p = realloc(c->out, (size_t)cap * sizeof *p);
            if (!p) {
                c->failed = 1;
                return;
            }
            c->out = p, c->cap = cap;
        }
        memcpy(c->out[c->n].pent, c->pent, sizeof c->pent);
    }
    c->n++;
}

/* ---- memo ------------------------------------------------------------------------ */

uint64_t ff_mix64(uint64_t x)
{
    x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27, x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The state's exact key, never 0: the valencies (1..4, two bits each, front to back) under a
 * marker bit, then the position (8 bits) and the pentagons left (3 bits). 0 when the
 * boundary is too long for 64 bits (such states are searched without the memo). */
static uint64_t state_key(const dfs_ctx *c, int k, int left)
{
    const int lo = c->w.lo[k], m = c->w.hi[k] - lo;
    if (m > 26 || k > 255) return 0;
    const int8_t *r = c->w.r + (size_t)k * c->w.W + lo;
    uint64_t v = 1;
    for (int j = 0; j < m; j++) v = v << 2 | (uint64_t)((r[j] - 1) & 3);
    return v << 11 | (uint64_t)k << 3 | (uint64_t)left;
}

static int dead_has(const dfs_ctx *c, uint64_t key)
{
    uint64_t h = ff_mix64(key);
    for (int p = 0; p < DEAD_PROBES; p++, h++) {
        const uint64_t x = atomic_load_explicit(&c->dead[h & c->dead_mask], memory_order_relaxed);
        if (x == key) return 1;
        if (x == 0) return 0;
    }
    return 0;
}

/* A full neighbourhood just drops the key: the memo is a cache, never needed for correctness. */
static void dead_add(dfs_ctx *c, uint64_t key)
{
    uint64_t h = ff_mix64(key);
    for (int p = 0; p < DEAD_PROBES; p++, h++) {
        _Atomic uint64_t *slot = &c->dead[h & c->dead_mask];
        uint64_t x = atomic_load_explicit(slot, memory_order_relaxed);
        if (x == key) return;
        if (x == 0) {
            if (atomic_compare_exchange_strong_explicit(slot, &x, key, memory_order_relaxed, memory_order_relaxed))
                return;
            if (x == key) return;
        }
    }
}

static live_entry *live_slot(dfs_ctx *c, uint64_t key)
{
    const uint64_t mask = ((uint64_t)1 << LIVE_BITS) - 1;
    for (uint64_t h = ff_mix64(key) & mask;; h = (h + 1) & mask)
        if (c->live[h].key == key || c->live[h].key == 0) return &c->live[h];
}

static int arena_reserve(dfs_ctx *c, size_t more)
{
    if (c->arena_len + more <= c->arena_cap) return 0;
    if (c->arena_len + more > UINT32_MAX) return -1;
    size_t cap = c->arena_cap ? c->arena_cap : (size_t)1 << 16;
    while (cap < c->arena_len + more) cap *= 2;
    uint8_t *p = realloc(c->arena, cap);
    if (!p) return -1;
    c->arena = p, c->arena_cap = cap;
    return 0;
}

/* Every way to finish the spiral from level k with `left` pentagons still to place: n tails
 * of `left` bytes (the pentagon positions) at arena offset *off. 0, or -1 out of memory. */
static int tails(dfs_ctx *c, int k, int left, uint32_t *off, uint32_t *n)
{
    const int F = c->F;
    *off = 0, *n = 0;
    if (k == F) {
        *n = 1;
        return 0;
    }
    if (left <= 1 && !ff_wind_cap_closes(&c->w, k, left)) return 0;
    const uint64_t key = left >= 2 && c->dead ? state_key(c, k, left) : 0;
    if (key) {
        if (dead_has(c, key)) return 0;
        const live_entry *e = live_slot(c, key);
        if (e->key == key) {
            *off = e->off, *n = e->n;
            return 0;
        }
    }
    uint32_t o1 = 0, n1 = 0, o2 = 0, n2 = 0;
    if (left > 0 && ff_wind_place(&c->w, k, 5, left - 1) == 0 && tails(c, k + 1, left - 1, &o1, &n1) != 0) return -1;
    if (F - k > left && ff_wind_place(&c->w, k, 6, left) == 0 && tails(c, k + 1, left, &o2, &n2) != 0) return -1;
    if (n1 + n2 == 0) {
        if (key) dead_add(c, key);
        return 0;
    }
    const size_t bytes = (size_t)(n1 + n2) * (size_t)left;
    if (bytes) { /* left = 0: tails of no bytes, and maybe no arena yet to point into */
        if (arena_reserve(c, bytes) != 0) return -1;
        uint8_t *dst = c->arena + c->arena_len;
        for (uint32_t t = 0; t < n1; t++, dst += left) {
            dst[0] = (uint8_t)k;
            memcpy(dst + 1, c->arena + o1 + (size_t)t * (size_t)(left - 1), (size_t)(left - 1));
        }
        if (n2) memcpy(dst, c->arena + o2, (size_t)n2 * (size_t)left);
    }
    *off = (uint32_t)c->arena_len, *n = n1 + n2;
    c->arena_len += bytes;
    /* keep the live table under 3/4 full; it is emptied between tasks when it fills */
    if (key && c->live_used < (3L << LIVE_BITS) / 4) {
        live_entry *e = live_slot(c, key); /* the recursion above may have taken the slot */
        e->key = key, e->off = *off, e->n = *n;
        c->live_used++;
    }
    return 0;
}

/* ---- search ------------------------------------------------------------------------ */

/* Level k is set (faces 0..k-1 placed, np pentagons among them). */
static void dfs(dfs_ctx *c, int k, int np)
{
    const int left = 12 - np, R = c->F - k;
    if (left <= MEMO_LEFT) {
        uint32_t off, n;
        if (tails(c, k, left, &off, &n) != 0) {
            c->failed = 1;
            return;
        }
        for (uint32_t t = 0; t < n && !c->failed; t++) {
            for (int i = 0; i < left; i++) c->pent[np + i] = c->arena[off + (size_t)t * (size_t)left + (size_t)i];
            leaf(c);
        }
        return;
    }
    c->pent[np] = (uint16_t)k;
    if (ff_wind_place(&c->w, k, 5, left - 1) == 0) dfs(c, k + 1, np + 1);
    if (R > left && ff_wind_place(&c->w, k, 6, left) == 0) dfs(c, k + 1, np);
}

static void ctx_free(dfs_ctx *c)
{
    free(c->w.r), free(c->out), free(c->live), free(c->arena);
}

static int ctx_init(dfs_ctx *c, int F, int store, _Atomic uint64_t *dead, uint64_t dead_mask)
{
    memset(c, 0, sizeof *c);
    c->F = F, c->store = store;
    c->dead = dead, c->dead_mask = dead_mask;
    const int wok = ff_wind_init(&c->w, F);
    c->live = calloc((size_t)1 << LIVE_BITS, sizeof *c->live);
    if (wok != 0 || !c->live) {
        ctx_free(c);
        return -1;
    }
    return 0;
}

/* Replays the first `depth` faces of a task (bit i of mask: face i is a pentagon; face 0 a
 * pentagon, or a hexagon and face 1 a pentagon) onto level `depth`; returns the pentagon
 * count, or -1 if the prefix does not wind up. */
static int replay(dfs_ctx *c, uint64_t mask, int depth)
{
    int np = 0;
    for (int k = 0; k < 2; k++)
        if ((mask >> k) & 1) c->pent[np++] = (uint16_t)k;
    ff_wind_root(&c->w, mask & 1 ? 5 : 6, (mask >> 1) & 1 ? 5 : 6);
    for (int k = 2; k < depth; k++) {
        const int pentagon = (mask >> k) & 1;
        if (pentagon) {
            if (np == 12) return -1;
            c->pent[np] = (uint16_t)k;
        }
        if (ff_wind_place(&c->w, k, pentagon ? 5 : 6, 12 - np - pentagon) != 0) return -1;
        np += pentagon;
    }
    return np;
}

/* The valid prefixes of the given depth (task masks), or -1 out of memory. hex: also those
 * that start with a hexagon and a pentagon. */
static long prefixes(dfs_ctx *c, int depth, int hex, uint64_t **t)
{
    long n = 0, cap = 0;
    *t = NULL;
    for (uint64_t mask = 1; mask < (1ull << depth); mask++) {
        if (!(mask & 1) && !(hex && (mask & 2))) continue;
        if (__builtin_popcountll(mask) > 12 || replay(c, mask, depth) < 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            uint64_t *p = realloc(*t, (size_t)cap * sizeof *p);
            if (!p) {
                free(*t);
                *t = NULL;
                return -1;
            }
            *t = p;
        }
        (*t)[n++] = mask;
    }
    return n;
}

/* Dead-state table size: the number of distinct dead states grows like the isomer count
 * (about 250 per isomer with 2..4 pentagons left at C70..C80); 2^27 slots (1 GiB) at most. */
static int dead_bits(int F)
{
    const int b = F / 2 + 2;
    return b < 16 ? 16 : b > 27 ? 27 : b;
}

/* The dead-state table, zeroed. Its probes are random over up to 1 GiB, so it asks for huge
 * pages: without them nearly every probe also misses the TLB (about 12% of the run at C80). */
static _Atomic uint64_t *dead_table(int bits)
{
    const size_t huge = (size_t)2 << 20;
    size_t bytes = ((size_t)1 << bits) * sizeof(uint64_t);
    if (bytes < huge) return calloc((size_t)1 << bits, sizeof(uint64_t));
    void *p = aligned_alloc(huge, bytes);
    if (!p) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

long ff_enumerate(int N, ff_spiral **out, int nthreads)
{
    if (out) *out = NULL;
    if (N == 22) return 0;
    if (!ff_valid_n(N)) return -1;
    const int F = ff_faces(N);
    const int store = out != NULL;
    if (nthreads <= 0) nthreads = omp_get_max_threads();

    dfs_ctx *probe = malloc(sizeof *probe);
    if (!probe || ctx_init(probe, F, 0, NULL, 0) != 0) {
        free(probe);
        return -1;
    }
    /* cut deep enough for a few hundred tasks per thread */
    int depth = 2;
    uint64_t *tasks = NULL;
    long ntask = 0;
    for (;;) {
        free(tasks);
        ntask = prefixes(probe, depth, N >= HEX_START_N, &tasks);
        if (ntask < 0 || ntask >= 256L * nthreads || depth >= 24 || depth >= F - 2) break;
        depth++;
    }
    ctx_free(probe);
    free(probe);
    if (ntask < 0) return -1;

    const int bits = dead_bits(F);
    _Atomic uint64_t *dead = dead_table(bits);
    if (!dead) {
        free(tasks);
        return -1;
    }
    long total = 0;
    int failed = 0;
    ff_spiral *all = NULL;
    long nall = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : total) reduction(| : failed)
    {
        dfs_ctx *c = malloc(sizeof *c);
        const int ok = c && ctx_init(c, F, store, dead, ((uint64_t)1 << bits) - 1) == 0;
        if (!ok) failed = 1;
        /* every thread takes part in the loop (a worksharing construct), even one without memory */
#pragma omp for schedule(dynamic, 1)
        for (long t = 0; t < ntask; t++) {
            if (!ok || c->failed) continue;
            if (c->arena_len > ARENA_MAX || c->live_used >= (3L << LIVE_BITS) / 4) {
                memset(c->live, 0, sizeof *c->live << LIVE_BITS);
                c->live_used = 0, c->arena_len = 0;
            }
            const int np = replay(c, tasks[t], depth);
            if (np >= 0) dfs(c, depth, np);
        }
        if (ok) {
            total += c->n;
            failed |= c->failed;
            if (store && !c->failed) {
#pragma omp critical(ff_enum_merge)
                {
                    ff_spiral *p = realloc(all, (size_t)(nall + c->n + 1) * sizeof *p);
                    if (p) {
                        if (c->n) memcpy(p + nall, c->out, (size_t)c->n * sizeof *p);
                        all = p, nall += c->n;
                    } else {
                        failed = 1;
                    }
                }
            }
            ctx_free(c);
        }
        free(c);
    }
    free(tasks);
    free((void *)dead); /* drops the _Atomic qualifier: nothing runs concurrently any more */
    if (failed) {
        free(all);
        return -1;
    }
    if (store) {
        qsort(all, (size_t)nall, sizeof *all, ff_spiral_cmp);
        *out = all;
    }
    return total;
}
