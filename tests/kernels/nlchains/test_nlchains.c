/* nlchains on the CPU: integrator coefficients, forces against energies, the mode
 * energies and entropies, OpenMP-SIMD against the reference, the full validation for
 * every model, bad input, and that the validation can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nlchains/nlc.h"
#include "nlchains/nlchains.h"
#include "nlchains/physics.h"
#include "nlchains/validate.h"
#include "runloop.h"

static const char *const models[] = {"fput", "toda", "dnkg", "dnls"};

static nlc_config test_config(int model, int N, long C)
{
    nlc_config c;
    memset(&c, 0, sizeof c);
    c.model = model, c.N = N, c.copies = C, c.dt = 0.1, c.steps_per_rep = 1, c.seed = 11;
    c.alpha = 0.25, c.beta = model == NLC_DNLS ? 1.0 : 0.1, c.m = model == NLC_DNKG ? 0.7 : 0.0;
    return c;
}

static void make(nlc *m, const nlc_config *c, int k0, int k1, double e, sb_backend b)
{
    nlc_init_spec in = {k0, k1, e};
    assert_int_equal(nlc_create(m, c, &in, b), SB_OK);
    assert_int_equal(m->ops->upload(m), SB_OK);
}

/* Yoshida solution A: consistency (sum 1), symmetric, and the odd moments that a
 * symmetric 6th-order composition needs to vanish (sum w^3 = sum w^5 = 0). */
static void test_yoshida_weights(void **state)
{
    (void)state;
    double s1 = 0, s3 = 0, s5 = 0;
    for (int s = 0; s < NLC_STAGES; s++) {
        double w = nlc_weight(s);
        s1 += w, s3 += w * w * w, s5 += w * w * w * w * w;
        assert_true(nlc_weight(s) == nlc_weight(NLC_STAGES - 1 - s));
    }
    assert_true(fabs(s1 - 1.0) < 1e-15);
    assert_true(fabs(s3) < 1e-14);
    assert_true(fabs(s5) < 1e-14);
    nlc_coefs k = nlc_make_coefs(0.1, 1.0);
    double kick = k.kfirst + k.klast, drift = 0;
    for (int s = 0; s < 6; s++) kick += k.kmid[s];
    for (int s = 0; s < 7; s++) drift += k.drift[s];
    assert_true(fabs(kick - 0.1) < 1e-15 && fabs(drift - 0.1) < 1e-15);
}

/* -dH/dq_i by central differences against the force the integrator uses. */
static void test_force_is_minus_energy_gradient(void **state)
{
    (void)state;
    enum { N = 9 };
    for (int model = NLC_FPUT; model <= NLC_DNKG; model++) {
        nlc_config c = test_config(model, N, 1);
        double q[N], p[N] = {0};
        for (int i = 0; i < N; i++) q[i] = 0.3 * sin(1.7 * i + 0.2 * model);
        for (int i = 0; i < N; i++) {
            double qm = q[(i + N - 1) % N], q0 = q[i], qp = q[(i + 1) % N], F;
            if (model == NLC_FPUT)
                F = nlc_fput_bond_force(qp - q0, c.alpha, c.beta) - nlc_fput_bond_force(q0 - qm, c.alpha, c.beta);
            else if (model == NLC_TODA)
                F = nlc_toda_bond_force(qp - q0, c.alpha) - nlc_toda_bond_force(q0 - qm, c.alpha);
            else
                F = nlc_dnkg_force(qm, q0, qp, c.m, c.beta);
            const double h = 1e-5, save = q[i];
            q[i] = save + h;
            double Hp = nlc_chain_energy(&c, q, p);
            q[i] = save - h;
            double Hm = nlc_chain_energy(&c, q, p);
            q[i] = save;
            assert_true(fabs(-(Hp - Hm) / (2 * h) - F) < 1e-8);
        }
    }
}

