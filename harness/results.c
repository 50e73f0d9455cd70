#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "peaks_file.h"
#include "registry.h"
#include "result_check.h"
#include "results.h"

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jstr(json_t *o, const char *k, const char *def)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : def;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- one file ----------------------------------------------------------- */

/* A parameter at its kernel's default, which a file written before the parameter existed
 * does not list: left out of the case key, so adding a parameter does not make a new case. */
static int at_default(const char *kernel, const char *key, json_t *val)
{
    if (!kernel || !json_is_string(val)) return 0;
    for (int i = 0; i < sb_registry_count(); i++) {
        const sb_kernel *k = sb_registry_at(i);
        if (strcmp(k->name, kernel)) continue;
        for (int j = 0; k->params && k->params[j].key; j++)
            if (!strcmp(k->params[j].key, key)) return !strcmp(k->params[j].def, json_string_value(val));
    }
    return 0;
}

/* "k=v;k=v" with keys sorted, so the order a writer used does not matter; with a kernel,
 * the parameters at its defaults are left out (the case key). */
static void canonical_params(json_t *params, const char *kernel, char *out, size_t n)
{
    const char *keys[64];
    size_t nk = 0, len = 0;
    const char *k;
    json_t *v;
    out[0] = '\0';
    json_object_foreach(params, k, v) if (nk < 64 && !at_default(kernel, k, v)) keys[nk++] = k;
    qsort(keys, nk, sizeof keys[0], cmp_str);
    for (size_t i = 0; i < nk && len < n; i++) {
        json_t *val = json_object_get(params, keys[i]);
        char num[32] = "";
        if (json_is_number(val)) snprintf(num, sizeof num, "%.17g", json_number_value(val));
        len += (size_t)snprintf(out + len, n - len, "%s%s=%s", len ? ";" : "", keys[i],
                                json_is_string(val) ? json_string_value(val) : num);
    }
}

static int check_verdict(const sb_rcheck *c)
{
    if (!isfinite(c->value) || !isfinite(c->reference)) return 0;
    double d = fabs(c->value - c->reference);
    switch (c->kind) {
    case SB_TOL_ABS: return d <= c->tolerance;
    case SB_TOL_REL: return d <= c->tolerance * fabs(c->reference);
    case SB_TOL_MAX: return c->value <= c->reference;
    }
    return 0;
}

static void read_validation(json_t *v, sb_rrow *r)
{
    json_t *checks = json_object_get(v, "checks"), *c;
    size_t i;
    r->has_validation = json_is_object(v);
    r->passed = json_is_true(json_object_get(v, "passed"));
    json_array_foreach(checks, i, c)
    {
        if (r->nchecks >= SB_MAX_CHECKS) break;
        sb_rcheck *k = &r->check[r->nchecks++];
        const char *kind = jstr(c, "kind", "");
        snprintf(k->name, sizeof k->name, "%s", jstr(c, "name", "?"));
        k->value = jnum(c, "value");
        k->reference = jnum(c, "reference");
        k->tolerance = jnum(c, "tolerance");
        k->known_kind = 1;
        k->kind = !strcmp(kind, "abs") ? SB_TOL_ABS : !strcmp(kind, "rel") ? SB_TOL_REL : SB_TOL_MAX;
        if (strcmp(kind, "abs") && strcmp(kind, "rel") && strcmp(kind, "max")) k->known_kind = 0;
        k->pass = json_is_true(json_object_get(c, "pass"));
        k->consistent = !k->known_kind || k->pass == check_verdict(k);
    }
}

