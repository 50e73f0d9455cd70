/* lattice_mc on the CUDA backend: bit-identical to the reference, and the full
 * three-layer validation through the run loop. Skips without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu_util.h"
#include "lmc_util.h"

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
    };
    return cmocka_run_group_tests_name("gpu_lattice_mc", tests, NULL, NULL);
}
