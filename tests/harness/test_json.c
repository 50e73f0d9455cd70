/* The run loop and JSON writer on a fake kernel: schema, validation verdict,
 * and that every refusal happens before anything runs and leaves no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "params.h"
#include "runloop.h"
#include "session.h"

/* ---- a fake kernel: sum of scale * i over i < size -------------------- */
typedef struct {
    double scale, sum;
} fake_state;

static struct {
    int setups, runs, teardowns;
    int wrong_reference; /* makes validation fail */
    int run_error;       /* run() returns this */
} fk;

static int fake_setup(sb_case *c)
{
    fk.setups++;
    fake_state *s = calloc(1, sizeof *s);
    if (!s) return SB_EXIT_RUNTIME;
    c->state = s;
    int rc = sb_param_double(c->params, "scale", 1.0, 0.0, 100.0, &s->scale);
    if (rc) return rc;
    c->work = (sb_work){.items = c->params->size, .bytes = 8.0 * c->params->size, .flops = c->params->size};
    return SB_OK;
}

static int fake_run(sb_case *c)
{
    fake_state *s = c->state;
    fk.runs++;
    if (fk.run_error) {
        sb_error("fake run failed on purpose");
        return fk.run_error;
    }
    s->sum = 0;
    for (int i = 0; i < c->params->size; i++) s->sum += s->scale * i;
    return SB_OK;
}

static int fake_finish(sb_case *c)
{
    fake_state *s = c->state;
    sb_counter_set(&c->counters, "sum", s->sum, "1");
    return SB_OK;
}

static int fake_validate(sb_case *c, sb_validation *v)
{
    fake_state *s = c->state;
    double n = c->params->size, exact = s->scale * n * (n - 1) / 2 + (fk.wrong_reference ? 1 : 0);
    sb_check_add(v, "sum", s->sum, exact, 1e-12, SB_TOL_REL, "1", "closed form n(n-1)/2");
    return SB_OK;
}

static void fake_teardown(sb_case *c)
{
    fk.teardowns++;
    free(c->state);
    c->state = NULL;
}

static const sb_param_spec fake_params[] = {{"scale", "1.0", "multiplies every term"}, {NULL, NULL, NULL}};

static const sb_kernel fake = {
    .name = "fake", .summary = "arithmetic series", .item = "terms", .size_meaning = "n, number of terms",
    .default_size = 1000, .min_size = 1, .max_size = 1000000, .ci_size = 100,
    .params = fake_params, .has_backend = {[SB_BACKEND_OPENMP_SIMD] = 1, [SB_BACKEND_REFERENCE] = 1},
    .setup = fake_setup, .run = fake_run, .finish = fake_finish, .validate = fake_validate,
    .teardown = fake_teardown,
};

/* ---- helpers ---------------------------------------------------------- */
static char dir[64], path[128];