/* A standing wave of mode k puts energy only in k and N-k, the right amount. */
static void test_single_mode_energy(void **state)
{
    (void)state;
    const int N = 16, k = 3;
    const double A = 0.2, twopi = 2.0 * 3.14159265358979323846;
    for (int model = NLC_FPUT; model <= NLC_DNLS; model++) {
        if (model == NLC_TODA) continue; /* same linear part as fput */
        nlc_config c = test_config(model, N, 1);
        double q[16], p[16], ek[16];
        for (int j = 0; j < N; j++) q[j] = A * cos(twopi * j * k / N), p[j] = model == NLC_DNLS ? A * sin(twopi * j * k / N) : 0.0;
        nlc_modes *md = nlc_modes_create(&c, 0);
        assert_non_null(md);
        assert_int_equal(nlc_modes_compute(md, q, p, 1, 0, ek), SB_OK);
        nlc_modes_destroy(md);
        /* cos: |Q_k|^2 = |Q_{N-k}|^2 = A^2 N / 4; plane wave (dnls): |psi_hat_k|^2 / N = A^2 N */
        double want = model == NLC_DNLS ? A * A * N : 0.5 * nlc_omega2(model, k, N, c.m) * A * A * N / 4;
        for (int q2 = 0; q2 < N; q2++) {
            int in = q2 == k || (model != NLC_DNLS && q2 == N - k);
            if (in) assert_true(fabs(ek[q2] - want) < 1e-14 * want);
            else assert_true(fabs(ek[q2]) < 1e-28);
        }
    }
}

/* Sum of the mode energies = the harmonic energy (Parseval), on a random multi-mode
 * state; and the seeded band holds exactly the requested energy per mode. */
static void test_mode_energies_sum_and_band(void **state)
{
    (void)state;
    for (int model = NLC_FPUT; model <= NLC_DNLS; model++) {
        nlc_config c = test_config(model, 40, 3);
        c.beta = 0.0, c.alpha = model == NLC_TODA ? 0.25 : 0.0;
        if (model == NLC_TODA) continue;
        nlc m;
        make(&m, &c, 2, 7, 0.3, SB_BACKEND_REFERENCE);
        double ek[40], sum = 0.0;
        assert_int_equal(m.ops->mode_energies(&m, ek), SB_OK);
        for (int k = 0; k < 40; k++) sum += ek[k];
        double H = nlc_total_energy(&m) / 3.0; /* alpha = beta = 0: all of H is harmonic */
        if (model == NLC_DNLS) H = nlc_total_norm(&m) / 3.0;
        assert_true(fabs(sum - H) < 1e-13 * H);
        assert_true(fabs(sum - 0.3 * 40) < 1e-12 * sum);
        double per = model == NLC_DNLS ? 0.3 * 40 / 6 : 0.3 * 40 / 12;
        for (int k = 0; k < 40; k++) {
            int in = (k >= 2 && k <= 7) || (model != NLC_DNLS && k >= 33 && k <= 38);
            assert_true(in ? fabs(ek[k] - per) < 1e-12 * per : ek[k] < 1e-25);
        }
        nlc_destroy(&m);
    }
}

static void test_entropies(void **state)
{
    (void)state;
    double e[8] = {9, 2, 2, 2, 2, 2, 2, 2}, wt, info;
    nlc_entropies(e, 8, 1, &wt, &info); /* mode 0 left out: equipartition */
    assert_true(fabs(wt) < 1e-14 && fabs(info) < 1e-14);
    double f[4] = {1, 3, 0.5, 0.5};
    nlc_entropies(f, 4, 0, &wt, &info); /* e_k = 4 f_k / 5 */
    double w = 0, in = 0;
    for (int k = 0; k < 4; k++) w -= log(0.8 * f[k]), in += 0.8 * f[k] * log(0.8 * f[k]);
    assert_true(fabs(wt - w) < 1e-14 && fabs(info - in) < 1e-14);
    assert_true(wt > 0 && info > 0);
}

/* Same state, same steps: fput/toda/dnkg bit for bit, dnls to FFTW's plan rounding. */
static void test_openmp_matches_reference(void **state)
{
    (void)state;
    for (int model = NLC_FPUT; model <= NLC_DNLS; model++) {
        nlc_config c = test_config(model, 37, 7);
        nlc r, t;
        make(&r, &c, 1, 5, 0.3, SB_BACKEND_REFERENCE);
        make(&t, &c, 1, 5, 0.3, SB_BACKEND_OPENMP_SIMD);
        /* the same calls on both: a call boundary splits the merged kick K(w3 h) into two
         * half-kicks, which rounds differently */
        assert_int_equal(r.ops->steps(&r, 6), SB_OK);
        assert_int_equal(r.ops->steps(&r, 7), SB_OK);
        assert_int_equal(t.ops->steps(&t, 6), SB_OK);
        assert_int_equal(t.ops->steps(&t, 7), SB_OK);
        assert_int_equal(t.ops->download(&t), SB_OK);
        assert_int_equal(r.step, 13);
        assert_int_equal(t.step, 13);
        size_t n = 37 * 7;
        if (model != NLC_DNLS) {
            assert_memory_equal(r.q, t.q, n * sizeof(double));
            assert_memory_equal(r.p, t.p, n * sizeof(double));
        } else {
            for (size_t i = 0; i < n; i++) assert_true(fabs(r.q[i] - t.q[i]) + fabs(r.p[i] - t.p[i]) < 1e-13);
        }
        nlc_destroy(&r);
        nlc_destroy(&t);
    }
}

