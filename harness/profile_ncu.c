/* GPU counters through Nsight Compute's CLI. ncu runs the case again as a child (once
 * per pass of counters, application replay, caches flushed before each launch), counting
 * only its timed repetitions, each between cudaProfilerStart and Stop; it exports a report,
 * and a second ncu prints it as raw CSV, which is parsed here. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile.h"

/* Metric names as ncu knows them (Hopper, Nsight Compute 2023+). */
enum {
    M_TIME, M_DRAM_RD, M_DRAM_WR, M_DRAM_PCT, M_OCC, M_OCC_THEO, M_SM_PCT, M_FP64_PCT, M_FP32_PCT,
    M_L1_HIT, M_L2_HIT, M_LD_SECT, M_LD_REQ, M_ST_SECT, M_ST_REQ, M_LD_BYTES, M_ST_BYTES, M_REGS,
    M_LOCAL_LD, M_LOCAL_ST, M_DADD, M_DMUL, M_DFMA, M_FADD, M_FMUL, M_FFMA, M_BLOCK, M_GRID, M_COUNT
};
static const char *const metric[M_COUNT] = {
    [M_TIME] = "gpu__time_duration.sum",
    [M_DRAM_RD] = "dram__bytes_read.sum",
    [M_DRAM_WR] = "dram__bytes_write.sum",
    [M_DRAM_PCT] = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    [M_OCC] = "sm__warps_active.avg.pct_of_peak_sustained_active",
    [M_OCC_THEO] = "sm__maximum_warps_per_active_cycle_pct",
    [M_SM_PCT] = "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    [M_FP64_PCT] = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    [M_FP32_PCT] = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    [M_L1_HIT] = "l1tex__t_sector_hit_rate.pct",
    [M_L2_HIT] = "lts__t_sector_hit_rate.pct",
    [M_LD_SECT] = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    [M_LD_REQ] = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    [M_ST_SECT] = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    [M_ST_REQ] = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    [M_LD_BYTES] = "smsp__sass_data_bytes_mem_global_op_ld.sum",
    [M_ST_BYTES] = "smsp__sass_data_bytes_mem_global_op_st.sum",
    [M_REGS] = "launch__registers_per_thread",
    [M_LOCAL_LD] = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
    [M_LOCAL_ST] = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
    [M_DADD] = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    [M_DMUL] = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    [M_DFMA] = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    [M_FADD] = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    [M_FMUL] = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    [M_FFMA] = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    [M_BLOCK] = "launch__block_size",
    [M_GRID] = "launch__grid_size",
};

/* Metrics ncu measures by patching the kernel's code (requested bytes, FP instruction
 * counts): they cost the most replay time, and SB_PROFILE_METRICS=hardware leaves them out. */
static int instrumented(int m) { return !strncmp(metric[m], "smsp__sass_", 11); }

/* ncu's replay mode: SB_NCU_REPLAY where set (application, kernel, app-range), else
 * app-range for a kernel that asks to be counted as one range (sb_kernel.profile_as_range),
 * else application. A range is one result for the whole repetition, every launch in it
 * counted together; only hardware counters exist for it. */
const char *sb_ncu_replay_mode(int as_range)
{
    const char *r = getenv("SB_NCU_REPLAY");
    return r && *r ? r : as_range ? "app-range" : "application";
}

const char *sb_ncu_metric_list(int range)
{
    static char list[2048];
    const char *set = getenv("SB_PROFILE_METRICS");
    int hw_only = (set && !strcmp(set, "hardware")) || range;
    list[0] = '\0';
    for (int i = 0; i < M_COUNT; i++)
        if ((!hw_only || !instrumented(i)) && !(range && !strncmp(metric[i], "launch__", 8)))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? "," : "", metric[i]);
    return list;
}

/* DRAM writes of kernels whose local memory lives in L2 vary from one identical launch to
 * the next (fullerene_ff 200's force-field launch wrote 5.4 to 7.5e8 B in 12 of them), so
 * one counted repetition is a sample; SB_PROFILE_REPS=N reports the mean of N. */
#define SB_PROFILE_MAX_REPS 64

int sb_profile_reps(int *reps)
{
    const char *v = getenv("SB_PROFILE_REPS");
    *reps = 1;
    if (!v || !*v) return SB_OK;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || end == v || n < 1 || n > SB_PROFILE_MAX_REPS) {
        sb_error("SB_PROFILE_REPS=%s: the repetitions --profile counts must be an integer in 1..%d", v,
                 SB_PROFILE_MAX_REPS);
        return SB_EXIT_USAGE;
    }
    *reps = (int)n;
    return SB_OK;
}

