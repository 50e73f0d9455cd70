/* fullerene_ff generator: windup, canonical spirals, enumeration counts against OEIS
 * A007894 (read from the data file, never from the code under test), sampling and the
 * spiral file reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/spiral_internal.h"

static int degree(const uint16_t *dual, int v) { return dual[6 * v + 5] == FF_NONE ? 5 : 6; }

static ff_spiral from_one_based(const int p[12])
{
    ff_spiral s;
    for (int i = 0; i < 12; i++) s.pent[i] = (uint16_t)(p[i] - 1);
    return s;
}

static const int c60_ih[12] = {1, 7, 9, 11, 13, 15, 18, 20, 22, 24, 26, 32};

/* Expected count of C_N from the OEIS data file; -1 when N is not listed. */
static long oeis_count(int N)
{
    char path[4096];
    assert_int_equal(sb_data_path("fullerene_ff", "A007894.txt", path, sizeof path), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    long found = -1;
    while (fgets(line, sizeof line, f)) {
        int n;
        long c;
        if (line[0] != '#' && sscanf(line, "%d %ld", &n, &c) == 2 && n == N) found = c;
    }
    fclose(f);
    return found;
}

/* Every vertex lists each neighbour once, neighbours list it back, and every corner
 * (v; w, u), u after w around v, is the same triangle seen from w and from u. */
static void assert_consistent(int F, const uint16_t *dual)
{
    long edges2 = 0;
    for (int v = 0; v < F; v++) {
        const int d = degree(dual, v);
        edges2 += d;
        for (int i = 0; i < d; i++) {
            const int w = dual[6 * v + i], u = dual[6 * v + (i + 1) % d];
            assert_true(w < F && w != v);
            int back = -1, at_u = -1;
            for (int k = 0; k < degree(dual, w); k++)
                if (dual[6 * w + k] == v) back = k;
            assert_true(back >= 0);
            for (int k = 0; k < degree(dual, u); k++)
                if (dual[6 * u + k] == w) at_u = k;
            assert_true(at_u >= 0); /* triangle closes: w and u are adjacent */
            assert_int_equal(dual[6 * w + (back + degree(dual, w) - 1) % degree(dual, w)], u);
            (void)at_u;
        }
    }
    assert_int_equal(edges2, 2 * (3 * F - 6));
}

static void test_c60_windup(void **state)
{
    (void)state;
    const ff_spiral s = from_one_based(c60_ih);
    uint16_t dual[6 * 32];
    assert_int_equal(ff_windup(60, &s, dual), 0);
    int npent = 0;
    for (int v = 0; v < 32; v++) npent += degree(dual, v) == 5;
    assert_int_equal(npent, 12);
    for (int i = 0; i < 12; i++) assert_int_equal(degree(dual, s.pent[i]), 5);
    assert_consistent(32, dual);
    assert_int_equal(ff_check_dual(32, dual), 0);
    ff_spiral c;
    assert_int_equal(ff_canonical_spiral(60, dual, &c), 0);
    assert_memory_equal(c.pent, s.pent, sizeof c.pent);
    /* Ih: the pentagons are isolated (the IPR fullerene): no pentagon touches another */
    for (int v = 0; v < 32; v++)
        if (degree(dual, v) == 5)
            for (int i = 0; i < 5; i++) assert_int_equal(degree(dual, dual[6 * v + i]), 6);
}

static void test_c20_and_bad_spirals(void **state)
{
    (void)state;
    uint16_t dual[6 * FF_MAX_F];
    const int c20[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    ff_spiral s = from_one_based(c20);
    assert_int_equal(ff_windup(20, &s, dual), 0);
    assert_consistent(12, dual);
    for (int v = 0; v < 12; v++) assert_int_equal(degree(dual, v), 5);

    /* C60's spiral with its last pentagon moved does not close */
    int moved[12];
    memcpy(moved, c60_ih, sizeof moved);
    moved[11] = 31;
    s = from_one_based(moved);
    assert_int_equal(ff_windup(60, &s, dual), -1);
    moved[11] = 29;
    s = from_one_based(moved);
    assert_int_equal(ff_windup(60, &s, dual), -1);
    /* out of range, not ascending, repeated, bad N */
    s = from_one_based(c60_ih);
    s.pent[11] = 32;
    assert_int_equal(ff_windup(60, &s, dual), -1);
    s = from_one_based(c60_ih);
    s.pent[3] = s.pent[2];
    assert_int_equal(ff_windup(60, &s, dual), -1);
    s = from_one_based(c60_ih);
    uint16_t t = s.pent[4];
    s.pent[4] = s.pent[5], s.pent[5] = t;
    assert_int_equal(ff_windup(60, &s, dual), -1);
    assert_int_equal(ff_windup(61, &s, dual), -1);
    assert_int_equal(ff_windup(22, &s, dual), -1);
    assert_int_equal(ff_windup(18, &s, dual), -1);
    assert_int_equal(ff_windup(FF_MAX_N + 2, &s, dual), -1);
    assert_int_equal(ff_windup(60, NULL, dual), -1);
}

/* Random 12-subsets of C44's positions: a windup either fails cleanly or gives a consistent
 * triangulation whose canonical spiral winds up to a triangulation with the same canonical
 * spiral. */
static void test_random_spirals(void **state)
{
    (void)state;
    const int N = 44, F = ff_faces(N);
    uint16_t dual[6 * FF_MAX_F], dual2[6 * FF_MAX_F];
    uint64_t x = 12345;
    int closed = 0;
    for (int trial = 0; trial < 200000; trial++) {
        uint8_t used[FF_MAX_F] = {0};
        ff_spiral s;
        for (int i = 0; i < 12;) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const int p = (int)((x >> 33) % (uint64_t)F);
            if (!used[p]) used[p] = 1, i++;
        }
        for (int p = 0, i = 0; p < F; p++)
            if (used[p]) s.pent[i++] = (uint16_t)p;
        if (ff_windup(N, &s, dual) != 0) continue;
        closed++;
        assert_consistent(F, dual);
        ff_spiral c, c2;
        assert_int_equal(ff_canonical_spiral(N, dual, &c), 0);
        assert_true(ff_spiral_cmp(&c, &s) <= 0);
        assert_int_equal(ff_windup(N, &c, dual2), 0);
        assert_int_equal(ff_canonical_spiral(N, dual2, &c2), 0);
        assert_memory_equal(c.pent, c2.pent, sizeof c.pent);
    }
    assert_true(closed > 10);
}

/* Relabelling the vertices, rotating each neighbour list and mirroring the orientation
 * give the same canonical spiral; so does starting from any other spiral of the graph. */
static void check_invariance(int N, const ff_spiral *s, uint64_t seed)
{
    const int F = ff_faces(N);
    uint16_t dual[6 * FF_MAX_F], perm_dual[6 * FF_MAX_F], other[6 * FF_MAX_F];
    assert_int_equal(ff_windup(N, s, dual), 0);
    ff_spiral c0;
    assert_int_equal(ff_canonical_spiral(N, dual, &c0), 0);

    int perm[FF_MAX_F];
    for (int v = 0; v < F; v++) perm[v] = v;
    uint64_t x = seed;
    for (int v = F - 1; v > 0; v--) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const int j = (int)((x >> 33) % (uint64_t)(v + 1));
        const int t = perm[v];
        perm[v] = perm[j], perm[j] = t;
    }
    for (int mirror = 0; mirror < 2; mirror++) {
        for (int v = 0; v < F; v++) {
            const int d = degree(dual, v), rot = (int)((x >> 40) % (uint64_t)d);
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            for (int i = 0; i < d; i++) {
                const int from = mirror ? (d - 1 - i + rot) % d : (i + rot) % d;
                perm_dual[6 * perm[v] + i] = (uint16_t)perm[dual[6 * v + from]];
            }
            if (d == 5) perm_dual[6 * perm[v] + 5] = FF_NONE;
        }
        ff_spiral c;
        assert_int_equal(ff_canonical_spiral(N, perm_dual, &c), 0);
        assert_memory_equal(c.pent, c0.pent, sizeof c.pent);
    }

    ff_walker *w = calloc(1, sizeof *w);
    assert_non_null(w);
    ff_walker_init(w, F, dual);
    int spirals = 0;
    for (int v = 0; v < F; v++)
        for (int j = 0; j < degree(dual, v); j++)
            for (int dir = -1; dir <= 1; dir += 2) {
                ff_spiral t, c;
                if (ff_spiral_from(F, dual, v, j, dir, t.pent, w) != 0) continue;
                spirals++;
                assert_true(ff_spiral_cmp(&c0, &t) <= 0);
                assert_int_equal(ff_windup(N, &t, other), 0);
                assert_int_equal(ff_canonical_spiral(N, other, &c), 0);
                assert_memory_equal(c.pent, c0.pent, sizeof c.pent);
            }
    free(w);
    assert_true(spirals > 0);
}