static void read_context(json_t *ctx, sb_rrow *r, const char *backend)
{
    json_t *peaks = json_object_get(ctx, "peaks"), *v;
    const char *k;
    snprintf(r->machine, sizeof r->machine, "%s", jstr(ctx, "machine", "?"));
    const char *dev = backend && !strcmp(backend, "cuda") ? jstr(json_object_get(ctx, "gpu"), "name", "")
                                                          : jstr(json_object_get(ctx, "cpu"), "model", "");
    while (*dev == ' ') dev++;
    snprintf(r->device, sizeof r->device, "%s", dev);
    for (size_t n = strlen(r->device); n > 0 && r->device[n - 1] == ' ';) r->device[--n] = '\0';
    snprintf(r->commit, sizeof r->commit, "%s", jstr(ctx, "git_commit", "?"));
    r->peak_bw = r->peak_fp32 = r->peak_fp64 = NAN;
    json_object_foreach(peaks, k, v)
    {
        size_t len = strlen(k), suf = strlen("_bandwidth_Bps");
        if (len > suf && !strcmp(k + len - suf, "_bandwidth_Bps") && json_is_number(v)) {
            snprintf(r->bw_kind, sizeof r->bw_kind, "%.*s", (int)(len - suf), k);
            r->peak_bw = json_number_value(v);
        }
    }
    r->peak_fp32 = jnum(peaks, "fma_fp32_flops");
    r->peak_fp64 = jnum(peaks, "fma_fp64_flops");
    json_t *cpu = json_object_get(ctx, "cpu"), *lanes = json_object_get(cpu, "simd_float_lanes");
    snprintf(r->build_isa, sizeof r->build_isa, "%s", jstr(cpu, "isa_compiled", ""));
    /* Files from before the FMA probe chose its instruction set ran it at the compiled width. */
    const char *isa = jstr(ctx, "fma_isa", r->build_isa);
    snprintf(r->fma_isa, sizeof r->fma_isa, "%s", backend && !strcmp(backend, "cuda") ? "" : isa);
    r->simd_lanes = json_is_integer(lanes) ? (int)json_integer_value(lanes) : 0;
    json_t *ndev = json_object_get(json_object_get(ctx, "mpi"), "devices");
    r->devices = json_is_integer(ndev) && json_integer_value(ndev) > 1 ? (int)json_integer_value(ndev) : 1;
}

/* --profile's measured pass: what the counters say next to the model. */
static void read_profile(json_t *p, sb_rrow *r)
{
    r->has_profile = json_is_object(p);
    snprintf(r->prof_tool, sizeof r->prof_tool, "%s", jstr(p, "tool", ""));
    r->prof_bytes_item = jnum(p, "bytes_per_item");
    r->prof_bytes_ratio = jnum(p, "bytes_ratio");
    r->prof_flops_item = jnum(p, "flops_per_item");
    r->prof_flops_ratio = jnum(p, "flops_ratio");
}

/* Entries of one case (same run_name) while a file is read. */
typedef struct {
    sb_rrow row;
    json_t *first, *median, *min, *max;
    int nit, nt;
    double *it; /* items/s of the iteration entries */
    double *t;  /* their real_time in seconds */
    int npass, nfail, self_split; /* entries' validation verdicts (sb_entry_verdict) */
} group;

/* Seconds per unit of time_unit; NaN for an unknown unit. */
static double unit_seconds(const char *u)
{
    return !strcmp(u, "ns") ? 1e-9 : !strcmp(u, "us") ? 1e-6 : !strcmp(u, "ms") ? 1e-3 : !strcmp(u, "s") ? 1.0 : NAN;
}

static double entry_seconds(json_t *b) { return jnum(b, "real_time") * unit_seconds(jstr(b, "time_unit", "")); }

/* Google Benchmark's Complexity() entries: a fit over the family's sizes, not a timing. */
static int complexity_entry(json_t *b)
{
    const char *agg = jstr(b, "aggregate_name", "");
    return !strcmp(agg, "BigO") || !strcmp(agg, "RMS");
}

/* Median and MAD of n sorted values (MAD NaN below 3). */
static void median_mad(const double *v, int n, double *med, double *mad)
{
    *med = n ? (v[(n - 1) / 2] + v[n / 2]) / 2 : NAN;
    *mad = NAN;
    double *dev = n >= 3 ? malloc((size_t)n * sizeof *dev) : NULL;
    if (!dev) return;
    for (int i = 0; i < n; i++) dev[i] = fabs(v[i] - *med);
    qsort(dev, (size_t)n, sizeof *dev, cmp_dbl);
    *mad = (dev[(n - 1) / 2] + dev[n / 2]) / 2;
    free(dev);
}