static sb_params small_params(int size, const char *const *kv)
{
    sb_params p;
    memset(&p, 0, sizeof p);
    p.size = size, p.reps = 2, p.warmup = 1, p.seed = 3, p.quiet = 1;
    for (; kv && kv[0]; kv += 2, p.nkv++) {
        strcpy(p.kv[p.nkv].key, kv[0]);
        strcpy(p.kv[p.nkv].value, kv[1]);
    }
    return p;
}

static void assert_validates(sb_backend b, const char *model)
{
    const char *kv[] = {"model", model, "copies", "8", "steps", "20", "batch", "10", NULL};
    sb_params p = small_params(32, kv);
    sb_result res;
    assert_int_equal(sb_run_case(&nlchains_kernel, b, &p, 0, &res), SB_OK);
    for (int i = 0; i < res.validation.n; i++)
        if (!res.validation.check[i].pass)
            print_message("FAIL %s %s: %g vs %g\n", model, res.validation.check[i].name, res.validation.check[i].value,
                          res.validation.check[i].reference);
    assert_true(res.passed);
    assert_true(res.stats.median > 0.0);
    sb_result_free(&res);
}

static void test_kernel_validates_every_model(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) assert_validates(SB_BACKEND_OPENMP_SIMD, models[i]);
    assert_validates(SB_BACKEND_REFERENCE, "fput");
}

static int run_status(int size, const char *const *kv)
{
    sb_params p = small_params(size, kv);
    sb_result res;
    int rc = sb_run_case(&nlchains_kernel, SB_BACKEND_REFERENCE, &p, 0, &res);
    sb_result_free(&res);
    return rc;
}

static void write_doubles(const char *path, const double *x, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(x, sizeof(double), n, f), n);
    fclose(f);
}

