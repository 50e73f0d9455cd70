/* lattice_mc on the CPU: the random numbers, the hand-written math against libm,
 * OpenMP-SIMD against the reference bit for bit, the full validation, and that
 * the validation can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "lattice_mc/philox_row.h"
#include "lattice_mc/physics.h"
#include "lattice_mc/validate.h"
#include "lattice_mc_util.h"

/* Known-answer vectors from Random123's tests/kat_vectors (philox4x32 10 lines). */
static void test_philox_known_answers(void **state)
{
    (void)state;
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1}};
    for (int t = 0; t < 3; t++) {
        philox4x32_ctr_t c = {{kat[t][0], kat[t][1], kat[t][2], kat[t][3]}};
        philox4x32_key_t k = {{kat[t][4], kat[t][5]}};
        philox4x32_ctr_t r = philox4x32(c, k);
        for (int i = 0; i < 4; i++) assert_int_equal(r.v[i], kat[t][6 + i]);
    }
}

/* Same (seed, site, sweep, sub-lattice) -> same words; any change -> different words. */
static void test_random_keying(void **state)
{
    (void)state;
    philox4x32_ctr_t a = lmc_random(42, 1000, 3, 5, LMC_TAG_MOVE), b = lmc_random(42, 1000, 3, 5, LMC_TAG_MOVE);
    assert_memory_equal(&a, &b, sizeof a);
    philox4x32_ctr_t d[4] = {lmc_random(43, 1000, 3, 5, LMC_TAG_MOVE), lmc_random(42, 1001, 3, 5, LMC_TAG_MOVE),
                             lmc_random(42, 1000, 4, 5, LMC_TAG_MOVE), lmc_random(42, 1000, 3, 6, LMC_TAG_MOVE)};
    for (int i = 0; i < 4; i++) assert_memory_not_equal(&a, &d[i], sizeof a);
    /* the 64-bit seed uses both key words */
    philox4x32_ctr_t hi = lmc_random(42ull | (1ull << 40), 1000, 3, 5, LMC_TAG_MOVE);
    assert_memory_not_equal(&a, &hi, sizeof a);
}

/* Words 2j, 2j+1 of Random123's philox4x32 with counter {site, c1, c2, c3}. */
static void expected_words(uint64_t seed, uint32_t site, uint32_t c1, uint32_t c2, int j, uint32_t *a, uint32_t *b)
{
    philox4x32_ctr_t c = {{site, c1, c2, LMC_TAG_MOVE}};
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t r = philox4x32(c, k);
    *a = r.v[2 * j], *b = r.v[2 * j + 1];
}

/* Site pairing: sites xh = 2p, 2p + 1 of a row (global x = px + 2 xh) share the counter
 * of the first; it takes words 0, 1 and the second 2, 3. */
static void test_site_words_pairing(void **state)
{
    (void)state;
    const int L = 12;
    for (int px = 0; px < 2; px++)
        for (int xh = 0; xh < L / 2; xh++) {
            int x = px + 2 * xh;
            uint32_t site = (uint32_t)(x + L * (3 + L * 5)), first = site - (xh & 1 ? 2u : 0u), a, b;
            lmc_words w = lmc_site_words(77, site, x, 9, 6);
            expected_words(77, first, 9, 6, xh & 1, &a, &b);
            assert_int_equal(w.a, a);
            assert_int_equal(w.b, b);
        }
    /* the two sites of a pair get different bits */
    lmc_words w0 = lmc_site_words(77, 100, 4, 9, 6), w1 = lmc_site_words(77, 102, 6, 9, 6);
    assert_true(w0.a != w1.a || w0.b != w1.b);
}

/* The SIMD row generator against Random123's philox4x32, every word, for
 * lengths that exercise the vector body and the scalar tail (odd ones leave a
 * pair with one site). */
static void test_philox_row_matches_random123(void **state)
{
    (void)state;
    enum { N = 77 };
    uint32_t ra[N], rb[N];
    const uint64_t seeds[] = {0, 1, 0xdeadbeefcafef00dull};
    for (int s = 0; s < 3; s++)
        for (int n = 1; n <= N; n += 19) {
            /* the last seed also wraps the 32-bit site counter inside a vector */
            uint32_t site0 = s == 2 ? 0xfffffff0u : 1000u * (uint32_t)n + 7u, stride = (uint32_t)(n % 3) + 1u;
            lmc_philox_pairs(seeds[s], site0, stride, n, 41, 5, LMC_TAG_MOVE, ra, rb);
            for (int i = 0; i < n; i++) {
                uint32_t a, b;
                expected_words(seeds[s], site0 + (uint32_t)(i & ~1) * stride, 41, 5, i & 1, &a, &b);
                assert_int_equal(ra[i], a);
                assert_int_equal(rb[i], b);
            }
        }
}