static void finish_group(group *g, json_t *ctx)
{
    sb_rrow *r = &g->row;
    json_t *b = g->median ? g->median : g->first;
    const char *kernel = jstr(b, "kernel", NULL), *backend = jstr(b, "backend", NULL);
    json_t *seed = json_object_get(b, "seed");
    read_context(ctx, r, backend);
    r->size = json_is_integer(json_object_get(b, "size")) ? (int)json_integer_value(json_object_get(b, "size")) : -1;
    json_t *reps = json_object_get(b, "repetitions");
    r->reps = json_is_integer(reps) && json_integer_value(reps) > 0 && json_integer_value(reps) < 1000000000
                  ? (int)json_integer_value(reps) : 0;
    if (json_is_integer(seed))
        snprintf(r->seed, sizeof r->seed, "%lld", (long long)json_integer_value(seed));
    else
        snprintf(r->seed, sizeof r->seed, "%s", jstr(b, "seed", ""));
    canonical_params(json_object_get(b, "params"), NULL, r->params, sizeof r->params);
    char *keyp = r->case_params;
    canonical_params(json_object_get(b, "params"), kernel, keyp, sizeof r->case_params);
    snprintf(r->item, sizeof r->item, "%s", jstr(b, "item", "items"));
    json_t *ranks = json_object_get(json_object_get(ctx, "mpi"), "ranks");
    r->ranks = json_is_integer(ranks) && json_integer_value(ranks) > 1 ? (int)json_integer_value(ranks) : 1;
    /* a CPU run held to part of the machine (OMP_NUM_THREADS=1 beside a libint2 run on one
     * core) is another case than the same problem on every core */
    json_t *th = json_object_get(b, "threads"), *lc = json_object_get(json_object_get(ctx, "cpu"), "logical_cpus");
    r->threads = backend && !strcmp(backend, "openmp_simd") && json_is_integer(th) && json_is_integer(lc) &&
                         json_integer_value(th) > 0 && json_integer_value(th) < json_integer_value(lc)
                     ? (int)json_integer_value(th)
                     : 0;
    if (kernel && backend && r->size >= 0) {
        snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
        snprintf(r->backend, sizeof r->backend, "%s", backend);
        /* an MPI run is another case than the same problem on one rank */
        char rk[48] = "";
        if (r->ranks > 1) snprintf(rk, sizeof rk, "|ranks=%d", r->ranks);
        if (r->threads) snprintf(rk + strlen(rk), sizeof rk - strlen(rk), "|threads=%d", r->threads);
        snprintf(r->key, sizeof r->key, "%s/%s/%d|%s|%s%s", kernel, backend, r->size, keyp, r->seed, rk);
    } else { /* a plain Google Benchmark entry: its name is all we have */
        snprintf(r->kernel, sizeof r->kernel, "%s", r->run_name);
        snprintf(r->key, sizeof r->key, "%s%s", r->run_name, r->complexity ? "|complexity" : "");
    }
    double med;
    if (g->nit) qsort(g->it, (size_t)g->nit, sizeof *g->it, cmp_dbl);
    median_mad(g->it, g->nit, &med, &r->mad);
    r->ips = g->median ? jnum(g->median, "items_per_second") : med;
    r->ips_lo = g->min ? jnum(g->min, "items_per_second") : g->nit ? g->it[0] : r->ips;
    r->ips_hi = g->max ? jnum(g->max, "items_per_second") : g->nit ? g->it[g->nit - 1] : r->ips;
    if (g->nt) qsort(g->t, (size_t)g->nt, sizeof *g->t, cmp_dbl);
    median_mad(g->t, g->nt, &med, &r->time_mad);
    r->time_s = g->median ? entry_seconds(g->median) : med;
    r->time_lo = g->min ? entry_seconds(g->min) : g->nt ? g->t[0] : r->time_s;
    r->time_hi = g->max ? entry_seconds(g->max) : g->nt ? g->t[g->nt - 1] : r->time_s;
    r->bps = jnum(b, "bytes_per_second");
    r->fps = jnum(b, "flops_per_second");
    r->pct_bw = jnum(b, "percent_peak_bandwidth");
    r->pct_flops = jnum(b, "percent_peak_flops");
    /* The FMA peak the percentage is of, from the context: a rate edited or rounded in the file
     * must not move the peak it is measured against. Files without flops_precision name it by
     * the rate over its percentage, nearest of the two. */
    const char *prec = jstr(b, "flops_precision", "");
    r->peak_flops = isfinite(r->fps) && r->pct_flops > 0 ? r->fps * 100.0 / r->pct_flops : NAN;
    r->flops_fp64 = -1;
    if (!strcmp(prec, "fp64") || !strcmp(prec, "fp32"))
        r->flops_fp64 = !strcmp(prec, "fp64");
    else if (isfinite(r->peak_flops) && r->peak_fp64 > 0 && r->peak_fp32 > 0)
        r->flops_fp64 = fabs(log(r->peak_flops / r->peak_fp64)) <= fabs(log(r->peak_flops / r->peak_fp32));
    if (r->flops_fp64 >= 0) r->peak_flops = isfinite(r->fps) ? (r->flops_fp64 ? r->peak_fp64 : r->peak_fp32) : NAN;
    read_validation(json_object_get(b, "validation"), r);
    read_profile(json_object_get(b, "profile"), r);
    /* entries of one run carry one verdict; any disagreement never counts as a pass */
    r->entries_pass = g->npass;
    r->entries_fail = g->nfail;
    r->verdict_split = (g->npass && g->nfail) || g->self_split;
    if (r->verdict_split) r->passed = 0;
    free(g->it);
    free(g->t);
}

