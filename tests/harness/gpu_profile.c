/* --profile on the GPU: ncu counts a copy kernel of known size (this program run again
 * as its child, the copy alone inside the profiler range); the DRAM bytes it measures
 * must be the bytes read plus written, within 5 %. Skips without a GPU; with a GPU but
 * no readable counters it skips with the reason, unless SB_REQUIRE_GPU is set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpu_util.h"
#include "profile.h"
#include "sb_cuda_prof.h"

#define COPY_BYTES ((size_t)512 << 20)

static void test_copy_bytes(void **state)
{
    (void)state;
    REQUIRE_GPU(NULL);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    char *argv[] = {exe, "copy-child", NULL};
    static sb_profile p;
    assert_int_equal(sb_ncu_profile(argv, 0, &p), SB_OK);
    if (p.kind == SB_PROF_NONE) {
        if (gpu_required()) fail_msg("SB_REQUIRE_GPU is set but no counters: %s", p.why);
        printf("SKIP: no GPU counters: %s\n", p.why);
        skip();
    }
    assert_int_equal(p.nlaunch, 1);
    assert_string_equal(p.group[0].name, "sb_probe_copy_kernel");
    const sb_prof_group *g = &p.group[0];
    double moved = g->dram_read + g->dram_write, expect = 2.0 * (double)COPY_BYTES;
    print_message("%s: DRAM read %.4g B, written %.4g B; copy of %zu B moves %.4g B (ratio %.4f); "
                  "occupancy %.1f %% achieved, %.1f %% theoretical; ld eta %.3f\n",
                  p.tool, g->dram_read, g->dram_write, COPY_BYTES, expect, moved / expect, g->occ_achieved,
                  g->occ_theoretical, g->ld_bytes_req / (32.0 * g->ld_sectors));
    assert_true(fabs(moved / expect - 1.0) <= 0.05);
    assert_true(fabs(g->dram_read / (double)COPY_BYTES - 1.0) <= 0.05);
    /* 16-byte loads of consecutive addresses: every transferred sector was asked for */
    assert_true(fabs(g->ld_bytes_req / (32.0 * g->ld_sectors) - 1.0) <= 0.01);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "copy-child")) {
        sb_cuda_info info;
        if (sb_cuda_init(&info)) return 3;
        return sb_cuda_selftest_copy(COPY_BYTES, 1);
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_copy_bytes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
