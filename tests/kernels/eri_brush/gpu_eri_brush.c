/* eri_brush on the CUDA backend against the scalar reference backend, on water/cc-pvdz
 * (every unique shell quartet, no screening). Skips without a GPU.
 *
 *   digest  M (before eri_coulomb_finish): max |dM| <= 1e-11 max |M|, pure and Cartesian
 *           d shells; run twice before the download, so M must be zeroed by each run;
 *           pure again with one 32-thread block a launch (the grid-stride loops walk);
 *   store   every integral: max |d| <= 1e-12 absolute;
 *   paths   HGP forced on every segment and MD forced on every segment give the same M
 *           (1e-12 relative) and each agrees with the reference (1e-11);
 *   smem    the J engine on every segment: its shared-memory kernels (SB_ERI_JE_SMEM=5) and
 *           its register kernels (0) give the same M (1e-13), both near the reference;
 *   report  launch configurations from the occupancy API and per-segment times;
 *   f       water/cc-pvtz (f shells on O, no generated code: the J engine): digest against the
 *           reference (1e-11), and store mode refused at prepare;
 *   boys    the device Boys function against the host's (1e-14 relative), every m <= 12. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "eri_brush/boys.h"
#include "eri_brush/eri.h"
#include "test_util.h"

/* CUDA=0 builds have no eri_ops_cuda or eri_cuda_boys; REQUIRE_GPU skips before they are used. */
#ifdef SB_HAVE_CUDA
#define CUDA_OPS (&eri_ops_cuda)
#else
#define CUDA_OPS ((const eri_ops *)NULL)
#endif
#ifdef SB_HAVE_CUDA
#define CUDA_BOYS eri_cuda_boys
#else
static int no_cuda_boys(int m, const double *T, long n, double *F)
{
    (void)m, (void)T, (void)n, (void)F;
    return SB_EXIT_RUNTIME;
}
#define CUDA_BOYS no_cuda_boys
#endif

#define SEED 42u

typedef struct {
    eri_molecule mol;
    eri_basis bas;
    eri_pairs ps;
    eri_worklist w;
    double *D;
    size_t nbf2;
} water;

/* nwater > 0: the seeded cluster of that many waters, else the shipped water */
static void waters_basis(water *c, int nwater, int pure, const char *basis, double screen)
{
    char path[1024], rel[64];
    memset(c, 0, sizeof *c);
    if (nwater > 0) {
        assert_int_equal(eri_water_cluster(nwater, SEED, &c->mol), 0);
    } else {
        assert_int_equal(eri_data_path("molecules/water.xyz", path, sizeof path), 0);
        assert_int_equal(eri_read_xyz(path, &c->mol), 0);
    }
    snprintf(rel, sizeof rel, "basis/%s.g94", basis);
    assert_int_equal(eri_data_path(rel, path, sizeof path), 0);
    assert_int_equal(eri_basis_build(path, &c->mol, pure, &c->bas), 0);
    assert_int_equal(eri_pairs_build(&c->bas, ERI_PRIM_SCREEN_DEFAULT, &c->ps), 0);
    assert_int_equal(eri_worklist_build(&c->bas, &c->ps, screen, &c->w), 0);
    assert_true(c->w.nq > 0 && c->w.nseg > 0);
    const int n = c->bas.nbf;
    c->nbf2 = (size_t)n * n;
    c->D = malloc(sizeof(double) * c->nbf2);
    assert_non_null(c->D);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) c->D[(size_t)i * n + j] = eri_density_elem(SEED, i, j);
}

static void water_basis(water *c, int pure, const char *basis)
{
    waters_basis(c, 0, pure, basis, 0.0);
}

static void water_build(water *c, int pure)
{
    water_basis(c, pure, "cc-pvdz");
    assert_int_equal(c->bas.nbf, pure ? 24 : 25); /* O 3s2p1d + 2 x H 2s1p */
}