/* The portable exp against libm's double exp, over the whole used range. */
static void test_exp_neg_accuracy(void **state)
{
    (void)state;
    double worst = 0.0;
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f * (float)i / 200000.0f;
        double ref = exp((double)x);
        worst = fmax(worst, fabs(lmc_exp_neg(x) - ref) / ref);
    }
    print_message("lmc_exp_neg max relative error %.2e\n", worst);
    assert_true(worst < 5e-7);
    assert_true(lmc_exp_neg(-100.0f) == 0.0f);
    assert_true(lmc_exp_neg(0.0f) == 1.0f);
}

static void test_cossin_accuracy(void **state)
{
    (void)state;
    double worst = 0.0;
    for (int i = 0; i < (1 << 16); i++) {
        float u = (float)i / 65536.0f, c, s;
        lmc_cossin_q4(u * 4.0f + 0.5f, &c, &s); /* q4 = 4 u + 1/2, as lmc_sphere forms it */
        double a = 2.0 * 3.14159265358979323846 * u;
        worst = fmax(worst, fmax(fabs(c - cos(a)), fabs(s - sin(a))));
    }
    print_message("lmc_cossin_q4 max abs error %.2e\n", worst);
    assert_true(worst < 1e-6);
}

/* Uniform on the sphere: <n> = 0, <n n> = I/3 (to 5 standard errors). */
static void test_sphere_isotropy(void **state)
{
    (void)state;
    const int N = 200000;
    double m[3] = {0}, q[3] = {0};
    for (int i = 0; i < N; i++) {
        philox4x32_ctr_t r = lmc_random(9, (uint32_t)i, 0, 0, LMC_TAG_INIT);
        float v[3];
        lmc_sphere(lmc_u01(r.v[0]), lmc_u01(r.v[1]), &v[0], &v[1], &v[2]);
        assert_true(fabs(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - 1.0) < 1e-6);
        for (int d = 0; d < 3; d++) m[d] += v[d], q[d] += v[d] * v[d];
    }
    for (int d = 0; d < 3; d++) {
        assert_true(fabs(m[d] / N) < 5.0 * sqrt(1.0 / 3.0 / N));
        assert_true(fabs(q[d] / N - 1.0 / 3.0) < 5.0 * sqrt(4.0 / 45.0 / N));
    }
}

static void test_openmp_matches_reference(void **state)
{
    (void)state;
    lmc_assert_matches_reference(SB_BACKEND_OPENMP_SIMD, 6, LMC_BULK, 5, 1);   /* odd L/2: wraps */
    lmc_assert_matches_reference(SB_BACKEND_OPENMP_SIMD, 20, LMC_BULK, 3, 2);
    lmc_assert_matches_reference(SB_BACKEND_OPENMP_SIMD, 18, LMC_DROPLET, 4, 3);
}

static void test_openmp_validates(void **state)
{
    (void)state;
    lmc_assert_kernel_validates(SB_BACKEND_OPENMP_SIMD, 16, NULL);
    lmc_assert_kernel_validates(SB_BACKEND_OPENMP_SIMD, 16, "droplet");
}

/* A doctored energy ledger must fail the bookkeeping check. */
static void test_validation_detects_broken_bookkeeping(void **state)
{
    (void)state;
    lmc_config cfg = lmc_test_config(8, LMC_BULK, 5);
    lmc m;
    assert_int_equal(lmc_create(&m, &cfg, SB_BACKEND_OPENMP_SIMD), SB_OK);
    m.E0 = lmc_energy(&m) + 0.5; /* as if one accepted move's dE had been lost */
    assert_int_equal(m.ops->upload(&m), SB_OK);
    assert_int_equal(lmc_run_sweeps(&m, 3, 0), SB_OK);
    sb_validation v = {0};
    sb_counters cs = {0};
    assert_int_equal(lmc_validate_all(&m, SB_BACKEND_OPENMP_SIMD, 5, &v, &cs), SB_OK);
    assert_false(v.check[0].pass);
    assert_false(sb_validation_passed(&v));
    lmc_destroy(&m);
}

/* An unnormalised director must fail the unit-vector invariant. */
static void test_validation_detects_bad_director(void **state)
{
    (void)state;
    lmc_config cfg = lmc_test_config(8, LMC_BULK, 5);
    lmc m;
    assert_int_equal(lmc_create(&m, &cfg, SB_BACKEND_REFERENCE), SB_OK);
    m.nx[17] = 1.0f, m.ny[17] = 0.01f, m.nz[17] = 0.0f; /* |n| = 1.00005 */
    assert_true(lmc_max_norm_error(&m) > 1e-5);
    lmc_destroy(&m);
}

