#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "results.h"
#include "table.h"

typedef enum { FMT_CSV, FMT_MARKDOWN } format;

/* Every row of every path, in one list (a row points into its set). */
typedef struct {
    sb_rset *set;
    int nset;
    const sb_rrow **row;
    int n;
} table;

static void table_free(table *t)
{
    for (int i = 0; i < t->nset; i++) sb_rset_free(&t->set[i]);
    free(t->set);
    free(t->row);
}

static int table_load(table *t, char **paths, int npath)
{
    memset(t, 0, sizeof *t);
    if (!(t->set = calloc((size_t)npath, sizeof *t->set))) return SB_EXIT_RUNTIME;
    int total = 0;
    for (; t->nset < npath; t->nset++) {
        int rc = sb_rset_load(paths[t->nset], 0, &t->set[t->nset]);
        if (rc) return t->nset++, rc;
        total += t->set[t->nset].n;
    }
    if (!(t->row = calloc((size_t)total + 1, sizeof *t->row))) return SB_EXIT_RUNTIME;
    for (int s = 0; s < t->nset; s++) /* Complexity() fits are no case: left out */
        for (int i = 0; i < t->set[s].n; i++)
            if (!t->set[s].row[i].complexity) t->row[t->n++] = &t->set[s].row[i];
    return SB_OK;
}

/* ---- CSV: every field, for tools ----------------------------------------- */

static void csv_str(FILE *out, const char *s, const char *sep)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"') fputc('"', out);
            fputc(*s, out);
        }
        fprintf(out, "\"%s", sep);
    } else {
        fprintf(out, "%s%s", s, sep);
    }
}

static void csv_num(FILE *out, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(out, "%.6g%s", v, sep);
    else
        fprintf(out, "%s", sep);
}

/* Columns only ever added at the end: tools/ scripts read them by position. */
static void print_csv(FILE *out, const table *t)
{
    fputs("machine,kernel,backend,size,params,seed,item,items_per_second,items_per_second_min,items_per_second_max,"
          "bytes_per_second,flops_per_second,bytes_per_item,flops_per_item,bw_kind,peak_bandwidth_Bps,"
          "peak_fp32_flops,peak_fp64_flops,peak_flops_used,roofline_items_per_second,percent_roofline,passed,"
          "commit,file,noise,ranks,case_params,measured_bytes_per_item,measured_bytes_ratio,measured_flops_per_item,"
          "measured_flops_ratio,profile_tool,threads,real_time_s,error,peaks_file,fma_isa,repetitions\n",
          out);
    for (int i = 0; i < t->n; i++) {
        const sb_rrow *r = t->row[i];
        double roof = sb_rrow_roofline(r);
        char size[16] = "";
        if (r->size >= 0) snprintf(size, sizeof size, "%d", r->size);
        csv_str(out, r->machine, ",");
        csv_str(out, r->kernel, ",");
        csv_str(out, r->backend, ",");
        csv_str(out, size, ",");
        csv_str(out, r->params, ",");
        csv_str(out, r->seed, ",");
        csv_str(out, r->item, ",");
        csv_num(out, r->ips, ",");
        csv_num(out, r->ips_lo, ",");
        csv_num(out, r->ips_hi, ",");
        csv_num(out, r->bps, ",");
        csv_num(out, r->fps, ",");
        csv_num(out, r->bps / r->ips, ",");
        csv_num(out, r->fps / r->ips, ",");
        csv_str(out, r->bw_kind, ",");
        csv_num(out, r->peak_bw, ",");
        csv_num(out, r->peak_fp32, ",");
        csv_num(out, r->peak_fp64, ",");
        csv_num(out, r->peak_flops, ",");
        csv_num(out, roof, ",");
        csv_num(out, 100.0 * r->ips / roof, ",");
        csv_str(out, !r->has_validation ? "" : r->passed ? "true" : "false", ",");
        csv_str(out, r->commit, ",");
        csv_str(out, r->file, ",");
        csv_num(out, sb_rrow_noise(r), ",");
        fprintf(out, "%d,", r->ranks);
        csv_str(out, r->case_params, ",");
        csv_num(out, r->prof_bytes_item, ",");
        csv_num(out, r->prof_bytes_ratio, ",");
        csv_num(out, r->prof_flops_item, ",");
        csv_num(out, r->prof_flops_ratio, ",");
        csv_str(out, r->prof_tool, ",");
        if (r->threads) fprintf(out, "%d", r->threads);
        fputs(",", out);
        csv_num(out, r->time_s, ",");
        csv_str(out, r->error ? r->error_msg : "", ",");
        csv_str(out, r->peaks_file ? r->peaks_file : "", ",");
        csv_str(out, r->fma_isa, ",");
        if (r->reps) fprintf(out, "%d", r->reps);
        fputs("\n", out);
    }
}