static void water_free(water *c)
{
    free(c->D);
    eri_worklist_free(&c->w);
    eri_pairs_free(&c->ps);
    eri_basis_free(&c->bas);
    eri_molecule_free(&c->mol);
}

/* A batch over c's shells and worklist w, into out (M in digest mode, else the store). */
static void batch_init(eri_batch *b, water *c, const eri_worklist *w, int mode, double *out)
{
    memset(b, 0, sizeof *b);
    b->bas = &c->bas, b->ps = &c->ps, b->w = w, b->boys = eri_boys_table();
    b->mode = mode, b->D = c->D, b->threads = 1;
    if (mode == ERI_MODE_DIGEST) b->M = out;
    else b->store = out;
}

/* prepare, run twice, download, release; out is M (digest) or the store array */
static void run_ops(const eri_ops *ops, water *c, const eri_worklist *w, int mode, double *out)
{
    eri_batch b;
    batch_init(&b, c, w, mode, out);
    assert_int_equal(ops->prepare(&b), SB_OK);
    assert_int_equal(ops->run(&b), SB_OK);
    assert_int_equal(ops->run(&b), SB_OK);
    assert_int_equal(ops->download(&b), SB_OK);
    ops->release(&b);
}

/* M of c's worklist on the GPU with the launch knob var = val. */
static void digest_with(const char *var, const char *val, water *c, double *M)
{
    setenv(var, val, 1);
    run_ops(CUDA_OPS, c, &c->w, ERI_MODE_DIGEST, M);
}

/* The launch knob var = val refused at prepare. */
static void refused_with(const char *var, const char *val, water *c, double *M)
{
    setenv(var, val, 1);
    eri_batch b;
    batch_init(&b, c, &c->w, ERI_MODE_DIGEST, M);
    assert_int_equal(CUDA_OPS->prepare(&b), SB_EXIT_USAGE);
    CUDA_OPS->release(&b);
}

static void check_digest(int pure)
{
    water c;
    water_build(&c, pure);
    double *Mg = malloc(sizeof(double) * c.nbf2), *Mr = malloc(sizeof(double) * c.nbf2);
    assert_true(Mg && Mr);
    run_ops(CUDA_OPS, &c, &c.w, ERI_MODE_DIGEST, Mg);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c.nbf2), d = max_diff(Mg, Mr, c.nbf2);
    print_message("water/cc-pvdz %s: %ld quartets in %d segments; digest max |M| %.3e, max |dM| %.2e (%.1e rel)\n",
                  pure ? "pure" : "cartesian", c.w.nq, c.w.nseg, scale, d, d / scale);
    assert_true(scale > 1.0);
    assert_true(d <= 1e-11 * scale);
    free(Mg), free(Mr);
    water_free(&c);
}

static void test_digest_pure(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    check_digest(1);
}

static void test_digest_cartesian(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    check_digest(0);
}

/* The capped kernels (class_bps) loop over quartets with a grid stride; on a molecule this
 * small each thread would take one. One 32-thread block a launch makes every thread of a
 * looping kernel walk several, and M must not change. */
static void test_digest_strided(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    char blocks[8 * ERI_NCLASS] = "";
    for (int c = 0; c < ERI_NCLASS; c++)
        snprintf(blocks + strlen(blocks), sizeof blocks - strlen(blocks), "%s%d:32", c ? "," : "", c);
    setenv("SB_ERI_BLOCK", blocks, 1);
    setenv("SB_ERI_GRID_MAX", "1", 1);
    check_digest(1);
}

/* A class's segments fan out over streams (cu_run): one stream (one after another, as
 * before) and the most streams give M within the reference's tolerance and, up to the order
 * of the atomic additions, each other's; a stream count out of range stops prepare. */
