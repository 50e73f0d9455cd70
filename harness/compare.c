#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "params.h"
#include "results.h"

typedef enum { FMT_TABLE, FMT_MARKDOWN, FMT_CSV, FMT_JSON } format;

typedef struct {
    const char *path[2]; /* OLD, NEW */
    double threshold;
    format fmt;
    int normalise;
} options;

typedef struct {
    const sb_rrow *r[2]; /* OLD, NEW; NULL when absent on that side */
    char label[256];
    double v[2], ratio, noise;
    int regression, faster, validation_changed, still_failing, no_metric;
    int other_machine; /* the sides ran on different machines and the metric is items/s: no speed verdict */
    int by_time;       /* no items_per_second: compared by real_time (v[] in seconds, ratio old/new) */
    int error;         /* NEW reported an error (Google Benchmark's error_occurred): a failure */
    int skipped;       /* Complexity() fits: listed, not compared */
    char *notes; /* '\n'-separated */
} line;

/* ---- options ------------------------------------------------------------ */

static int parse_value(options *o, const char *name, const char *val)
{
    if (!strcmp(name, "threshold")) {
        if (sb_parse_double(val, &o->threshold) == 0 && o->threshold >= 0 && o->threshold < 1) return 0;
        sb_error("--threshold '%s' is not a fraction; accepted: 0 <= t < 1 (0.10 = 10%%)", val);
        return SB_EXIT_USAGE;
    }
    if (!strcmp(name, "format")) {
        static const char *const f[] = {"table", "markdown", "csv", "json"};
        for (int i = 0; i < 4; i++)
            if (!strcmp(val, f[i])) return o->fmt = (format)i, 0;
        sb_error("--format '%s' is unknown; accepted: table, markdown, csv, json", val);
        return SB_EXIT_USAGE;
    }
    if (!strcmp(val, "none") || !strcmp(val, "peak")) return o->normalise = !strcmp(val, "peak"), 0;
    sb_error("--normalise '%s' is unknown; accepted: none, peak", val);
    return SB_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, options *o)
{
    int npath = 0;
    *o = (options){.threshold = 0.10};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2)) {
            if (npath == 2) {
                sb_error("compare takes two paths (OLD NEW), got a third: '%s'", a);
                return SB_EXIT_USAGE;
            }
            o->path[npath++] = a;
            continue;
        }
        char name[16];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), a + 2);
        if (!strcmp(name, "normalize")) snprintf(name, sizeof name, "normalise");
        if (len >= sizeof name || (strcmp(name, "threshold") && strcmp(name, "format") && strcmp(name, "normalise"))) {
            sb_error("unknown option '%s'; accepted: --threshold, --format, --normalise", a);
            return SB_EXIT_USAGE;
        }
        if (!eq && i + 1 >= argc) {
            sb_error("option --%s needs a value", name);
            return SB_EXIT_USAGE;
        }
        int rc = parse_value(o, name, eq ? eq + 1 : argv[++i]);
        if (rc) return rc;
    }
    if (npath < 2) {
        sb_error("compare needs OLD and NEW (files or folders); usage: scibench " SB_COMPARE_USAGE);
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}

int sb_compare_check_args(int argc, char **argv)
{
    options o;
    return parse_args(argc, argv, &o);
}

/* ---- analysis ----------------------------------------------------------- */