/* A slab's storage (rank 1 of 3, L = 12): every site of the slab and of its two halo
 * planes has exactly one storage entry, and the halo plan of each half sweep sends
 * the edge plane the neighbour reads and receives the halo plane this rank reads. */
static void test_slab_storage(void **state)
{
    (void)state;
    enum { L = 12, NZL = 4, PLANE = L * L };
    lmc m;
    memset(&m, 0, sizeof m);
    m.cfg.L = L, m.ranks = 3, m.rank = 1, m.halo = 1, m.nzl = NZL, m.z0 = NZL, m.nlocal = (long)PLANE * NZL;
    lmc_store g = lmc_store_of(&m);
    static int seen[PLANE * (NZL + 2)];
    memset(seen, 0, sizeof seen);
    for (long i = 0; i < 8 * g.sub; i++) {
        long j = lmc_store_to_host(&m, &g, i);
        if (j == LMC_UNUSED) continue;
        assert_true(j >= -PLANE && j < m.nlocal + PLANE);
        seen[j + PLANE]++;
    }
    for (int k = 0; k < PLANE * (NZL + 2); k++) assert_int_equal(seen[k], 1);
    /* host plane (slab z) of storage plane zl of sub-lattice s */
#define ZOF(s, zl) (lmc_store_to_host(&m, &g, (s) * g.sub + (long)(zl) * (L / 2) * (L / 2)) / PLANE)
    lmc_halo_plan p0 = lmc_halo_plan_of(&m, &g, 0), p1 = lmc_halo_plan_of(&m, &g, 1);
    assert_int_equal(p0.to, 2), assert_int_equal(p0.from, 0);
    assert_int_equal(ZOF(p0.sub0, p0.send_zl), NZL - 1);
    assert_true(lmc_store_to_host(&m, &g, p0.sub0 * g.sub + (long)p0.recv_zl * (L / 2) * (L / 2)) < 0);
    assert_int_equal(ZOF(0, p0.edge_zl), 0);
    assert_int_equal(p1.to, 0), assert_int_equal(p1.from, 2);
    assert_int_equal(ZOF(p1.sub0, p1.send_zl), 0);
    assert_int_equal(ZOF(p1.sub0, p1.recv_zl), NZL);
    assert_int_equal(ZOF(4, p1.edge_zl), NZL - 1);
#undef ZOF
}

/* fuse is a CUDA option: another backend refuses it (exit 2) rather than ignore it. */
static void test_fuse_needs_cuda(void **state)
{
    (void)state;
    sb_params p;
    memset(&p, 0, sizeof p);
    p.size = 16, p.reps = 1, p.quiet = 1, p.nkv = 1;
    strcpy(p.kv[0].key, "fuse");
    strcpy(p.kv[0].value, "slab");
    sb_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(sb_run_case(&lattice_mc_kernel, SB_BACKEND_OPENMP_SIMD, &p, 0, &res), SB_EXIT_USAGE);
    sb_result_free(&res);
}

static void test_rejects_bad_input(void **state)
{
    (void)state;
    struct {
        int size;
        const char *key, *value;
    } bad[] = {{15, NULL, NULL}, {16, "T", "-1"}, {16, "T", "abc"}, {16, "geometry", "cube"},
               {16, "anneal", "2:"}, {16, "step", "0"}, {16, "sweeps", "0"},      {16, "fuse", "on"},
               {16, "slab", "0"},    {16, "slab", "many"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_params p;
        memset(&p, 0, sizeof p);
        p.size = bad[i].size, p.reps = 1, p.quiet = 1;
        if (bad[i].key) {
            p.nkv = 1;
            strcpy(p.kv[0].key, bad[i].key);
            strcpy(p.kv[0].value, bad[i].value);
        }
        lmc_config cfg;
        assert_int_equal(lmc_parse(&p, &cfg), SB_EXIT_USAGE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_known_answers),
        cmocka_unit_test(test_random_keying),
        cmocka_unit_test(test_site_words_pairing),
        cmocka_unit_test(test_philox_row_matches_random123),
        cmocka_unit_test(test_exp_neg_accuracy),
        cmocka_unit_test(test_cossin_accuracy),
        cmocka_unit_test(test_sphere_isotropy),
        cmocka_unit_test(test_openmp_matches_reference),
        cmocka_unit_test(test_openmp_validates),
        cmocka_unit_test(test_validation_detects_broken_bookkeeping),
        cmocka_unit_test(test_validation_detects_bad_director),
        cmocka_unit_test(test_rejects_bad_input),
        cmocka_unit_test(test_fuse_needs_cuda),
        cmocka_unit_test(test_slab_storage),
    };
    return cmocka_run_group_tests_name("lattice_mc", tests, NULL, NULL);
}
