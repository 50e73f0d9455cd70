/* fullerene_ff on the CUDA backend against the scalar oracle (ff_dualise, ff_tutte,
 * ff_project, ff_optimise on the same isomers). Skips without a GPU.
 *
 * What must agree, and how closely:
 *   graph     byte for byte (integer algorithm);
 *   Tutte     bit for bit, and the sweep count exactly: sums and the division by 3 are
 *             IEEE-rounded on both sides and the kernel forms the move without FMA
 *             (asserted <= 1e-12, the bitwise count is printed);
 *   start X   bit for bit as well (the same operations in the same order, no FMA
 *             contraction, no transcendental functions): asserted <= 1e-12 relative;
 *   optimised the same convergence flags; converged isomers' final energies within 1e-6
 *             relative (1e-6 FFU absolute near 0: C60's minimum is at ~1e-10 FFU), RMS
 *             gradient <= gtol; iteration counts close. The per-component CG arithmetic
 *             is the oracle's (no FMA), but the block sums add in another order, so the
 *             paths may part by ulps: counts within a factor 2 each, 15 % on average (on
 *             the H100 they were equal, energies within 1e-14); the spread is printed.
 * Plus the isomer queue (more isomers than resident blocks: every copy of an isomer gives
 * bitwise the same result, and a second run() the same again), the launch report, the
 * C60-Ih geometry, and bad input rejected with an error.
 * SB_FF_BENCH=1 also times the benchmark case (N = SB_FF_N, default 200; M = SB_FF_M,
 * default 10000 isomers; SB_FF_MAXIT caps the iterations) and prints isomers/s, the stage
 * times and the evaluation statistics (SB_FF_DUMP=file: per isomer). SB_FF_TEST=name runs
 * only the tests matching name (cmocka's filter). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpu_util.h"
#include "fullerene_ff/ff.h"
#include "fullerene_ff/optimise.h"
#include "test_util.h"

/* CUDA=0 builds have no ff_ops_cuda; REQUIRE_GPU skips before it is used. */
#ifdef SB_HAVE_CUDA
#define CUDA_OPS (&ff_ops_cuda)
int ff_cuda_tutte_xy(const ff_batch *b, double *xy); /* cuda.cu, for this test */
#else
#define CUDA_OPS ((const ff_ops *)NULL)
static int ff_cuda_tutte_xy(const ff_batch *b, double *xy)
{
    (void)b, (void)xy;
    return SB_EXIT_RUNTIME;
}
#endif

static const ff_spiral C60_IH = {{0, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 31}}; /* 1 7 9 ... 32 */

/* ---- batches ---- */

typedef struct {
    int N, F;
    long n;
    uint16_t *dual; /* n * F * 6 */
} isomers;

static isomers from_spirals(int N, const ff_spiral *s, long n)
{
    isomers I = {N, ff_faces(N), n, malloc(sizeof(uint16_t) * 6 * ff_faces(N) * (size_t)n)};
    assert_non_null(I.dual);
    for (long i = 0; i < n; i++) assert_int_equal(ff_windup(N, &s[i], I.dual + (size_t)i * I.F * 6), 0);
    return I;
}

/* C60-Ih, then every (1812 / (n - 1))-th isomer of the enumeration. */
static isomers c60_set(long n)
{
    ff_spiral *all = NULL;
    const long total = ff_enumerate(60, &all, 0);
    assert_int_equal(total, 1812);
    ff_spiral *s = malloc(sizeof(ff_spiral) * (size_t)n);
    assert_non_null(s);
    s[0] = C60_IH;
    for (long i = 1; i < n; i++) s[i] = all[(i - 1) * total / (n - 1)];
    isomers I = from_spirals(60, s, n);
    free(s);
    free(all);
    return I;
}

static isomers sampled(int N, long n, uint64_t seed)
{
    ff_spiral *s = NULL;
    const long got = ff_sample(N, n, seed, &s);
    assert_int_equal(got, n);
    isomers I = from_spirals(N, s, n);
    free(s);
    return I;
}

static void free_isomers(isomers *I) { free(I->dual), I->dual = NULL; }

