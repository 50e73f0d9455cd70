/* Strict checks of a result file (see result_check.h). A file is any Google Benchmark JSON;
 * entries that carry scibench's fields (kernel, backend, size, ...) are held to what
 * json_out.c writes: every case has `repetitions` iteration rows and one median, min and max
 * aggregate, and those aggregates are the median, min and max of its rows. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result_check.h"
#include "sb.h"

/* Relative agreement of two numbers the writer derived from the same doubles: %.17g
 * round-trips, so only the rounding of one multiply or divide separates them. */
#define SB_CHECK_RTOL 1e-9

typedef struct {
    const char *path;
    json_t *bs;  /* benchmarks[] */
    size_t i;    /* the entry a message names; (size_t)-1: the context */
} where;

static void describe(json_t *v, char *buf, size_t n)
{
    switch (v ? (int)json_typeof(v) : -1) {
    case JSON_OBJECT: snprintf(buf, n, "an object"); break;
    case JSON_ARRAY: snprintf(buf, n, "an array"); break;
    case JSON_STRING: snprintf(buf, n, "the string \"%.40s\"", json_string_value(v)); break;
    case JSON_INTEGER: snprintf(buf, n, "the integer %lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: snprintf(buf, n, "the number %.10g", json_real_value(v)); break;
    case JSON_TRUE: snprintf(buf, n, "true"); break;
    case JSON_FALSE: snprintf(buf, n, "false"); break;
    case JSON_NULL: snprintf(buf, n, "null"); break;
    default: snprintf(buf, n, "missing");
    }
}

/* One line: file, entry (index and name), field, what is wrong. Returns SB_EXIT_USAGE. */
static int bad(const where *w, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const where *w, const char *field, const char *fmt, ...)
{
    char what[256], entry[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (w->i == (size_t)-1) {
        snprintf(entry, sizeof entry, "context");
    } else {
        json_t *name = json_object_get(json_array_get(w->bs, w->i), "name");
        if (json_is_string(name))
            snprintf(entry, sizeof entry, "benchmarks[%zu] (\"%.80s\")", w->i, json_string_value(name));
        else
            snprintf(entry, sizeof entry, "benchmarks[%zu]", w->i);
    }
    sb_error("%s: %s: field \"%s\" %s", w->path, entry, field, what);
    return SB_EXIT_USAGE;
}

typedef enum { T_STRING, T_NUMBER, T_NUMBER_OR_NULL, T_INTEGER, T_BOOL, T_OBJECT, T_ARRAY, T_OBJECT_OR_NULL,
               T_STRING_OR_NULL } jtype;

static int type_ok(json_t *v, jtype t)
{
    switch (t) {
    case T_STRING: return json_is_string(v);
    case T_NUMBER: return json_is_number(v);
    case T_NUMBER_OR_NULL: return json_is_number(v) || json_is_null(v);
    case T_INTEGER: return json_is_integer(v);
    case T_BOOL: return json_is_boolean(v);
    case T_OBJECT: return json_is_object(v);
    case T_ARRAY: return json_is_array(v);
    case T_OBJECT_OR_NULL: return json_is_object(v) || json_is_null(v);
    case T_STRING_OR_NULL: return json_is_string(v) || json_is_null(v);
    }
    return 0;
}

static const char *const TYPE_NAME[] = {"a string", "a number", "a number or null", "an integer", "true or false",
                                        "an object", "an array", "an object or null", "a string or null"};

/* key of o has type t (absent is fine unless required); label names the field in messages. */
static int field(const where *w, json_t *o, const char *key, const char *label, jtype t, int required)
{
    json_t *v = json_object_get(o, key);
    char got[96];
    if (!v && !required) return SB_OK;
    if (type_ok(v, t)) return SB_OK;
    describe(v, got, sizeof got);
    return bad(w, label ? label : key, "is %s; expected %s", got, TYPE_NAME[t]);
}

static int nonnegative(const where *w, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v) && json_number_value(v) < 0)
        return bad(w, key, "is %.10g; expected a number >= 0", json_number_value(v));
    return SB_OK;
}