static void note(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(line *l, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t have = l->notes ? strlen(l->notes) : 0;
    char *p = realloc(l->notes, have + strlen(buf) + 2);
    if (!p) return;
    snprintf(p + have, strlen(buf) + 2, "%s%s", have ? "\n" : "", buf);
    l->notes = p;
}

static const sb_rcheck *find_check(const sb_rrow *r, const char *name)
{
    for (int i = 0; i < r->nchecks; i++)
        if (!strcmp(r->check[i].name, name)) return &r->check[i];
    return NULL;
}

static const char *tol_text(const sb_rcheck *c, char *buf, size_t n)
{
    if (c->kind == SB_TOL_MAX) return snprintf(buf, n, "<= %.6g", c->reference), buf;
    snprintf(buf, n, "%s %.3g", c->kind == SB_TOL_ABS ? "abs" : "rel", c->tolerance);
    return buf;
}

/* A stored verdict that its own numbers contradict means an edited file. */
static void consistency(line *l, const sb_rrow *r, const char *side)
{
    for (int i = 0; i < r->nchecks; i++) {
        const sb_rcheck *c = &r->check[i];
        if (c->consistent) continue;
        l->validation_changed = 1;
        note(l, "%s check '%s' says %s but its value %.10g vs reference %.10g fails that (edited file?)", side,
             c->name, c->pass ? "PASS" : "FAIL", c->value, c->reference);
    }
}

/* A run whose entries disagree on the verdict was counted FAILED: say why, on either side. */
static void split_verdict(line *l, const sb_rrow *r, const char *side)
{
    if (!r->verdict_split) return;
    l->validation_changed = 1;
    note(l, "%s entries disagree on the validation verdict (%d PASS, %d FAIL, or a verdict its own checks contradict): "
            "counted as FAILED (edited file?)", side, r->entries_pass, r->entries_fail);
}

static void compare_validation(line *l)
{
    const sb_rrow *o = l->r[0], *n = l->r[1];
    char tol[48];
    split_verdict(l, o, "OLD");
    split_verdict(l, n, "NEW");
    if (!o->has_validation || !n->has_validation) return;
    consistency(l, o, "OLD");
    consistency(l, n, "NEW");
    if (o->passed && !n->passed) {
        l->validation_changed = 1;
        note(l, "validation PASS -> FAIL");
    }
    l->still_failing = !o->passed && !n->passed;
    for (int i = 0; i < o->nchecks; i++) {
        const sb_rcheck *a = &o->check[i], *b = find_check(n, a->name);
        if (!b) {
            l->validation_changed = 1;
            note(l, "check '%s' is gone in NEW", a->name);
            continue;
        }
        if (a->pass && !b->pass) {
            l->validation_changed = 1;
            note(l, "check '%s' PASS -> FAIL: %.10g -> %.10g (reference %.10g, %s)", a->name, a->value, b->value,
                 b->reference, tol_text(b, tol, sizeof tol));
        } else if (a->known_kind && a->kind != SB_TOL_MAX && isfinite(a->tolerance)) {
            double allowed = a->kind == SB_TOL_ABS ? a->tolerance : a->tolerance * fabs(a->reference);
            if (!(fabs(b->value - a->value) <= allowed)) {
                l->validation_changed = 1;
                note(l, "check '%s' moved %.10g -> %.10g, more than its own tolerance (%s)", a->name, a->value,
                     b->value, tol_text(a, tol, sizeof tol));
            }
        }
    }
    for (int i = 0; i < n->nchecks; i++)
        if (!find_check(o, n->check[i].name))
            note(l, "new check '%s' (%s)", n->check[i].name, n->check[i].pass ? "PASS" : "FAIL");
}

/* Different machines: the recorded machine class differs (context.machine, what `scibench
 * machine` prints), or, within one class, the model of the hardware the backend ran on (the GPU
 * for cuda, the CPU otherwise). A side that records neither (other Google Benchmark output) is
 * not told apart. */
static int different_machines(const sb_rrow *a, const sb_rrow *b)
{
    if (strcmp(a->machine, "?") && strcmp(b->machine, "?") && strcmp(a->machine, b->machine)) return 1;
    return a->device[0] && b->device[0] && strcmp(a->device, b->device);
}

static double metric(const sb_rrow *r, int normalise, double peak_flops)
{
    if (!normalise) return r->ips;
    sb_rrow t = *r;
    t.peak_flops = peak_flops;
    return 100.0 * r->ips / sb_rrow_roofline(&t);
}

/* One machine's FMA roof is one number: two CPU rows of the same machine whose FMA probes ran
 * with different instruction sets (files from builds for different -march, written before the
 * probe chose its own) are both divided by the higher one, so that an AVX-512 and an AVX2
 * build compare by their throughput. 1 when the roofs were joined. */
static int one_fma_roof(const line *l, double *roof)
{
    const sb_rrow *a = l->r[0], *b = l->r[1];
    roof[0] = a ? a->peak_flops : NAN;
    roof[1] = b ? b->peak_flops : NAN;
    if (!a || !b || !a->fma_isa[0] || !b->fma_isa[0] || !strcmp(a->fma_isa, b->fma_isa) || different_machines(a, b) ||
        a->flops_fp64 != b->flops_fp64 || !(a->peak_flops > 0) || !(b->peak_flops > 0))
        return 0;
    roof[0] = roof[1] = fmax(a->peak_flops, b->peak_flops);
    return 1;
}

static const sb_rrow *any_row(const line *l) { return l->r[0] ? l->r[0] : l->r[1]; }

/* A row without items_per_second (other Google Benchmark output) is compared by its time. */
static int use_time(const line *l, const options *o)
{
    for (int side = 0; side < 2 && !o->normalise; side++)
        if (l->r[side] && !isfinite(l->r[side]->ips) && isfinite(l->r[side]->time_s)) return 1;
    return 0;
}

static void analyse(line *l, const options *o)
{
    for (int side = 0; side < 2; side++)
        if (l->r[side] && l->r[side]->complexity) l->skipped = 1;
    if (l->skipped) {
        l->v[0] = l->v[1] = l->ratio = NAN;
        note(l, "Complexity() fit %s: skipped, not a timing", any_row(l)->complexity_text);
        return;
    }
    for (int side = 0; side < 2; side++)
        if (l->r[side] && l->r[side]->error) note(l, "%s reported an error: %s", side ? "NEW" : "OLD", l->r[side]->error_msg);
    l->error = l->r[1] && l->r[1]->error;
    l->by_time = use_time(l, o);
    double roof[2];
    int joined = one_fma_roof(l, roof);
    if (o->normalise && joined)
        note(l, "FMA probes of different instruction sets (OLD %s, NEW %s) on one machine: both divided by the higher "
                "FMA roof, %.4g GFLOP/s", l->r[0]->fma_isa, l->r[1]->fma_isa, roof[0] / 1e9);
    for (int side = 0; side < 2; side++)
        l->v[side] = !l->r[side] ? NAN : l->by_time ? l->r[side]->time_s : metric(l->r[side], o->normalise, roof[side]);
    if (!l->r[0] || !l->r[1]) return;
    if (l->r[0]->error || l->r[1]->error) { /* an errored run has no numbers to compare */
        l->ratio = NAN;
        compare_validation(l);
        return;
    }
    l->noise = l->by_time ? hypot(sb_rrow_time_noise(l->r[0]), sb_rrow_time_noise(l->r[1]))
                          : hypot(sb_rrow_noise(l->r[0]), sb_rrow_noise(l->r[1]));
    l->ratio = l->by_time ? l->v[0] / l->v[1] : l->v[1] / l->v[0]; /* > 1: NEW is faster */
    if (!isfinite(l->ratio) || l->v[0] <= 0 || l->v[1] <= 0) {
        l->no_metric = 1;
        note(l, o->normalise ? "no measured peak or byte/flop model in a file: cannot normalise"
                : l->by_time ? "no real_time on a side (or a time of 0)"
                             : "no items_per_second on a side");
    } else if (!o->normalise && different_machines(l->r[0], l->r[1])) {
        l->other_machine = 1; /* a slower machine is no regression of the code */
    } else {
        l->regression = l->ratio < 1 - o->threshold - l->noise;
        l->faster = l->ratio > 1 + o->threshold + l->noise;
    }
    compare_validation(l);
}

/* ---- labels: kernel/backend/size plus the params that tell cases apart --- */

static int param_get(const char *params, const char *key, char *val, size_t n)
{
    size_t klen = strlen(key);
    for (const char *p = params; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            const char *end = strchr(p, ';');
            snprintf(val, n, "%.*s", (int)(end ? (size_t)(end - p - klen - 1) : strlen(p + klen + 1)), p + klen + 1);
            return 1;
        }
    }
    return 0;
}

