/* eri_brush OpenMP-SIMD backend against the scalar reference backend (independent code:
 * generic Obara-Saika loops, not the generated class functions): the digested M and the
 * stored integral blocks, for a pure and a Cartesian basis; and that M is bit-for-bit
 * reproducible at a fixed thread count, with or without per-segment timing, and agrees
 * across thread counts to rounding; with pair families and without. Needs the shipped water.xyz and cc-pvdz.g94; skips
 * with a message when they are absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/boys.h"
#include "eri_brush/eri.h"
#include "eri_brush/ericase.h"
#include "sb.h"
#include "test_util.h"

typedef struct {
    eri_molecule mol;
    eri_basis bas;
    eri_pairs ps;
    eri_worklist w;
    double *D;
} tcase;

/* cluster = 0: the shipped water molecule; n > 0: eri_water_cluster(n). */
static int tcase_make(tcase *c, int cluster, int pure, const char *basis, double prim_eps)
{
    char path[512];
    memset(c, 0, sizeof *c);
    int rc = cluster ? eri_water_cluster(cluster, 7, &c->mol)
                     : (eri_data_path("molecules/water.xyz", path, sizeof path) ||
                        eri_read_xyz(path, &c->mol));
    if (rc) return -1;
    char rel[64];
    snprintf(rel, sizeof rel, "basis/%s.g94", basis);
    if (eri_data_path(rel, path, sizeof path)) return -1;
    if (eri_basis_build(path, &c->mol, pure, &c->bas)) return -1;
    if (eri_pairs_build(&c->bas, prim_eps, &c->ps)) return -1;
    if (eri_worklist_build(&c->bas, &c->ps, 1e-12, &c->w)) return -1;
    const int n = c->bas.nbf;
    c->D = malloc(sizeof(double) * (size_t)n * n);
    if (!c->D) return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) c->D[i * n + j] = eri_density_elem(3, i, j);
    return 0;
}

static void tcase_free(tcase *c)
{
    eri_worklist_free(&c->w);
    eri_pairs_free(&c->ps);
    eri_basis_free(&c->bas);
    eri_molecule_free(&c->mol);
    free(c->D);
}

/* One prepare/run/download on `threads` threads; returns M (digest) or the store array.
 * ssss: where not NULL, the backend's own flops of class (ss|ss) (eri_ops.class_flops). */
static double *run_ops_flops(const eri_ops *ops, const tcase *c, int mode, int threads, int timed, double *ssss)
{
    const size_t nm = (size_t)c->bas.nbf * c->bas.nbf;
    const size_t n = mode == ERI_MODE_DIGEST ? nm : (size_t)c->w.store_off[c->w.nq];
    double *out = malloc(sizeof(double) * (n ? n : 1));
    double *seg = timed ? calloc((size_t)c->w.nseg, sizeof(double)) : NULL;
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) out[i] = NAN; /* every element must be written */
    eri_batch b;
    memset(&b, 0, sizeof b);
    b.bas = &c->bas, b.ps = &c->ps, b.w = &c->w, b.boys = eri_boys_table();
    b.mode = mode, b.D = c->D, b.seg_seconds = seg;
    if (mode == ERI_MODE_DIGEST) b.M = out;
    else b.store = out;
    omp_set_num_threads(threads);
    assert_int_equal(ops->prepare(&b), SB_OK);
    assert_int_equal(ops->run(&b), SB_OK);
    assert_int_equal(ops->download(&b), SB_OK);
    if (ops == &eri_ops_openmp_simd) assert_int_equal(b.threads, threads);
    if (ssss) *ssss = ops->class_flops ? ops->class_flops(&b, 0) : -1;
    ops->release(&b);
    if (seg) {
        for (int k = 0; k < c->w.nseg; k++) assert_true(seg[k] >= 0.0);
        free(seg);
    }
    return out;
}

static double *run_ops(const eri_ops *ops, const tcase *c, int mode, int threads, int timed)
{
    return run_ops_flops(ops, c, mode, threads, timed, NULL);
}