/* ---- markdown: compact, a number and its unit in each cell --------------- */

#define CELL 128
#define CASE_MAX 60 /* a case cell longer than this is cut, "..." marking the cut */

static int backend_rank(const char *b)
{
    static const char *const order[] = {"cuda", "openmp_simd", "reference"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(b, order[i])) return i;
    return 3;
}

static int cmp_row(const void *a, const void *b)
{
    const sb_rrow *x = *(const sb_rrow *const *)a, *y = *(const sb_rrow *const *)b;
    int c = strcmp(x->machine, y->machine);
    if (!c) c = sb_rrow_kernel_rank(x) - sb_rrow_kernel_rank(y);
    if (!c) c = strcmp(x->kernel, y->kernel);
    if (!c) c = backend_rank(x->backend) - backend_rank(y->backend);
    if (!c) c = strcmp(x->backend, y->backend);
    if (!c) c = strcmp(x->case_params, y->case_params);
    if (!c) c = (x->size > y->size) - (x->size < y->size);
    if (!c) c = x->ranks - y->ranks;
    if (!c) c = x->threads - y->threads; /* the whole machine (0) first */
    if (!c) c = x->simd_lanes - y->simd_lanes; /* two builds of one case side by side, the narrower first */
    return c ? c : strcmp(x->key, y->key);
}

/* Three significant digits and an SI prefix: "3 TB/s"; a unit that is a word gets its own
 * space, "42.4 G site updates/s" (pass it as " site updates/s"). */
static void si(char *buf, size_t n, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    int e = 0;
    if (!isfinite(v)) {
        snprintf(buf, n, "—");
        return;
    }
    while (fabs(v) >= 999.5 && e < 6) v /= 1000, e++;
    snprintf(buf, n, "%.3g %s%s", v, prefix[e], e == 0 && unit[0] == ' ' ? unit + 1 : unit);
}

/* The size as the kernel names it ("L=256" from "L, lattice edge ..."), else "size 16". */
static void size_text(const sb_rrow *r, char *buf, size_t n)
{
    int k = sb_rrow_kernel_rank(r);
    const char *m = k < sb_registry_count() ? sb_registry_at(k)->size_meaning : NULL, *comma = m ? strchr(m, ',') : NULL;
    if (r->size < 0)
        snprintf(buf, n, "%s", r->run_name);
    else if (comma && comma - m <= 3 && !memchr(m, ' ', (size_t)(comma - m)))
        snprintf(buf, n, "%.*s=%d", (int)(comma - m), m, r->size);
    else
        snprintf(buf, n, "size %d", r->size);
}

/* Size, the parameters away from the kernel's defaults, ranks, threads (part of the machine), seed. */
static void case_text(const sb_rrow *r, char *buf, size_t n)
{
    char c[640];
    size_t len;
    size_text(r, c, sizeof c);
    len = strlen(c);
    for (const char *p = r->case_params; *p && len < sizeof c - 1; p++) {
        if (p == r->case_params) c[len++] = ' ';
        c[len++] = *p == ';' ? ' ' : *p;
    }
    c[len] = '\0';
    if (r->ranks > 1) len += (size_t)snprintf(c + len, sizeof c - len, ", %d ranks", r->ranks);
    if (r->threads && len < sizeof c)
        len += (size_t)snprintf(c + len, sizeof c - len, ", %d thread%s", r->threads, r->threads > 1 ? "s" : "");
    if (len < sizeof c && r->seed[0] && strcmp(r->seed, "1")) snprintf(c + len, sizeof c - len, ", seed %s", r->seed);
    if (strlen(c) > CASE_MAX) memcpy(c + CASE_MAX - 3, "...", 4);
    snprintf(buf, n, "%s", c);
}