/* ---- stored peaks ------------------------------------------------------- */

struct sb_peaks_dir {
    char *dir;  /* the folder */
    char *file; /* its peaks.json, NULL when it has none */
    sb_stored_peaks p;
};

/* The stored peaks of the folder holding path (read once per folder); NULL when it has none.
 * *rc: SB_EXIT_USAGE after one line when its peaks.json is malformed. */
static const struct sb_peaks_dir *peaks_of_dir(sb_rset *s, const char *path, int *rc)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], file[4200];
    struct stat st;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    for (int i = 0; i < s->ndirs; i++)
        if (!strcmp(s->dirs[i].dir, dir)) return s->dirs[i].file ? &s->dirs[i] : NULL;
    struct sb_peaks_dir *d = realloc(s->dirs, (size_t)(s->ndirs + 1) * sizeof *d);
    if (!d) return NULL;
    s->dirs = d;
    d = &s->dirs[s->ndirs];
    memset(d, 0, sizeof *d);
    if (!(d->dir = strdup(dir))) return NULL;
    s->ndirs++;
    snprintf(file, sizeof file, "%s/%s", dir, SB_PEAKS_FILE);
    if (stat(file, &st) != 0) return NULL;
    *rc = sb_peaks_file_read(file, &d->p);
    if (*rc || !(d->file = strdup(file))) return NULL;
    return d;
}

/* The row's peaks from its folder's stored set, where that set is of the row's machine: the
 * same machine class and the same model of what the backend ran on. */
static void use_stored(sb_rrow *r, const struct sb_peaks_dir *d, const char *backend)
{
    if (!d || !backend) return;
    int gpu = !strcmp(backend, "cuda");
    const sb_stored_probe *p = gpu ? d->p.gpu : d->p.cpu;
    const char *model = gpu ? d->p.gpu_name : d->p.cpu_model;
    if (!(gpu ? d->p.have_gpu : d->p.have_cpu) || strcmp(d->p.machine, r->machine) ||
        (model[0] && r->device[0] && strcmp(model, r->device)))
        return;
    snprintf(r->bw_kind, sizeof r->bw_kind, "%s", gpu ? "copy" : "triad");
    r->peak_bw = p[0].value * r->devices;
    r->peak_fp32 = p[1].value * r->devices;
    r->peak_fp64 = p[2].value * r->devices;
    if (r->flops_fp64 >= 0) r->peak_flops = isfinite(r->fps) ? (r->flops_fp64 ? r->peak_fp64 : r->peak_fp32) : NAN;
    r->pct_bw = r->peak_bw > 0 && isfinite(r->bps) ? 100.0 * r->bps / r->peak_bw : NAN;
    r->pct_flops = r->peak_flops > 0 && isfinite(r->fps) ? 100.0 * r->fps / r->peak_flops : NAN;
    if (!gpu && d->p.fma_isa[0]) snprintf(r->fma_isa, sizeof r->fma_isa, "%s", d->p.fma_isa);
    r->peaks_file = d->file;
}

static int add_row(sb_rset *s, const sb_rrow *r)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        sb_rrow *p = realloc(s->row, (size_t)cap * sizeof *p);
        if (!p) return -1;
        s->row = p;
        s->cap = cap;
    }
    s->row[s->n++] = *r;
    return 0;
}

