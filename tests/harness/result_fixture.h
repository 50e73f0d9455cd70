/* Result JSON for the compare and table tests: written by the real writer (a fake
 * kernel through sb_session_run) into a temporary folder, then rewritten by an edit. */
#ifndef SB_TESTS_RESULT_FIXTURE_H
#define SB_TESTS_RESULT_FIXTURE_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "session.h"

/* ---- a fake kernel: sum of i over i < size ------------------------------ */
static inline int fake_setup(sb_case *c)
{
    c->state = calloc(1, sizeof(double));
    c->work = (sb_work){.items = c->params->size, .bytes = 8.0 * c->params->size, .flops = c->params->size};
    return c->state ? SB_OK : SB_EXIT_RUNTIME;
}
static inline int fake_run(sb_case *c)
{
    double *sum = c->state;
    *sum = 0;
    for (int i = 0; i < c->params->size; i++) *sum += i;
    return SB_OK;
}
static inline int fake_validate(sb_case *c, sb_validation *v)
{
    double n = c->params->size;
    sb_check_add(v, "sum", *(double *)c->state, n * (n - 1) / 2, 1e-6, SB_TOL_REL, "1", "closed form");
    sb_check_add(v, "offset", 0.5, 0.5, 0.01, SB_TOL_ABS, "1", "constant");
    sb_check_add(v, "drift", 1e-9, 1e-6, 0, SB_TOL_MAX, "1", "bound");
    return SB_OK;
}
static inline void fake_teardown(sb_case *c) { free(c->state); }

static const sb_kernel fake = {
    .name = "fake", .summary = "arithmetic series", .item = "terms", .size_meaning = "n",
    .default_size = 1000, .min_size = 1, .max_size = 10000000, .ci_size = 100,
    .has_backend = {[SB_BACKEND_OPENMP_SIMD] = 1},
    .setup = fake_setup, .run = fake_run, .validate = fake_validate, .teardown = fake_teardown,
};

/* ---- files -------------------------------------------------------------- */
static char dir[64];

/* dir/name; four buffers in turn, so one call may name several files */
static inline const char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static inline int fixture_mkdir(const char *prefix)
{
    snprintf(dir, sizeof dir, "/tmp/%s_XXXXXX", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

static inline int fixture_rmdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static inline void write_result(const char *name, int size)
{
    sb_params p;
    sb_params_init(&p);
    p.size = size;
    p.quiet = 1;
    p.json_path = at(name);
    FILE *f = tmpfile();
    sb_session_opts o = {.exe = "test", .out = f};
    assert_int_equal(sb_session_run(&fake, SB_BACKEND_OPENMP_SIMD, &p, &o), SB_OK);
    fclose(f);
}

/* Runs a command's main (sb_compare_main, sb_table_main) on the NULL-terminated argv; what
 * it writes lands in out. Returns its exit code. */
static inline int capture(int (*cmd)(int, char **, FILE *), char **argv, char *out, size_t n)
{
    int argc = 0;
    while (argv[argc]) argc++;
    FILE *f = tmpfile();
    assert_non_null(f);
    int rc = cmd(argc, argv, f);
    rewind(f);
    size_t got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
    return rc;
}

static inline int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* After an edit of items/s: each repetition's real_time and the median/min/max aggregates
 * made what the writer would have written for those rates (compare refuses a file whose
 * aggregates are not those of its repetitions). The fake kernel's work is `size` items. */
static inline void resync(json_t *root)
{
    json_t *b, *bs = json_object_get(root, "benchmarks");
    double t[64], r[64];
    int n = 0;
    size_t i;
    json_array_foreach(bs, i, b) if (!json_object_get(b, "aggregate_name") && n < 64)
    {
        double items = (double)json_integer_value(json_object_get(b, "size"));
        r[n] = json_number_value(json_object_get(b, "items_per_second"));
        t[n] = 1e3 * items / r[n];
        json_object_set_new(b, "real_time", json_real(t[n]));
        json_object_set_new(b, "cpu_time", json_real(t[n]));
        n++;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_dbl);
    qsort(r, (size_t)n, sizeof *r, cmp_dbl);
    json_array_foreach(bs, i, b) if (json_object_get(b, "aggregate_name"))
    {
        const char *agg = json_string_value(json_object_get(b, "aggregate_name"));
        double items = (double)json_integer_value(json_object_get(b, "size"));
        double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        double rt = !strcmp(agg, "min") ? t[0] : !strcmp(agg, "max") ? t[n - 1] : med;
        double ips = !strcmp(agg, "min") ? r[0] : !strcmp(agg, "max") ? r[n - 1] : 1e3 * items / med;
        json_object_set_new(b, "real_time", json_real(rt));
        json_object_set_new(b, "items_per_second", json_real(ips));
    }
}

typedef void (*edit_fn)(json_t *root, double x);

/* dst = src with edit(root, x) applied (no edit: a copy). */
static inline void rewrite(const char *src, const char *dst, edit_fn edit, double x)
{
    json_error_t err;
    json_t *root = json_load_file(src, 0, &err);
    assert_non_null(root);
    if (edit) edit(root, x);
    assert_int_equal(json_dump_file(root, dst, JSON_INDENT(1)), 0);
    json_decref(root);
}

#endif
