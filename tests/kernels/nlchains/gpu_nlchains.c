/* nlchains on the CUDA backend against the scalar reference ops (same initial state,
 * same K steps): relative state difference, ensemble mode energies, energy/norm
 * conservation, the launch report. Skips without a GPU.
 *
 * Bounds. The reference is built with -ffp-contract=off (each operation rounded as
 * written); nvcc contracts a*b+c into FMAs, and cuFFT orders its butterflies
 * differently from FFTW. Each step so differs by a few ulps per site and the
 * differences add up over the steps (the small-amplitude chains here are not
 * chaotic over K steps, so they grow about linearly): the measured difference is
 * printed, and must be <= 1e-12 relative (max over sites of |x_gpu - x_ref| over
 * max |x_ref|). Mode energies: max_k |E_k,gpu - E_k,ref| over sum_k E_k,ref <= 1e-12
 * (a mode holding 1e-20 of the energy cannot be compared relative to itself). */
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
#include "nlchains/nlc.h"
#include "nlchains/physics.h"

static const char *model_name[] = {"fput", "toda", "dnkg", "dnls"};

/* CUDA=0 builds have no nlc_ops_cuda; REQUIRE_GPU skips before it is used. */
#ifdef SB_HAVE_CUDA
#define CUDA_OPS (&nlc_ops_cuda)
#else
#define CUDA_OPS ((const nlc_ops *)NULL)
#endif

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * (1.0 / 9007199254740992.0); }

/* A few low modes with chain-dependent random phases plus a little noise. */
static void fill_state(const nlc_config *cfg, double *q, double *p, double amp)
{
    uint64_t s = 12345u + (uint64_t)cfg->model * 77u + (uint64_t)cfg->N;
    const int N = cfg->N;
    const double tw = 6.283185307179586;
    for (long c = 0; c < cfg->copies; c++) {
        double ph[6];
        for (int j = 0; j < 6; j++) ph[j] = tw * urand(&s);
        for (int i = 0; i < N; i++) {
            double a = 0, b = 0;
            for (int k = 1; k <= 3; k++) {
                a += cos(tw * k * i / N + ph[k - 1]) / k;
                b += sin(tw * k * i / N + ph[k + 2]) / k;
            }
            q[c * N + i] = amp * (a + 0.05 * (urand(&s) - 0.5));
            p[c * N + i] = amp * (b + 0.05 * (urand(&s) - 0.5));
        }
    }
}

static double chain_energy(const nlc_config *cfg, const double *q, const double *p)
{
    const int N = cfg->N;
    double e = 0;
    for (int i = 0; i < N; i++) {
        const int ip = i + 1 == N ? 0 : i + 1;
        const double r = q[ip] - q[i];
        switch (cfg->model) {
        case NLC_FPUT: e += 0.5 * p[i] * p[i] + nlc_fput_bond_energy(r, cfg->alpha, cfg->beta); break;
        case NLC_TODA: e += 0.5 * p[i] * p[i] + nlc_toda_bond_energy(r, cfg->alpha); break;
        case NLC_DNKG: e += nlc_dnkg_site_energy(q[i], q[ip], p[i], cfg->m, cfg->beta); break;
        default: { /* dnls: the norm */
            e += q[i] * q[i] + p[i] * p[i];
        }
        }
    }
    return e;
}
static double total_energy(const nlc *m)
{
    double e = 0;
    for (long c = 0; c < m->cfg.copies; c++)
        e += chain_energy(&m->cfg, m->q + c * m->cfg.N, m->p + c * m->cfg.N);
    return e;
}

static nlc_config make_cfg(int model, int N, long C)
{
    nlc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.model = model;
    cfg.N = N;
    cfg.copies = C;
    cfg.dt = 0.1;
    cfg.steps_per_rep = 1;
    cfg.seed = 1;
    switch (model) {
    case NLC_FPUT: cfg.alpha = 0.25, cfg.beta = 0.5; break;
    case NLC_TODA: cfg.alpha = 0.5; break;
    case NLC_DNKG: cfg.m = 1.0, cfg.beta = 1.0; break;
    default: cfg.beta = 1.0;
    }
    return cfg;
}

static void make_nlc(nlc *m, const nlc_config *cfg, const nlc_ops *ops, double amp)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    size_t n = (size_t)cfg->N * (size_t)cfg->copies;
    m->q = malloc(n * sizeof(double));
    m->p = malloc(n * sizeof(double));
    assert_non_null(m->q);
    assert_non_null(m->p);
    fill_state(cfg, m->q, m->p, amp);
    m->ops = ops;
}
static void free_nlc(nlc *m)
{
    free(m->q);
    free(m->p);
}

