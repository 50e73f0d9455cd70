/* fullerene_ff generator: a reproducible sample of distinct isomers (ff_sample).
 *
 * Small N (N <= SAMPLE_ENUM_N): every isomer is enumerated (ff_enumerate) and the sample is
 * drawn without replacement by a seeded Fisher-Yates shuffle, so it is uniform over the
 * isomers, and M >= the isomer count returns them all.
 *
 * Larger N: draw i is a randomised depth-first windup. At each spiral position the face is
 * a pentagon first with probability (pentagons left)/(faces left), else a hexagon first; a
 * choice that cannot wind up (or whose subtree fails) is undone and the other one tried,
 * with the same prunings as the enumeration, until the spiral closes or the draw has used
 * DRAW_BUDGET_PER_FACE x F search nodes (then draw i gives nothing). A closed spiral is wound
 * up and replaced by its canonical spiral; the first M distinct canonical spirals, in draw
 * order, are the sample. About 2/3 of the draws close at C200 and 2/5 at C400, and repeats
 * are rare: 10000 isomers of C200 take about 3 s, 1000 of C400 about 1.3 s (2 cores).
 *
 * This is NOT uniform over the isomers: an isomer is drawn in proportion to how many of its
 * spirals the search reaches with these probabilities, and isomers with more spirals (less
 * symmetric ones) and with pentagons spread like uniform random positions are favoured. It
 * is a reproducible, varied set of valid isomers, not a statistical sample of isomer space.
 *
 * Randomness is counter-based: the value used at decision c of draw i is splitmix64 of
 * (seed, i, c), so draw i is the same on any thread count. Draws run in parallel in batches
 * and are merged in draw order, which makes the result depend on the seed alone.
 *
 * If draws stop finding new isomers (STALL_DRAWS draws in a row, and at least 8x the number
 * found, without a new one) before M are found: for N <= SAMPLE_ENUM_MAX_N the isomers are
 * enumerated and sampled as for small N (there are fewer than M, or only rare ones are
 * left); above, the call fails with a message rather than loop for ever. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/spiral_internal.h"

#define SAMPLE_ENUM_N 60       /* enumerate at and below this size */
#define SAMPLE_ENUM_MAX_N 100  /* the largest size that falls back to enumeration */
#define DRAW_BUDGET_PER_FACE 64
#define STALL_DRAWS 20000L

typedef struct {
    ff_wind w;
    int F;
    uint64_t key; /* the draw's stream */
    uint64_t count;
    long nodes, budget;
    uint16_t pent[12];
    uint16_t dual[6 * FF_MAX_F];
    ff_walker walker;
} draw_ctx;

static uint64_t stream_key(uint64_t seed, uint64_t i)
{
    return ff_mix64(seed ^ ff_mix64(i + 0x632be59bd9b4e019ull));
}

/* Uniform in [0, 1) from (stream, counter). */
static double uniform(uint64_t key, uint64_t c)
{
    return (double)(ff_mix64(key + (c + 1) * 0x9e3779b97f4a7c15ull) >> 11) * 0x1p-53;
}

/* Faces 0..k-1 placed (np pentagons): 1 when the spiral closes below, 0 when not (or the
 * budget is spent). */
static int random_dfs(draw_ctx *c, int k, int np)
{
    const int F = c->F, left = 12 - np, R = F - k;
    if (k == F) return 1;
    if (left <= 1 && !ff_wind_cap_closes(&c->w, k, left)) return 0;
    if (++c->nodes > c->budget) return 0;
    const int pent_first = left > 0 && (R == left || uniform(c->key, c->count++) * R < left);
    for (int t = 0; t < 2; t++) {
        const int pentagon = t == 0 ? pent_first : !pent_first;
        if ((pentagon && left == 0) || (!pentagon && R == left)) continue;
        if (pentagon) c->pent[np] = (uint16_t)k;
        if (k < 2) { /* faces 0 and 1 start the windup */
            if (k == 1) ff_wind_root(&c->w, np > 0 ? 5 : 6, pentagon ? 5 : 6);
        } else if (ff_wind_place(&c->w, k, pentagon ? 5 : 6, left - pentagon) != 0) {
            continue;
        }
        if (random_dfs(c, k + 1, np + pentagon)) return 1;
        if (c->nodes > c->budget) return 0;
    }
    return 0;
}

/* Draw i: 0 and *out = a canonical spiral, or -1 (no closed spiral within the budget). */
static int draw(draw_ctx *c, uint64_t seed, uint64_t i, ff_spiral *out)
{
    c->key = stream_key(seed, i), c->count = 0;
    c->nodes = 0, c->budget = (long)DRAW_BUDGET_PER_FACE * c->F;
    if (!random_dfs(c, 0, 0)) return -1;
    if (ff_windup_faces(c->F, c->pent, c->dual) != 0) return -1; /* cannot happen */
    ff_walker_init(&c->walker, c->F, c->dual);
    return ff_canonical_faces(c->F, c->dual, out->pent, &c->walker);
}

/* ---- the distinct spirals so far, in draw order ------------------------------------ */

typedef struct {
    ff_spiral *list; /* in insertion order */
    long n, cap;
    long *slot;      /* open addressing: index into list + 1, 0 empty */
    size_t mask;
} spiral_set;