static const sb_rrow *any(const line *l) { return l->r[0] ? l->r[0] : l->r[1]; }

static int varies(const line *ls, int n, const char *kernel, const char *key, const char *val)
{
    for (int i = 0; i < n; i++) {
        const sb_rrow *r = any(&ls[i]);
        char v[192];
        if (strcmp(r->kernel, kernel)) continue;
        if (!param_get(r->case_params, key, v, sizeof v) || strcmp(v, val)) return 1;
    }
    return 0;
}

static void make_labels(line *ls, int n)
{
    for (int i = 0; i < n; i++) {
        const sb_rrow *r = any(&ls[i]);
        size_t len = (size_t)snprintf(ls[i].label, sizeof ls[i].label, "%s%s", r->run_name,
                                      r->complexity ? " (complexity)" : "");
        if (r->size >= 0) len = (size_t)snprintf(ls[i].label, sizeof ls[i].label, "%s/%s/%d", r->kernel, r->backend, r->size);
        /* the parameters away from the kernel's defaults (the case key's), where they tell cases apart */
        for (const char *p = r->case_params; *p && len < sizeof ls[i].label;) {
            const char *eq = strchr(p, '='), *end = strchr(p, ';');
            char key[64], val[192];
            if (!eq) break;
            snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
            param_get(r->case_params, key, val, sizeof val);
            if (varies(ls, n, r->kernel, key, val))
                len += (size_t)snprintf(ls[i].label + len, sizeof ls[i].label - len, " %s=%s", key, val);
            p = end ? end + 1 : eq + strlen(eq);
        }
        if (r->ranks > 1 && len < sizeof ls[i].label)
            len += (size_t)snprintf(ls[i].label + len, sizeof ls[i].label - len, " ranks=%d", r->ranks);
        if (r->threads && len < sizeof ls[i].label)
            len += (size_t)snprintf(ls[i].label + len, sizeof ls[i].label - len, " threads=%d", r->threads);
        for (int j = 0; j < n && len < sizeof ls[i].label; j++)
            if (!strcmp(any(&ls[j])->kernel, r->kernel) && strcmp(any(&ls[j])->seed, r->seed)) {
                snprintf(ls[i].label + len, sizeof ls[i].label - len, " seed=%s", r->seed);
                break;
            }
    }
}