int sb_profile_range_requested(void)
{
    const char *v = getenv(SB_PROFILE_RANGE_ENV);
    return v && !strcmp(v, "1");
}

/* ---- CSV ---------------------------------------------------------------- */

/* Splits one line (quoted fields, "" inside quotes) in place into f, which has room for
 * one field per comma plus one. Returns the field count, or -1 for a broken quote. */
static int split_csv(char *line, char **f)
{
    int n = 0;
    char *s = line;
    for (;;) {
        char *w = s;
        f[n++] = w;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s) return -1;
                if (*s == '"' && s[1] == '"') {
                    *w++ = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    *w++ = *s++;
                }
            }
            if (*s && *s != ',') return -1;
        } else {
            while (*s && *s != ',') *w++ = *s++;
        }
        int more = *s == ',';
        *w = '\0';
        if (!more) return n;
        s++;
    }
}

/* A number as ncu prints it: digits with optional thousands separators; "n/a" and
 * empty are "no value" (NaN). -1 for anything else. */
static int parse_value(const char *s, double *out)
{
    char buf[64];
    size_t k = 0;
    if (!*s || !strcmp(s, "n/a") || !strcmp(s, "N/A")) {
        *out = NAN;
        return 0;
    }
    for (; *s && k + 1 < sizeof buf; s++)
        if (*s != ',') buf[k++] = *s;
    if (*s) return -1;
    buf[k] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Scale to base units when a units row says otherwise (ncu without --print-units base). */
static double unit_scale(const char *u)
{
    static const struct {
        const char *unit;
        double scale;
    } t[] = {{"byte", 1},       {"Kbyte", 1e3},   {"Mbyte", 1e6},     {"Gbyte", 1e9},   {"Tbyte", 1e12},
             {"nsecond", 1e-9}, {"usecond", 1e-6}, {"msecond", 1e-3}, {"second", 1},    {"ns", 1e-9},
             {"us", 1e-6},      {"ms", 1e-3},     {"s", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(u, t[i].unit)) return t[i].scale;
    return 1.0;
}

/* ncu's demangled name without return type, parameters and anonymous namespaces:
 * "void <unnamed>::lmc_tick<0>(<unnamed>::tick_args, double *)" -> "lmc_tick<0>". */
static void short_name(const char *in, char *out, size_t n)
{
    char buf[1024], name[1024];
    snprintf(buf, sizeof buf, "%s", in);
    static const char *const anon[] = {"<unnamed>::", "(anonymous namespace)::"};
    for (size_t a = 0; a < 2; a++)
        for (char *hit; (hit = strstr(buf, anon[a]));) memmove(hit, hit + strlen(anon[a]), strlen(hit + strlen(anon[a])) + 1);
    size_t k = 0;
    int depth = 0;
    for (const char *q = buf; *q; q++) {
        if (*q == '<') depth++;
        if (*q == '>' && depth > 0) depth--;
        if (*q == '(' && depth == 0) break; /* the parameter list */
        if (*q == ' ' && depth == 0) {      /* what came before was a return type */
            k = 0;
            continue;
        }
        name[k++] = *q;
    }
    name[k] = '\0';
    snprintf(out, n, "%s", k ? name : in);
}

static int find_group(sb_profile *p, const char *full)
{
    char name[sizeof p->group[0].name];
    short_name(full, name, sizeof name);
    for (int i = 0; i < p->ngroups; i++)
        if (!strcmp(p->group[i].name, name)) return i;
    if (p->ngroups == SB_PROF_MAX_GROUPS) return -1;
    sb_prof_group *g = &p->group[p->ngroups];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    double *nan_fields[] = {&g->dram_pct, &g->occ_achieved, &g->occ_theoretical, &g->sm_pct, &g->fp64_pct,
                            &g->fp32_pct, &g->l1_hit, &g->l2_hit, &g->regs};
    for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; i++) *nan_fields[i] = NAN;
    return p->ngroups++;
}

/* The percentages a group reports: duration-weighted means over its launches. */
static const int pct_metric[] = {M_DRAM_PCT, M_OCC, M_OCC_THEO, M_SM_PCT, M_FP64_PCT, M_FP32_PCT, M_L1_HIT, M_L2_HIT};
#define NPCT (int)(sizeof pct_metric / sizeof pct_metric[0])
typedef struct {
    double sum[NPCT], weight[NPCT];
} pct_acc;

static double *pct_field(sb_prof_group *g, int i)
{
    double *f[NPCT] = {&g->dram_pct, &g->occ_achieved, &g->occ_theoretical, &g->sm_pct,
                       &g->fp64_pct, &g->fp32_pct, &g->l1_hit, &g->l2_hit};
    return f[i];
}

static double or0(double v) { return isnan(v) ? 0 : v; }

/* Adds one launch (its metric values in base units) to its group. */
static void add_launch(sb_profile *p, sb_prof_group *g, const double *v, pct_acc *a)
{
    double w = v[M_TIME] > 0 ? v[M_TIME] : 1e-9; /* a launch without a duration still counts */
    g->launches++;
    p->nlaunch++;
    g->duration += or0(v[M_TIME]);
    g->dram_read += or0(v[M_DRAM_RD]);
    g->dram_write += or0(v[M_DRAM_WR]);
    for (int i = 0; i < NPCT; i++) {
        double x = v[pct_metric[i]];
        if (isnan(x)) continue;
        a->sum[i] += x * w;
        a->weight[i] += w;
        *pct_field(g, i) = a->sum[i] / a->weight[i];
    }
    g->ld_sectors += or0(v[M_LD_SECT]);
    g->ld_requests += or0(v[M_LD_REQ]);
    g->st_sectors += or0(v[M_ST_SECT]);
    g->st_requests += or0(v[M_ST_REQ]);
    g->ld_bytes_req += or0(v[M_LD_BYTES]);
    g->st_bytes_req += or0(v[M_ST_BYTES]);
    if (!isnan(v[M_REGS]) && (isnan(g->regs) || v[M_REGS] > g->regs)) g->regs = v[M_REGS];
    g->local_bytes += or0(v[M_LOCAL_LD]) + or0(v[M_LOCAL_ST]);
    g->flops64 += or0(v[M_DADD]) + or0(v[M_DMUL]) + 2 * or0(v[M_DFMA]);
    g->flops32 += or0(v[M_FADD]) + or0(v[M_FMUL]) + 2 * or0(v[M_FFMA]);
    if (!isnan(v[M_BLOCK])) g->block = (int)v[M_BLOCK];
    if (!isnan(v[M_GRID])) g->grid = (int)v[M_GRID];
}

/* Next line of text (terminated in place); NULL at the end. */
static char *next_line(char **cur)
{
    char *s = *cur;
    if (!s || !*s) return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *cur = nl + 1;
        if (nl > s && nl[-1] == '\r') nl[-1] = '\0';
    } else {
        *cur = s + strlen(s);
    }
    return s;
}