static void test_streams(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    double *M1 = malloc(sizeof(double) * c.nbf2), *M16 = malloc(sizeof(double) * c.nbf2);
    assert_true(M1 && M16);
    digest_with("SB_ERI_STREAMS", "1", &c, M1);
    digest_with("SB_ERI_STREAMS", "64", &c, M16);
    const double scale = max_abs(M1, c.nbf2), d = max_diff(M1, M16, c.nbf2);
    print_message("1 vs 64 streams, %d segments: max |dM| %.2e (%.1e rel)\n", c.w.nseg, d, d / scale);
    assert_true(scale > 1.0 && d <= 1e-13 * scale);
    refused_with("SB_ERI_STREAMS", "0", &c, M1);
    free(M1), free(M16);
    water_free(&c);
}

/* The run is one CUDA graph (cu_graph_run), captured at the first run and again when the
 * segments change: graph and stream-by-stream runs give the same M up to the order of the
 * atomic additions; a prepared batch whose paths change between two runs (so the second run
 * captures anew) still gives the reference's M; SB_ERI_GRAPH other than 0 or 1 stops prepare. */
static void test_graph(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    double *M0 = malloc(sizeof(double) * c.nbf2), *M1 = malloc(sizeof(double) * c.nbf2),
           *Mr = malloc(sizeof(double) * c.nbf2);
    assert_true(M0 && M1 && Mr);
    digest_with("SB_ERI_GRAPH", "0", &c, M0);
    digest_with("SB_ERI_GRAPH", "1", &c, M1);
    const double scale = max_abs(M0, c.nbf2), d = max_diff(M0, M1, c.nbf2);
    print_message("graph vs streams, %d segments: max |dM| %.2e (%.1e rel)\n", c.w.nseg, d, d / scale);
    assert_true(scale > 1.0 && d <= 1e-13 * scale);
    eri_batch b;
    batch_init(&b, &c, &c.w, ERI_MODE_DIGEST, M1);
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    int changed = 0;
    for (int k = 0; k < c.w.nseg; k++) {
        const int p = eri_path_choose(c.w.seg[k].cls, c.w.seg[k].nb, c.w.seg[k].nk, ERI_PATH_MD);
        changed += p != c.w.seg[k].path;
        c.w.seg[k].path = p;
    }
    assert_true(changed > 0);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    CUDA_OPS->release(&b);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double dr = max_diff(M1, Mr, c.nbf2);
    print_message("paths changed between runs (%d segments): max |dM| against the reference %.2e\n", changed, dr);
    assert_true(dr <= 1e-11 * scale);
    refused_with("SB_ERI_GRAPH", "2", &c, M1);
    free(M0), free(M1), free(Mr);
    water_free(&c);
}

/* teardown: also after a failed assertion, so the later tests run with the default launches */
static int unset_launch_env(void **state)
{
    (void)state;
    unsetenv("SB_ERI_BLOCK");
    unsetenv("SB_ERI_GRID_MAX");
    unsetenv("SB_ERI_STREAMS");
    unsetenv("SB_ERI_GRAPH");
    unsetenv("SB_ERI_JE_SMEM");
    unsetenv("SB_ERI_JE_TEAM");
    unsetenv("SB_ERI_FAMILY");
    unsetenv("SB_ERI_FAM_ACC");
    return 0;
}

static void test_store(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    const size_t n = (size_t)c.w.store_off[c.w.nq];
    assert_true(n > 0);
    double *Sg = malloc(sizeof(double) * n), *Sr = malloc(sizeof(double) * n);
    assert_true(Sg && Sr);
    for (size_t i = 0; i < n; i++) Sg[i] = NAN; /* every element must be written */
    run_ops(CUDA_OPS, &c, &c.w, ERI_MODE_STORE, Sg);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_STORE, Sr);
    double d = 0;
    size_t nan = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(Sg[i])) nan++;
        else d = fmax(d, fabs(Sg[i] - Sr[i]));
    }
    print_message("water/cc-pvdz store: %zu integrals, max |I| %.3e, max |dI| %.2e, %zu unwritten\n", n,
                  max_abs(Sr, n), d, nan);
    assert_int_equal(nan, 0);
    assert_true(d <= 1e-12);
    free(Sg), free(Sr);
    water_free(&c);
}