static double rel_state_diff(const nlc *a, const nlc *b)
{
    size_t n = (size_t)a->cfg.N * (size_t)a->cfg.copies;
    double d = 0, x = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fmax(fabs(a->q[i] - b->q[i]), fabs(a->p[i] - b->p[i])));
        x = fmax(x, fmax(fabs(b->q[i]), fabs(b->p[i])));
    }
    return d / x;
}

/* CUDA vs reference after K steps (split into two calls, to cover the ends of steps()). */
static void compare_model(int model, int N, long C, long K, double amp)
{
    nlc_config cfg = make_cfg(model, N, C);
    nlc g, r;
    make_nlc(&g, &cfg, CUDA_OPS, amp);
    make_nlc(&r, &cfg, &nlc_ops_reference, amp);
    const double e0 = total_energy(&g);
    double *ekg = calloc((size_t)N, sizeof(double)), *ekr = calloc((size_t)N, sizeof(double));
    assert_non_null(ekg);
    assert_non_null(ekr);

    assert_int_equal(g.ops->upload(&g), SB_OK);
    assert_int_equal(r.ops->upload(&r), SB_OK);
    /* mode energies of the initial state */
    assert_int_equal(g.ops->mode_energies(&g, ekg), SB_OK);
    assert_int_equal(r.ops->mode_energies(&r, ekr), SB_OK);
    double sum = 0, dmax = 0;
    for (int k = 0; k < N; k++) sum += ekr[k];
    for (int k = 0; k < N; k++) dmax = fmax(dmax, fabs(ekg[k] - ekr[k]));
    const double de0 = dmax / sum;

    assert_int_equal(g.ops->steps(&g, K / 2), SB_OK);
    assert_int_equal(g.ops->steps(&g, K - K / 2), SB_OK);
    assert_int_equal(r.ops->steps(&r, K / 2), SB_OK);
    assert_int_equal(r.ops->steps(&r, K - K / 2), SB_OK);
    assert_int_equal(g.ops->mode_energies(&g, ekg), SB_OK);
    assert_int_equal(r.ops->mode_energies(&r, ekr), SB_OK);
    sum = 0;
    dmax = 0;
    for (int k = 0; k < N; k++) sum += ekr[k];
    for (int k = 0; k < N; k++) dmax = fmax(dmax, fabs(ekg[k] - ekr[k]));
    const double de1 = dmax / sum;
    assert_int_equal(g.ops->download(&g), SB_OK);
    assert_int_equal(r.ops->download(&r), SB_OK);

    const double ds = rel_state_diff(&g, &r);
    const double e1 = total_energy(&g), drift = fabs(e1 - e0) / fabs(e0);
    printf("  %-4s N=%-5d C=%-3ld K=%-4ld state rel diff %.3e  mode-energy diff %.3e (t=0) %.3e (t=K)  "
           "|dH/H| %.3e\n",
           model_name[model], N, C, K, ds, de0, de1, drift);
    assert_true(ds <= 1e-12);
    assert_true(de0 <= 1e-12);
    assert_true(de1 <= 1e-12);
    /* energy over K steps of dt = 0.1: the 6th-order method's bounded error at these
     * amplitudes (the noise puts some energy in the fast modes, omega dt up to 0.2);
     * the CPU validation holds the tighter 1e-9 fput bound at small amplitude. dnls:
     * both flows conserve the norm exactly, only rounding is left. */
    assert_true(drift <= (model == NLC_DNLS ? 1e-12 : amp > 1 ? 1e-5 : 1e-7));

    g.ops->release(&g);
    r.ops->release(&r);
    free(ekg);
    free(ekr);
    free_nlc(&g);
    free_nlc(&r);
}

/* N = 32 S W: a chain per block of W warps, S sites per lane. Both S = 16 and S = 32
 * (SB_NLC_MW_S, the tuning override), so that both kernels are checked whichever the
 * default is (mw_pick). */
static void compare_mwarp(int model, int N, long C, long K, double amp)
{
    const char *was = getenv("SB_NLC_MW_S");
    char *keep = was ? strdup(was) : NULL;
    setenv("SB_NLC_MW_S", "16", 1);
    compare_model(model, N, C, K, amp);
    setenv("SB_NLC_MW_S", "32", 1);
    compare_model(model, N, C, K, amp);
    if (keep)
        setenv("SB_NLC_MW_S", keep, 1);
    else
        unsetenv("SB_NLC_MW_S");
    free(keep);
}

