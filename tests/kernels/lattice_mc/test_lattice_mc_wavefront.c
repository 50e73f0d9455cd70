/* The schedule of lattice_mc's fused CUDA sweep (kernels/lattice_mc/wavefront.h), checked
 * on the CPU item by item: it covers every site of a sweep once, every item waits only
 * for items with earlier tickets (so no block waits for one that is not running), and
 * whenever two items touch the same rows of a sub-lattice plane, one writing them, the
 * dependencies order them as the tick-by-tick sweep does. Then any execution the
 * completion slots allow, concurrent or not, is that sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/wavefront.h"

typedef struct {
    int h, zs, R, G; /* half edge (rows per plane), planes, rows an item, planes a step */
    int nch, n;      /* chunks a plane-tick, items */
    uint32_t *order;
    int *ticket;     /* by completion slot */
    uint64_t *anc;   /* by ticket: the tickets it waits for, directly or not (bitset) */
    int *writer;     /* by (sub-lattice, plane, row): the ticket that writes it */
} wave;

static int item_of(const wave *w, int k, int *t, int *z, int *c)
{
    const uint32_t pt = w->order[k / w->nch];
    *t = (int)(pt & 7), *z = (int)(pt >> 3), *c = k % w->nch;
    return lmc_tick_order[*t];
}

static int cell(const wave *w, int s, int z, int r)
{
    z = (z + w->zs) % w->zs, r = (r + w->h) % w->h; /* periodic in z and y, as on one rank */
    return (s * w->zs + z) * w->h + r;
}

static int waits_for(const wave *w, int k, int j)
{
    return (int)(w->anc[(size_t)k * ((w->n + 63) / 64) + j / 64] >> (j % 64) & 1);
}

/* Violations of the schedule; drop_z: leave out tick 4's wait on plane z + 1, which must
 * then be found. */
static long wave_violations(int h, int zs, int R, int G, int drop_z)
{
    wave w = {h, zs, R, G, (h + R - 1) / R, 0, NULL, NULL, NULL, NULL};
    w.n = 8 * zs * w.nch;
    const size_t words = (size_t)(w.n + 63) / 64, ncell = (size_t)8 * zs * h;
    w.order = malloc(8 * (size_t)zs * sizeof *w.order);
    w.ticket = malloc((size_t)w.n * sizeof *w.ticket);
    w.anc = calloc((size_t)w.n * words, sizeof *w.anc);
    w.writer = malloc(ncell * sizeof *w.writer);
    assert_non_null(w.order), assert_non_null(w.ticket), assert_non_null(w.anc), assert_non_null(w.writer);
    lmc_wave_order(zs, G, w.order);
    long bad = 0;
    for (int i = 0; i < w.n; i++) w.ticket[i] = -1;
    for (size_t i = 0; i < ncell; i++) w.writer[i] = -1;
    for (int k = 0; k < w.n; k++) {
        int t, z, c;
        const int s = item_of(&w, k, &t, &z, &c);
        const uint32_t slot = lmc_wave_slot(t, z, c, zs, w.nch);
        bad += slot >= (uint32_t)w.n || w.ticket[slot] != -1;
        if (slot < (uint32_t)w.n) w.ticket[slot] = k;
        for (int r = c * R; r < h && r < (c + 1) * R; r++) {
            bad += w.writer[cell(&w, s, z, r)] != -1; /* each row of a sub-lattice plane once */
            w.writer[cell(&w, s, z, r)] = k;
        }
    }
    for (size_t i = 0; i < ncell; i++) bad += w.writer[i] == -1;
    for (int k = 0; k < w.n; k++) {
        int t, z, c;
        item_of(&w, k, &t, &z, &c);
        int nd = lmc_wave_ndeps(t, w.nch);
        if (drop_z && t == 4) nd /= 2;
        for (int i = 0; i < nd; i++) {
            const uint32_t slot = lmc_wave_dep(i, t, z, c, zs, w.nch);
            const int d = slot < (uint32_t)w.n ? w.ticket[slot] : -1;
            if (d < 0 || d >= k) { /* only earlier tickets: blocks waiting wait for running ones */
                bad++;
                continue;
            }
            w.anc[(size_t)k * words + d / 64] |= 1ull << (d % 64);
            for (size_t q = 0; q < words; q++) w.anc[(size_t)k * words + q] |= w.anc[(size_t)d * words + q];
        }
    }
    /* every row an item reads that another item writes: the earlier tick first */
    for (int k = 0; k < w.n; k++) {
        int t, z, c;
        const int s = item_of(&w, k, &t, &z, &c), py = (s >> 1) & 1, pz = (s >> 2) & 1;
        for (int r = c * R; r < h && r < (c + 1) * R; r++) {
            const int read[5] = {cell(&w, s ^ 1, z, r), cell(&w, s ^ 2, z, r + py), cell(&w, s ^ 2, z, r - 1 + py),
                                 cell(&w, s ^ 4, z + pz, r), cell(&w, s ^ 4, z - 1 + pz, r)};
            for (int i = 0; i < 5; i++) {
                const int j = w.writer[read[i]];
                int tj, zj, cj;
                item_of(&w, j, &tj, &zj, &cj);
                bad += tj < t ? !waits_for(&w, k, j) : !waits_for(&w, j, k);
            }
        }
    }
    free(w.order), free(w.ticket), free(w.anc), free(w.writer);
    return bad;
}

static void test_tick_order_is_gray_code(void **state)
{
    (void)state;
    for (int t = 0; t < 8; t++) assert_int_equal(lmc_tick_order[t], t ^ (t >> 1)); /* the device's formula */
}

/* One rank: zs = h. Odd plane counts, slab remainders, one chunk a plane-tick, two (every
 * chunk a neighbour of every other), and many. */
static void test_schedule_is_the_tick_order(void **state)
{
    (void)state;
    static const int cases[][4] = {{3, 3, 16, 3},  {5, 5, 2, 2},  {8, 8, 16, 8}, {8, 8, 2, 1},  {7, 7, 3, 4},
                                   {9, 9, 4, 2},   {12, 12, 4, 5}, {6, 6, 1, 3}, {10, 10, 8, 2}, {16, 16, 4, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int *q = cases[i];
        long bad = wave_violations(q[0], q[1], q[2], q[3], 0);
        if (bad) print_message("h %d, zs %d, R %d, G %d: %ld violations\n", q[0], q[1], q[2], q[3], bad);
        assert_int_equal(bad, 0);
    }
}

/* The check finds a missing dependency: tick 4 without tick 3 of plane z + 1. */
static void test_schedule_check_finds_a_missing_wait(void **state)
{
    (void)state;
    assert_true(wave_violations(8, 8, 2, 1, 1) > 0);
    assert_true(wave_violations(6, 6, 1, 3, 1) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tick_order_is_gray_code),
        cmocka_unit_test(test_schedule_is_the_tick_order),
        cmocka_unit_test(test_schedule_check_finds_a_missing_wait),
    };
    return cmocka_run_group_tests_name("lmc_wavefront", tests, NULL, NULL);
}