typedef struct {
    int name_col, id_col, ncols;
    int col[M_COUNT];        /* column of each metric, -1 when absent */
    double scale[M_COUNT];
} csv_layout;

static int read_header(char **f, int n, csv_layout *L, char *err, size_t errlen)
{
    L->ncols = n;
    L->name_col = L->id_col = -1;
    for (int m = 0; m < M_COUNT; m++) L->col[m] = -1, L->scale[m] = 1.0;
    for (int i = 0; i < n; i++) {
        /* a kernel's name, or a range's (app-range replay) */
        if (!strcmp(f[i], "Kernel Name") || (L->name_col < 0 && !strcmp(f[i], "Range Name"))) L->name_col = i;
        if (!strcmp(f[i], "ID")) L->id_col = i;
        for (int m = 0; m < M_COUNT; m++)
            if (!strcmp(f[i], metric[m])) L->col[m] = i;
    }
    if (L->name_col < 0 || L->id_col < 0) {
        snprintf(err, errlen, "the header has no \"ID\" or \"Kernel Name\" (\"Range Name\") column");
        return -1;
    }
    if (L->col[M_DRAM_RD] < 0 || L->col[M_DRAM_WR] < 0) {
        snprintf(err, errlen, "the header has no %s or %s column", metric[M_DRAM_RD], metric[M_DRAM_WR]);
        return -1;
    }
    return 0;
}