static int cmp_line(const void *a, const void *b)
{
    const sb_rrow *x = any(a), *y = any(b);
    int c = strcmp(x->kernel, y->kernel);
    if (!c) c = strcmp(x->backend, y->backend);
    if (!c) c = (x->size > y->size) - (x->size < y->size);
    return c ? c : strcmp(x->key, y->key);
}

/* ---- output ------------------------------------------------------------- */

static const char *verdict(const line *l)
{
    if (l->skipped) return "skipped (complexity fit)";
    if (l->error) return "FAIL (benchmark error)";
    if (l->r[0] && l->r[0]->error && l->r[1]) return "error in OLD";
    if (!l->r[1]) return "only in OLD";
    if (!l->r[0]) return "only in NEW";
    if (l->validation_changed && l->regression) return "REGRESSION, VALIDATION CHANGED";
    if (l->validation_changed) return "VALIDATION CHANGED";
    if (l->regression) return "REGRESSION";
    if (l->still_failing) return "still failing";
    if (l->no_metric) return "no metric";
    if (l->other_machine) return "other machine";
    return l->faster ? "faster" : "ok";
}

static const char *vstate(const sb_rrow *r)
{
    return !r ? "" : r->error ? "ERROR" : !r->has_validation ? "-" : r->passed ? "PASS" : "FAIL";
}

static void fmt_value(char *buf, size_t n, double v, int normalise, int seconds)
{
    static const char *const si[] = {"", "k", "M", "G", "T", "P"};
    int e = 0;
    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return;
    }
    if (seconds) {
        static const char *const unit[] = {"s", "ms", "us", "ns"};
        while (fabs(v) < 1 && v != 0 && e < 3) v *= 1000, e++;
        snprintf(buf, n, "%.4g%s", v, unit[e]);
        return;
    }
    if (normalise) {
        snprintf(buf, n, "%.3g%%", v);
        return;
    }
    while (fabs(v) >= 1000 && e < 5) v /= 1000, e++;
    snprintf(buf, n, "%.4g%s", v, si[e]);
}

/* "cpu-2core" or "h100, cpu-2core": the distinct machines (or commits) of one side. */
static void side_summary(const line *ls, int n, int side, int commits, char *out, size_t size)
{
    const char *seen[8];
    int ns = 0;
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; i++) {
        const sb_rrow *r = ls[i].r[side];
        if (!r) continue;
        const char *v = commits ? r->commit : r->machine;
        int k = 0;
        while (k < ns && strcmp(seen[k], v)) k++;
        if (k < ns) continue;
        if (ns == 8) {
            len += (size_t)snprintf(out + len, size - len, ", ...");
            break;
        }
        seen[ns++] = v;
        len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "", v);
    }
}

/* How many commits one side's rows come from, and how many rows a -dirty build wrote:
 * a folder should be one clean commit. */
static void commits_of(const line *ls, int n, int side, int *ncommits, int *dirty)
{
    const char *seen[64];
    *ncommits = *dirty = 0;
    for (int i = 0; i < n; i++) {
        const sb_rrow *r = ls[i].r[side];
        if (!r) continue;
        size_t len = strlen(r->commit);
        *dirty += len > 6 && !strcmp(r->commit + len - 6, "-dirty");
        int k = 0;
        while (k < *ncommits && k < 64 && strcmp(seen[k], r->commit)) k++;
        if (k == *ncommits) {
            if (k < 64) seen[k] = r->commit;
            (*ncommits)++;
        }
    }
}

