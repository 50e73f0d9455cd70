/* Machine ids for results/ folders, and build provenance strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo.h"
#include "version.h"

static void expect_slug(const char *name, const char *slug)
{
    char out[64];
    sb_gpu_slug(name, out, sizeof out);
    if (strcmp(out, slug) != 0) print_error("'%s' -> '%s', expected '%s'\n", name, out, slug);
    assert_string_equal(out, slug);
}

static void test_gpu_slug(void **state)
{
    (void)state;
    expect_slug("NVIDIA H100 80GB HBM3", "h100");
    expect_slug("NVIDIA H200", "h200");
    expect_slug("NVIDIA A100-SXM4-40GB", "a100");
    expect_slug("NVIDIA H100 PCIe", "h100");
    expect_slug("NVIDIA GH200 480GB", "gh200");
    expect_slug("NVIDIA L40S", "l40s");
    expect_slug("Tesla V100-SXM2-16GB", "v100");
    expect_slug("Tesla T4", "t4");
    expect_slug("NVIDIA RTX A6000", "a6000");
    expect_slug("NVIDIA GeForce RTX 4090", "rtx-4090"); /* no model token: sanitized name */
    expect_slug("NVIDIA", "gpu");
    expect_slug("", "gpu");
}

static void test_slug_truncates(void **state)
{
    (void)state;
    char out[8];
    sb_gpu_slug("Some Very Long Accelerator Name", out, sizeof out);
    assert_true(strlen(out) < sizeof out);
}

static void test_machine_id(void **state)
{
    (void)state;
    sb_hwinfo h;
    unsetenv("SB_MACHINE");
    sb_hwinfo_get(&h);
    assert_true(h.cpu.logical_cpus >= 1);
    assert_true(strlen(h.hostname) > 0);
    if (h.have_gpu) {
        char slug[64];
        sb_gpu_slug(h.gpu.name, slug, sizeof slug);
        assert_string_equal(h.machine, slug);
    } else {
        char expect[64];
        snprintf(expect, sizeof expect, "cpu-%dcore", h.cpu.logical_cpus);
        assert_string_equal(h.machine, expect);
        assert_true(strlen(h.gpu_why) > 0);
    }
    setenv("SB_MACHINE", "ci-runner", 1);
    sb_hwinfo_get(&h);
    assert_string_equal(h.machine, "ci-runner");
    unsetenv("SB_MACHINE");
}

static void test_version(void **state)
{
    (void)state;
    assert_true(strlen(sb_version_commit()) > 0);
    assert_true(strlen(sb_version_cc()) > 0);
    assert_true(strlen(sb_version_nvcc()) > 0);
    assert_true(strlen(sb_version_arch()) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_slug), cmocka_unit_test(test_slug_truncates), cmocka_unit_test(test_machine_id),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