static int load_eps(void **state, int cluster, int pure, const char *basis, double prim_eps)
{
    tcase *c = malloc(sizeof *c);
    if (!c || tcase_make(c, cluster, pure, basis, prim_eps)) {
        print_message("skipped: water.xyz / %s.g94 not found or not readable\n", basis);
        if (c) tcase_free(c);
        free(c);
        *state = NULL;
        return 0;
    }
    *state = c;
    return 0;
}
static int load(void **state, int cluster, int pure, const char *basis)
{
    return load_eps(state, cluster, pure, basis, ERI_PRIM_SCREEN_DEFAULT);
}
/* primitive screening far coarser than the default, so that its bound is what is tested */
#define COARSE_PRIM_EPS 1e-9
static int setup_water3_coarse(void **state) { return load_eps(state, 3, 1, "cc-pvdz", COARSE_PRIM_EPS); }
static int setup_water_pure(void **state) { return load(state, 0, 1, "cc-pvdz"); }
static int setup_water2_cart(void **state) { return load(state, 2, 0, "cc-pvdz"); }
/* f shells on O: every class with an f shell has no generated code and runs the J engine */
static int setup_water_tz(void **state) { return load(state, 0, 1, "cc-pvtz"); }
static int teardown(void **state)
{
    if (*state) tcase_free(*state);
    free(*state);
    return 0;
}

static void test_digest_matches_reference(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_DIGEST, 1, 0);
    double *omp = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 2, 0);
    const double scale = max_abs(ref, n), d = max_diff(ref, omp, n);
    print_message("digest: %ld quartets, %d segments, max|M| %.6g, max|dM| %.3g\n", c->w.nq, c->w.nseg,
                  scale, d);
    assert_true(scale > 0.1);
    assert_true(d <= 1e-11 * scale);
    free(ref), free(omp);
}

static void test_store_matches_reference(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    const size_t n = (size_t)c->w.store_off[c->w.nq];
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_STORE, 1, 0);
    double *omp = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_STORE, 3, 0);
    const double d = max_diff(ref, omp, n);
    print_message("store: %zu integrals, max|I| %.6g, max|dI| %.3g\n", n, max_abs(ref, n), d);
    assert_true(max_abs(ref, n) > 0.1);
    assert_true(d <= 1e-12);
    free(ref), free(omp);
}

static void test_digest_reproducible(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    double *a = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 3, 0);
    double *b = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 3, 1); /* per-segment timing */
    double *one = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 1, 0);
    /* same thread count: the same chunk -> thread map, so the same additions in order */
    assert_memory_equal(a, b, n * sizeof(double));
    /* other thread count: other partial sums, equal to rounding */
    const double d = max_diff(a, one, n), scale = max_abs(one, n);
    print_message("1 vs 3 threads: max|dM| %.3g (%s)\n", d, d == 0 ? "bitwise" : "rounding");
    assert_true(d <= 1e-13 * scale);
    free(a), free(b), free(one);
}

/* The J engine (path=jeng) forms no integrals: its M against the reference's, and, as for
 * the other paths, bit-for-bit equal at a fixed thread count. */
static double *run_jeng(const tcase *c, int threads, int timed)
{
    tcase j = *c; /* shares everything but the segments */
    j.w.seg = malloc(sizeof(eri_segment) * (size_t)c->w.nseg);
    assert_non_null(j.w.seg);
    for (int k = 0; k < c->w.nseg; k++) j.w.seg[k] = c->w.seg[k], j.w.seg[k].path = ERI_PATH_JENG;
    double *M = run_ops(&eri_ops_openmp_simd, &j, ERI_MODE_DIGEST, threads, timed);
    free(j.w.seg);
    return M;
}

static void test_jeng_matches_reference(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_DIGEST, 1, 0);
    double *a = run_jeng(c, 3, 0), *b = run_jeng(c, 3, 1), *one = run_jeng(c, 1, 0);
    const double scale = max_abs(ref, n), d = max_diff(ref, a, n), d1 = max_diff(a, one, n);
    print_message("jeng digest: max|M| %.6g, max|dM| vs reference %.3g (%.1e rel), 1 vs 3 threads %.3g\n", scale, d,
                  d / scale, d1);
    assert_true(scale > 0.1);
    assert_true(d <= 1e-11 * scale);
    assert_memory_equal(a, b, n * sizeof(double));
    assert_true(d1 <= 1e-13 * scale);
    free(ref), free(a), free(b), free(one);
}