typedef struct {
    int compared, regressions, changes, only[2], other_machine, errors, skipped;
} summary;

static summary summarise(const line *ls, int n)
{
    summary s = {0, 0, 0, {0, 0}, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        s.errors += ls[i].error;
        if (ls[i].skipped) {
            s.skipped++;
            continue;
        }
        if (!ls[i].r[0] || !ls[i].r[1]) {
            s.only[ls[i].r[0] ? 0 : 1]++;
            continue;
        }
        s.compared++;
        s.regressions += ls[i].regression;
        s.changes += ls[i].validation_changed;
        s.other_machine += ls[i].other_machine;
    }
    return s;
}

static void machine_text(const sb_rrow *r, char *buf, size_t n)
{
    if (r->device[0])
        snprintf(buf, n, "%s (%s)", r->machine, r->device);
    else
        snprintf(buf, n, "%s", r->machine);
}

/* One line naming the machines of the rows left without a speed verdict, and how to compare
 * them; "" when there are none. */
static void machines_line(const line *ls, int n, char *out, size_t size)
{
    size_t len = 0;
    int pairs = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (!ls[i].other_machine) continue;
        char a[200], b[200], pair[420];
        machine_text(ls[i].r[0], a, sizeof a);
        machine_text(ls[i].r[1], b, sizeof b);
        snprintf(pair, sizeof pair, "OLD %s vs NEW %s", a, b);
        if (strstr(out, pair)) continue;
        if (pairs++ == 4) {
            len += (size_t)snprintf(out + len, size - len, "; ...");
            break;
        }
        len += (size_t)snprintf(out + len, size - len, "%s%s", len ? "; " : "machines differ: ", pair);
        if (len >= size) break;
    }
    if (out[0] && len < size)
        snprintf(out + len, size - len, ". items/s of different machines is no regression verdict; compare them "
                                        "with --normalise peak (%% of each machine's roofline)");
}

static int any_by_time(const line *ls, int n)
{
    for (int i = 0; i < n; i++)
        if (ls[i].by_time) return 1;
    return 0;
}

static void print_header(FILE *out, const options *o, const line *ls, int n, const sb_rset *set, int md)
{
    const char *nl = md ? "  \n" : "\n";
    for (int side = 0; side < 2; side++) {
        char machines[256], commits[256];
        side_summary(ls, n, side, 0, machines, sizeof machines);
        side_summary(ls, n, side, 1, commits, sizeof commits);
        fprintf(out, "%s%s%s  %s: machine %s, commit %s, %d file%s%s", md ? "**" : "", side ? "NEW" : "OLD",
                md ? "**" : "", o->path[side], machines, commits, set[side].nfiles, set[side].nfiles == 1 ? "" : "s",
                nl);
        int ncommits, dirty;
        commits_of(ls, n, side, &ncommits, &dirty);
        if (ncommits > 1)
            fprintf(out, "  warning: %s mixes %d commits: its results are not of one build%s", side ? "NEW" : "OLD",
                    ncommits, nl);
        if (dirty)
            fprintf(out, "  warning: %s holds %d result%s of a -dirty build (uncommitted changes)%s", side ? "NEW" : "OLD",
                    dirty, dirty == 1 ? "" : "s", nl);
    }
    if (o->normalise)
        fprintf(out, "metric: %% of roofline = items/s as a share of what that file's machine attains: its measured "
                     "peak bandwidth / modelled bytes per item (or FMA peak / flops per item, if lower); peaks: the "
                     "stored peaks.json of the file's folder where it has one for that machine, else the run's own "
                     "probes%s", nl);
    else
        fprintf(out, "metric: items/s at the median repetition time%s%s", any_by_time(ls, n)
                ? "; entries without items_per_second: their median real_time (lower is better; ratio = old time / "
                  "new time)" : "", nl);
    fprintf(out, "rule: REGRESSION when new/old < 1 - %.2f - noise; noise = sqrt(a^2 + b^2), a and b each side's "
                 "3 MAD/median of its repetitions%s", o->threshold, nl);
    char mline[2048];
    machines_line(ls, n, mline, sizeof mline);
    if (mline[0]) fprintf(out, "%s%s", mline, nl);
    if (md) fputs("\n", out);
}