static void test_paths(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    double *M[ERI_PATH_JENG + 1], *Mr = malloc(sizeof(double) * c.nbf2);
    assert_non_null(Mr);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c.nbf2);
    eri_worklist w = c.w; /* shares everything but the segments */
    w.seg = malloc(sizeof(eri_segment) * (size_t)c.w.nseg);
    assert_non_null(w.seg);
    static const char *const name[] = {"HGP", "MD", "J engine"};
    for (int path = 0; path <= ERI_PATH_JENG; path++) {
        memcpy(w.seg, c.w.seg, sizeof(eri_segment) * (size_t)c.w.nseg);
        for (int k = 0; k < w.nseg; k++) w.seg[k].path = path;
        M[path] = malloc(sizeof(double) * c.nbf2);
        assert_non_null(M[path]);
        run_ops(CUDA_OPS, &c, &w, ERI_MODE_DIGEST, M[path]);
        const double d = max_diff(M[path], Mr, c.nbf2);
        print_message("all segments %s: max |dM| vs reference %.2e (%.1e rel)\n", name[path], d, d / scale);
        assert_true(d <= 1e-11 * scale);
    }
    const double d = max_diff(M[ERI_PATH_HGP], M[ERI_PATH_MD], c.nbf2);
    print_message("HGP vs MD: max |dM| %.2e (%.1e rel)\n", d, d / scale);
    assert_true(d <= 1e-12 * scale);
    for (int path = 0; path <= ERI_PATH_JENG; path++) free(M[path]);
    free(w.seg), free(Mr);
    water_free(&c);
}

/* The J engine on every segment, once with the shared-memory kernels for every s/p/d class
 * from L = 5 (SB_ERI_JE_SMEM=5) and once with the register kernels only (0): the same M to
 * round-off, both against the reference; a threshold outside 5..8 is refused at prepare. */
static void test_jeng_smem(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    int high = 0;
    for (int k = 0; k < c.w.nseg; k++) {
        c.w.seg[k].path = ERI_PATH_JENG;
        const eri_class_info *ci = eri_class(c.w.seg[k].cls);
        high += ci->la + ci->lb + ci->lc + ci->ld >= 5;
    }
    assert_true(high > 0);
    double *Ms = malloc(sizeof(double) * c.nbf2), *Mg = malloc(sizeof(double) * c.nbf2),
           *Mr = malloc(sizeof(double) * c.nbf2);
    assert_true(Ms && Mg && Mr);
    digest_with("SB_ERI_JE_SMEM", "5", &c, Ms);
    digest_with("SB_ERI_JE_SMEM", "0", &c, Mg);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c.nbf2), d = max_diff(Ms, Mg, c.nbf2), ds = max_diff(Ms, Mr, c.nbf2);
    print_message("J engine, %d of %d segments with L >= 5: shared-memory vs register kernels max |dM| %.2e (%.1e "
                  "rel), against the reference %.2e\n", high, c.w.nseg, d, d / scale, ds);
    assert_true(scale > 1.0 && d <= 1e-13 * scale && ds <= 1e-11 * scale);
    refused_with("SB_ERI_JE_SMEM", "9", &c, Ms);
    free(Ms), free(Mg), free(Mr);
    water_free(&c);
}

/* Two lanes a quartet (SB_ERI_JE_TEAM=1, the default) against one (0) for (dp|dp) and (dd|dd),
 * the J engine on every segment of water/cc-pVTZ: its four d shells give (dd|dd) quartets of
 * two pairs, its contracted p shells (dp|dp) quartets of several primitive pairs, so both the
 * bra's adds once per bra primitive and the ket's per primitive quartet run. Once more with one
 * block per launch (SB_ERI_GRID_MAX=1), so that each lane walks many quartets and the last ones
 * leave lanes idle; then against the reference. A value other than 0 or 1 is refused. */
