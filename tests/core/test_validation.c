/* Check verdicts (abs, rel, max; NaN and inf never pass) and counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb.h"

static int check(double value, double reference, double tol, sb_tol_kind kind)
{
    sb_validation v = {0};
    return sb_check_add(&v, "c", value, reference, tol, kind, "1", "test");
}

static void test_kinds(void **state)
{
    (void)state;
    assert_true(check(1.0, 1.1, 0.1 + 1e-12, SB_TOL_ABS));
    assert_false(check(1.0, 1.2, 0.1, SB_TOL_ABS));
    assert_true(check(-101.0, -100.0, 0.01, SB_TOL_REL)); /* relative to |reference| */
    assert_false(check(-102.0, -100.0, 0.01, SB_TOL_REL));
    assert_true(check(5.0, 5.0, 0.0, SB_TOL_ABS));         /* exact match, zero tolerance */
    assert_true(check(3.0, 3.0, 123.0, SB_TOL_MAX));      /* value <= reference, tolerance unused */
    assert_true(check(-1.0, 3.0, 0.0, SB_TOL_MAX));
    assert_false(check(3.5, 3.0, 1e9, SB_TOL_MAX));
}

static void test_non_finite(void **state)
{
    (void)state;
    const sb_tol_kind kinds[] = {SB_TOL_ABS, SB_TOL_REL, SB_TOL_MAX};
    for (int k = 0; k < 3; k++) {
        assert_false(check(NAN, 1.0, INFINITY, kinds[k]));
        assert_false(check(1.0, NAN, INFINITY, kinds[k]));
        assert_false(check(INFINITY, INFINITY, INFINITY, kinds[k]));
        assert_false(check(-INFINITY, 1.0, 1.0, kinds[k])); /* -inf <= 1 must still fail MAX */
    }
    assert_false(check(1.0, 1.0, NAN, SB_TOL_ABS));
    assert_false(check(1.0, 1.0, INFINITY, SB_TOL_REL));
}

static void test_record(void **state)
{
    (void)state;
    sb_validation v = {0};
    assert_false(sb_validation_passed(&v)); /* no checks is not validated */
    sb_check_add(&v, "energy", -2.5, -2.5, 1e-6, SB_TOL_REL, "epsilon", "published table");
    assert_int_equal(v.n, 1);
    assert_string_equal(v.check[0].name, "energy");
    assert_string_equal(v.check[0].unit, "epsilon");
    assert_string_equal(v.check[0].source, "published table");
    assert_int_equal(v.check[0].kind, SB_TOL_REL);
    assert_true(v.check[0].pass);
    assert_true(sb_validation_passed(&v));
    sb_check_add(&v, "drift", 2, 1, 0, SB_TOL_MAX, NULL, NULL);
    assert_false(sb_validation_passed(&v));
    assert_string_equal(v.check[1].unit, "");
}

static void test_overflow(void **state)
{
    (void)state;
    sb_validation v = {0};
    for (int i = 0; i < SB_MAX_CHECKS; i++) sb_check_add(&v, "ok", 1, 1, 0, SB_TOL_ABS, "", "");
    assert_true(sb_validation_passed(&v));
    assert_false(sb_check_add(&v, "one too many", 1, 1, 0, SB_TOL_ABS, "", ""));
    assert_int_equal(v.n, SB_MAX_CHECKS);
    assert_false(sb_validation_passed(&v)); /* a dropped check must fail the run */
}

static void test_counters(void **state)
{
    (void)state;
    sb_counters cs = {0};
    sb_counter_set(&cs, "energy", 1.0, "epsilon");
    sb_counter_set(&cs, "order", 0.5, "");
    sb_counter_set(&cs, "energy", 2.0, "epsilon/site");
    assert_int_equal(cs.n, 2);
    assert_string_equal(cs.c[0].name, "energy");
    assert_true(cs.c[0].value == 2.0);
    assert_string_equal(cs.c[0].unit, "epsilon/site");
    for (int i = 0; i < SB_MAX_COUNTERS + 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        sb_counter_set(&cs, name, i, "1");
    }
    assert_int_equal(cs.n, SB_MAX_COUNTERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),    cmocka_unit_test(test_non_finite), cmocka_unit_test(test_record),
        cmocka_unit_test(test_overflow), cmocka_unit_test(test_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