/* cc-pVTZ: the worklist as setup builds it in digest mode (path=auto: HGP/MD below L = 6,
 * the J engine above and for every class with an f shell) against the reference. */
static void test_f_digest_matches_reference(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    assert_int_equal(c->bas.lmax, 3);
    tcase j = *c;
    j.w.seg = malloc(sizeof(eri_segment) * (size_t)c->w.nseg);
    assert_non_null(j.w.seg);
    int nf = 0;
    for (int k = 0; k < c->w.nseg; k++) {
        j.w.seg[k] = c->w.seg[k];
        if (eri_path_digest_jeng(j.w.seg[k].cls, ERI_JENG_LMIN)) j.w.seg[k].path = ERI_PATH_JENG;
        if (!eri_class_has_code(j.w.seg[k].cls)) {
            nf++;
            assert_int_equal(j.w.seg[k].path, ERI_PATH_JENG);
        }
    }
    assert_true(nf > 0);
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_DIGEST, 1, 0);
    double *omp = run_ops(&eri_ops_openmp_simd, &j, ERI_MODE_DIGEST, 2, 0);
    const double scale = max_abs(ref, n), d = max_diff(ref, omp, n);
    print_message("f digest: %d of %d segments without generated code, max|M| %.6g, max|dM| %.3g (%.1e rel)\n", nf,
                  c->w.nseg, scale, d, d / scale);
    assert_true(scale > 0.1);
    assert_true(d <= 1e-11 * scale);
    free(ref), free(omp), free(j.w.seg);
}

/* Store mode has no code for the f classes: an error, not a crash or a silent gap. */
static void test_f_store_refused(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    int nf = 0;
    for (int k = 0; k < c->w.nseg; k++) nf += !eri_class_has_code(c->w.seg[k].cls);
    assert_true(nf > 0);
    double *st = malloc(sizeof(double) * (size_t)c->w.store_off[c->w.nq]);
    assert_non_null(st);
    eri_batch b;
    memset(&b, 0, sizeof b);
    b.bas = &c->bas, b.ps = &c->ps, b.w = &c->w, b.boys = eri_boys_table();
    b.mode = ERI_MODE_STORE, b.store = st;
    assert_int_equal(eri_ops_openmp_simd.prepare(&b), SB_OK);
    assert_int_not_equal(eri_ops_openmp_simd.run(&b), SB_OK);
    eri_ops_openmp_simd.release(&b);
    free(st);
}

/* Pair families (families.c): the classes whose pairs share primitives (cc-pVDZ: oxygen's
 * 1s and 2s) run their family quartets, all members in one primitive loop (omp_run_fam).
 * With them (the default) and without (SB_ERI_FAMILY=0) M agrees with the reference's, at
 * the worklist's screen and at a coarse one (the member quartets of a family quartet then
 * fall on both sides of it); (ss|ss) reports its own flops only when its families ran, and
 * fewer than one pair at a time; the same with families for every class with family code
 * (SB_ERI_FAM_MAXNT=64); store mode runs no families; a bad SB_ERI_FAMILY or
 * SB_ERI_FAM_MAXNT stops prepare. */
static void check_families_at(const tcase *c, const char *what)
{
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_DIGEST, 1, 0);
    double fon = 0, foff = 0;
    double *on = run_ops_flops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 2, 0, &fon);
    setenv("SB_ERI_FAMILY", "0", 1);
    double *off = run_ops_flops(&eri_ops_openmp_simd, c, ERI_MODE_DIGEST, 2, 0, &foff);
    unsetenv("SB_ERI_FAMILY");
    double ordinary = 0;
    for (int k = 0; k < c->w.nseg; k++)
        if (c->w.seg[k].cls == 0)
            ordinary += (double)(c->w.seg[k].q1 - c->w.seg[k].q0) *
                        eri_quartet_flops(0, c->w.seg[k].path, c->w.seg[k].nb, c->w.seg[k].nk, 1);
    const double scale = max_abs(ref, n), d = max_diff(ref, on, n), d0 = max_diff(ref, off, n);
    print_message("%s: %ld quartets; max|M| %.6g, max|dM| families %.3g, one pair at a time %.3g; (ss|ss) model "
                  "%.4g flops with families, %.4g without\n",
                  what, c->w.nq, scale, d, d0, fon, ordinary);
    assert_true(scale > 0.1);
    assert_true(d <= 1e-11 * scale);
    assert_true(d0 <= 1e-11 * scale);
    assert_true(fon > 0 && fon < ordinary); /* the families ran and shared primitive work */
    assert_true(foff < 0);
    free(ref), free(on), free(off);
}