int sb_ncu_parse_csv(const char *text, sb_profile *p, char *err, size_t errlen)
{
    char *buf = strdup(text ? text : ""), *cur = buf, *line, **f = NULL;
    csv_layout L = {.name_col = -1, .id_col = -1};
    pct_acc acc[SB_PROF_MAX_GROUPS];
    int have_header = 0, lineno = 0, rc = SB_EXIT_RUNTIME;
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return SB_EXIT_RUNTIME;
    }
    p->nlaunch = p->ngroups = 0;
    memset(acc, 0, sizeof acc);
    while ((line = next_line(&cur))) {
        lineno++;
        if (!*line || !strncmp(line, "==", 2)) continue; /* ncu's own messages: ==PROF==, ==WARNING== */
        size_t commas = 0;
        for (const char *q = line; *q; q++) commas += *q == ',';
        char **nf = realloc(f, (commas + 1) * sizeof *f);
        if (!nf) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        f = nf;
        int n = split_csv(line, f);
        if (n < 0) {
            snprintf(err, errlen, "line %d is not valid CSV", lineno);
            goto out;
        }
        if (!have_header) {
            if (read_header(f, n, &L, err, errlen)) goto out;
            have_header = 1;
            p->have_flops = L.col[M_FFMA] >= 0 || L.col[M_DFMA] >= 0;
            continue;
        }
        if (n != L.ncols) {
            snprintf(err, errlen, "line %d has %d fields, the header %d", lineno, n, L.ncols);
            goto out;
        }
        double v[M_COUNT];
        if (!*f[L.id_col]) { /* the units row */
            for (int m = 0; m < M_COUNT; m++)
                if (L.col[m] >= 0) L.scale[m] = unit_scale(f[L.col[m]]);
            continue;
        }
        for (int m = 0; m < M_COUNT; m++) {
            v[m] = NAN;
            if (L.col[m] >= 0 && parse_value(f[L.col[m]], &v[m])) {
                snprintf(err, errlen, "line %d: %s is not a number: '%s'", lineno, metric[m], f[L.col[m]]);
                goto out;
            }
            v[m] *= L.scale[m];
        }
        int gi = find_group(p, f[L.name_col]);
        if (gi < 0) {
            snprintf(err, errlen, "more than %d distinct kernels", SB_PROF_MAX_GROUPS);
            goto out;
        }
        add_launch(p, &p->group[gi], v, &acc[gi]);
    }
    if (!have_header) snprintf(err, errlen, "no CSV header (ncu printed no results)");
    else if (p->nlaunch == 0) snprintf(err, errlen, "no kernel launch was profiled");
    else rc = SB_OK;
out:
    free(f);
    free(buf);
    return rc;
}

/* ---- running ncu ------------------------------------------------------- */

/* ncu: $SB_NCU, else on PATH, else under the CUDA toolkit. */
static int find_ncu(char *path, size_t n)
{
    const char *env = getenv("SB_NCU");
    if (env && *env) {
        snprintf(path, n, "%s", env);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    const char *dirs = getenv("PATH");
    char *copy = strdup(dirs ? dirs : ""), *save = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, n, "%s/ncu", d);
        if (access(path, X_OK) == 0) {
            free(copy);
            return 0;
        }
    }
    free(copy);
    const char *fixed[] = {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        snprintf(path, n, "%s", fixed[i]);
        if (access(path, X_OK) == 0) return 0;
    }
    return -1;
}

/* Runs argv with stdout (and stderr) to out_path; returns the exit status, or -1. */
static int run_to_file(char *const argv[], const char *out_path, int with_stderr)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) _exit(127);
        dup2(fd, STDOUT_FILENO);
        if (with_stderr) dup2(fd, STDERR_FILENO);
        close(fd);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) free(s);
            s = t;
        }
    }
    fclose(f);
    if (s) s[n] = '\0';
    return s;
}

/* ncu's log says why counters could not be read: the reasons a user can act on. */
static const char *no_counter_reason(const char *log)
{
    if (!log) return NULL;
    if (strstr(log, "ERR_NVGPUCTRPERM"))
        return "the driver restricts GPU performance counters to administrators (ERR_NVGPUCTRPERM; "
               "NVreg_RestrictProfilingToAdminUsers=0 lifts it)";
    if (strstr(log, "Failed to initialize the profiler") || strstr(log, "LibraryNotLoaded"))
        return "ncu could not initialise its profiler library on this machine";
    if (strstr(log, "No kernels were profiled")) return NULL; /* a real failure: reported as such */
    if (strstr(log, "Device not supported") || strstr(log, "does not support"))
        return "ncu does not support this GPU";
    return NULL;
}

/* The first line of ncu's log that says ERROR, for an error message. */
static void first_error(const char *log, char *out, size_t n)
{
    const char *e = log ? strstr(log, "==ERROR==") : NULL;
    if (!e) {
        snprintf(out, n, "see ncu's output");
        return;
    }
    size_t len = strcspn(e, "\n");
    snprintf(out, n, "%.*s", (int)(len < 200 ? len : 200), e);
}