static int load_file(const char *path, int unique, sb_rset *s)
{
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err), *benchmarks = json_object_get(root, "benchmarks"), *b;
    size_t i;
    if (!root) {
        sb_error("cannot read %s: %s (line %d)", path, err.text, err.line);
        return SB_EXIT_USAGE;
    }
    if (!json_is_array(benchmarks)) {
        sb_error("%s has no benchmarks[]: not a scibench or Google Benchmark result", path);
        json_decref(root);
        return SB_EXIT_USAGE;
    }
    int bad = sb_result_check(path, root);
    if (bad) {
        json_decref(root);
        return bad;
    }
    char **files = realloc(s->files, (size_t)(s->nfiles + 1) * sizeof *files);
    int ng = 0, rc = SB_OK;
    group *g = calloc(json_array_size(benchmarks) + 1, sizeof *g);
    if (!files || !g || !(files[s->nfiles] = strdup(path))) {
        if (files) s->files = files;
        free(g);
        json_decref(root);
        sb_error("out of memory reading %s", path);
        return SB_EXIT_RUNTIME;
    }
    s->files = files;
    const char *file = files[s->nfiles++];
    json_array_foreach(benchmarks, i, b)
    {
        const char *run = jstr(b, "run_name", jstr(b, "name", "?")), *agg = jstr(b, "aggregate_name", "");
        int cx = complexity_entry(b), k = 0;
        while (k < ng && (strcmp(g[k].row.run_name, run) || g[k].row.complexity != cx)) k++;
        if (k == ng) {
            ng++;
            snprintf(g[k].row.run_name, sizeof g[k].row.run_name, "%s", run);
            g[k].row.file = file;
            g[k].row.complexity = cx;
            g[k].first = b;
        }
        if (cx) { /* "BM_Sort_BigO (NlgN), BM_Sort_RMS" */
            sb_rrow *r = &g[k].row;
            size_t len = strlen(r->complexity_text);
            const char *bigo = jstr(b, "big_o", NULL);
            snprintf(r->complexity_text + len, sizeof r->complexity_text - len, "%s%s%s%s%s", len ? ", " : "",
                     jstr(b, "name", "?"), bigo ? " (O(" : "", bigo ? bigo : "", bigo ? "))" : "");
            continue;
        }
        if (json_is_true(json_object_get(b, "error_occurred")) && !g[k].row.error) {
            g[k].row.error = 1;
            snprintf(g[k].row.error_msg, sizeof g[k].row.error_msg, "%s", jstr(b, "error_message", "no message"));
        }
        int split, verdict = sb_entry_verdict(b, &split);
        g[k].npass += verdict == 1;
        g[k].nfail += verdict == 0;
        g[k].self_split |= split;
        if (!strcmp(jstr(b, "run_type", "iteration"), "aggregate")) {
            if (!strcmp(agg, "median")) g[k].median = b;
            if (!strcmp(agg, "min")) g[k].min = b;
            if (!strcmp(agg, "max")) g[k].max = b;
            continue;
        }
        if (isfinite(jnum(b, "items_per_second"))) {
            double *it = realloc(g[k].it, (size_t)(g[k].nit + 1) * sizeof *it);
            if (it) (g[k].it = it)[g[k].nit++] = jnum(b, "items_per_second");
        }
        if (isfinite(entry_seconds(b)) && !json_is_true(json_object_get(b, "error_occurred"))) {
            double *t = realloc(g[k].t, (size_t)(g[k].nt + 1) * sizeof *t);
            if (t) (g[k].t = t)[g[k].nt++] = entry_seconds(b);
        }
    }
    const struct sb_peaks_dir *stored = peaks_of_dir(s, path, &rc);
    for (int k = 0; k < ng; k++) {
        finish_group(&g[k], json_object_get(root, "context"));
        if (!rc) use_stored(&g[k].row, stored, jstr(g[k].median ? g[k].median : g[k].first, "backend", NULL));
        int dup = unique ? sb_rset_find(s, g[k].row.key) : -1;
        if (dup >= 0 && !rc) {
            sb_error("case %s is in both %s and %s; compare one machine's folder at a time", g[k].row.run_name,
                     s->row[dup].file, path);
            rc = SB_EXIT_USAGE;
        }
        if (!rc && add_row(s, &g[k].row)) rc = SB_EXIT_RUNTIME;
    }
    free(g);
    json_decref(root);
    return rc;
}