/* "34.0 % of 3 TB/s copy": the share and the measured peak it is a share of. */
static void pct_text(char *buf, size_t n, double rate, double pct, double peak, const char *unit, const char *what)
{
    char p[48];
    if (!(pct >= 0) || !isfinite(rate)) {
        snprintf(buf, n, "—");
        return;
    }
    si(p, sizeof p, peak > 0 ? peak : rate * 100.0 / pct, unit);
    snprintf(buf, n, pct >= 1 ? "%.1f %% of %s%s%s" : "%.2g %% of %s%s%s", pct, p, what[0] ? " " : "", what);
}

/* "FP64", and for a CPU row the instruction set of its FMA roof: "FP64 AVX-512". */
static const char *flop_kind(const sb_rrow *r, char *buf, size_t n)
{
    const char *p = fabs(r->peak_flops - r->peak_fp64) <= 1e-6 * r->peak_fp64   ? "FP64"
                    : fabs(r->peak_flops - r->peak_fp32) <= 1e-6 * r->peak_fp32 ? "FP32"
                                                                                : "";
    snprintf(buf, n, "%s%s%s", p, *p && r->fma_isa[0] ? " " : "", *p ? r->fma_isa : "");
    return buf;
}

/* The backend a row is measured against: CUDA against the CPU backend, the CPU
 * backend against the scalar reference. */
static const char *peer_of(const char *backend)
{
    return !strcmp(backend, "cuda") ? "openmp_simd" : !strcmp(backend, "openmp_simd") ? "reference" : NULL;
}

/* "43.1× openmp_simd": items/s over the same case's on the peer backend of the same machine and
 * build (a CUDA binary is the default CPU build). */
static void peer_text(const table *t, const sb_rrow *r, char *buf, size_t n)
{
    const char *peer = peer_of(r->backend);
    snprintf(buf, n, "—");
    for (int i = 0; peer && i < t->n; i++) {
        const sb_rrow *q = t->row[i];
        if (strcmp(q->backend, peer) || strcmp(q->kernel, r->kernel) || q->size != r->size || q->ranks != r->ranks ||
            (q->threads && q->threads != r->threads) ||
            strcmp(q->case_params, r->case_params) || strcmp(q->seed, r->seed) || strcmp(q->machine, r->machine) ||
            strcmp(q->build_isa, r->build_isa) || !(q->ips > 0) || !(r->ips > 0))
            continue;
        snprintf(buf, n, "%.3g× %s", r->ips / q->ips, peer);
        return;
    }
}

static void validation_text(const sb_rrow *r, char *buf, size_t n)
{
    int failed = 0;
    for (int i = 0; i < r->nchecks; i++) failed += !r->check[i].pass;
    if (!r->has_validation)
        snprintf(buf, n, "—");
    else if (r->passed)
        snprintf(buf, n, "PASSED (%d checks)", r->nchecks);
    else
        snprintf(buf, n, "FAILED (%d of %d checks)", failed, r->nchecks);
}

static void cell(FILE *out, const char *s)
{
    fputs(" ", out);
    for (; *s; s++) {
        if (*s == '|') fputc('\\', out);
        fputc(*s, out);
    }
    fputs(" |", out);
}

/* More than one CPU build among the CPU rows: their backend cells name the build. */
static int several_builds(const table *t)
{
    const char *first = NULL;
    for (int i = 0; i < t->n; i++) {
        const sb_rrow *r = t->row[i];
        if (!strcmp(r->backend, "cuda") || !r->build_isa[0]) continue;
        if (first && strcmp(first, r->build_isa)) return 1;
        first = r->build_isa;
    }
    return 0;
}