static uint64_t spiral_hash(const ff_spiral *s)
{
    uint64_t h = 0;
    for (int i = 0; i < 12; i++) h = ff_mix64(h ^ s->pent[i]);
    return h;
}

static size_t set_find(const spiral_set *t, const ff_spiral *s)
{
    size_t h = spiral_hash(s) & t->mask;
    while (t->slot[h] && memcmp(t->list[t->slot[h] - 1].pent, s->pent, sizeof s->pent) != 0) h = (h + 1) & t->mask;
    return h;
}

/* 1 added, 0 already there, -1 out of memory. Both arrays grow as needed, so a huge M asked
 * for costs memory only for what is found. */
static int set_add(spiral_set *t, const ff_spiral *s)
{
    if (!t->slot || (size_t)(t->n + 1) * 2 > t->mask + 1) {
        const size_t size = t->slot ? 2 * (t->mask + 1) : 1024;
        long *slot = calloc(size, sizeof *slot);
        if (!slot) return -1;
        free(t->slot);
        t->slot = slot, t->mask = size - 1;
        for (long i = 0; i < t->n; i++) t->slot[set_find(t, &t->list[i])] = i + 1;
    }
    const size_t h = set_find(t, s);
    if (t->slot[h]) return 0;
    if (t->n == t->cap) {
        const long cap = t->cap ? 2 * t->cap : 1024;
        ff_spiral *p = realloc(t->list, (size_t)cap * sizeof *p);
        if (!p) return -1;
        t->list = p, t->cap = cap;
    }
    t->list[t->n] = *s;
    t->slot[h] = ++t->n;
    return 1;
}

/* ---- the two ways ------------------------------------------------------------------ */

/* Uniform sample without replacement from all isomers, in draw order. */
static long sample_enumerated(int N, long M, uint64_t seed, ff_spiral **out)
{
    ff_spiral *all = NULL;
    const long n = ff_enumerate(N, &all, 0);
    if (n < 0) return -1;
    const long take = M < n ? M : n;
    const uint64_t key = stream_key(seed, UINT64_MAX);
    for (long i = 0; i < take; i++) {
        const long j = i + (long)(uniform(key, (uint64_t)i) * (double)(n - i));
        const ff_spiral t = all[i];
        all[i] = all[j], all[j] = t;
    }
    if (take == 0) {
        free(all);
        all = NULL;
    } else if (take < n) {
        ff_spiral *p = realloc(all, (size_t)take * sizeof *all);
        if (p) all = p;
    }
    *out = all;
    return take;
}

/* The all-at-once ways announce their result once. */
static long published(long n, ff_spiral **out, ff_publish_fn publish, void *u)
{
    if (n > 0 && publish) publish(u, *out, n);
    return n;
}

long ff_sample(int N, long M, uint64_t seed, ff_spiral **out) { return ff_sample_stream(N, M, seed, out, NULL, NULL); }

long ff_sample_stream(int N, long M, uint64_t seed, ff_spiral **out, ff_publish_fn publish, void *u)
{
    if (!out) return -1;
    *out = NULL;
    if (M < 0 || (!ff_valid_n(N) && N != 22)) return -1;
    if (M == 0 || N == 22) return 0;
    if (N <= SAMPLE_ENUM_N) return published(sample_enumerated(N, M, seed, out), out, publish, u);

    const int F = ff_faces(N), nthreads = omp_get_max_threads();
    const long batch = 64L * nthreads;
    spiral_set set = {0};
    ff_spiral *got = malloc((size_t)batch * sizeof *got);
    int *ok = malloc((size_t)batch * sizeof *ok);
    int failed = !got || !ok;

    long stale = 0;
    for (uint64_t base = 0; !failed && set.n < M; base += (uint64_t)batch) {
#pragma omp parallel num_threads(nthreads) reduction(| : failed)
        {
            draw_ctx *c = malloc(sizeof *c);
            const int mine = c && ff_wind_init(&c->w, F) == 0;
            if (mine) c->F = F, c->walker.mark = 0;
            else failed = 1;
#pragma omp for schedule(dynamic, 4)
            for (long i = 0; i < batch; i++)
                ok[i] = mine && draw(c, seed, base + (uint64_t)i, &got[i]) == 0;
            if (mine) free(c->w.r);
            free(c);
        }
        for (long i = 0; i < batch && !failed && set.n < M; i++) {
            const int added = ok[i] ? set_add(&set, &got[i]) : 0;
            if (added < 0) failed = 1;
            stale = added > 0 ? 0 : stale + 1; /* a repeat, or a draw that did not close */
        }
        if (!failed && publish && set.n > 0) publish(u, set.list, set.n < M ? set.n : M);
        if (set.n < M && stale > STALL_DRAWS && stale > 8 * set.n) break;
    }
    free(set.slot), free(got), free(ok);
    if (failed) {
        free(set.list);
        return -1;
    }
    if (set.n < M) {
        free(set.list);
        if (N <= SAMPLE_ENUM_MAX_N) return published(sample_enumerated(N, M, seed, out), out, publish, u);
        sb_error("fullerene_ff: only %ld distinct isomers of C%d found in random draws, %ld asked for", set.n,
                 N, M);
        return -1;
    }
    *out = set.list;
    return set.n;
}