static int make_dir(void **state)
{
    (void)state;
    memset(&fk, 0, sizeof fk);
    snprintf(dir, sizeof dir, "/tmp/sb_test_json_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/out.json", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    unlink(path);
    return rmdir(dir); /* fails when something unexpected (the writer's temporary) was left behind */
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Runs a session; the human report goes to a scratch file returned in *report. */
static int session(sb_params *p, sb_backend b, int validate_only, char *report, size_t n)
{
    FILE *out = tmpfile();
    assert_non_null(out);
    sb_session_opts o = {.validate_only = validate_only, .exe = "test_json", .out = out};
    int rc = sb_session_run(&fake, b, p, &o);
    rewind(out);
    size_t len = fread(report, 1, n - 1, out);
    report[len] = '\0';
    fclose(out);
    return rc;
}

static sb_params params(int reps, const char *json)
{
    sb_params p;
    sb_params_init(&p);
    p.size = 100;
    p.reps = reps;
    p.quiet = 1;
    p.json_path = json;
    return p;
}

static double num_field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    assert_non_null(v);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static const char *str_field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    assert_non_null(v);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

static json_t *load(const char *p)
{
    json_error_t err;
    json_t *root = json_load_file(p, 0, &err);
    if (!root) print_error("%s:%d: %s\n", p, err.line, err.text);
    assert_non_null(root);
    return root;
}

/* ---- tests ------------------------------------------------------------ */
/* case_level: the median entry, the only one with the kernel's counters, launches and
 * validation (they describe the case, not a repetition). */
static void check_entry(json_t *b, int passed, int case_level)
{
    assert_string_equal(str_field(b, "run_name"), "fake/openmp_simd/100");
    assert_int_equal((int)num_field(b, "family_index"), 0);
    assert_int_equal((int)num_field(b, "iterations"), 1);
    assert_int_equal((int)num_field(b, "repetitions"), 4);
    assert_string_equal(str_field(b, "time_unit"), "ms");
    assert_true(num_field(b, "real_time") >= 0);
    assert_true(num_field(b, "cpu_time") == num_field(b, "real_time"));
    assert_true(num_field(b, "items_per_second") > 0);
    assert_true(num_field(b, "bytes_per_second") > 0);
    assert_true(num_field(b, "flops_per_second") > 0);
    assert_true(num_field(b, "percent_peak_bandwidth") > 0);
    if (!case_level) {
        assert_null(json_object_get(b, "sum"));
        assert_null(json_object_get(b, "launch"));
        assert_null(json_object_get(b, "validation"));
    } else {
        assert_true(num_field(b, "sum") == 4950 * 2.0); /* counter as an extra field */
    }
    assert_string_equal(str_field(b, "kernel"), "fake");
    assert_string_equal(str_field(b, "backend"), "openmp_simd");
    assert_int_equal((int)num_field(b, "size"), 100);
    assert_int_equal((int)num_field(b, "seed"), 7);
    assert_string_equal(str_field(b, "item"), "terms");
    assert_string_equal(str_field(json_object_get(b, "params"), "scale"), "2");
    if (!case_level) return;
    assert_true(json_is_array(json_object_get(b, "launch")));
    json_t *v = json_object_get(b, "validation");
    assert_true(json_is_boolean(json_object_get(v, "passed")));
    assert_int_equal(json_is_true(json_object_get(v, "passed")), passed);
    json_t *check = json_array_get(json_object_get(v, "checks"), 0);
    assert_string_equal(str_field(check, "name"), "sum");
    assert_string_equal(str_field(check, "kind"), "rel");
    assert_int_equal(json_is_true(json_object_get(check, "pass")), passed);
}

static void test_schema(void **state)
{
    (void)state;
    char report[8192];
    sb_params p = params(4, path);
    p.seed = 7;
    assert_int_equal(sb_params_add(&p, "scale=2"), SB_OK);
    assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 0, report, sizeof report), 0);
    assert_non_null(strstr(report, "VALIDATION PASSED"));
    assert_non_null(strstr(report, "terms/s"));
    assert_int_equal(fk.runs, 1 + 4); /* one warm-up, four timed */
    assert_int_equal(fk.teardowns, 1);
    json_t *root = load(path), *ctx = json_object_get(root, "context");
    assert_true(strlen(str_field(ctx, "machine")) > 0);
    assert_true(strlen(str_field(ctx, "date")) >= 19);
    assert_string_equal(str_field(ctx, "executable"), "test_json");
    assert_true(num_field(json_object_get(ctx, "peaks"), "triad_bandwidth_Bps") > 0);
    /* each probe's trials beside the peaks: the peak is their best */
    json_t *spread = json_object_get(json_object_get(ctx, "peaks_spread"), "triad_bandwidth_Bps");
    assert_true(num_field(spread, "best") == num_field(json_object_get(ctx, "peaks"), "triad_bandwidth_Bps"));
    assert_true(num_field(spread, "trials") >= 40);
    assert_true(num_field(spread, "worst") <= num_field(spread, "median"));
    assert_true(num_field(json_object_get(json_object_get(ctx, "peaks_spread"), "fma_fp64_flops"), "trials") >= 8); /* its windows */
    assert_true(strlen(str_field(ctx, "fma_isa")) > 0);
    assert_true(json_is_object(json_object_get(ctx, "cpu")));
    json_t *bs = json_object_get(root, "benchmarks");
    assert_int_equal(json_array_size(bs), 4 + 3);
    for (size_t i = 0; i < json_array_size(bs); i++) check_entry(json_array_get(bs, i), 1, i == 4);
    const char *agg[] = {"median", "min", "max"};
    for (int k = 0; k < 3; k++) {
        json_t *b = json_array_get(bs, 4 + (size_t)k);
        assert_string_equal(str_field(b, "run_type"), "aggregate");
        assert_string_equal(str_field(b, "aggregate_name"), agg[k]);
    }
    json_t *first = json_array_get(bs, 0);
    assert_string_equal(str_field(first, "run_type"), "iteration");
    assert_int_equal((int)num_field(first, "repetition_index"), 0);
    assert_true(num_field(json_array_get(bs, 5), "real_time") <= num_field(json_array_get(bs, 6), "real_time"));
    json_decref(root);
}