static void print_notes(FILE *out, const line *ls, int n, int md)
{
    int any_note = 0;
    for (int i = 0; i < n; i++) {
        if (!ls[i].notes && ls[i].r[0] && ls[i].r[1]) continue;
        if (!any_note++) fputs(md ? "\n**Notes**\n\n" : "\nnotes\n", out);
        if (!ls[i].r[0] || !ls[i].r[1])
            fprintf(out, "%s%s: only in %s (%s)\n", md ? "- " : "  ", ls[i].label, ls[i].r[0] ? "OLD" : "NEW",
                    any(&ls[i])->file);
        for (const char *p = ls[i].notes; p && *p;) {
            const char *end = strchr(p, '\n');
            fprintf(out, "%s%s: %.*s\n", md ? "- " : "  ", ls[i].label, (int)(end ? end - p : (long)strlen(p)), p);
            p = end ? end + 1 : NULL;
        }
    }
}

static void print_verdict(FILE *out, summary s, int md)
{
    fprintf(out, "\n%sverdict: %s%s  %d compared, %d regression%s, %d validation change%s, %d only in OLD, %d only in NEW",
            md ? "**" : "", s.regressions || s.changes || s.errors ? "FAIL" : "OK", md ? "**" : "", s.compared, s.regressions,
            s.regressions == 1 ? "" : "s", s.changes, s.changes == 1 ? "" : "s", s.only[0], s.only[1]);
    if (s.other_machine) fprintf(out, ", %d on other machines (no speed verdict)", s.other_machine);
    if (s.errors) fprintf(out, ", %d benchmark error%s in NEW", s.errors, s.errors == 1 ? "" : "s");
    if (s.skipped) fprintf(out, ", %d complexity fit%s skipped", s.skipped, s.skipped == 1 ? "" : "s");
    fputc('\n', out);
}

/* --profile's measured DRAM bytes per item, "old->new" (a side without a profile: "-"). */
static int any_profile(const line *ls, int n)
{
    for (int i = 0; i < n; i++)
        for (int side = 0; side < 2; side++)
            if (ls[i].r[side] && ls[i].r[side]->has_profile) return 1;
    return 0;
}

static double measured_bpi(const sb_rrow *r) { return r && r->has_profile ? r->prof_bytes_item : NAN; }

static void measured_text(char *buf, size_t n, const line *l)
{
    char a[16] = "-", b[16] = "-";
    double x = measured_bpi(l->r[0]), y = measured_bpi(l->r[1]);
    if (isfinite(x)) snprintf(a, sizeof a, "%.4g", x);
    if (isfinite(y)) snprintf(b, sizeof b, "%.4g", y);
    snprintf(buf, n, "%s->%s", l->r[0] ? a : "", l->r[1] ? b : "");
}

static void print_table(FILE *out, const options *o, const line *ls, int n, const sb_rset *set, int md)
{
    int prof = any_profile(ls, n);
    const char *unit = o->normalise ? "% roofline" : any_by_time(ls, n) ? "items/s|time" : "items/s";
    int w = 4;
    for (int i = 0; i < n; i++) w = (int)strlen(ls[i].label) > w ? (int)strlen(ls[i].label) : w;
    print_header(out, o, ls, n, set, md);
    char h_old[32], h_new[32];
    snprintf(h_old, sizeof h_old, "old %s", unit);
    snprintf(h_new, sizeof h_new, "new %s", unit);
    const char *f = md ? "| %-*s | %14s | %14s | %6s | %6s | %10s | %s |" : "%-*s  %14s  %14s  %6s  %6s  %10s  %s";
    const char *fp = !prof ? "%s\n" : md ? " %s |\n" : "  %s\n";
    fprintf(out, f, w, "case", h_old, h_new, "ratio", "noise", "validation", "verdict");
    fprintf(out, fp, prof ? "measured DRAM B/item" : "");
    if (md) fprintf(out, "|%s|---:|---:|---:|---:|:---:|---|%s\n", "---", prof ? "---:|" : "");
    for (int i = 0; i < n; i++) {
        const line *l = &ls[i];
        char a[32], b[32], r[16] = "", z[16] = "", v[24];
        fmt_value(a, sizeof a, l->r[0] ? l->v[0] : NAN, o->normalise, l->by_time);
        fmt_value(b, sizeof b, l->r[1] ? l->v[1] : NAN, o->normalise, l->by_time);
        if (l->r[0] && l->r[1] && isfinite(l->ratio)) {
            snprintf(r, sizeof r, "%.3f", l->ratio);
            snprintf(z, sizeof z, "%.1f%%", 100 * l->noise);
        }
        snprintf(v, sizeof v, "%s%s%s", vstate(l->r[0]), l->r[0] && l->r[1] ? "->" : "", vstate(l->r[1]));
        fprintf(out, f, w, l->label, a, b, r, z, v, verdict(l));
        char m[40] = "";
        if (prof) measured_text(m, sizeof m, l);
        fprintf(out, fp, m);
    }
    print_notes(out, ls, n, md);
    print_verdict(out, summarise(ls, n), md);
}

