/* lattice_mc test helpers shared by the CPU and GPU tests. Include after <cmocka.h>. */
#ifndef SB_TESTS_LMC_UTIL_H
#define SB_TESTS_LMC_UTIL_H

#include <string.h>

#include "lattice_mc/lattice_mc.h"
#include "lattice_mc/lmc.h"
#include "runloop.h"

static lmc_config lmc_test_config(int L, int geometry, uint64_t seed)
{
    lmc_config c;
    memset(&c, 0, sizeof c);
    c.L = L, c.geometry = geometry, c.T0 = c.T1 = 0.9, c.W = geometry == LMC_DROPLET ? -1.5 : 0.0;
    c.chi = 0.2, c.step = 0.4, c.sweeps_per_rep = 1, c.seed = seed;
    return c;
}

/* Runs `sweeps` sweeps of cfg on backend b and on the reference from the same state;
 * asserts every director is bit-identical and the accept counts equal. */
static void lmc_assert_cfg_matches_reference(sb_backend b, const lmc_config *cfg, int sweeps)
{
    lmc r, t;
    assert_int_equal(lmc_create(&r, cfg, SB_BACKEND_REFERENCE), SB_OK);
    assert_int_equal(lmc_create(&t, cfg, b), SB_OK);
    assert_int_equal(r.ops->upload(&r), SB_OK);
    assert_int_equal(t.ops->upload(&t), SB_OK);
    assert_int_equal(lmc_run_sweeps(&r, sweeps, 0), SB_OK);
    assert_int_equal(lmc_run_sweeps(&t, sweeps, 0), SB_OK);
    double dr, ar, dt, at;
    assert_int_equal(r.ops->totals(&r, &dr, &ar), SB_OK);
    assert_int_equal(t.ops->totals(&t, &dt, &at), SB_OK);
    assert_int_equal(t.ops->download(&t), SB_OK);
    assert_true(ar > 0);
    assert_true(ar == at);
    size_t bytes = (size_t)r.nsites * sizeof(float);
    assert_memory_equal(r.nx, t.nx, bytes);
    assert_memory_equal(r.ny, t.ny, bytes);
    assert_memory_equal(r.nz, t.nz, bytes);
    lmc_destroy(&r);
    lmc_destroy(&t);
}

static void lmc_assert_matches_reference(sb_backend b, int L, int geometry, int sweeps, uint64_t seed)
{
    lmc_config cfg = lmc_test_config(L, geometry, seed);
    lmc_assert_cfg_matches_reference(b, &cfg, sweeps);
}

/* The whole kernel through the harness's run loop with parameters kv (key, value, ...,
 * NULL): must validate. */
static void lmc_assert_run_validates(sb_backend b, int size, const char *const *kv)
{
    sb_params p;
    memset(&p, 0, sizeof p);
    p.size = size, p.reps = 2, p.warmup = 1, p.seed = 7, p.quiet = 1;
    for (; kv && kv[0]; kv += 2, p.nkv++) {
        strcpy(p.kv[p.nkv].key, kv[0]);
        strcpy(p.kv[p.nkv].value, kv[1]);
    }
    sb_result res;
    assert_int_equal(sb_run_case(&lattice_mc_kernel, b, &p, 0, &res), SB_OK);
    for (int i = 0; i < res.validation.n; i++)
        if (!res.validation.check[i].pass)
            print_message("FAIL %s: %g vs %g\n", res.validation.check[i].name, res.validation.check[i].value,
                          res.validation.check[i].reference);
    assert_true(res.passed);
    assert_true(res.stats.median > 0.0);
    sb_result_free(&res);
}

static void lmc_assert_kernel_validates(sb_backend b, int size, const char *geometry)
{
    const char *const kv[] = {"geometry", geometry, NULL};
    lmc_assert_run_validates(b, size, geometry ? kv : NULL);
}

#endif