static void tool_version(const char *ncu, const char *dir, char *out, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/version.txt", dir);
    char *const argv[] = {(char *)ncu, "--version", NULL};
    snprintf(out, n, "ncu");
    if (run_to_file(argv, path, 0) != 0) return;
    char *v = slurp(path);
    const char *ver = v ? strstr(v, "Version ") : NULL;
    if (ver) snprintf(out, n, "ncu %.*s", (int)strcspn(ver + 8, " \n"), ver + 8);
    free(v);
}

static void remove_dir(const char *dir)
{
    const char *names[] = {"report.ncu-rep", "ncu.log", "report.csv", "version.txt"};
    char path[4200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int sb_ncu_profile(char *const child[], int as_range, sb_profile *p)
{
    char ncu[4096], dir[4096], rep[4200], repfile[4210], log[4200], csv[4200];
    memset(p, 0, sizeof *p);
    if (find_ncu(ncu, sizeof ncu)) {
        snprintf(p->why, sizeof p->why, "Nsight Compute's ncu was not found (PATH, /usr/local/cuda/bin; SB_NCU=path sets it)");
        return SB_OK;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/scibench-ncu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        sb_error("--profile: cannot create a temporary folder %s: %s", dir, strerror(errno));
        return SB_EXIT_RUNTIME;
    }
    snprintf(rep, sizeof rep, "%s/report", dir);
    snprintf(repfile, sizeof repfile, "%s.ncu-rep", rep);
    snprintf(log, sizeof log, "%s/ncu.log", dir);
    snprintf(csv, sizeof csv, "%s/report.csv", dir);
    tool_version(ncu, dir, p->tool, sizeof p->tool);

    /* The child brackets each timed repetition with cudaProfilerStart/Stop. */
    char *argv[96];
    int n = 0;
    argv[n++] = ncu;
    const char *mode = sb_ncu_replay_mode(as_range);
    const int range = !strcmp(mode, "app-range");
    if (!range) { /* range replay takes its ranges from the same calls by itself */
        argv[n++] = "--profile-from-start";
        argv[n++] = "off";
    }
    argv[n++] = "--target-processes";
    argv[n++] = "application-only";
    /* application replay: the child runs once per pass (no save and restore of device
     * memory around each launch, which dominates for long repetitions of many launches);
     * SB_NCU_REPLAY=kernel replays each launch instead */
    argv[n++] = "--replay-mode";
    argv[n++] = (char *)mode;
    argv[n++] = "--metrics";
    argv[n++] = (char *)sb_ncu_metric_list(range);
    argv[n++] = "--export";
    argv[n++] = rep;
    argv[n++] = "--force-overwrite";
    for (int i = 0; child[i] && n < 94; i++) argv[n++] = child[i];
    argv[n] = NULL;
    setenv(SB_PROFILE_RANGE_ENV, "1", 1);
    sb_progress("--profile: ncu counts the child's repetitions, replayed until every counter is read");
    int st = run_to_file(argv, log, 1);
    unsetenv(SB_PROFILE_RANGE_ENV);
    sb_progress_done();
    char *logtext = slurp(log);
    const char *why = no_counter_reason(logtext);
    int rc = SB_OK;
    if (why) {
        snprintf(p->why, sizeof p->why, "%s", why);
    } else if (st != 0) {
        char e[256];
        first_error(logtext, e, sizeof e);
        sb_error("--profile: ncu or the profiled run failed (exit status %d): %s", st, e);
        rc = SB_EXIT_RUNTIME;
    } else {
        char *const imp[] = {ncu, "--import", repfile, "--csv", "--page", "raw",
                             "--print-units", "base", NULL};
        st = run_to_file(imp, csv, 0);
        char *text = st == 0 ? slurp(csv) : NULL, err[256];
        if (!text) {
            sb_error("--profile: ncu --import of %s failed (exit status %d)", repfile, st);
            rc = SB_EXIT_RUNTIME;
        } else if (sb_ncu_parse_csv(text, p, err, sizeof err)) {
            sb_error("--profile: ncu's CSV cannot be used: %s", err);
            rc = SB_EXIT_RUNTIME;
        } else {
            p->kind = SB_PROF_GPU;
        }
        free(text);
    }
    free(logtext);
    if (getenv("SB_PROFILE_KEEP")) /* debugging: leave ncu's report and log */
        fprintf(stderr, "scibench: --profile: ncu files kept in %s\n", dir);
    else
        remove_dir(dir);
    return rc;
}