static void print_markdown(FILE *out, table *t)
{
    int machines = 0, profiles = 0, builds = several_builds(t);
    qsort(t->row, (size_t)t->n, sizeof *t->row, cmp_row);
    for (int i = 0; i < t->n; i++) {
        machines += i == 0 || strcmp(t->row[i]->machine, t->row[i - 1]->machine);
        profiles += t->row[i]->has_profile;
    }
    fprintf(out, "|%s kernel | backend | case | throughput | %% of measured peak bandwidth | %% of measured peak FLOP rate "
                 "| vs other backend | validation |%s\n",
            machines > 1 ? " machine |" : "", profiles ? " DRAM bytes/item, measured | measured / model bytes |" : "");
    fprintf(out, "|%s---|---|---|---:|---:|---:|---:|---|%s\n", machines > 1 ? "---|" : "", profiles ? "---:|---:|" : "");
    for (int i = 0; i < t->n; i++) {
        const sb_rrow *r = t->row[i];
        char c[CELL], unit[64];
        fputs("|", out);
        if (machines > 1) cell(out, r->machine);
        cell(out, r->kernel);
        if (builds && strcmp(r->backend, "cuda") && r->build_isa[0])
            snprintf(c, sizeof c, "%s, %s build", r->backend, r->build_isa);
        else
            snprintf(c, sizeof c, "%s", r->backend);
        cell(out, c);
        case_text(r, c, sizeof c);
        cell(out, c);
        snprintf(unit, sizeof unit, " %s/s", r->item);
        si(c, sizeof c, r->ips, unit);
        cell(out, c);
        pct_text(c, sizeof c, r->bps, r->pct_bw, r->peak_bw, "B/s", r->bw_kind);
        cell(out, c);
        char kind[48];
        pct_text(c, sizeof c, r->fps, r->pct_flops, r->peak_flops, "FLOP/s", flop_kind(r, kind, sizeof kind));
        cell(out, c);
        peer_text(t, r, c, sizeof c);
        cell(out, c);
        validation_text(r, c, sizeof c);
        cell(out, c);
        if (profiles) {
            si(c, sizeof c, r->prof_bytes_item, "B");
            cell(out, c);
            if (isfinite(r->prof_bytes_ratio))
                snprintf(c, sizeof c, "%.2f×", r->prof_bytes_ratio);
            else
                snprintf(c, sizeof c, "—");
            cell(out, c);
        }
        fputs("\n", out);
    }
}

/* ---- main ---------------------------------------------------------------- */

int sb_table_main(int argc, char **argv, FILE *out)
{
    format fmt = FMT_CSV;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    int npath = 0, rc = SB_OK;
    if (!paths) return SB_EXIT_RUNTIME;
    for (int i = 0; i < argc && !rc; i++) {
        const char *a = argv[i], *val = NULL;
        if (strncmp(a, "--", 2)) {
            paths[npath++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--format") && i + 1 < argc)
            val = argv[++i];
        else if (!strncmp(a, "--format=", 9))
            val = a + 9;
        if (!val) {
            sb_error("table: unknown option or missing value '%s'; usage: scibench " SB_TABLE_USAGE, a);
            rc = SB_EXIT_USAGE;
        } else if (!strcmp(val, "csv") || !strcmp(val, "markdown")) {
            fmt = !strcmp(val, "csv") ? FMT_CSV : FMT_MARKDOWN;
        } else {
            sb_error("table: --format '%s' is unknown; accepted: csv, markdown", val);
            rc = SB_EXIT_USAGE;
        }
    }
    if (!rc && npath == 0) {
        sb_error("table needs result files or folders, e.g. 'scibench table results/h200'");
        rc = SB_EXIT_USAGE;
    }
    table t;
    memset(&t, 0, sizeof t);
    if (!rc) rc = table_load(&t, paths, npath);
    if (!rc && fmt == FMT_CSV) print_csv(out, &t);
    if (!rc && fmt == FMT_MARKDOWN) print_markdown(out, &t);
    table_free(&t);
    free(paths);
    return rc;
}