static void test_jeng_team(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_basis(&c, 1, "cc-pvtz");
    int team = 0;
    for (int k = 0; k < c.w.nseg; k++) {
        c.w.seg[k].path = ERI_PATH_JENG;
        const eri_class_info *ci = eri_class(c.w.seg[k].cls);
        const int lab = ci->la + ci->lb, lcd = ci->lc + ci->ld;
        team += eri_class_has_code(c.w.seg[k].cls) && lab == lcd && (lab == 3 || lab == 4);
    }
    assert_true(team > 0);
    double *Mt = malloc(sizeof(double) * c.nbf2), *Ms = malloc(sizeof(double) * c.nbf2),
           *Mg = malloc(sizeof(double) * c.nbf2), *Mr = malloc(sizeof(double) * c.nbf2);
    assert_true(Mt && Ms && Mg && Mr);
    setenv("SB_ERI_JE_SMEM", "5", 1);
    digest_with("SB_ERI_JE_TEAM", "1", &c, Mt);
    digest_with("SB_ERI_JE_TEAM", "0", &c, Ms);
    setenv("SB_ERI_GRID_MAX", "1", 1);
    digest_with("SB_ERI_JE_TEAM", "1", &c, Mg);
    unsetenv("SB_ERI_GRID_MAX");
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c.nbf2), d = max_diff(Mt, Ms, c.nbf2), dg = max_diff(Mg, Mt, c.nbf2),
                 dr = max_diff(Mt, Mr, c.nbf2);
    print_message("J engine, %d of %d segments two lanes a quartet: against one lane max |dM| %.2e (%.1e rel), one "
                  "block %.2e, against the reference %.2e\n",
                  team, c.w.nseg, d, d / scale, dg, dr);
    assert_true(scale > 1.0 && d <= 1e-13 * scale && dg <= 1e-13 * scale && dr <= 1e-11 * scale);
    refused_with("SB_ERI_JE_TEAM", "2", &c, Mt);
    free(Mt), free(Ms), free(Mg), free(Mr);
    water_free(&c);
}

/* Pair families (families.c, fam_quartet in cuda.cu): oxygen's 1s and 2s share cc-pVDZ's
 * exponents, so one water has families of 2 and 3 pairs (and quartets within one family), 4
 * waters families of 4 and, at screen 1e-9, family quartets of which only some member
 * quartets pass the screen. Against one pair at a time (SB_ERI_FAMILY=0) and the reference;
 * the run reports its own flops for the classes it ran as families, fewer than the model of
 * the same quartets one at a time. */
