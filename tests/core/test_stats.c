/* Timing statistics: median of odd and even counts, extremes, input untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"

/* cmocka 1.1 compares floats only, in single precision. */
#define assert_near(a, b, eps)                                                 \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        if (!(fabs(a_ - b_) <= (eps))) {                                       \
            print_error("%.17g != %.17g (tolerance %g)\n", a_, b_, (double)(eps)); \
            fail();                                                            \
        }                                                                      \
    } while (0)

static void test_odd(void **state)
{
    (void)state;
    const double x[] = {5, 1, 3};
    sb_stats s;
    assert_int_equal(sb_stats_compute(x, 3, &s), 0);
    assert_int_equal(s.n, 3);
    assert_near(s.median, 3, 0);
    assert_near(s.min, 1, 0);
    assert_near(s.max, 5, 0);
    assert_near(s.mean, 3, 1e-15);
    assert_near(s.stddev, 2, 1e-15); /* sample stddev: sqrt((4+4+0)/2) */
}

static void test_even(void **state)
{
    (void)state;
    const double x[] = {4, 1, 10, 2};
    sb_stats s;
    assert_int_equal(sb_stats_compute(x, 4, &s), 0);
    assert_near(s.median, 3, 0); /* (2 + 4) / 2 */
    assert_near(s.min, 1, 0);
    assert_near(s.max, 10, 0);
    assert_near(s.mean, 4.25, 1e-15);
}

static void test_single(void **state)
{
    (void)state;
    const double x[] = {0.125};
    sb_stats s;
    assert_int_equal(sb_stats_compute(x, 1, &s), 0);
    assert_near(s.median, 0.125, 0);
    assert_near(s.min, 0.125, 0);
    assert_near(s.max, 0.125, 0);
    assert_near(s.stddev, 0, 0);
}

static void test_not_mutated(void **state)
{
    (void)state;
    double x[] = {9, 7, 8, 1, 3, 2};
    double copy[6];
    memcpy(copy, x, sizeof x);
    sb_stats s;
    assert_int_equal(sb_stats_compute(x, 6, &s), 0);
    assert_memory_equal(x, copy, sizeof x);
    assert_near(s.median, 5, 0);
}

static void test_empty(void **state)
{
    (void)state;
    sb_stats s;
    assert_int_equal(sb_stats_compute(NULL, 0, &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd),         cmocka_unit_test(test_even), cmocka_unit_test(test_single),
        cmocka_unit_test(test_not_mutated), cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