static const char *str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Seconds per unit of time_unit; 0 for an unknown unit. */
static double unit_seconds(const char *u)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
    for (size_t k = 0; u && k < sizeof units / sizeof units[0]; k++)
        if (!strcmp(u, units[k].name)) return units[k].s;
    return 0;
}

static int one_of(const char *s, const char *const *list)
{
    for (int k = 0; s && list[k]; k++)
        if (!strcmp(s, list[k])) return 1;
    return 0;
}

/* ---- context ------------------------------------------------------------ */

static int check_context(const char *path, json_t *root)
{
    where w = {path, NULL, (size_t)-1};
    json_t *ctx = json_object_get(root, "context"), *v;
    const char *k;
    int rc;
    if (!ctx) return SB_OK;
    if (!json_is_object(ctx)) {
        char got[96];
        describe(ctx, got, sizeof got);
        sb_error("%s: field \"context\" is %s; expected an object", path, got);
        return SB_EXIT_USAGE;
    }
    if ((rc = field(&w, ctx, "machine", NULL, T_STRING, 0)) || (rc = field(&w, ctx, "git_commit", NULL, T_STRING, 0)) ||
        (rc = field(&w, ctx, "peaks", NULL, T_OBJECT_OR_NULL, 0)) || (rc = field(&w, ctx, "mpi", NULL, T_OBJECT, 0)) ||
        (rc = field(&w, ctx, "peaks_spread", NULL, T_OBJECT_OR_NULL, 0)) ||
        (rc = field(&w, ctx, "fma_isa", NULL, T_STRING_OR_NULL, 0)))
        return rc;
    json_object_foreach(json_object_get(ctx, "peaks"), k, v)
    {
        char label[96];
        snprintf(label, sizeof label, "peaks.%.80s", k);
        if ((rc = field(&w, json_object_get(ctx, "peaks"), k, label, T_NUMBER_OR_NULL, 1))) return rc;
    }
    json_t *ranks = json_object_get(json_object_get(ctx, "mpi"), "ranks");
    if ((rc = field(&w, json_object_get(ctx, "mpi"), "ranks", "mpi.ranks", T_INTEGER, 0))) return rc;
    if (ranks && json_integer_value(ranks) < 1)
        return bad(&w, "mpi.ranks", "is %lld; expected an integer >= 1", (long long)json_integer_value(ranks));
    return SB_OK;
}

/* ---- one entry ---------------------------------------------------------- */

static int check_checks(const where *w, json_t *checks)
{
    static const char *const kinds[] = {"abs", "rel", "max", NULL};
    json_t *c;
    size_t j;
    int rc;
    json_array_foreach(checks, j, c)
    {
        char label[64];
        snprintf(label, sizeof label, "validation.checks[%zu]", j);
        if (!json_is_object(c)) {
            char got[96];
            describe(c, got, sizeof got);
            return bad(w, label, "is %s; expected an object", got);
        }
        static const struct {
            const char *key;
            jtype t;
        } f[] = {{"name", T_STRING},      {"value", T_NUMBER_OR_NULL}, {"reference", T_NUMBER_OR_NULL},
                 {"tolerance", T_NUMBER_OR_NULL}, {"kind", T_STRING}, {"pass", T_BOOL}};
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            char l2[96];
            snprintf(l2, sizeof l2, "%s.%s", label, f[k].key);
            if ((rc = field(w, c, f[k].key, l2, f[k].t, 1))) return rc;
        }
        if (!one_of(str(c, "kind"), kinds)) {
            snprintf(label + strlen(label), sizeof label - strlen(label), ".kind");
            return bad(w, label, "is \"%.40s\"; expected abs, rel or max", str(c, "kind"));
        }
    }
    return SB_OK;
}