static void test_fput(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    compare_model(NLC_FPUT, 1024, 6, 40, 0.3); /* warp path, 32 sites per lane */
    compare_model(NLC_FPUT, 64, 9, 40, 0.3);   /* warp path, 2 sites per lane, a partial block */
    compare_model(NLC_FPUT, 32, 5, 40, 0.3);   /* warp path, 1 site per lane */
    compare_model(NLC_FPUT, 100, 3, 40, 0.3);  /* block per chain, shared memory */
    compare_model(NLC_FPUT, 2000, 2, 20, 0.3); /* block per chain, shared memory */
    compare_model(NLC_FPUT, 9728, 2, 4, 0.3);  /* block per chain, global memory */
    compare_mwarp(NLC_FPUT, 2048, 3, 20, 0.3); /* 2 warps x 32 sites a lane, or 4 x 16 */
    compare_mwarp(NLC_FPUT, 4096, 2, 20, 0.3); /* 4 x 32 or 8 x 16 */
    compare_mwarp(NLC_FPUT, 8192, 2, 10, 0.3); /* 8 x 32 or 16 x 16 */
}

static void test_toda(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    compare_model(NLC_TODA, 1024, 6, 40, 0.3); /* a warp a chain */
    setenv("SB_NLC_TODA_MW", "1", 1);
    compare_model(NLC_TODA, 1024, 6, 40, 0.3); /* two warps a chain */
    unsetenv("SB_NLC_TODA_MW");
    compare_model(NLC_TODA, 256, 5, 40, 0.3);
    compare_model(NLC_TODA, 100, 3, 40, 0.3);
    compare_model(NLC_TODA, 32, 4, 40, 2.0); /* large bonds: the table exp far from m = 0 */
    compare_mwarp(NLC_TODA, 2048, 3, 20, 0.3);
    compare_mwarp(NLC_TODA, 4096, 2, 20, 0.3);
    compare_mwarp(NLC_TODA, 8192, 2, 10, 0.3);
}

static void test_dnkg(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    compare_model(NLC_DNKG, 1024, 6, 40, 0.3);
    compare_model(NLC_DNKG, 128, 5, 40, 0.3);
    compare_model(NLC_DNKG, 100, 3, 40, 0.3);
    compare_mwarp(NLC_DNKG, 2048, 3, 20, 0.3);
    compare_mwarp(NLC_DNKG, 4096, 2, 20, 0.3);
    compare_mwarp(NLC_DNKG, 8192, 2, 10, 0.3);
}

static void test_dnls(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    compare_model(NLC_DNLS, 1024, 6, 40, 0.5);
    compare_model(NLC_DNLS, 100, 3, 40, 0.5);
}

static void test_launches(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    for (int t = 0; t < 5; t++) {
        const int model = t < 4 ? t : NLC_FPUT, N = t < 4 ? 1024 : 2048; /* the last: a block of warps */
        nlc_config cfg = make_cfg(model, N, 64);
        nlc g;
        make_nlc(&g, &cfg, CUDA_OPS, 0.1);
        assert_int_equal(g.ops->upload(&g), SB_OK);
        sb_launch l[SB_MAX_LAUNCH];
        int n = g.ops->launches(&g, l, SB_MAX_LAUNCH);
        assert_true(n >= 2);
        for (int i = 0; i < n; i++) {
            printf("  %-4s %-28s block %4d grid %6d regs %3d smem %6d occupancy %.3f\n", model_name[model], l[i].name,
                   l[i].block, l[i].grid, l[i].regs, l[i].smem_static + l[i].smem_dynamic, l[i].occupancy);
            assert_true(l[i].regs > 0);
            assert_true(l[i].occupancy > 0);
        }
        g.ops->release(&g);
        free_nlc(&g);
    }
}


/* Throughput at the benchmark size, printed only (the harness reports the official
 * numbers): SB_NLC_BENCH=1 turns it on. Chain-site steps per second of steps(100),
 * and the cost of one mode_energies() call relative to 100 steps. */
