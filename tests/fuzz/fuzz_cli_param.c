/* Fuzz target: command-line parsing (sb_cli_parse) with `--param key=value` tokens, and the
 * typed getters kernels read them with. The input is argv after "scibench", one argument per
 * line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_util.h"
#include "params.h"

#define MAX_ARGS 64

static const sb_param_spec specs[] = {{"T", "0.5", ""}, {"mode", "a", ""}, {NULL, NULL, NULL}};
static const sb_kernel kernel = {.name = "fuzz", .params = specs};

/* The getters on every key given: a value they accept lies in the range they were given. */
static void getters(const sb_params *given)
{
    static const char *const choices[] = {"a", "b", "store", NULL};
    for (int i = 0; i < given->nkv; i++) {
        sb_params p = *given;
        const char *key = p.kv[i].key;
        double d;
        long l;
        int c, rc;
        fuzz_errors_reset();
        rc = sb_param_double(&p, key, 0.5, -10.0, 1e6, &d);
        fuzz_expect_one_line(rc);
        FUZZ_ASSERT(rc || (d >= -10.0 && d <= 1e6));
        fuzz_errors_reset();
        rc = sb_param_long(&p, key, 3, -5, 1L << 40, &l);
        fuzz_expect_one_line(rc);
        FUZZ_ASSERT(rc || (l >= -5 && l <= 1L << 40));
        fuzz_errors_reset();
        rc = sb_param_choice(&p, key, choices, 0, &c);
        fuzz_expect_one_line(rc);
        FUZZ_ASSERT(rc || (c >= 0 && c < 3 && !strcmp(choices[c], p.kv[i].value)));
    }
    /* every key taken: nothing left unused; none taken: the first is reported */
    sb_params all = *given, none = *given;
    for (int i = 0; i < all.nkv; i++) (void)sb_param_string(&all, all.kv[i].key);
    fuzz_errors_reset();
    fuzz_expect_one_line(sb_params_check_unused(&kernel, &all));
    fuzz_errors_reset();
    int rc = sb_params_check_unused(&kernel, &none);
    fuzz_expect_one_line(rc);
    FUZZ_ASSERT(!rc == !none.nkv);
}

/* The strict number parsers agree with printf's round trip. */
static void numbers(const char *s)
{
    long l;
    uint64_t u;
    double d;
    char back[64];
    if (sb_parse_long(s, &l) == 0) {
        long again;
        snprintf(back, sizeof back, "%ld", l);
        FUZZ_ASSERT(sb_parse_long(back, &again) == 0 && again == l);
    }
    if (sb_parse_u64(s, &u) == 0) FUZZ_ASSERT(s[0] >= '0' && s[0] <= '9');
    if (sb_parse_double(s, &d) == 0) FUZZ_ASSERT(isfinite(d));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *argv[MAX_ARGS + 2];
    int argc = 0;
    FUZZ_ASSERT(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = "scibench";
    for (char *p = text; argc <= MAX_ARGS;) {
        char *nl = strchr(p, '\n');
        argv[argc++] = p;
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    for (int i = 1; i < argc; i++) numbers(argv[i]);
    sb_cli c;
    fuzz_errors_reset();
    int rc = sb_cli_parse(argc, argv, &c);
    fuzz_expect_one_line(rc);
    if (!rc && (c.cmd == SB_CMD_RUN || c.cmd == SB_CMD_VALIDATE)) {
        FUZZ_ASSERT(c.kernel && c.params.nkv >= 0 && c.params.nkv <= SB_MAX_PARAMS);
        FUZZ_ASSERT(c.params.reps >= 1 && c.params.reps <= SB_MAX_REPS);
        getters(&c.params);
    }
    free(text);
    return 0;
}
