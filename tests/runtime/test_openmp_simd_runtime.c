/* CPU backend (runtime/openmp_simd): info, aligned memory, clock, probes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sb_omp.h"

static void test_info(void **state) {
    (void)state;
    sb_cpu_info i;
    sb_cpu_get_info(&i);
    print_message("cpu: %s, %d logical CPUs, %d OpenMP threads, compiled %s, supported %s, "
                  "%d float lanes, proc_bind %s\n",
                  i.cpu_model, i.logical_cpus, i.omp_threads, i.isa_compiled, i.isa_supported,
                  i.simd_float_lanes, i.proc_bind);
    assert_true(strlen(i.cpu_model) > 0);
    assert_true(i.logical_cpus >= 1);
    assert_true(i.omp_threads >= 1);
    assert_true(i.simd_float_lanes == 4 || i.simd_float_lanes == 8 || i.simd_float_lanes == 16);
    assert_true(strlen(i.isa_compiled) > 0);
    assert_true(strlen(i.isa_supported) > 0);
    assert_true(strlen(i.proc_bind) > 0);
}

static void test_aligned_alloc(void **state) {
    (void)state;
    const size_t sizes[] = {0, 1, 63, 64, 100, 4096, 1000003, (size_t)1 << 24};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char *p = sb_aligned_alloc(sizes[k]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        memset(p, 0xab, sizes[k]); /* the whole request is writable */
        if (sizes[k]) assert_int_equal(p[sizes[k] - 1], 0xab);
        sb_aligned_free(p);
    }
    sb_aligned_free(NULL);
}

static void test_clock(void **state) {
    (void)state;
    double t0 = sb_clock_seconds(), t1 = t0;
    assert_true(t0 > 0.0);
    for (int k = 0; k < 1000000 && t1 == t0; k++) t1 = sb_clock_seconds();
    assert_true(t1 > t0);
    assert_true(t1 - t0 < 1.0);
}

/* A probe's statistics: best >= median >= worst > 0 over its trials. */
static void check_stats(const sb_probe_stats *p, int min_trials) {
    assert_true(p->trials >= min_trials);
    assert_true(p->worst > 0.0);
    assert_true(p->worst <= p->median && p->median <= p->best);
}

static void test_triad_probe(void **state) {
    (void)state;
    double bw = sb_cpu_probe_triad_bw();
    const sb_probe_stats *p = sb_cpu_probe_triad();
    print_message("triad: %.2f GB/s (%d trials, median %.2f, worst %.2f)\n", bw * 1e-9, p->trials, p->median * 1e-9,
                  p->worst * 1e-9);
    assert_true(bw > 0.1e9);
    assert_true(p->best == bw);
    check_stats(p, 40);
    assert_null(p->isa);
    assert_true(sb_cpu_probe_triad_bw() == bw); /* cached */
}

static void test_fma_probe(void **state) {
    (void)state;
    double f32 = sb_cpu_probe_fma(0), f64 = sb_cpu_probe_fma(1);
    const sb_probe_stats *p32 = sb_cpu_probe_fma_stats(0), *p64 = sb_cpu_probe_fma_stats(1);
    print_message("FMA: %.1f GFLOP/s fp32 (%s), %.1f GFLOP/s fp64 (%s)\n", f32 * 1e-9, p32->isa, f64 * 1e-9, p64->isa);
    assert_true(f32 > 0.0);
    assert_true(f64 > 0.0);
    check_stats(p32, 8); /* windows */
    check_stats(p64, 8);
    /* the machine's FMA, whatever this build's -march: the ISA the CPU offers, not the compiled one */
    sb_cpu_info info;
    sb_cpu_get_info(&info);
    assert_non_null(p32->isa);
    assert_non_null(p64->isa);
    if (!strcmp(info.isa_supported, "AVX2+FMA")) assert_string_equal(p32->isa, "AVX2+FMA");
    if (!strcmp(info.isa_supported, "AVX-512"))
        assert_true(!strcmp(p32->isa, "AVX-512") || !strcmp(p32->isa, "AVX2+FMA"));
    assert_true(sb_cpu_probe_fma(0) == f32 && sb_cpu_probe_fma(1) == f64); /* cached */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info),        cmocka_unit_test(test_aligned_alloc),
        cmocka_unit_test(test_clock),       cmocka_unit_test(test_triad_probe),
        cmocka_unit_test(test_fma_probe),
    };
    return cmocka_run_group_tests_name("cpu_backend", tests, NULL, NULL);
}