static int check_validation(const where *w, json_t *b, int required)
{
    json_t *v = json_object_get(b, "validation");
    if (!v && !required) return SB_OK;
    int rc = field(w, b, "validation", NULL, T_OBJECT, 1);
    if (!rc) rc = field(w, v, "passed", "validation.passed", T_BOOL, 1);
    if (!rc) rc = field(w, v, "checks", "validation.checks", T_ARRAY, 1);
    return rc ? rc : check_checks(w, json_object_get(v, "checks"));
}

/* The fields json_out.c writes for a scibench case, beyond Google Benchmark's. The validation
 * describes the case: the median aggregate holds it (files written before every entry did). */
static int check_scibench(const where *w, json_t *b)
{
    static const char *const backends[] = {"openmp_simd", "cuda", "reference", NULL};
    static const char *const run_types[] = {"iteration", "aggregate", NULL};
    json_t *v;
    const char *k;
    int rc;
    const char *agg = str(b, "aggregate_name");
    int median = agg && !strcmp(agg, "median") && str(b, "run_type") && !strcmp(str(b, "run_type"), "aggregate");
    if ((rc = field(w, b, "kernel", NULL, T_STRING, 1)) || (rc = field(w, b, "backend", NULL, T_STRING, 1)) ||
        (rc = field(w, b, "size", NULL, T_INTEGER, 1)) || (rc = field(w, b, "params", NULL, T_OBJECT, 1)) ||
        (rc = field(w, b, "item", NULL, T_STRING, 1)) || (rc = field(w, b, "run_name", NULL, T_STRING, 1)) ||
        (rc = field(w, b, "run_type", NULL, T_STRING, 1)) || (rc = field(w, b, "repetitions", NULL, T_INTEGER, 1)) ||
        (rc = field(w, b, "launch", NULL, T_ARRAY, 0)) || (rc = check_validation(w, b, median)))
        return rc;
    if (!one_of(str(b, "backend"), backends))
        return bad(w, "backend", "is \"%.40s\"; expected openmp_simd, cuda or reference", str(b, "backend"));
    if (!one_of(str(b, "run_type"), run_types))
        return bad(w, "run_type", "is \"%.40s\"; expected iteration or aggregate", str(b, "run_type"));
    json_int_t size = json_integer_value(json_object_get(b, "size"));
    if (size < 1 || size > 2147483647)
        return bad(w, "size", "is %lld; expected an integer in 1..2147483647", (long long)size);
    if (json_integer_value(json_object_get(b, "repetitions")) < 1)
        return bad(w, "repetitions", "is %lld; expected an integer >= 1",
                   (long long)json_integer_value(json_object_get(b, "repetitions")));
    v = json_object_get(b, "seed");
    if (json_is_integer(v) ? json_integer_value(v) < 0
                           : !json_is_string(v) || !*json_string_value(v) ||
                                 strspn(json_string_value(v), "0123456789") != strlen(json_string_value(v))) {
        char got[96];
        describe(v, got, sizeof got);
        return bad(w, "seed", "is %s; expected an integer >= 0 (or its decimal digits as a string)", got);
    }
    json_object_foreach(json_object_get(b, "params"), k, v)
    {
        char label[96];
        snprintf(label, sizeof label, "params.%.80s", k);
        if (!json_is_string(v) && !json_is_number(v)) {
            char got[96];
            describe(v, got, sizeof got);
            return bad(w, label, "is %s; expected a string or a number", got);
        }
    }
    const char *rt = str(b, "run_type");
    if (!strcmp(rt, "iteration")) {
        if ((rc = field(w, b, "repetition_index", NULL, T_INTEGER, 1))) return rc;
    } else {
        static const char *const aggs[] = {"median", "min", "max", NULL};
        if ((rc = field(w, b, "aggregate_name", NULL, T_STRING, 1))) return rc;
        if (!one_of(str(b, "aggregate_name"), aggs))
            return bad(w, "aggregate_name", "is \"%.40s\"; expected median, min or max", str(b, "aggregate_name"));
    }
    return SB_OK;
}