static void test_invariance(void **state)
{
    (void)state;
    const ff_spiral c60 = from_one_based(c60_ih);
    check_invariance(60, &c60, 1);
    ff_spiral *list = NULL;
    const long n = ff_enumerate(48, &list, 0);
    assert_true(n > 0);
    for (long i = 0; i < n; i += 7) check_invariance(48, &list[i], (uint64_t)i + 2);
    free(list);
}

/* The smallest isomer without a spiral from any pentagon (C100, four triangles of pentagons):
 * its canonical spiral starts at a hexagon, and it is invariant like any other. */
static void test_hexagon_start(void **state)
{
    (void)state;
    const int p[12] = {2, 8, 9, 23, 24, 28, 29, 37, 41, 45, 46, 52};
    const ff_spiral s = from_one_based(p);
    uint16_t dual[6 * FF_MAX_F];
    assert_int_equal(ff_windup(100, &s, dual), 0);
    ff_walker *w = calloc(1, sizeof *w);
    assert_non_null(w);
    ff_walker_init(w, 52, dual);
    assert_int_equal(ff_has_pentagon_spiral(52, dual, w), 0);
    free(w);
    ff_spiral c;
    assert_int_equal(ff_canonical_spiral(100, dual, &c), 0);
    assert_memory_equal(c.pent, s.pent, sizeof c.pent);
    check_invariance(100, &s, 99);
}

