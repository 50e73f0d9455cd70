/* lattice_mc on the CUDA backend: bit-identical to the reference, and the full
 * three-layer validation through the run loop. Skips without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu_util.h"
#include "lattice_mc_util.h"

static void test_cuda_matches_reference_bulk(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    lmc_assert_matches_reference(SB_BACKEND_CUDA, 6, LMC_BULK, 5, 11);   /* odd L/2: wraps */
    lmc_assert_matches_reference(SB_BACKEND_CUDA, 40, LMC_BULK, 3, 12);  /* blocks of 20 x 12 */
}

static void test_cuda_matches_reference_droplet(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    lmc_assert_matches_reference(SB_BACKEND_CUDA, 24, LMC_DROPLET, 4, 13);
}

/* The fused sweep (fuse=slab, slab_l2) against the reference, bit for bit: odd plane counts
 * and slab remainders (L/2 = slab q + r), one, two and many chunks a plane-tick (rows of
 * 2 by: 16 rows up to L/2 = 32, 8 up to 64, 4 up to 128, 2 beyond), rows wider than a
 * block (L/2 > 256: two passes in x), droplets. */
static void test_cuda_fused_matches_reference(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    static const struct {
        int L, geometry, slab, sweeps;
    } cases[] = {{6, LMC_BULK, 2, 5},     {10, LMC_BULK, 2, 4},    {34, LMC_BULK, 4, 3},   {40, LMC_BULK, 3, 3},
                 {66, LMC_BULK, 4, 3},    {72, LMC_BULK, 0, 3},    {24, LMC_DROPLET, 2, 4}, {70, LMC_DROPLET, 3, 3},
                 {300, LMC_BULK, 0, 2},   {516, LMC_BULK, 0, 1}};
    for (int fuse = 1; fuse <= 2; fuse++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (fuse == 2 && cases[i].L > 100) continue; /* the large rows once */
            lmc_config cfg = lmc_test_config(cases[i].L, cases[i].geometry, 21 + i);
            cfg.fuse = fuse, cfg.slab = cases[i].slab;
            print_message("fuse %d, L %d, %s, slab %d\n", fuse, cfg.L, cfg.geometry ? "droplet" : "bulk", cfg.slab);
            lmc_assert_cfg_matches_reference(SB_BACKEND_CUDA, &cfg, cases[i].sweeps);
        }
}

static void test_cuda_fused_validates(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    const char *const bulk[] = {"fuse", "slab", NULL}, *const droplet[] = {"fuse", "slab_l2", "geometry", "droplet", NULL};
    lmc_assert_run_validates(SB_BACKEND_CUDA, 32, bulk);
    lmc_assert_run_validates(SB_BACKEND_CUDA, 32, droplet);
}

static void test_cuda_validates(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    lmc_assert_kernel_validates(SB_BACKEND_CUDA, 32, NULL);
    lmc_assert_kernel_validates(SB_BACKEND_CUDA, 32, "droplet");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_matches_reference_bulk),
        cmocka_unit_test(test_cuda_matches_reference_droplet),
        cmocka_unit_test(test_cuda_validates),
        cmocka_unit_test(test_cuda_fused_matches_reference),
        cmocka_unit_test(test_cuda_fused_validates),
    };
    return cmocka_run_group_tests_name("gpu_lattice_mc", tests, NULL, NULL);
}