static void check_families(water *c, const char *what)
{
    double *Mf = malloc(sizeof(double) * c->nbf2), *M1 = malloc(sizeof(double) * c->nbf2),
           *Mr = malloc(sizeof(double) * c->nbf2), *Ms = malloc(sizeof(double) * c->nbf2);
    assert_true(Mf && M1 && Mr && Ms);
    eri_batch b;
    batch_init(&b, c, &c->w, ERI_MODE_DIGEST, Mf);
    setenv("SB_ERI_FAMILY", "1", 1);
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    assert_int_equal(CUDA_OPS->download(&b), SB_OK);
    double model = 0;
    for (int k = 0; k < c->w.nseg; k++)
        if (c->w.seg[k].cls == 0)
            model += (double)(c->w.seg[k].q1 - c->w.seg[k].q0) *
                     eri_quartet_flops(0, c->w.seg[k].path, c->w.seg[k].nb, c->w.seg[k].nk, 1);
    const double fam = CUDA_OPS->class_flops(&b, 0);
    CUDA_OPS->release(&b);
    setenv("SB_ERI_FAM_ACC", "8", 1); /* smaller chunks: more of them per family quartet */
    run_ops(CUDA_OPS, c, &c->w, ERI_MODE_DIGEST, Ms);
    unsetenv("SB_ERI_FAM_ACC");
    digest_with("SB_ERI_FAMILY", "0", c, M1);
    run_ops(&eri_ops_reference, c, &c->w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c->nbf2), d = max_diff(Mf, M1, c->nbf2), dr = max_diff(Mf, Mr, c->nbf2),
                 ds = max_diff(Ms, M1, c->nbf2);
    print_message("%s: families against one pair at a time max |dM| %.2e (%.1e rel), in chunks of 8 values %.2e, "
                  "against the reference %.2e; (ss|ss) model flops %.3e as families, %.3e one at a time\n",
                  what, d, d / scale, ds, dr, fam, model);
    assert_true(scale > 1.0 && d <= 1e-13 * scale && ds <= 1e-13 * scale && dr <= 1e-11 * scale);
    assert_true(fam > 0 && fam < model);
    refused_with("SB_ERI_FAMILY", "2", c, Mf);
    unsetenv("SB_ERI_FAMILY");
    refused_with("SB_ERI_FAM_ACC", "0", c, Mf);
    unsetenv("SB_ERI_FAM_ACC");
    free(Mf), free(M1), free(Mr), free(Ms);
}

static void test_families(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    check_families(&c, "water/cc-pvdz");
    water_free(&c);
    waters_basis(&c, 4, 1, "cc-pvdz", 1e-9);
    check_families(&c, "4 waters/cc-pvdz, screen 1e-9");
    water_free(&c);
}

/* The primitive-quartet screen (eri_pairs.pq_screen, digest mode): on 4 waters/cc-pVDZ at a
 * coarse 1e-10, J (finished) moves from the unscreened run's by something, and by no more than
 * the screen's own bound (eri_screen_bound with only it: quartet and primitive-pair screens 0);
 * through the family kernels, one pair at a time, and the J engine on every segment. Store
 * mode ignores it: the same integrals with and without. */
static void test_pq_screen(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    waters_basis(&c, 4, 1, "cc-pvdz", 1e-12);
    double *M0 = malloc(sizeof(double) * c.nbf2), *Mt = malloc(sizeof(double) * c.nbf2);
    assert_true(M0 && Mt);
    const double t = 1e-10;
    static const char *const how[] = {"families", "one pair at a time", "J engine"};
    for (int h = 0; h < 3; h++) {
        setenv("SB_ERI_FAMILY", h == 0 ? "1" : "0", 1);
        if (h == 2)
            for (int k = 0; k < c.w.nseg; k++) c.w.seg[k].path = ERI_PATH_JENG;
        c.ps.pq_screen = 0.0;
        run_ops(CUDA_OPS, &c, &c.w, ERI_MODE_DIGEST, M0);
        c.ps.pq_screen = t;
        run_ops(CUDA_OPS, &c, &c.w, ERI_MODE_DIGEST, Mt);
        const double bound = eri_screen_bound(&c.bas, &c.ps, 0.0, 0.0, c.D);
        eri_coulomb_finish(&c.bas, M0);
        eri_coulomb_finish(&c.bas, Mt);
        const double d = max_diff(Mt, M0, c.nbf2);
        print_message("4 waters, %s: pq_screen %g moves J by %.3g (bound %.3g), max |J| %.3g\n", how[h], t, d, bound,
                      max_abs(M0, c.nbf2));
        assert_true(d > 0.0 && d <= bound);
    }
    unsetenv("SB_ERI_FAMILY");
    /* store mode: the screen is not applied */
    water s;
    water_build(&s, 1);
    const size_t ns = (size_t)s.w.store_off[s.w.nq];
    double *a = malloc(sizeof(double) * ns), *b = malloc(sizeof(double) * ns);
    assert_true(a && b);
    run_ops(CUDA_OPS, &s, &s.w, ERI_MODE_STORE, a);
    s.ps.pq_screen = 1e-10;
    run_ops(CUDA_OPS, &s, &s.w, ERI_MODE_STORE, b);
    assert_true(max_diff(a, b, ns) == 0.0);
    free(a), free(b), free(M0), free(Mt);
    water_free(&s);
    water_free(&c);
}