/* What every Google Benchmark entry has and compare reads; 1 in *sci for a scibench entry. */
static int check_entry(const where *w, json_t *b, int *sci)
{
    static const char *const run_types[] = {"iteration", "aggregate", NULL};
    static const char *const optional_rates[] = {"bytes_per_second", "flops_per_second", "percent_peak_bandwidth",
                                                 "percent_peak_flops", NULL};
    int rc;
    *sci = 0;
    if (!json_is_object(b)) {
        char got[96];
        describe(b, got, sizeof got);
        sb_error("%s: benchmarks[%zu] is %s; expected an object", w->path, w->i, got);
        return SB_EXIT_USAGE;
    }
    if ((rc = field(w, b, "name", NULL, T_STRING, 1)) || (rc = field(w, b, "run_name", NULL, T_STRING, 0)) ||
        (rc = field(w, b, "run_type", NULL, T_STRING, 0)) || (rc = field(w, b, "aggregate_name", NULL, T_STRING, 0)))
        return rc;
    if (json_object_get(b, "run_type") && !one_of(str(b, "run_type"), run_types))
        return bad(w, "run_type", "is \"%.40s\"; expected iteration or aggregate", str(b, "run_type"));
    /* any one of scibench's own fields makes it a scibench entry, held to all of them */
    static const char *const own[] = {"kernel", "backend", "size", "seed", "params", "item", "validation", NULL};
    for (int k = 0; own[k] && !*sci; k++) *sci = json_object_get(b, own[k]) != NULL;
    /* Google Benchmark's Complexity() fits carry coefficients, not times */
    static const char *const fits[] = {"BigO", "RMS", NULL};
    if (!*sci && one_of(str(b, "aggregate_name"), fits)) {
        if ((rc = field(w, b, "big_o", NULL, T_STRING, 0)) || (rc = field(w, b, "rms", NULL, T_NUMBER, 0)) ||
            (rc = field(w, b, "cpu_coefficient", NULL, T_NUMBER, 0)) ||
            (rc = field(w, b, "real_coefficient", NULL, T_NUMBER, 0)) || (rc = field(w, b, "time_unit", NULL, T_STRING, 0)))
            return rc;
        if (json_object_get(b, "time_unit") && !unit_seconds(str(b, "time_unit")))
            return bad(w, "time_unit", "is \"%.40s\"; expected ns, us, ms or s", str(b, "time_unit"));
        return SB_OK;
    }
    /* items/s is scibench's measure; other Google Benchmark entries may have only their time */
    if ((rc = field(w, b, "real_time", NULL, T_NUMBER, 1)) || (rc = field(w, b, "time_unit", NULL, T_STRING, 1)) ||
        (rc = field(w, b, "items_per_second", NULL, T_NUMBER, *sci)) || (rc = nonnegative(w, b, "real_time")) ||
        (rc = nonnegative(w, b, "items_per_second")) || (rc = field(w, b, "error_occurred", NULL, T_BOOL, 0)) ||
        (rc = field(w, b, "error_message", NULL, T_STRING, 0)))
        return rc;
    if (!unit_seconds(str(b, "time_unit")))
        return bad(w, "time_unit", "is \"%.40s\"; expected ns, us, ms or s", str(b, "time_unit"));
    for (int k = 0; optional_rates[k]; k++)
        if ((rc = field(w, b, optional_rates[k], NULL, T_NUMBER_OR_NULL, 0))) return rc;
    return *sci ? check_scibench(w, b) : SB_OK;
}

/* ---- one case: its repetition rows against its aggregates ------------------ */

static int close_to(double a, double b) { return fabs(a - b) <= SB_CHECK_RTOL * fmax(fabs(a), fabs(b)); }

