/* CLI and --param parsing: accepted values, and every rejection exits 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli.h"
#include "params.h"
#include "sb.h"

static sb_params with(const char *const *tokens)
{
    sb_params p;
    sb_params_init(&p);
    for (int i = 0; tokens[i]; i++) assert_int_equal(sb_params_add(&p, tokens[i]), SB_OK);
    return p;
}

static void test_add_good(void **state)
{
    (void)state;
    sb_params p = with((const char *const[]){"T=1.5", "mode=fast", "a.b-c_d=x=y", NULL});
    assert_int_equal(p.nkv, 3);
    assert_string_equal(sb_params_value(&p, "T"), "1.5");
    assert_string_equal(sb_params_value(&p, "a.b-c_d"), "x=y"); /* the first '=' splits */
    assert_null(sb_params_value(&p, "missing"));
    assert_int_equal(p.kv[0].used, 0);
}

static void test_add_bad(void **state)
{
    (void)state;
    sb_params p;
    char long_key[80], long_value[220];
    memset(long_key, 'k', 70);
    strcpy(long_key + 70, "=1");
    memset(long_value, 'v', sizeof long_value);
    memcpy(long_value, "k=", 2);
    long_value[sizeof long_value - 1] = '\0';
    sb_params_init(&p);
    const char *bad[] = {"T", "=3", "T=", "a b=1", long_key, long_value, "", NULL};
    for (int i = 0; bad[i]; i++) assert_int_equal(sb_params_add(&p, bad[i]), SB_EXIT_USAGE);
    assert_int_equal(p.nkv, 0);
    assert_int_equal(sb_params_add(&p, "T=1"), SB_OK);
    assert_int_equal(sb_params_add(&p, "T=2"), SB_EXIT_USAGE); /* duplicate */
    assert_string_equal(sb_params_value(&p, "T"), "1");
}

static void test_too_many(void **state)
{
    (void)state;
    sb_params p;
    char tok[16];
    sb_params_init(&p);
    for (int i = 0; i < SB_MAX_PARAMS; i++) {
        snprintf(tok, sizeof tok, "k%d=1", i);
        assert_int_equal(sb_params_add(&p, tok), SB_OK);
    }
    assert_int_equal(sb_params_add(&p, "one=more"), SB_EXIT_USAGE);
}

static void test_double(void **state)
{
    (void)state;
    double v = 0;
    sb_params p = with((const char *const[]){"T=0.25", "bad=1.5x", "nan=nan", "inf=inf", "big=1e999", "sp= 1",
                                             "hi=11", "lo=-1", NULL});
    assert_int_equal(sb_param_double(&p, "absent", 2.5, 0, 10, &v), SB_OK);
    assert_true(v == 2.5);
    assert_int_equal(sb_param_double(&p, "T", 1, 0, 10, &v), SB_OK);
    assert_true(v == 0.25);
    assert_int_equal(p.kv[0].used, 1);
    const char *bad[] = {"bad", "nan", "inf", "big", "sp", "hi", "lo", NULL};
    for (int i = 0; bad[i]; i++) {
        v = 42;
        assert_int_equal(sb_param_double(&p, bad[i], 1, 0, 10, &v), SB_EXIT_USAGE);
        assert_true(v == 42); /* untouched on error */
    }
    assert_int_equal(sb_param_double(&p, "hi", 1, 0, 11, &v), SB_OK); /* bounds are inclusive */
}

static void test_long(void **state)
{
    (void)state;
    long v = 0;
    sb_params p = with((const char *const[]){"n=12", "f=1.5", "hex=0x10", "huge=99999999999999999999", "neg=-3", NULL});
    assert_int_equal(sb_param_long(&p, "n", 1, 1, 100, &v), SB_OK);
    assert_int_equal(v, 12);
    assert_int_equal(sb_param_long(&p, "absent", 7, 1, 100, &v), SB_OK);
    assert_int_equal(v, 7);
    assert_int_equal(sb_param_long(&p, "f", 1, 1, 100, &v), SB_EXIT_USAGE);
    assert_int_equal(sb_param_long(&p, "hex", 1, 1, 100, &v), SB_EXIT_USAGE);
    assert_int_equal(sb_param_long(&p, "huge", 1, 1, 100, &v), SB_EXIT_USAGE);
    assert_int_equal(sb_param_long(&p, "neg", 1, 1, 100, &v), SB_EXIT_USAGE);
    assert_int_equal(sb_param_long(&p, "neg", 1, -5, 100, &v), SB_OK);
    assert_int_equal(v, -3);
}