/* cc-pVTZ: O 4s3p2d1f, H 3s2p1d. The classes with an f shell have no generated code and run
 * the generic J-engine kernel; the rest as path=auto in digest mode. */
static void test_f_shells(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_basis(&c, 1, "cc-pvtz");
    assert_int_equal(c.bas.nbf, 30 + 2 * 14);
    int nf = 0;
    for (int k = 0; k < c.w.nseg; k++) {
        if (eri_path_digest_jeng(c.w.seg[k].cls, ERI_JENG_LMIN_CUDA)) c.w.seg[k].path = ERI_PATH_JENG;
        nf += !eri_class_has_code(c.w.seg[k].cls);
    }
    assert_true(nf > 0);
    double *Mg = malloc(sizeof(double) * c.nbf2), *Mr = malloc(sizeof(double) * c.nbf2);
    assert_true(Mg && Mr);
    run_ops(CUDA_OPS, &c, &c.w, ERI_MODE_DIGEST, Mg);
    run_ops(&eri_ops_reference, &c, &c.w, ERI_MODE_DIGEST, Mr);
    const double scale = max_abs(Mr, c.nbf2), d = max_diff(Mg, Mr, c.nbf2);
    print_message("water/cc-pvtz: %ld quartets in %d segments (%d with an f shell); max |M| %.3e, max |dM| %.2e "
                  "(%.1e rel)\n", c.w.nq, c.w.nseg, nf, scale, d, d / scale);
    assert_true(scale > 1.0);
    assert_true(d <= 1e-11 * scale);
    /* no integrals for the f classes: store mode is refused at prepare, before any launch,
     * because of them (every other segment gets a path that stores) */
    for (int k = 0; k < c.w.nseg; k++)
        if (eri_class_has_code(c.w.seg[k].cls)) c.w.seg[k].path = ERI_PATH_HGP;
    double *st = malloc(sizeof(double) * (size_t)c.w.store_off[c.w.nq]);
    assert_non_null(st);
    eri_batch b;
    batch_init(&b, &c, &c.w, ERI_MODE_STORE, st);
    assert_int_equal(CUDA_OPS->prepare(&b), SB_EXIT_USAGE);
    CUDA_OPS->release(&b);
    free(st), free(Mg), free(Mr);
    water_free(&c);
}

static void test_report(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    water c;
    water_build(&c, 1);
    double *M = malloc(sizeof(double) * c.nbf2), *t = malloc(sizeof(double) * (size_t)c.w.nseg);
    assert_true(M && t);
    for (int k = 0; k < c.w.nseg; k++) t[k] = -1;
    eri_batch b;
    batch_init(&b, &c, &c.w, ERI_MODE_DIGEST, M);
    b.seg_seconds = t;
    assert_int_equal(CUDA_OPS->prepare(&b), SB_OK);
    sb_launch l[SB_MAX_LAUNCH];
    const int n = CUDA_OPS->launches(&b, l, SB_MAX_LAUNCH);
    assert_true(n >= 1); /* water has (ss|ss), (pp|pp) and (dd|dd) quartets */
    for (int k = 0; k < n; k++) {
        print_message("  %-28s block %3d grid %5d regs %3d smem %5d B  %d blocks/SM, occupancy %.3f\n", l[k].name,
                      l[k].block, l[k].grid, l[k].regs, l[k].smem_static + l[k].smem_dynamic, l[k].blocks_per_sm,
                      l[k].occupancy);
        assert_true(l[k].regs > 0 && l[k].blocks_per_sm >= 1 && l[k].occupancy > 0 && l[k].grid >= 1);
    }
    assert_true(CUDA_OPS->launches(&b, l, 1) <= 1);
    assert_int_equal(CUDA_OPS->run(&b), SB_OK);
    double sum = 0;
    for (int k = 0; k < c.w.nseg; k++) {
        assert_true(t[k] >= 0);
        sum += t[k];
    }
    print_message("per-class times (on each class's first segment): %d segments, %.3f ms in all\n", c.w.nseg, 1e3 * sum);
    assert_true(sum > 0);
    CUDA_OPS->release(&b);
    free(M), free(t);
    water_free(&c);
}