static double seconds(json_t *b) { return json_number_value(json_object_get(b, "real_time")) * unit_seconds(str(b, "time_unit")); }
static double rate(json_t *b) { return json_number_value(json_object_get(b, "items_per_second")); }

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fields every entry of a case repeats, equal in all of them. */
static int same_case(const where *w, json_t *first, size_t i0, json_t *b)
{
    static const char *const keys[] = {"kernel", "backend", "size", "seed", "params", "item", "repetitions", NULL};
    for (int k = 0; keys[k]; k++) {
        json_t *a = json_object_get(first, keys[k]), *v = json_object_get(b, keys[k]);
        if (!json_equal(a, v)) {
            char got[96], want[96];
            describe(v, got, sizeof got);
            describe(a, want, sizeof want);
            return bad(w, keys[k], "is %s, but %s in benchmarks[%zu] of the same case", got, want, i0);
        }
    }
    return SB_OK;
}

typedef struct {
    size_t *idx;  /* entries of the case, in file order */
    int n;
} group;

static int check_case(const char *path, json_t *bs, const group *g)
{
    json_t *first = json_array_get(bs, g->idx[0]);
    const long reps = (long)json_integer_value(json_object_get(first, "repetitions"));
    const char *run = str(first, "run_name");
    size_t agg[3] = {0, 0, 0};
    int nagg[3] = {0, 0, 0}, nit = 0, rc = SB_OK;
    static const char *const AGG[3] = {"median", "min", "max"};
    where w = {path, bs, 0};
    for (int k = 0; k < g->n; k++) {
        json_t *b = json_array_get(bs, g->idx[k]);
        char want[200];
        w.i = g->idx[k];
        if ((rc = same_case(&w, first, g->idx[0], b))) return rc;
        if (!strcmp(str(b, "run_type"), "iteration")) {
            nit++;
            snprintf(want, sizeof want, "%s", run);
        } else {
            int a = 0;
            while (strcmp(AGG[a], str(b, "aggregate_name"))) a++;
            agg[a] = g->idx[k];
            if (nagg[a]++) return bad(&w, "aggregate_name", "is %s a second time in this case", AGG[a]);
            snprintf(want, sizeof want, "%s_%s", run, AGG[a]);
        }
        if (strcmp(str(b, "name"), want)) return bad(&w, "name", "does not match run_name \"%.80s\"", run);
    }
    w.i = g->idx[0];
    if (nit != reps)
        return bad(&w, "repetitions", "is %ld, but the case has %d repetition entr%s", reps, nit, nit == 1 ? "y" : "ies");
    for (int a = 0; a < 3; a++)
        if (!nagg[a]) return bad(&w, "aggregate_name", "%s: this case has no %s aggregate", AGG[a], AGG[a]);
    double *t = malloc(3 * (size_t)nit * sizeof *t);
    char *seen = calloc((size_t)nit, 1);
    if (!t || !seen) {
        free(t), free(seen);
        sb_error("%s: out of memory checking %d repetitions", path, nit);
        return SB_EXIT_RUNTIME;
    }
    double *r = t + nit, *items = r + nit;
    int n = 0;
    for (int k = 0; k < g->n && !rc; k++) {
        json_t *b = json_array_get(bs, g->idx[k]);
        if (strcmp(str(b, "run_type"), "iteration")) continue;
        w.i = g->idx[k];
        json_int_t ri = json_integer_value(json_object_get(b, "repetition_index"));
        if (ri < 0 || ri >= nit)
            rc = bad(&w, "repetition_index", "is %lld; expected 0..%d", (long long)ri, nit - 1);
        else if (seen[ri]++)
            rc = bad(&w, "repetition_index", "is %lld a second time in this case", (long long)ri);
        t[n] = seconds(b), r[n] = rate(b), items[n] = t[n] * r[n];
        /* every repetition does the same work: items/s x time is one number */
        if (!rc && n > 0 && !close_to(items[n], items[0]))
            rc = bad(&w, "items_per_second", "is %.10g: times real_time %.10g s that is %.10g items a repetition, but "
                     "%.10g in the case's first repetition", r[n], t[n], items[n], items[0]);
        n++;
    }
    if (!rc) {
        const double work = items[0];
        qsort(t, (size_t)nit, sizeof *t, cmp_dbl);
        qsort(r, (size_t)nit, sizeof *r, cmp_dbl);
        const double tmed = nit % 2 ? t[nit / 2] : 0.5 * (t[nit / 2 - 1] + t[nit / 2]);
        /* json_out.c: the min aggregate holds the shortest time and the lowest rate (of the
         * longest time), the max aggregate the opposite; the median's rate is of its time */
        const double want_t[3] = {tmed, t[0], t[nit - 1]};
        const double want_r[3] = {tmed > 0 ? work / tmed : 0, r[0], r[nit - 1]};
        for (int a = 0; a < 3 && !rc; a++) {
            json_t *b = json_array_get(bs, agg[a]);
            w.i = agg[a];
            if (!close_to(seconds(b), want_t[a]))
                rc = bad(&w, "real_time", "is %.10g s, but the %s of the case's %d repetitions is %.10g s", seconds(b),
                         AGG[a], nit, want_t[a]);
            else if (!close_to(rate(b), want_r[a]))
                rc = bad(&w, "items_per_second", "is %.10g, but the case's repetitions give %.10g for the %s", rate(b),
                         want_r[a], AGG[a]);
        }
    }
    free(t);
    free(seen);
    return rc;
}