static ff_batch make_batch(const isomers *I, double gtol)
{
    ff_batch b;
    memset(&b, 0, sizeof b);
    b.N = I->N, b.F = I->F, b.M = I->n, b.dual = I->dual;
    b.opts.gtol = gtol;
    b.opts.maxit = 0; /* the default, FF_MAXIT_PER_ATOM * N */
    b.graph = malloc(sizeof(ff_atom) * (size_t)I->n * I->N);
    b.X = malloc(sizeof(double) * 3 * (size_t)I->n * I->N);
    b.res = malloc(sizeof(ff_result) * (size_t)I->n);
    assert_true(b.graph && b.X && b.res);
    return b;
}
static void free_batch(ff_batch *b) { free(b->graph), free(b->X), free(b->res); }

static void gpu_run(ff_batch *b)
{
    assert_int_equal(CUDA_OPS->prepare(b), SB_OK);
    assert_int_equal(CUDA_OPS->run(b), SB_OK);
    assert_int_equal(CUDA_OPS->download(b), SB_OK);
}

/* ---- the start geometry: graph, Tutte, projection (gtol huge: converged at the start,
 * so X is the projected start and the energy is E(start)) ---- */

static void check_start(const isomers *I)
{
    const int N = I->N;
    ff_batch b = make_batch(I, 1e300);
    gpu_run(&b);
    double *xy = malloc(sizeof(double) * 2 * N * (size_t)I->n);
    assert_non_null(xy);
    assert_int_equal(ff_cuda_tutte_xy(&b, xy), SB_OK);
    CUDA_OPS->release(&b);

    ff_atom g[FF_MAX_N];
    double rxy[2 * FF_MAX_N], X[3 * FF_MAX_N], grad[3 * FF_MAX_N];
    double dxy = 0, dX = 0, dE = 0;
    long bitwise = 0, sweeps = 0;
    for (long m = 0; m < I->n; m++) {
        assert_int_equal(ff_dualise(N, I->dual + (size_t)m * I->F * 6, g), 0);
        assert_memory_equal(g, b.graph + (size_t)m * N, sizeof(ff_atom) * N);
        const int sw = ff_tutte(N, g, rxy);
        const ff_result *r = &b.res[m];
        assert_int_equal(r->tutte_sweeps, sw);
        sweeps += sw;
        const double *gxy = xy + (size_t)m * 2 * N;
        bitwise += memcmp(gxy, rxy, sizeof(double) * 2 * N) == 0;
        for (int i = 0; i < 2 * N; i++) dxy = fmax(dxy, fabs(gxy[i] - rxy[i]));
        ff_project(N, g, rxy, X);
        const double *gX = b.X + (size_t)m * 3 * N, scale = max_abs(X, 3 * (size_t)N);
        for (int i = 0; i < 3 * N; i++) dX = fmax(dX, fabs(gX[i] - X[i]) / scale);
        const double e = ff_energy_gradient(N, g, X, grad);
        dE = fmax(dE, fabs(r->energy - e) / fabs(e));
        assert_true(r->converged && r->iters == 0 && r->evals == 1);
    }
    print_message("C%d x %ld start: graphs equal; Tutte %ld/%ld bitwise, max |dxy| %.1e, mean %.0f sweeps (equal); "
                  "projection max |dX|/|X| %.1e; E(start) rel diff %.1e\n",
                  N, I->n, bitwise, I->n, dxy, (double)sweeps / I->n, dX, dE);
    assert_true(dxy <= 1e-12);
    assert_true(dX <= 1e-12);
    assert_true(dE <= 1e-9);
    free(xy);
    free_batch(&b);
}

static void test_start_c60_all(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    ff_spiral *all = NULL;
    const long n = ff_enumerate(60, &all, 0);
    isomers I = from_spirals(60, all, n);
    free(all);
    check_start(&I);
    free_isomers(&I);
}