static void test_rejects_bad_input(void **state)
{
    (void)state;
    const char *bad[][5] = {{"model", "fpu", NULL},         {"dt", "0", NULL},
                            {"dt", "-0.1", NULL},           {"model", "toda", "alpha", "0"},
                            {"model", "dnkg", "m", "-1"},   {"modes", "5:2", NULL},
                            {"modes", "1:16", NULL},        {"copies", "0", NULL},
                            {"model", "toda", "beta", "1"}, {"steps", "0", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[7] = {bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL};
        assert_int_equal(run_status(32, kv), SB_EXIT_USAGE);
    }
    assert_int_equal(run_status(4, NULL), SB_EXIT_USAGE); /* below the minimum N */
    /* init files: wrong size, a NaN, missing */
    char path[64];
    snprintf(path, sizeof path, "/tmp/nlc_test_init_%d", (int)getpid());
    double x[2 * 8 * 2] = {0};
    const char *kv[] = {"copies", "2", "init_file", path, NULL};
    write_doubles(path, x, 2 * 8 * 2 - 1);
    assert_int_equal(run_status(8, kv), SB_EXIT_USAGE);
    x[7] = NAN;
    write_doubles(path, x, 2 * 8 * 2);
    assert_int_equal(run_status(8, kv), SB_EXIT_USAGE);
    unlink(path);
    assert_int_equal(run_status(8, kv), SB_EXIT_USAGE);
}

/* A dump is a valid init file: the state read back equals the state written. */
static void test_dump_roundtrip(void **state)
{
    (void)state;
    char prefix[64], path[96];
    snprintf(prefix, sizeof prefix, "/tmp/nlc_test_dump_%d", (int)getpid());
    nlc_config c = test_config(NLC_FPUT, 16, 3);
    c.dump = prefix;
    nlc m, r;
    make(&m, &c, 1, 3, 0.2, SB_BACKEND_OPENMP_SIMD);
    assert_int_equal(m.ops->steps(&m, 5), SB_OK);
    double ek[16];
    assert_int_equal(m.ops->mode_energies(&m, ek), SB_OK);
    assert_int_equal(nlc_dump(&m, ek), SB_OK);
    snprintf(path, sizeof path, "%s-5", prefix);
    nlc_config c2 = c;
    c2.dump = NULL, c2.init_file = path;
    nlc_init_spec in = {1, 1, 1.0};
    assert_int_equal(nlc_create(&r, &c2, &in, SB_BACKEND_REFERENCE), SB_OK);
    assert_memory_equal(r.q, m.q, 48 * sizeof(double));
    assert_memory_equal(r.p, m.p, 48 * sizeof(double));
    unlink(path);
    snprintf(path, sizeof path, "%s-linenergies-5", prefix);
    unlink(path);
    nlc_destroy(&m);
    nlc_destroy(&r);
}

/* A state whose energy or momentum changed behind the integrator's back must fail. */
static void test_validation_detects_doctored_state(void **state)
{
    (void)state;
    nlc_config c = test_config(NLC_FPUT, 32, 4);
    nlc m;
    make(&m, &c, 1, 2, 0.1, SB_BACKEND_OPENMP_SIMD);
    nlc_start s0;
    nlc_record_start(&m, &s0);
    assert_int_equal(m.ops->steps(&m, 10), SB_OK);
    m.p[5] += 1e-3;
    sb_validation v = {0};
    sb_counters cs = {0};
    assert_int_equal(nlc_validate_all(&m, &s0, SB_BACKEND_OPENMP_SIMD, &v, &cs), SB_OK);
    assert_false(v.check[0].pass); /* energy */
    assert_false(v.check[1].pass); /* momentum */
    assert_false(sb_validation_passed(&v));
    nlc_destroy(&m);
}

/* Toda's table exponential (physics.h) against long-double libm: every table entry,
 * with j << 41 added back, is 2^(j/2048) correctly rounded; e(r) = exp(2 alpha r) within
 * ulp (1.5 + |x|) e^x: the table's half ulp of 2^(j/2048), the final rounding's half
 * ulp, the series' truncation (<= 0.15 ulp) and the one-part reduction constants, which
 * perturb x by ~|x| ulp. Over x in [-700, 700] and near 0, for several alpha; exact at
 * 0; 0 to within 1e-300 below x = -708 (m clamped), finite above x = 709. */
static void test_toda_exp_matches_libm(void **state)
{
    (void)state;
    const long double ulp = 0x1p-52L;
    for (int j = 0; j < NLC_EXP2_N; j++) {
        union {
            uint64_t u;
            double d;
        } v = {nlc_exp2_tab[j] + ((uint64_t)j << (52 - NLC_EXP2_BITS))};
        const long double want = exp2l((long double)j / NLC_EXP2_N);
        assert_true(fabsl(v.d - want) <= 0.5L * ulp * want * (1.0L + 1e-6L));
    }
    static const double alphas[] = {0.25, 1.0, 0.37, -0.6, 3.1e-3};
    double worst = 0.0;
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
        const double al = alphas[a];
        const nlc_toda_k tk = nlc_toda_prepare(al);
        for (int part = 0; part < 2; part++) {
            const double x0 = part ? -1e-3 : -700.0, x1 = -x0, dx = part ? 1.3e-7 : 0.0137;
            for (double x = x0; x <= x1; x += dx) {
                const double r = x / (2.0 * al);
                const long double x2 = 2.0L * al * r, want = expl(x2), err = fabsl(nlc_toda_exp(r, &tk) - want);
                const long double allow = ulp * (1.5L + fabsl(x2)) * want;
                if (err > allow) print_message("alpha %g x %.17g: error %.3Le > %.3Le\n", al, x, err, allow);
                assert_true(err <= allow);
                if (fabs(x) <= 1.0) worst = fmax(worst, (double)(err / (ulp * want)));
            }
        }
        assert_true(nlc_toda_exp(0.0, &tk) == 1.0);
        const double lo = nlc_toda_exp(-800.0 / (2.0 * al), &tk), hi = nlc_toda_exp(800.0 / (2.0 * al), &tk);
        assert_true(lo >= 0.0 && lo < 1e-300);
        assert_true(isfinite(hi) && hi > 1e307);
    }
    print_message("nlc_toda_exp: max error %.2f ulp of e^x for |2 alpha r| <= 1\n", worst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toda_exp_matches_libm),
        cmocka_unit_test(test_yoshida_weights),
        cmocka_unit_test(test_force_is_minus_energy_gradient),
        cmocka_unit_test(test_single_mode_energy),
        cmocka_unit_test(test_mode_energies_sum_and_band),
        cmocka_unit_test(test_entropies),
        cmocka_unit_test(test_openmp_matches_reference),
        cmocka_unit_test(test_kernel_validates_every_model),
        cmocka_unit_test(test_rejects_bad_input),
        cmocka_unit_test(test_dump_roundtrip),
        cmocka_unit_test(test_validation_detects_doctored_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