int sb_result_check(const char *path, json_t *root)
{
    json_t *bs = json_object_get(root, "benchmarks"), *b;
    size_t i, n = json_array_size(bs);
    int rc = check_context(path, root);
    if (rc) return rc;
    if (n == 0) {
        sb_error("%s: benchmarks[] is empty: no result in the file", path);
        return SB_EXIT_USAGE;
    }
    int *sci = calloc(n, sizeof *sci);
    size_t *order = malloc(n * sizeof *order);
    if (!sci || !order) {
        free(sci), free(order);
        sb_error("%s: out of memory checking %zu entries", path, n);
        return SB_EXIT_RUNTIME;
    }
    json_array_foreach(bs, i, b)
    {
        where w = {path, bs, i};
        if ((rc = check_entry(&w, b, &sci[i]))) break;
    }
    /* cases: entries sharing a run_name (scibench entries always have one), in file order */
    size_t done = 0;
    char *taken = rc ? NULL : calloc(n, 1);
    if (!rc && !taken) rc = SB_EXIT_RUNTIME;
    for (i = 0; !rc && i < n; i++) {
        if (taken[i] || !sci[i]) continue;
        const char *run = str(json_array_get(bs, i), "run_name");
        group g = {order + done, 0};
        for (size_t j = 0; j < n; j++) {
            const char *other = str(json_array_get(bs, j), "run_name");
            if (taken[j] || !other || strcmp(run, other)) continue;
            if (!sci[j]) {
                where w = {path, bs, j};
                rc = bad(&w, "kernel", "is missing, but other entries of case \"%.80s\" have scibench's fields", run);
                break;
            }
            taken[j] = 1;
            g.idx[g.n++] = j;
        }
        done += (size_t)g.n;
        if (!rc) rc = check_case(path, bs, &g);
    }
    free(taken);
    free(sci);
    free(order);
    return rc;
}

int sb_entry_verdict(json_t *entry, int *self_split)
{
    json_t *v = json_object_get(entry, "validation"), *c;
    size_t j;
    *self_split = 0;
    if (!json_is_object(v)) return -1;
    int passed = json_is_true(json_object_get(v, "passed")), all = 1;
    json_array_foreach(json_object_get(v, "checks"), j, c) all &= json_is_true(json_object_get(c, "pass"));
    *self_split = passed != all;
    return passed && all;
}