static void test_families(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    check_families_at(c, "families, screen 1e-12");
    tcase j = *c; /* shares everything but the worklist */
    assert_int_equal(eri_worklist_build(&c->bas, &c->ps, 1e-7, &j.w), SB_OK);
    check_families_at(&j, "families, screen 1e-7");
    eri_worklist_free(&j.w);
    setenv("SB_ERI_FAM_MAXNT", "64", 1); /* every class with family code, not only the default's */
    check_families_at(c, "families of every class, screen 1e-12");
    unsetenv("SB_ERI_FAM_MAXNT");
    double fst = 0;
    double *st = run_ops_flops(&eri_ops_openmp_simd, c, ERI_MODE_STORE, 2, 0, &fst);
    assert_true(fst < 0);
    free(st);
    setenv("SB_ERI_FAMILY", "yes", 1);
    eri_batch b;
    memset(&b, 0, sizeof b);
    b.bas = &c->bas, b.ps = &c->ps, b.w = &c->w, b.boys = eri_boys_table();
    b.mode = ERI_MODE_DIGEST, b.D = c->D;
    double *M = malloc(sizeof(double) * (size_t)c->bas.nbf * c->bas.nbf);
    b.M = M;
    assert_int_equal(eri_ops_openmp_simd.prepare(&b), SB_EXIT_USAGE);
    eri_ops_openmp_simd.release(&b);
    unsetenv("SB_ERI_FAMILY");
    setenv("SB_ERI_FAM_MAXNT", "65", 1);
    assert_int_equal(eri_ops_openmp_simd.prepare(&b), SB_EXIT_USAGE);
    eri_ops_openmp_simd.release(&b);
    unsetenv("SB_ERI_FAM_MAXNT");
    free(M);
}

/* Primitive screening (pairs.c): each integral within the bound 2 eps of the unscreened
 * reference's (which starts from the shells, not from the pairs), with primitive pairs
 * actually dropped, the kept ones a prefix of each pair's list. */