static void test_start_sampled(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const int sizes[] = {20, 100, 200, 400};
    for (int i = 0; i < 4; i++) {
        isomers I = sizes[i] == 20 ? from_spirals(20, &(ff_spiral){{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, 1)
                                   : sampled(sizes[i], 16, 7u + (uint64_t)i);
        check_start(&I);
        free_isomers(&I);
    }
}

/* ---- optimisation against ff_optimise ---- */

typedef struct {
    double dE, it_ratio_lo, it_ratio_hi, it_ratio_mean;
    long conv, flag_mismatch;
} opt_stats;

static opt_stats check_optimised(const isomers *I, ff_batch *b)
{
    const int N = I->N;
    ff_atom g[FF_MAX_N];
    double xy[2 * FF_MAX_N], X[3 * FF_MAX_N];
    const ff_opts o = {FF_GTOL_DEFAULT, (long)FF_MAXIT_PER_ATOM * N};
    opt_stats st = {0, 1e9, 0, 0, 0, 0};
    for (long m = 0; m < I->n; m++) {
        assert_int_equal(ff_dualise(N, I->dual + (size_t)m * I->F * 6, g), 0);
        ff_tutte(N, g, xy);
        ff_project(N, g, xy, X);
        ff_result r;
        ff_optimise(N, g, X, &o, &r);
        const ff_result *q = &b->res[m];
        const double ratio = (q->iters + 1.0) / (r.iters + 1.0);
        st.it_ratio_lo = fmin(st.it_ratio_lo, ratio), st.it_ratio_hi = fmax(st.it_ratio_hi, ratio);
        st.it_ratio_mean += ratio / (double)I->n;
        if (q->converged != r.converged) {
            /* only where one side just made it before maxit and the other did not */
            print_message("  C%d isomer %ld: converged gpu %d after %d iterations, ref %d after %d (maxit %ld)\n", N, m,
                          q->converged, q->iters, r.converged, r.iters, o.maxit);
            const ff_result *c = q->converged ? q : &r, *u = q->converged ? &r : q;
            assert_true(u->iters == o.maxit && c->iters > o.maxit / 2);
            st.flag_mismatch++;
            continue;
        }
        if (q->converged) assert_true(q->grms <= FF_GTOL_DEFAULT);
        /* an isomer that does not converge within maxit has no minimum to agree on: after
         * thousands of iterations the two CG paths are apart */
        const double de = fabs(q->energy - r.energy) / fmax(fabs(r.energy), 1.0);
        if (de > 1e-6 || !r.converged)
            print_message("  C%d isomer %ld%s: E gpu %.15g ref %.15g (rel %.1e), iterations %d / %d\n", N, m,
                          r.converged ? "" : " (not converged)", q->energy, r.energy, de, q->iters, r.iters);
        if (r.converged) st.dE = fmax(st.dE, de);
        st.conv += q->converged;
    }
    print_message("C%d x %ld optimised: %ld converged (%ld flags differ at maxit), converged energies within %.1e rel; "
                  "iterations gpu/ref: mean %.3f, range %.3f..%.3f\n",
                  N, I->n, st.conv, st.flag_mismatch, st.dE, st.it_ratio_mean, st.it_ratio_lo, st.it_ratio_hi);
    assert_true(st.flag_mismatch <= I->n / 8);
    assert_true(st.dE <= 1e-6);
    /* the same algorithm: on average the same count, per isomer within a factor of 2 */
    assert_true(st.it_ratio_mean > 0.85 && st.it_ratio_mean < 1.15);
    assert_true(st.it_ratio_lo >= 0.5 && st.it_ratio_hi <= 2.0);
    return st;
}

static double dist(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* C60-Ih: pentagon-hexagon bonds 1.458 A, hexagon-hexagon 1.401 A (5e-3), none between
 * pentagons, all atoms at one distance from the centroid (1e-6 relative), E ~ 0. */
static void check_c60_ih(const ff_atom *g, const double *X, const ff_result *r)
{
    double c[3] = {0, 0, 0}, lo[3] = {9, 9, 9}, hi[3] = {0, 0, 0}, rmin = 1e9, rmax = 0;
    for (int t = 0; t < 60; t++)
        for (int k = 0; k < 3; k++) c[k] += X[3 * t + k] / 60;
    for (int t = 0; t < 60; t++) {
        const double rad = dist(&X[3 * t], c);
        rmin = fmin(rmin, rad), rmax = fmax(rmax, rad);
        for (int j = 0; j < 3; j++) {
            const int ty = g[t].ftype[j] + g[t].ftype[(j + 2) % 3];
            const double bl = dist(&X[3 * t], &X[3 * g[t].nbr[j]]);
            lo[ty] = fmin(lo[ty], bl), hi[ty] = fmax(hi[ty], bl);
        }
    }
    print_message("C60-Ih on the GPU: E = %.2e FFU, %d iterations; bonds ph %.6f..%.6f A, hh %.6f..%.6f A; radius "
                  "%.6f A, spread %.1e\n",
                  r->energy, r->iters, lo[1], hi[1], lo[2], hi[2], rmax, (rmax - rmin) / rmax);
    assert_true(r->converged && r->energy >= 0 && r->energy < 1e-8);
    assert_true(lo[0] > 8); /* no pentagon-pentagon bond */
    assert_true(fabs(lo[1] - 1.458) <= 5e-3 && fabs(hi[1] - 1.458) <= 5e-3);
    assert_true(fabs(lo[2] - 1.401) <= 5e-3 && fabs(hi[2] - 1.401) <= 5e-3);
    assert_true((rmax - rmin) / rmax <= 1e-6);
}

static void test_optimise_c60(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    isomers I = c60_set(64);
    ff_batch b = make_batch(&I, 0); /* gtol 0: the default */
    gpu_run(&b);
    const ff_stage_times t = b.t;
    CUDA_OPS->release(&b);
    print_message("C60 x 64 stage times: dualise %.3f ms, tutte %.3f ms, project %.3f ms, optimise %.3f ms\n",
                  1e3 * t.dualise, 1e3 * t.tutte, 1e3 * t.project, 1e3 * t.optimise);
    assert_true(t.dualise > 0 && t.tutte > 0 && t.project > 0 && t.optimise > 0);
    const opt_stats st = check_optimised(&I, &b);
    assert_int_equal(st.conv, 64);
    check_c60_ih(b.graph, b.X, &b.res[0]);
    free_batch(&b);
    free_isomers(&I);
}

static void test_optimise_sampled(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const int sizes[] = {100, 200, 400};
    const long counts[] = {12, 8, 4};
    for (int i = 0; i < 3; i++) {
        isomers I = sampled(sizes[i], counts[i], 11u + (uint64_t)i);
        ff_batch b = make_batch(&I, 0);
        gpu_run(&b);
        CUDA_OPS->release(&b);
        check_optimised(&I, &b);
        free_batch(&b);
        free_isomers(&I);
    }
}

/* ---- the isomer queue: many more isomers than resident blocks; ranges of one batch ---- */

static void test_queue(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    enum { K = 16, COPIES = 200 };
    isomers base = c60_set(K);
    isomers I = {60, base.F, (long)K * COPIES, malloc(sizeof(uint16_t) * 6 * base.F * (size_t)K * COPIES)};
    assert_non_null(I.dual);
    for (long m = 0; m < I.n; m++)
        memcpy(I.dual + (size_t)m * I.F * 6, base.dual + (size_t)(m % K) * I.F * 6, sizeof(uint16_t) * 6 * I.F);
    ff_batch b = make_batch(&I, 0);
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    sb_launch l[SB_MAX_LAUNCH];
    const int nl = CUDA_OPS->launches(&b, l, SB_MAX_LAUNCH);
    assert_int_equal(nl, 4);
    print_message("queue: %ld isomers on %d resident blocks\n", I.n, l[3].grid);
    assert_true(l[3].grid < I.n);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    ff_atom *g1 = malloc(sizeof(ff_atom) * 60 * (size_t)I.n);
    double *X1 = malloc(sizeof(double) * 180 * (size_t)I.n);
    ff_result *r1 = malloc(sizeof(ff_result) * (size_t)I.n);
    assert_true(g1 && X1 && r1);
    memcpy(g1, b.graph, sizeof(ff_atom) * 60 * (size_t)I.n);
    memcpy(X1, b.X, sizeof(double) * 180 * (size_t)I.n);
    memcpy(r1, b.res, sizeof(ff_result) * (size_t)I.n);
    /* a second run must start the queue from 0 again */
    memset(b.res, 0, sizeof(ff_result) * (size_t)I.n);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    assert_memory_equal(r1, b.res, sizeof(ff_result) * (size_t)I.n);
    assert_memory_equal(X1, b.X, sizeof(double) * 180 * (size_t)I.n);
    /* the same batch as uneven ranges, two in flight (the MPI queue's way): the same rows */
    memset(b.res, 0, sizeof(ff_result) * (size_t)I.n);
    memset(b.X, 0, sizeof(double) * 180 * (size_t)I.n);
    long start[2] = {-1, -1};
    const long chunk = 701;
    for (long s = 0, k = 0; s < I.n; s += chunk, k ^= 1) {
        if (start[k] >= 0) assert_int_equal(CUDA_OPS->range_wait(&b, (int)k), SB_OK);
        assert_int_equal(CUDA_OPS->range_launch(&b, (int)k, s, I.n - s < chunk ? I.n - s : chunk), SB_OK);
        start[k] = s;
    }
    for (int k = 0; k < 2; k++)
        if (start[k] >= 0) assert_int_equal(CUDA_OPS->range_wait(&b, k), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    assert_memory_equal(r1, b.res, sizeof(ff_result) * (size_t)I.n);
    assert_memory_equal(X1, b.X, sizeof(double) * 180 * (size_t)I.n);
    assert_int_equal(CUDA_OPS->range_launch(&b, 2, 0, 1), SB_EXIT_RUNTIME);
    assert_int_equal(CUDA_OPS->range_launch(&b, 0, I.n - 1, 2), SB_EXIT_RUNTIME);
    CUDA_OPS->release(&b);
    for (long m = K; m < I.n; m++) {
        assert_memory_equal(&r1[m], &r1[m % K], sizeof(ff_result));
        assert_memory_equal(X1 + (size_t)m * 180, X1 + (size_t)(m % K) * 180, sizeof(double) * 180);
        assert_memory_equal(g1 + (size_t)m * 60, g1 + (size_t)(m % K) * 60, sizeof(ff_atom) * 60);
    }
    isomers first = {60, base.F, K, base.dual};
    ff_batch head = b;
    head.M = K;
    check_optimised(&first, &head);
    free(g1), free(X1), free(r1);
    free_batch(&b);
    free_isomers(&I);
    free_isomers(&base);
}

/* ---- launch report and bad input ---- */

static void test_launches(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const int sizes[] = {20, 60, 200, 400};
    for (int i = 0; i < 4; i++) {
        isomers I = sizes[i] == 20 ? from_spirals(20, &(ff_spiral){{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, 1)
                    : sizes[i] == 60 ? c60_set(2)
                                     : sampled(sizes[i], 2, 3);
        ff_batch b = make_batch(&I, 0);
        assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
        sb_launch l[SB_MAX_LAUNCH];
        const int n = CUDA_OPS->launches(&b, l, SB_MAX_LAUNCH);
        assert_int_equal(n, 4);
        for (int k = 0; k < n; k++) {
            print_message("  N=%-3d %-40s block %3d grid %5d regs %3d smem %6d B  %d blocks/SM, occupancy %.3f\n",
                          sizes[i], l[k].name, l[k].block, l[k].grid, l[k].regs, l[k].smem_static + l[k].smem_dynamic,
                          l[k].blocks_per_sm, l[k].occupancy);
            assert_true(l[k].regs > 0 && l[k].blocks_per_sm >= 1 && l[k].occupancy > 0);
            assert_int_equal(l[k].block, (sizes[i] + 31) / 32 * 32);
        }
        assert_int_equal(CUDA_OPS->launches(&b, l, 2), 2);
        CUDA_OPS->release(&b);
        free_batch(&b);
        free_isomers(&I);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    isomers I = c60_set(4);
    ff_batch b = make_batch(&I, 0);
    /* sizes and counts out of range: refused before anything is launched */
    const int badN[] = {18, 61, 402};
    for (int i = 0; i < 3; i++) {
        b.N = badN[i], b.F = ff_faces(badN[i]);
        assert_int_equal(CUDA_OPS->prepare(&b), SB_EXIT_USAGE);
        CUDA_OPS->release(&b);
    }
    b.N = 60, b.F = 32, b.M = 0;
    assert_int_equal(CUDA_OPS->prepare(&b), SB_EXIT_USAGE);
    CUDA_OPS->release(&b);
    b.M = 4, b.F = 31;
    assert_int_equal(CUDA_OPS->prepare(&b), SB_EXIT_USAGE);
    CUDA_OPS->release(&b);
    b.F = 32;
    /* a dual graph that is not a triangulation (two neighbours of a vertex swapped, and
     * a neighbour out of range): run completes, download reports it */
    uint16_t *d = I.dual + 1 * 32 * 6;
    const uint16_t t = d[6 * 3 + 1];
    d[6 * 3 + 1] = d[6 * 3 + 2], d[6 * 3 + 2] = t;
    I.dual[3 * 32 * 6 + 6 * 5] = 999;
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_EXIT_RUNTIME);
    CUDA_OPS->release(&b);
    /* the good isomers of that batch are still right */
    ff_atom g[60];
    assert_int_equal(ff_dualise(60, I.dual, g), 0);
    assert_memory_equal(g, b.graph, sizeof g);
    assert_int_equal(ff_dualise(60, I.dual + 2 * 32 * 6, g), 0);
    assert_memory_equal(g, b.graph + 2 * 60, sizeof g);
    assert_true(b.res[0].converged && b.res[2].converged);
    free_batch(&b);
    free_isomers(&I);
}

/* ---- benchmark (SB_FF_BENCH=1) ---- */

static void test_bench(void **state)
{
    (void)state;
    const char *on = getenv("SB_FF_BENCH");
    if (!on || !*on || strcmp(on, "0") == 0) skip();
    REQUIRE_GPU(NULL);
    const int N = getenv("SB_FF_N") ? atoi(getenv("SB_FF_N")) : 200;
    const long M = getenv("SB_FF_M") ? atol(getenv("SB_FF_M")) : 10000;
    isomers I = sampled(N, M, 2024);
    ff_batch b = make_batch(&I, 0);
    if (getenv("SB_FF_MAXIT")) b.opts.maxit = atol(getenv("SB_FF_MAXIT")); /* e.g. to time without the stuck isomers */
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    sb_launch l[SB_MAX_LAUNCH];
    assert_int_equal(CUDA_OPS->launches(&b, l, SB_MAX_LAUNCH), 4);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK); /* warm-up */
    double best = 1e30;
    ff_stage_times bt = b.t;
    for (int rep = 0; rep < 3; rep++) {
        assert_int_equal(CUDA_OPS->run(&b), SB_OK);
        const double s = b.t.dualise + b.t.tutte + b.t.project + b.t.optimise;
        if (s < best) best = s, bt = b.t;
    }
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    CUDA_OPS->release(&b);
    double it = 0, ev = 0, sw = 0, ev_unconv = 0;
    long conv = 0, ev_max = 0, sw_max = 0;
    for (long m = 0; m < M; m++) {
        const ff_result *r = &b.res[m];
        it += r->iters, ev += r->evals, sw += r->tutte_sweeps, conv += r->converged;
        ev_max = r->evals > ev_max ? r->evals : ev_max;
        sw_max = r->tutte_sweeps > sw_max ? r->tutte_sweeps : sw_max;
        if (!r->converged) ev_unconv += r->evals;
    }
    const char *dump = getenv("SB_FF_DUMP"); /* per-isomer results, for looking at the tail */
    if (dump && *dump) {
        FILE *f = fopen(dump, "w");
        assert_non_null(f);
        fprintf(f, "# isomer iters evals converged tutte_sweeps energy grms\n");
        for (long m = 0; m < M; m++)
            fprintf(f, "%ld %d %d %d %d %.17g %.3e\n", m, b.res[m].iters, b.res[m].evals, b.res[m].converged,
                    b.res[m].tutte_sweeps, b.res[m].energy, b.res[m].grms);
        fclose(f);
    }
    /* the slowest isomer runs alone on one block: the batch takes at least its evaluations
     * times one block's evaluation latency */
    print_message("bench C%d x %ld: %.2f ms = %.3e isomers/s (dualise %.3f, tutte %.3f, project %.3f, optimise %.3f ms); "
                  "%ld converged, mean %.1f iterations, %.1f evaluations (max %ld; %.1f %% of all in unconverged "
                  "isomers), Tutte sweeps mean %.0f max %ld; %.3e atom evaluations/s; optimiser %d regs, %d blocks/SM, "
                  "grid %d\n",
                  N, M, 1e3 * best, M / best, 1e3 * bt.dualise, 1e3 * bt.tutte, 1e3 * bt.project, 1e3 * bt.optimise,
                  conv, it / M, ev / M, ev_max, 100.0 * ev_unconv / ev, sw / M, sw_max, ev * N / bt.optimise,
                  l[3].regs, l[3].blocks_per_sm, l[3].grid);
    free_batch(&b);
    free_isomers(&I);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launches),      cmocka_unit_test(test_start_c60_all),
        cmocka_unit_test(test_start_sampled), cmocka_unit_test(test_optimise_c60),
        cmocka_unit_test(test_optimise_sampled), cmocka_unit_test(test_queue),
        cmocka_unit_test(test_bad_input),     cmocka_unit_test(test_bench),
    };
    const char *only = getenv("SB_FF_TEST"); /* e.g. SB_FF_TEST=test_queue */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests_name("gpu_fullerene_ff", tests, NULL, NULL);
}