/* The device Boys function (its own per-m table, rsqrt branch; boys.h) against the host's,
 * which test_eri_brush_boys checks against the series: grid points, half-way points (the index
 * rounds), quarter points, both sides of TMAX, large T and log-uniform samples, every m a class uses.
 * Tolerance 1e-14 relative (the spec's 1e-14 absolute follows, F_m <= 1): the two differ in
 * rounding only, a few ulp per downward or upward step. */
static void test_boys(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    enum { NS = 3 * ERI_BOYS_NGRID + 4000 };
    static const double extra[] = {0.0, 1e-300, 1e-12, ERI_BOYS_TMAX - 1e-13, ERI_BOYS_TMAX, ERI_BOYS_TMAX + 1e-13,
                                   40.0, 1e3, 1e6, 1e12};
    const long n = NS + (long)(sizeof extra / sizeof extra[0]);
    double *T = malloc(sizeof(double) * n), *F = malloc(sizeof(double) * n * (4 * ERI_LMAX + 1));
    assert_true(T && F);
    long k = 0;
    for (int i = 0; i < ERI_BOYS_NGRID; i++) {
        T[k++] = i / ERI_BOYS_GRID_INV;
        T[k++] = (i + 0.5) / ERI_BOYS_GRID_INV;
        T[k++] = (i + 0.25) / ERI_BOYS_GRID_INV;
    }
    uint64_t z = 12345;
    while (k < NS) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        T[k++] = 1e-6 * pow(1e10, (double)(z >> 11) * (1.0 / 9007199254740992.0)); /* 1e-6 .. 1e4 */
    }
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) T[k++] = extra[i];
    const double *tab = eri_boys_table();
    for (int m = 0; m <= 4 * ERI_LMAX; m++) {
        assert_int_equal(CUDA_BOYS(m, T, n, F), SB_OK);
        double worst = 0;
        long at = 0;
        for (long i = 0; i < n; i++) {
            double h[4 * ERI_LMAX + 1];
            eri_boys(tab, m, T[i], h);
            for (int j = 0; j <= m; j++) {
                const double d = fabs(F[i * (m + 1) + j] - h[j]) / h[j];
                if (!(d <= worst)) worst = d, at = i;
            }
        }
        print_message("Boys m = %d: %ld arguments, max relative difference from the host %.2e (T = %.6g)\n", m, n,
                      worst, T[at]);
        assert_true(worst <= 1e-14);
    }
    free(T), free(F);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_pure), cmocka_unit_test(test_digest_cartesian),
        cmocka_unit_test_teardown(test_digest_strided, unset_launch_env),
        cmocka_unit_test_teardown(test_streams, unset_launch_env),
        cmocka_unit_test_teardown(test_graph, unset_launch_env),   cmocka_unit_test(test_store),
        cmocka_unit_test(test_paths),       cmocka_unit_test_teardown(test_jeng_smem, unset_launch_env),
        cmocka_unit_test_teardown(test_jeng_team, unset_launch_env),
        cmocka_unit_test_teardown(test_families, unset_launch_env),
        cmocka_unit_test_teardown(test_pq_screen, unset_launch_env),
        cmocka_unit_test(test_f_shells),    cmocka_unit_test(test_report),
        cmocka_unit_test(test_boys),
    };
    return cmocka_run_group_tests_name("gpu_eri_brush", tests, NULL, NULL);
}