static void test_bad_duals(void **state)
{
    (void)state;
    const ff_spiral c60 = from_one_based(c60_ih);
    uint16_t dual[6 * 32], bad[6 * 32];
    ff_spiral c;
    assert_int_equal(ff_windup(60, &c60, dual), 0);
    memcpy(bad, dual, sizeof bad);
    bad[6 * 3 + 2] = 40; /* out of range */
    assert_int_equal(ff_canonical_spiral(60, bad, &c), -1);
    memcpy(bad, dual, sizeof bad);
    bad[6 * 3 + 2] = 3; /* a loop */
    assert_int_equal(ff_canonical_spiral(60, bad, &c), -1);
    memcpy(bad, dual, sizeof bad);
    const uint16_t t = bad[6 * 7 + 1];
    bad[6 * 7 + 1] = bad[6 * 7 + 2], bad[6 * 7 + 2] = t; /* orientation broken at one vertex */
    assert_int_equal(ff_canonical_spiral(60, bad, &c), -1);
    memcpy(bad, dual, sizeof bad);
    bad[6 * 9 + 5] = FF_NONE; /* a 13th pentagon */
    assert_int_equal(ff_canonical_spiral(60, bad, &c), -1);
    /* wrong size: C62's 33 vertices, the 33rd not a C60 vertex (the array is C62's size,
     * the function reads 6 F entries) */
    uint16_t big[6 * 33] = {0};
    memcpy(big, dual, sizeof dual);
    assert_int_equal(ff_canonical_spiral(62, big, &c), -1);
    assert_int_equal(ff_canonical_spiral(60, NULL, &c), -1);
}

static void test_counts(void **state)
{
    (void)state;
    for (int N = 20; N <= 64; N += 2) {
        const long expect = oeis_count(N);
        assert_true(expect >= 0);
        const long got = ff_enumerate(N, NULL, 0);
        if (got != expect) fprintf(stderr, "C%d: %ld isomers, OEIS A007894 %ld\n", N, got, expect);
        assert_int_equal(got, expect);
    }
}

/* The list is sorted, without repeats, every entry canonical, and independent of threads. */
static void test_enumerate_list(void **state)
{
    (void)state;
    ff_spiral *a = NULL, *b = NULL;
    const long n = ff_enumerate(50, &a, 0);
    assert_int_equal(n, oeis_count(50));
    assert_int_equal(ff_enumerate(50, &b, 1), n);
    assert_memory_equal(a, b, (size_t)n * sizeof *a);
    uint16_t dual[6 * FF_MAX_F];
    for (long i = 0; i < n; i++) {
        if (i) assert_true(ff_spiral_cmp(&a[i - 1], &a[i]) < 0);
        assert_int_equal(a[i].pent[0], 0);
        ff_spiral c;
        assert_int_equal(ff_windup(50, &a[i], dual), 0);
        assert_int_equal(ff_canonical_spiral(50, dual, &c), 0);
        assert_memory_equal(c.pent, a[i].pent, sizeof c.pent);
    }
    free(a), free(b);
    ff_spiral *none = (ff_spiral *)&n;
    assert_int_equal(ff_enumerate(22, &none, 0), 0);
    assert_null(none);
    assert_int_equal(ff_enumerate(21, NULL, 0), -1);
}

/* Same seed, same list; draws are distinct canonical spirals of C_N; small N is uniform
 * sampling from the enumeration and returns everything when asked for more. */