static void test_bench(void **state)
{
    (void)state;
    const char *b = getenv("SB_NLC_BENCH");
    if (!b || !*b || strcmp(b, "0") == 0) skip();
    REQUIRE_GPU(NULL);
    const int N = getenv("SB_NLC_N") ? atoi(getenv("SB_NLC_N")) : 1024;
    const long C = getenv("SB_NLC_C") ? atol(getenv("SB_NLC_C")) : 8192;
    for (int model = 0; model < 4; model++) {
        nlc_config cfg = make_cfg(model, N, C);
        nlc g;
        make_nlc(&g, &cfg, CUDA_OPS, 0.1);
        assert_int_equal(g.ops->upload(&g), SB_OK);
        const long K = model == NLC_DNLS ? 20 : 100;
        double *ek = malloc((size_t)N * sizeof(double));
        assert_non_null(ek);
        sb_cuda_timer *t = sb_cuda_timer_create();
        assert_int_equal(g.ops->steps(&g, 5), SB_OK);
        assert_int_equal(g.ops->mode_energies(&g, ek), SB_OK);
        double best = 1e30, bme = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            sb_cuda_timer_start(t);
            assert_int_equal(g.ops->steps(&g, K), SB_OK);
            double s = sb_cuda_timer_stop(t);
            assert_true(s > 0);
            best = s < best ? s : best;
            sb_cuda_timer_start(t);
            assert_int_equal(g.ops->mode_energies(&g, ek), SB_OK);
            s = sb_cuda_timer_stop(t);
            bme = s < bme ? s : bme;
        }
        const double rate = (double)N * C * K / best;
        printf("  bench %-4s N=%d C=%ld: %ld steps %.3f ms, %.3e site-steps/s; mode_energies %.3f ms = %.1f%% of %s steps\n",
               model_name[model], N, C, K, best * 1e3, rate, bme * 1e3, 100.0 * bme / (best * 100.0 / K), "100");
        sb_cuda_timer_destroy(t);
        free(ek);
        g.ops->release(&g);
        free_nlc(&g);
    }
}

/* Asynchronous collection: started at step 10, then two more steps() calls (the second
 * writes the very pair the collection reads, so it must wait for it), then waited for:
 * the mode energies must equal, bit for bit, a synchronous collection at step 10 of a
 * twin, and the states after 30 steps must agree bit for bit. Then the driver: with
 * batch = 10 over 30 steps, two collections are complete and the third in flight
 * until nlc_driver_flush, whose result equals a synchronous one at step 30. Big
 * enough (N = 1024, C = 4096) that the transforms are still running when steps() is. */
static void test_async_collection(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const int N = 1024;
    nlc_config cfg = make_cfg(NLC_FPUT, N, 4096);
    nlc g, h;
    make_nlc(&g, &cfg, CUDA_OPS, 0.3);
    make_nlc(&h, &cfg, CUDA_OPS, 0.3);
    double *ea = malloc(N * sizeof(double)), *es = malloc(N * sizeof(double));
    assert_non_null(ea);
    assert_non_null(es);
    assert_int_equal(g.ops->upload(&g), SB_OK);
    assert_int_equal(h.ops->upload(&h), SB_OK);
    assert_int_equal(g.ops->steps(&g, 10), SB_OK);
    assert_int_equal(g.ops->mode_energies_start(&g), SB_OK);
    assert_int_equal(g.ops->steps(&g, 10), SB_OK);
    assert_int_equal(g.ops->steps(&g, 10), SB_OK);
    assert_int_equal(g.ops->mode_energies_wait(&g, ea), SB_OK);
    assert_int_equal(h.ops->steps(&h, 10), SB_OK);
    assert_int_equal(h.ops->mode_energies(&h, es), SB_OK);
    assert_memory_equal(ea, es, N * sizeof(double));
    /* the same calls: steps(10) twice is not steps(20) bit for bit (merged end kicks) */
    assert_int_equal(h.ops->steps(&h, 10), SB_OK);
    assert_int_equal(h.ops->steps(&h, 10), SB_OK);
    assert_int_equal(g.ops->download(&g), SB_OK);
    assert_int_equal(h.ops->download(&h), SB_OK);
    assert_memory_equal(g.q, h.q, (size_t)N * cfg.copies * sizeof(double));
    assert_memory_equal(g.p, h.p, (size_t)N * cfg.copies * sizeof(double));

    nlc_driver d;
    g.cfg.batch = 10;
    assert_int_equal(nlc_driver_init(&d, &g), SB_OK);
    assert_int_equal(nlc_driver_advance(&g, &d, 30), SB_OK);
    assert_int_equal(d.collections, 2);
    assert_int_equal(d.pending, 1);
    assert_int_equal(nlc_driver_flush(&g, &d), SB_OK);
    assert_int_equal(d.collections, 3);
    for (int i = 0; i < 3; i++) assert_int_equal(h.ops->steps(&h, 10), SB_OK);
    assert_int_equal(h.ops->mode_energies(&h, es), SB_OK);
    assert_memory_equal(d.ek, es, N * sizeof(double));
    printf("  async collection: equal to the synchronous one, bit for bit (E_1 = %.6e)\n", es[1]);
    nlc_driver_free(&d);
    g.ops->release(&g);
    h.ops->release(&h);
    free(ea);
    free(es);
    free_nlc(&g);
    free_nlc(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fput), cmocka_unit_test(test_toda),     cmocka_unit_test(test_dnkg),
        cmocka_unit_test(test_dnls), cmocka_unit_test(test_launches), cmocka_unit_test(test_async_collection),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests_name("gpu_nlchains", tests, NULL, NULL);
}