/* ---- folders ------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Subfolders holding other tools' JSON beside a machine's results: hyperfine's exports and
 * tools/eri_libint2's benchmark lines. */
static int foreign_dir(const char *name) { return !strcmp(name, "hyperfine") || !strcmp(name, "libint2"); }

/* JSON beside a machine's results that is not a result: the basis sets dfratom_scf's job=bsize
 * writes (*.basis.json) and tools/compute_sanitizer.sh's summary. */
static int foreign_file(const char *name)
{
    return ends_with(name, ".basis.json") || !strcmp(name, "compute-sanitizer.json") || !strcmp(name, SB_PEAKS_FILE);
}

/* Appends the *.json under dir (and one level of subfolders when depth > 0), sorted. */
static int list_json(const char *dir, int depth, char ***out, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int first = *n;
    if (!d) return -1;
    while ((e = readdir(d))) {
        char path[4096];
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_dir(path)) {
            if (depth > 0 && !foreign_dir(e->d_name)) list_json(path, depth - 1, out, n);
            continue;
        }
        if (!ends_with(e->d_name, ".json") || foreign_file(e->d_name)) continue;
        char **p = realloc(*out, (size_t)(*n + 1) * sizeof *p);
        if (!p) break;
        *out = p;
        if (((*out)[*n] = strdup(path))) (*n)++;
    }
    closedir(d);
    if (*n > first) qsort(*out + first, (size_t)(*n - first), sizeof **out, cmp_str); /* *out is NULL in an empty folder */
    return 0;
}

int sb_rset_load(const char *path, int unique, sb_rset *s)
{
    struct stat st;
    char **files = NULL;
    int n = 0, rc = SB_OK;
    memset(s, 0, sizeof *s);
    if (stat(path, &st) != 0) {
        sb_error("%s: no such file or folder", path);
        return SB_EXIT_USAGE;
    }
    if (!S_ISDIR(st.st_mode)) return load_file(path, unique, s);
    if (list_json(path, 1, &files, &n) != 0) {
        sb_error("%s: cannot open the folder", path);
        return SB_EXIT_USAGE;
    }
    if (n == 0) {
        sb_error("%s holds no *.json result files (nor its subfolders)", path);
        rc = SB_EXIT_USAGE;
    }
    for (int i = 0; i < n; i++) {
        if (!rc) rc = load_file(files[i], unique, s);
        free(files[i]);
    }
    free(files);
    return rc;
}

void sb_rset_free(sb_rset *s)
{
    for (int i = 0; i < s->ndirs; i++) free(s->dirs[i].dir), free(s->dirs[i].file);
    free(s->dirs);
    for (int i = 0; i < s->nfiles; i++) free(s->files[i]);
    free(s->files);
    free(s->row);
    memset(s, 0, sizeof *s);
}

int sb_rset_find(const sb_rset *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->row[i].key, key)) return i;
    return -1;
}

int sb_rrow_kernel_rank(const sb_rrow *r)
{
    int i = 0;
    while (i < sb_registry_count() && strcmp(sb_registry_at(i)->name, r->kernel)) i++;
    return i;
}

double sb_rrow_roofline(const sb_rrow *r)
{
    double roof = NAN;
    if (!(r->ips > 0)) return NAN;
    if (r->peak_bw > 0 && r->bps > 0) roof = r->peak_bw / (r->bps / r->ips);
    if (r->peak_flops > 0 && r->fps > 0) {
        double f = r->peak_flops / (r->fps / r->ips);
        roof = isfinite(roof) && roof < f ? roof : f;
    }
    return roof;
}

double sb_rrow_noise(const sb_rrow *r)
{
    double s = isfinite(r->mad) ? 3 * r->mad / r->ips : (r->ips_hi - r->ips_lo) / (2 * r->ips);
    return isfinite(s) && s > 0 ? s : 0;
}

double sb_rrow_time_noise(const sb_rrow *r)
{
    double s = isfinite(r->time_mad) ? 3 * r->time_mad / r->time_s : (r->time_hi - r->time_lo) / (2 * r->time_s);
    return isfinite(s) && s > 0 ? s : 0;
}