static void test_failed_validation(void **state)
{
    (void)state;
    char report[8192];
    sb_params p = params(1, path);
    fk.wrong_reference = 1;
    assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 1, report, sizeof report), SB_EXIT_VALIDATION);
    assert_non_null(strstr(report, "VALIDATION FAILED"));
    json_t *root = load(path), *b = json_array_get(json_object_get(root, "benchmarks"), 1); /* the median */
    assert_string_equal(str_field(b, "aggregate_name"), "median");
    assert_true(json_is_false(json_object_get(json_object_get(b, "validation"), "passed")));
    assert_true(json_is_null(json_object_get(json_object_get(root, "context"), "peaks"))); /* validate skips probes */
    assert_true(json_is_null(json_object_get(json_object_get(root, "context"), "peaks_spread")));
    assert_true(json_is_null(json_object_get(json_object_get(root, "context"), "fma_isa")));
    json_decref(root);
}

static void test_refused_before_running(void **state)
{
    (void)state;
    char report[256];
    const char *bad[] = {"/nonexistent/dir/x.json", dir, "", NULL};
    for (int i = 0; bad[i]; i++) {
        sb_params p = params(1, bad[i]);
        assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 0, report, sizeof report), SB_EXIT_USAGE);
    }
    assert_false(exists("/nonexistent/dir/x.json"));
    sb_params p = params(1, path);
    p.size = 1000001;
    assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 0, report, sizeof report), SB_EXIT_USAGE);
    p.size = 100;
    assert_int_equal(session(&p, SB_BACKEND_CUDA, 0, report, sizeof report), SB_EXIT_USAGE); /* no fallback */
    assert_int_equal(fk.setups + fk.runs, 0);
    assert_false(exists(path));
    assert_string_equal(report, "");
}

static void test_unknown_param(void **state)
{
    (void)state;
    char report[256];
    sb_params p = params(1, path);
    assert_int_equal(sb_params_add(&p, "bogus=1"), SB_OK);
    assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 0, report, sizeof report), SB_EXIT_USAGE);
    assert_int_equal(fk.runs, 0);
    assert_int_equal(fk.teardowns, fk.setups); /* torn down on the error path too */
    assert_false(exists(path));
}

static void test_runtime_error(void **state)
{
    (void)state;
    char report[256];
    sb_params p = params(3, path);
    fk.run_error = SB_EXIT_RUNTIME;
    assert_int_equal(session(&p, SB_BACKEND_OPENMP_SIMD, 0, report, sizeof report), SB_EXIT_RUNTIME);
    assert_int_equal(fk.runs, 1);
    assert_int_equal(fk.teardowns, 1);
    assert_false(exists(path));
}

static void test_run_case(void **state)
{
    (void)state;
    sb_result r;
    sb_params p = params(5, NULL);
    p.size = 0; /* the kernel's default */
    p.warmup = 0;
    assert_int_equal(sb_run_case(&fake, SB_BACKEND_REFERENCE, &p, 0, &r), SB_OK);
    assert_int_equal(p.size, 1000);
    assert_int_equal(fk.runs, 5);
    assert_int_equal(r.stats.n, 5);
    assert_true(r.stats.min <= r.stats.median && r.stats.median <= r.stats.max);
    assert_int_equal(r.threads, 1);
    assert_true(r.passed);
    assert_int_equal(r.counters.n, 1);
    assert_false(r.peaks.measured);
    sb_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_failed_validation, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_refused_before_running, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_unknown_param, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_runtime_error, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_run_case, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