static void csv_field(FILE *out, const char *s, const char *sep)
{
    fputc('"', out);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s == '\n' ? ';' : *s, out);
    }
    fprintf(out, "\"%s", sep);
}

static void csv_num(FILE *out, double v, const char *sep)
{
    if (isfinite(v)) fprintf(out, "%.9g", v);
    fputs(sep, out);
}

static void print_csv(FILE *out, const options *o, const line *ls, int n)
{
    fputs("case,kernel,backend,size,params,seed,metric,old,new,ratio,noise,old_validation,new_validation,verdict,"
          "old_machine,new_machine,notes,old_commit,new_commit,old_measured_bytes_per_item,new_measured_bytes_per_item\n",
          out);
    for (int i = 0; i < n; i++) {
        const line *l = &ls[i];
        const sb_rrow *r = any(l);
        int both = l->r[0] && l->r[1];
        csv_field(out, l->label, ",");
        csv_field(out, r->kernel, ",");
        csv_field(out, r->backend, ",");
        fprintf(out, "%d,", r->size);
        csv_field(out, r->params, ",");
        csv_field(out, r->seed, ",");
        csv_field(out, o->normalise ? "percent_roofline" : l->by_time ? "real_time_s" : "items_per_second", ",");
        csv_num(out, l->r[0] ? l->v[0] : NAN, ",");
        csv_num(out, l->r[1] ? l->v[1] : NAN, ",");
        csv_num(out, both ? l->ratio : NAN, ",");
        csv_num(out, both ? l->noise : NAN, ",");
        csv_field(out, vstate(l->r[0]), ",");
        csv_field(out, vstate(l->r[1]), ",");
        csv_field(out, verdict(l), ",");
        csv_field(out, l->r[0] ? l->r[0]->machine : "", ",");
        csv_field(out, l->r[1] ? l->r[1]->machine : "", ",");
        csv_field(out, l->notes ? l->notes : "", ",");
        csv_field(out, l->r[0] ? l->r[0]->commit : "", ",");
        csv_field(out, l->r[1] ? l->r[1]->commit : "", ",");
        csv_num(out, measured_bpi(l->r[0]), ",");
        csv_num(out, measured_bpi(l->r[1]), "\n");
    }
}