static void test_choice_and_string(void **state)
{
    (void)state;
    static const char *const modes[] = {"bulk", "droplet", NULL};
    int idx = -1;
    sb_params p = with((const char *const[]){"g=droplet", "h=Bulk", "s=hello", NULL});
    assert_int_equal(sb_param_choice(&p, "g", modes, 0, &idx), SB_OK);
    assert_int_equal(idx, 1);
    assert_int_equal(sb_param_choice(&p, "absent", modes, 0, &idx), SB_OK);
    assert_int_equal(idx, 0);
    assert_int_equal(sb_param_choice(&p, "h", modes, 0, &idx), SB_EXIT_USAGE); /* case matters */
    assert_string_equal(sb_param_string(&p, "s"), "hello");
    assert_null(sb_param_string(&p, "absent"));
    for (int i = 0; i < p.nkv; i++) assert_int_equal(p.kv[i].used, 1);
}

static void test_unused(void **state)
{
    (void)state;
    static const sb_param_spec spec[] = {{"T", "1", "temperature"}, {NULL, NULL, NULL}};
    sb_kernel k = {.name = "fake", .params = spec};
    double v;
    sb_params p = with((const char *const[]){"T=2", NULL});
    assert_int_equal(sb_params_check_unused(&k, &p), SB_EXIT_USAGE); /* a known key these settings did not read */
    assert_int_equal(sb_param_double(&p, "T", 1, 0, 10, &v), SB_OK);
    assert_int_equal(sb_params_check_unused(&k, &p), SB_OK);
    assert_int_equal(sb_params_add(&p, "foo=1"), SB_OK);
    assert_int_equal(sb_params_check_unused(&k, &p), SB_EXIT_USAGE);
}

static void test_numbers(void **state)
{
    (void)state;
    uint64_t u;
    long l;
    double d;
    assert_int_equal(sb_parse_u64("18446744073709551615", &u), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(sb_parse_u64("18446744073709551616", &u), 1);
    assert_int_equal(sb_parse_u64("-1", &u), -1);
    assert_int_equal(sb_parse_u64("+1", &u), -1);
    assert_int_equal(sb_parse_u64("", &u), -1);
    assert_int_equal(sb_parse_long(" 5", &l), -1);
    assert_int_equal(sb_parse_long("5 ", &l), -1);
    assert_int_equal(sb_parse_double("1e-3", &d), 0);
    assert_true(d == 1e-3);
    assert_int_equal(sb_parse_double("-inf", &d), -1);
    assert_int_equal(sb_parse_double("NaN", &d), -1);
}

static void test_backend(void **state)
{
    (void)state;
    sb_backend b;
    for (int i = 0; i < SB_BACKEND_COUNT; i++) {
        assert_int_equal(sb_backend_parse(sb_backend_name((sb_backend)i), &b), SB_OK);
        assert_int_equal(b, i);
    }
    assert_string_equal(sb_backend_name(SB_BACKEND_CUDA), "cuda");
    assert_int_equal(sb_backend_parse("CUDA", &b), SB_EXIT_USAGE);
    assert_int_equal(sb_backend_parse("openmp", &b), SB_EXIT_USAGE);
    assert_int_equal(sb_backend_parse("", &b), SB_EXIT_USAGE);
}

#define PARSE(c, ...) sb_cli_parse((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), (char *[]){__VA_ARGS__}, c)

static void test_cli_run(void **state)
{
    (void)state;
    sb_cli c;
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--backend", "reference", "--size=64", "--reps", "3", "--warmup=0",
                           "--seed", "18446744073709551615", "--param", "T=2", "--param=W=3", "--json", "o.json",
                           "--quiet"),
                     SB_OK);
    assert_int_equal(c.cmd, SB_CMD_RUN);
    assert_string_equal(c.kernel, "k");
    assert_int_equal(c.backend, SB_BACKEND_REFERENCE);
    assert_int_equal(c.params.size, 64);
    assert_int_equal(c.params.reps, 3);
    assert_int_equal(c.params.warmup, 0);
    assert_true(c.params.seed == UINT64_MAX);
    assert_int_equal(c.params.nkv, 2);
    assert_string_equal(sb_params_value(&c.params, "W"), "3");
    assert_string_equal(c.params.json_path, "o.json");
    assert_int_equal(c.params.quiet, 1);
}