static void test_sample(void **state)
{
    (void)state;
    ff_spiral *a = NULL, *b = NULL, *c = NULL;
    const int N = 120, F = ff_faces(N);
    const long M = 300;
    assert_int_equal(ff_sample(N, M, 42, &a), M);
    assert_int_equal(ff_sample(N, M, 42, &b), M);
    assert_memory_equal(a, b, (size_t)M * sizeof *a);
    assert_int_equal(ff_sample(N, M, 43, &c), M);
    assert_true(memcmp(a, c, (size_t)M * sizeof *a) != 0);
    uint16_t dual[6 * FF_MAX_F];
    for (long i = 0; i < M; i++) {
        for (long j = 0; j < i; j++) assert_true(ff_spiral_cmp(&a[i], &a[j]) != 0);
        ff_spiral canon;
        assert_int_equal(ff_windup(N, &a[i], dual), 0);
        assert_int_equal(ff_check_dual(F, dual), 0);
        assert_int_equal(ff_canonical_spiral(N, dual, &canon), 0);
        assert_memory_equal(canon.pent, a[i].pent, sizeof canon.pent);
    }
    /* a prefix of a longer draw is the shorter draw */
    ff_spiral *d = NULL;
    assert_int_equal(ff_sample(N, 100, 42, &d), 100);
    assert_memory_equal(a, d, 100 * sizeof *a);
    free(a), free(b), free(c), free(d);

    const long n40 = oeis_count(40);
    assert_int_equal(ff_sample(40, 10 * n40, 5, &a), n40);
    qsort(a, (size_t)n40, sizeof *a, ff_spiral_cmp);
    assert_int_equal(ff_enumerate(40, &b, 0), n40);
    assert_memory_equal(a, b, (size_t)n40 * sizeof *a);
    free(a), free(b);
    assert_int_equal(ff_sample(40, 7, 5, &a), 7);
    free(a);
    assert_int_equal(ff_sample(22, 5, 1, &a), 0);
    assert_int_equal(ff_sample(23, 5, 1, &a), -1);
    assert_int_equal(ff_sample(60, -1, 1, &a), -1);
    assert_int_equal(ff_sample(60, 5, 1, NULL), -1);
}

/* Writes text to a fresh temporary file; returns its path (static buffer). */
static const char *temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/ff_spirals_XXXXXX");
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int read_text(const char *text, int N, ff_spiral **out, long *n)
{
    const char *path = temp_file(text);
    const int rc = ff_read_spirals(path, N, out, n);
    unlink(path);
    return rc;
}

static void test_read_spirals(void **state)
{
    (void)state;
    ff_spiral *s = NULL;
    long n = -1;
    assert_int_equal(read_text("# C60-Ih and C60 isomer 1\n"
                               "1 7 9 11 13 15 18 20 22 24 26 32   # Ih\n"
                               "\n   \t\n"
                               "1 2 3 4 5 6 27 28 29 30 31 32\r\n",
                               60, &s, &n),
                     SB_OK);
    assert_int_equal(n, 2);
    const ff_spiral ih = from_one_based(c60_ih);
    assert_memory_equal(s[0].pent, ih.pent, sizeof ih.pent);
    free(s);

    const char *bad[] = {
        "1 7 9 11 13 15 18 20 22 24 26\n",           /* 11 positions */
        "1 7 9 11 13 15 18 20 22 24 26 32 33\n",     /* 13 */
        "1 7 9 11 13 15 18 20 22 24 26 33\n",        /* out of range */
        "0 7 9 11 13 15 18 20 22 24 26 32\n",        /* out of range */
        "1 9 7 11 13 15 18 20 22 24 26 32\n",        /* not ascending */
        "1 7 7 11 13 15 18 20 22 24 26 32\n",        /* repeated */
        "1 7 9 11 13 15 18 20 22 24 26 31\n",        /* does not close */
        "1 7 9 11 13 15 18 20 22 24 26 3x2\n",       /* not a number */
        "1 7 9 11 13 15 18 20 22 24 26 99999999999999999999\n",
        "# only a comment\n\n",                       /* no spirals */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s = (ff_spiral *)&n;
        assert_int_equal(read_text(bad[i], 60, &s, &n), SB_EXIT_USAGE);
        assert_null(s);
        assert_int_equal(n, 0);
    }
    /* a good line before a bad one does not make it a success */
    assert_int_equal(read_text("1 7 9 11 13 15 18 20 22 24 26 32\n1 2 3\n", 60, &s, &n), SB_EXIT_USAGE);
    assert_int_equal(read_text("1 7 9 11 13 15 18 20 22 24 26 32\n", 61, &s, &n), SB_EXIT_USAGE);
    assert_int_equal(ff_read_spirals("/nonexistent/ff_spirals.txt", 60, &s, &n), SB_EXIT_USAGE);
    assert_int_equal(ff_read_spirals("/tmp", 60, &s, &n), SB_EXIT_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c60_windup),
        cmocka_unit_test(test_c20_and_bad_spirals),
        cmocka_unit_test(test_random_spirals),
        cmocka_unit_test(test_invariance),
        cmocka_unit_test(test_hexagon_start),
        cmocka_unit_test(test_bad_duals),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_enumerate_list),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_read_spirals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