static json_t *jnum_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static void print_json(FILE *out, const options *o, const line *ls, int n)
{
    summary s = summarise(ls, n);
    json_t *rows = json_array();
    for (int i = 0; i < n; i++) {
        const line *l = &ls[i];
        const sb_rrow *r = any(l);
        int both = l->r[0] && l->r[1];
        json_t *notes = json_array();
        for (const char *p = l->notes; p && *p;) {
            const char *end = strchr(p, '\n');
            json_array_append_new(notes, json_stringn(p, end ? (size_t)(end - p) : strlen(p)));
            p = end ? end + 1 : NULL;
        }
        json_t *row = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:s, s:b, s:b, s:o}",
                                "case", l->label, "kernel", r->kernel, "backend", r->backend, "size", r->size,
                                "params", r->params, "seed", r->seed, "old", jnum_or_null(l->r[0] ? l->v[0] : NAN),
                                "new", jnum_or_null(l->r[1] ? l->v[1] : NAN), "ratio",
                                jnum_or_null(both ? l->ratio : NAN), "noise", jnum_or_null(both ? l->noise : NAN),
                                "old_validation", vstate(l->r[0]), "new_validation", vstate(l->r[1]), "verdict",
                                verdict(l), "regression", l->regression, "validation_changed",
                                l->validation_changed, "notes", notes);
        json_object_set_new(row, "metric", json_string(o->normalise ? "percent_roofline"
                                                       : l->by_time ? "real_time_s" : "items_per_second"));
        json_object_set_new(row, "error", json_boolean(l->error));
        json_object_set_new(row, "old_measured_bytes_per_item", jnum_or_null(measured_bpi(l->r[0])));
        json_object_set_new(row, "new_measured_bytes_per_item", jnum_or_null(measured_bpi(l->r[1])));
        json_array_append_new(rows, row);
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:f, s:s, s:o, s:{s:i, s:i, s:i, s:i, s:i}, s:s}", "old", o->path[0],
                             "new", o->path[1], "metric", o->normalise ? "percent_roofline" : "items_per_second",
                             "threshold", o->threshold, "normalise", o->normalise ? "peak" : "none", "rows", rows,
                             "summary", "compared", s.compared, "regressions", s.regressions, "validation_changes",
                             s.changes, "only_old", s.only[0], "only_new", s.only[1], "verdict",
                             s.regressions || s.changes || s.errors ? "fail" : "ok");
    char mline[2048];
    machines_line(ls, n, mline, sizeof mline);
    json_object_set_new(json_object_get(root, "summary"), "other_machine", json_integer(s.other_machine));
    json_object_set_new(json_object_get(root, "summary"), "errors", json_integer(s.errors));
    json_object_set_new(json_object_get(root, "summary"), "skipped", json_integer(s.skipped));
    json_object_set_new(root, "machines", mline[0] ? json_string(mline) : json_null());
    for (int side = 0; side < 2; side++) {
        int ncommits, dirty;
        commits_of(ls, n, side, &ncommits, &dirty);
        json_object_set_new(root, side ? "new_commits" : "old_commits", json_integer(ncommits));
        json_object_set_new(root, side ? "new_dirty_results" : "old_dirty_results", json_integer(dirty));
    }
    json_dumpf(root, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(root);
}

/* ---- main --------------------------------------------------------------- */

int sb_compare_main(int argc, char **argv, FILE *out)
{
    options o;
    sb_rset set[2];
    memset(set, 0, sizeof set);
    int rc = parse_args(argc, argv, &o);
    for (int side = 0; side < 2 && !rc; side++) rc = sb_rset_load(o.path[side], 1, &set[side]);
    line *ls = rc ? NULL : calloc((size_t)(set[0].n + set[1].n) + 1, sizeof *ls);
    if (!rc && !ls) rc = SB_EXIT_RUNTIME;
    int n = 0;
    for (int i = 0; !rc && i < set[0].n; i++) {
        int j = sb_rset_find(&set[1], set[0].row[i].key);
        ls[n].r[0] = &set[0].row[i];
        ls[n++].r[1] = j >= 0 ? &set[1].row[j] : NULL;
    }
    for (int j = 0; !rc && j < set[1].n; j++)
        if (sb_rset_find(&set[0], set[1].row[j].key) < 0) ls[n++].r[1] = &set[1].row[j];
    int common = 0;
    for (int i = 0; !rc && i < n; i++)
        common += ls[i].r[0] && ls[i].r[1] && !ls[i].r[0]->complexity && !ls[i].r[1]->complexity;
    /* a gate that compared nothing must not pass */
    if (!rc && !common) {
        sb_error("OLD %s (%d case%s) and NEW %s (%d case%s) have no case in common: nothing compared; cases match "
                 "on kernel, backend, size, params, seed and ranks",
                 o.path[0], set[0].n, set[0].n == 1 ? "" : "s", o.path[1], set[1].n, set[1].n == 1 ? "" : "s");
        rc = SB_EXIT_USAGE;
    }
    if (!rc) {
        for (int i = 0; i < n; i++) analyse(&ls[i], &o);
        qsort(ls, (size_t)n, sizeof *ls, cmp_line);
        make_labels(ls, n);
        if (o.fmt == FMT_CSV)
            print_csv(out, &o, ls, n);
        else if (o.fmt == FMT_JSON)
            print_json(out, &o, ls, n);
        else
            print_table(out, &o, ls, n, set, o.fmt == FMT_MARKDOWN);
        summary s = summarise(ls, n);
        rc = s.regressions || s.changes || s.errors ? SB_EXIT_VALIDATION : SB_OK;
    }
    for (int i = 0; i < n; i++) free(ls[i].notes);
    free(ls);
    sb_rset_free(&set[0]);
    sb_rset_free(&set[1]);
    return rc;
}