static void test_prim_screen_bound(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    static const int bucket[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
    long dropped = 0;
    for (long i = 0; i < c->ps.npair; i++) {
        const eri_pair *p = &c->ps.pair[i];
        assert_true(p->npp >= 1 && p->npp <= p->npp_full);
        assert_int_equal(p->npp_full, c->bas.sh[p->a].nprim * c->bas.sh[p->b].nprim);
        int in = p->npp == p->npp_full;
        for (size_t k = 0; k < sizeof bucket / sizeof *bucket; k++) in |= p->npp == bucket[k];
        assert_true(in);
        dropped += p->npp_full - p->npp;
    }
    assert_true(c->w.nprimq < 0.8 * c->w.nprimq_full);
    const size_t n = (size_t)c->w.store_off[c->w.nq];
    double *ref = run_ops(&eri_ops_reference, c, ERI_MODE_STORE, 1, 0);
    double *omp = run_ops(&eri_ops_openmp_simd, c, ERI_MODE_STORE, 2, 0);
    const double d = max_diff(ref, omp, n);
    print_message("prim_screen %g: %ld primitive pairs dropped, primitive quartets %.3g of %.3g, max|dI| %.3g "
                  "(bound %.1g)\n", COARSE_PRIM_EPS, dropped, c->w.nprimq, c->w.nprimq_full, d, 2 * COARSE_PRIM_EPS);
    assert_true(d <= 2 * COARSE_PRIM_EPS);
    assert_true(d > 1e-14); /* the dropped pairs did count: not exact to rounding */
    free(ref), free(omp);
}

/* Quartet screening (screen_bound.c): J at a coarse screen against J with nothing screened
 * (screen 0, prim_screen 0) moves by something, and by no more than eri_screen_bound. */
static void test_screen_bound(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    tcase full;
    if (tcase_make(&full, 3, 1, "cc-pvdz", 0.0)) {
        tcase_free(&full);
        skip();
    }
    tcase coarse = *c;
    eri_worklist w6, w0;
    assert_int_equal(eri_worklist_build(&c->bas, &c->ps, 1e-6, &w6), SB_OK);
    assert_int_equal(eri_worklist_build(&full.bas, &full.ps, 0.0, &w0), SB_OK);
    coarse.w = w6, full.w = w0;
    assert_true(w6.nq < w0.nq);
    double *J6 = run_ops(&eri_ops_openmp_simd, &coarse, ERI_MODE_DIGEST, 2, 0);
    double *J0 = run_ops(&eri_ops_openmp_simd, &full, ERI_MODE_DIGEST, 2, 0);
    eri_coulomb_finish(&c->bas, J6);
    eri_coulomb_finish(&full.bas, J0);
    const size_t n = (size_t)c->bas.nbf * c->bas.nbf;
    const double d = max_diff(J6, J0, n), bound = eri_screen_bound(&c->bas, &c->ps, 1e-6, COARSE_PRIM_EPS, c->D);
    print_message("screen 1e-6 (prim %g): %ld of %ld quartets, max|dJ| %.3g, bound %.3g\n", COARSE_PRIM_EPS, w6.nq,
                  w0.nq, d, bound);
    assert_true(d > 1e-9);
    assert_true(d <= bound);
    /* nothing screened: the bound is zero */
    assert_true(eri_screen_bound(&full.bas, &full.ps, 0.0, 0.0, full.D) == 0.0);
    free(J6), free(J0);
    eri_worklist_free(&w6);
    full.w = w0;
    tcase_free(&full);
}

/* The primitive-quartet screen's counts (pq_screen.c) against every primitive quartet tested
 * one by one, at three screens; and its term of eri_screen_bound: zero without a screen,
 * growing with it. */
static void test_pq_kept(void **state)
{
    const tcase *c = *state;
    if (!c) skip();
    eri_pairs ps = c->ps;
    double *kept = malloc(sizeof(double) * (size_t)c->w.nseg);
    assert_non_null(kept);
    static const double ts[] = {0.0, 1e-14, 1e-9};
    double prev = -1.0, base = eri_screen_bound(&c->bas, &ps, 1e-9, 0.0, c->D);
    for (size_t it = 0; it < sizeof ts / sizeof *ts; it++) {
        ps.pq_screen = ts[it];
        assert_int_equal(eri_pq_kept(&ps, &c->w, kept), SB_OK);
        double all = 0, mine = 0, brute = 0;
        for (int k = 0; k < c->w.nseg; k++) {
            const eri_segment *s = &c->w.seg[k];
            double n = 0;
            for (long i = s->q0; i < s->q1; i++) {
                const eri_pair *P = &ps.pair[c->w.q[i].P], *Q = &ps.pair[c->w.q[i].Q];
                for (int b = 0; b < s->nb; b++)
                    for (int j = 0; j < s->nk; j++) n += !(ps.q[P->pp0 + b] * ps.q[Q->pp0 + j] < ts[it]);
            }
            assert_true(kept[k] == n);
            mine += kept[k], brute += n, all += (double)(s->q1 - s->q0) * s->nb * s->nk;
        }
        const double bound = eri_screen_bound(&c->bas, &ps, 1e-9, 0.0, c->D);
        print_message("pq_screen %g: %.0f of %.0f primitive quartets kept, screen bound %.3g Eh\n", ts[it], mine,
                      all, bound);
        if (ts[it] == 0.0) assert_true(mine == all && bound == base);
        else assert_true(mine < prev && bound > base);
        prev = mine;
    }
    free(kept);
}

/* The primitive-quartet screen on the lanes (lanes.h, eri_pq_countv): at a coarse 1e-10, J
 * (finished) moves from the unscreened run's by something, and by no more than the screen's own
 * bound (eri_screen_bound with only it), with families and one pair at a time; store mode
 * ignores it (the same integrals bit for bit). */
static void test_pq_screen_lanes(void **state)
{
    const tcase *c0 = *state;
    if (!c0) skip();
    tcase c = *c0;
    const size_t n = (size_t)c.bas.nbf * c.bas.nbf;
    for (int fam = 0; fam < 2; fam++) {
        setenv("SB_ERI_FAMILY", fam ? "1" : "0", 1);
        c.ps.pq_screen = 0.0;
        double *J0 = run_ops(&eri_ops_openmp_simd, &c, ERI_MODE_DIGEST, 2, 0);
        c.ps.pq_screen = 1e-10;
        double *Jt = run_ops(&eri_ops_openmp_simd, &c, ERI_MODE_DIGEST, 2, 0);
        eri_coulomb_finish(&c.bas, J0);
        eri_coulomb_finish(&c.bas, Jt);
        const double d = max_diff(Jt, J0, n), bound = eri_screen_bound(&c.bas, &c.ps, 0.0, 0.0, c.D);
        print_message("lanes, %s: pq_screen 1e-10 moves J by %.3g (bound %.3g)\n",
                      fam ? "families" : "one pair at a time", d, bound);
        assert_true(d > 0.0 && d <= bound);
        free(J0), free(Jt);
    }
    unsetenv("SB_ERI_FAMILY");
    c.ps.pq_screen = 0.0;
    double *s0 = run_ops(&eri_ops_openmp_simd, &c, ERI_MODE_STORE, 2, 0);
    c.ps.pq_screen = 1e-10;
    double *st = run_ops(&eri_ops_openmp_simd, &c, ERI_MODE_STORE, 2, 0);
    assert_memory_equal(s0, st, sizeof(double) * (size_t)c.w.store_off[c.w.nq]);
    free(s0), free(st);
}

/* prim_screen = 0 keeps every primitive pair. */
static void test_prim_screen_off(void **state)
{
    (void)state;
    tcase c;
    if (tcase_make(&c, 3, 1, "cc-pvdz", 0.0)) {
        tcase_free(&c);
        skip();
    }
    for (long i = 0; i < c.ps.npair; i++) assert_int_equal(c.ps.pair[i].npp, c.ps.pair[i].npp_full);
    assert_true(c.w.nprimq == c.w.nprimq_full);
    tcase_free(&c);
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(test_digest_matches_reference),
        cmocka_unit_test(test_store_matches_reference),
        cmocka_unit_test(test_digest_reproducible),
        cmocka_unit_test(test_jeng_matches_reference),
        cmocka_unit_test(test_families),
    };
    const struct CMUnitTest cart[] = {
        cmocka_unit_test(test_digest_matches_reference),
        cmocka_unit_test(test_store_matches_reference),
        cmocka_unit_test(test_families),
        cmocka_unit_test(test_jeng_matches_reference),
    };
    const struct CMUnitTest tz[] = {
        cmocka_unit_test(test_f_digest_matches_reference),
        cmocka_unit_test(test_jeng_matches_reference),
        cmocka_unit_test(test_f_store_refused),
    };
    const struct CMUnitTest screen[] = {
        cmocka_unit_test(test_prim_screen_bound),
        cmocka_unit_test(test_prim_screen_off),
        cmocka_unit_test(test_screen_bound),
        cmocka_unit_test(test_pq_kept),
        cmocka_unit_test(test_pq_screen_lanes),
    };
    int fails = cmocka_run_group_tests_name("eri_openmp water cc-pvdz (pure)", pure, setup_water_pure, teardown);
    fails += cmocka_run_group_tests_name("eri_openmp 3 waters, coarse primitive screening", screen,
                                         setup_water3_coarse, teardown);
    fails += cmocka_run_group_tests_name("eri_openmp 2 waters cc-pvdz (Cartesian)", cart, setup_water2_cart, teardown);
    fails += cmocka_run_group_tests_name("eri_openmp water cc-pvtz (pure, f shells)", tz, setup_water_tz, teardown);
    return fails;
}