static void test_cli_defaults(void **state)
{
    (void)state;
    sb_cli c;
    assert_int_equal(PARSE(&c, "sb", "run", "k"), SB_OK);
    assert_int_equal(c.backend, SB_BACKEND_OPENMP_SIMD);
    assert_int_equal(c.params.size, 0);
    assert_int_equal(c.params.reps, 5);
    /* --size 0 is the kernel's default, as absent */
    assert_int_equal(PARSE(&c, "sb", "run", "lattice_mc", "--size", "0"), SB_OK);
    assert_int_equal(c.params.size, 0);
    assert_int_equal(c.params.warmup, 1);
    assert_true(c.params.seed == 1);
    assert_null(c.params.json_path);
    assert_int_equal(PARSE(&c, "sb", "validate", "k"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_VALIDATE);
    assert_int_equal(c.params.reps, 1);
    assert_int_equal(c.params.warmup, 0);
    assert_int_equal(PARSE(&c, "sb", "validate", "--reps", "4", "k", "--warmup", "2"), SB_OK);
    assert_int_equal(c.params.reps, 4);
    assert_int_equal(c.params.warmup, 2);
}

static void test_cli_commands(void **state)
{
    (void)state;
    sb_cli c;
    assert_int_equal(PARSE(&c, "sb", "help"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_HELP);
    assert_int_equal(PARSE(&c, "sb", "--help"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_HELP);
    assert_int_equal(PARSE(&c, "sb", "--version"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_VERSION);
    assert_int_equal(PARSE(&c, "sb", "list"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_LIST);
    assert_int_equal(PARSE(&c, "sb", "info"), SB_OK);
    assert_int_equal(c.cmd, SB_CMD_INFO);
}

static void test_cli_bad(void **state)
{
    (void)state;
    sb_cli c;
    assert_int_equal(PARSE(&c, "sb"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "compare"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "list", "extra"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "k2"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--bogus", "1"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "-r", "1"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--reps"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--quiet=yes"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--backend", "gpu"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--json="), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--param", "T"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--param", "T=1", "--param", "T=1"), SB_EXIT_USAGE);
    const char *const reps[] = {"0", "100001", "-1", "abc", "5x", "", " 5", "1e3", "99999999999999999999", NULL};
    for (int i = 0; reps[i]; i++) assert_int_equal(PARSE(&c, "sb", "run", "k", "--reps", (char *)reps[i]), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--warmup", "-1"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--warmup", "100001"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--size", "-1"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--size", "3000000000"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--size", "12abc"), SB_EXIT_USAGE);
    /* a known kernel's own range: lattice_mc's L is 4..1024 */
    assert_int_equal(PARSE(&c, "sb", "run", "lattice_mc", "--size", "2"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "lattice_mc", "--size", "1025"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "lattice_mc", "--size", "1024"), SB_OK);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--seed", "-1"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--seed", "18446744073709551616"), SB_EXIT_USAGE);
    assert_int_equal(PARSE(&c, "sb", "run", "k", "--seed", "0x10"), SB_EXIT_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_good),     cmocka_unit_test(test_add_bad),     cmocka_unit_test(test_too_many),
        cmocka_unit_test(test_double),       cmocka_unit_test(test_long),        cmocka_unit_test(test_choice_and_string),
        cmocka_unit_test(test_unused),       cmocka_unit_test(test_numbers),     cmocka_unit_test(test_backend),
        cmocka_unit_test(test_cli_run),      cmocka_unit_test(test_cli_defaults), cmocka_unit_test(test_cli_commands),
        cmocka_unit_test(test_cli_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
