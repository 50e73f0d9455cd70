#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_out.h"
#include "params.h"
#include "version.h"

/* jansson refuses NaN and inf (json_real returns NULL): they become null. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *percent(double achieved, double peak) { return peak > 0 ? num(100.0 * achieved / peak) : json_null(); }

/* ---- path check ------------------------------------------------------- */

static void parent_dir(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A new file beside path, named ".<name>.XXXXXX" (name cut to fit), created exclusively:
 * it never replaces a file of the user's, and two runs writing one FILE do not share it.
 * Its mode is what a plain create gives (0666 less the umask). fd, or -1 with errno. */
static int make_temp(const char *path, char *tmp, size_t n)
{
    char dir[4096];
    parent_dir(path, dir, sizeof dir);
    if ((size_t)snprintf(tmp, n, "%s/.%.200s.XXXXXX", dir, base_name(path)) >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
        return -1;
    }
    return fd;
}

int sb_json_check_path(const char *path)
{
    struct stat st;
    char dir[4096], tmp[4400];
    if (!path || !*path) {
        sb_error("--json needs a file path");
        return SB_EXIT_USAGE;
    }
    if (strlen(path) >= sizeof dir) {
        sb_error("--json %.60s...: the path is %zu bytes long; accepted: less than %zu", path, strlen(path), sizeof dir);
        return SB_EXIT_USAGE;
    }
    if (!*base_name(path)) {
        sb_error("--json %s: ends in '/', a directory; expected a file path", path);
        return SB_EXIT_USAGE;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        sb_error("--json %s: %s; expected a file path", path, S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
        return SB_EXIT_USAGE;
    }
    parent_dir(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        sb_error("--json %s: directory %s does not exist", path, dir);
        return SB_EXIT_USAGE;
    }
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max > 0 && (long)strlen(base_name(path)) > name_max) {
        sb_error("--json %s: the file name is %zu bytes long; accepted: at most %ld in %s", path,
                 strlen(base_name(path)), name_max, dir);
        return SB_EXIT_USAGE;
    }
    /* Only a file made there proves the directory takes one (permissions, a read-only or
     * pseudo file system such as /proc, quotas): made and removed again before the run. */
    int fd = make_temp(path, tmp, sizeof tmp);
    if (fd < 0) {
        sb_error("--json %s: cannot create a file in %s: %s", path, dir, strerror(errno));
        return SB_EXIT_USAGE;
    }
    close(fd);
    unlink(tmp);
    return SB_OK;
}

/* ---- context ---------------------------------------------------------- */

/* ISO 8601 with a +hh:mm offset, as Google Benchmark writes it. */
static json_t *iso_date(void)
{
    char buf[40], zone[8];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    strftime(zone, sizeof zone, "%z", &tm);
    size_t len = strlen(buf);
    if (strlen(zone) == 5)
        snprintf(buf + len, sizeof buf - len, "%.3s:%s", zone, zone + 3);
    return json_string(buf);
}

static json_t *cpu_json(const sb_cpu_info *c)
{
    return json_pack("{s:s, s:i, s:i, s:s, s:s, s:i, s:s}", "model", c->cpu_model, "logical_cpus", c->logical_cpus,
                     "omp_threads", c->omp_threads, "isa_compiled", c->isa_compiled, "isa_supported",
                     c->isa_supported, "simd_float_lanes", c->simd_float_lanes, "proc_bind", c->proc_bind);
}

static json_t *gpu_json(const sb_hwinfo *hw)
{
    const sb_cuda_info *g = &hw->gpu;
    char cc[16];
    if (!hw->have_gpu) return json_null();
    snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
    json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:I, s:i, s:i, s:i, s:i}", "name", g->name, "device", g->device,
                          "compute_capability", cc, "sm_count", g->sm_count, "global_mem_bytes",
                          (json_int_t)g->global_mem_bytes, "l2_bytes", g->l2_bytes, "sm_clock_mhz",
                          g->sm_clock_mhz, "mem_clock_mhz", g->mem_clock_mhz, "mem_bus_bits", g->mem_bus_bits);
    json_object_set_new(o, "max_threads_per_sm", json_integer(g->max_threads_per_sm));
    json_object_set_new(o, "regs_per_sm", json_integer(g->regs_per_sm));
    json_object_set_new(o, "smem_per_sm", json_integer((json_int_t)g->smem_per_sm));
    json_object_set_new(o, "driver_version", json_integer(g->driver_version));
    json_object_set_new(o, "runtime_version", json_integer(g->runtime_version));
    json_object_set_new(o, "theoretical_bandwidth_Bps", num(g->theoretical_bw));
    return o;
}

static json_t *peaks_json(const sb_peaks *pk)
{
    char key[48];
    if (!pk->measured) return json_null();
    snprintf(key, sizeof key, "%s_bandwidth_Bps", pk->bw_kind);
    json_t *o = json_object();
    json_object_set_new(o, key, num(pk->bandwidth));
    json_object_set_new(o, "fma_fp32_flops", num(pk->fma_fp32));
    json_object_set_new(o, "fma_fp64_flops", num(pk->fma_fp64));
    return o;
}

/* Beside the peaks: each probe's trials (best is the peak), or null where the probe reports
 * one number (the GPU's). */
static json_t *spread_json(const sb_peaks *pk)
{
    static const char *const key[3] = {NULL, "fma_fp32_flops", "fma_fp64_flops"};
    const double best[3] = {pk->bandwidth, pk->fma_fp32, pk->fma_fp64};
    char bw[48];
    if (!pk->measured || pk->spread[0].trials == 0) return json_null();
    snprintf(bw, sizeof bw, "%s_bandwidth_Bps", pk->bw_kind);
    json_t *o = json_object();
    for (int k = 0; k < 3; k++) {
        const sb_peak_spread *s = &pk->spread[k];
        json_object_set_new(o, k ? key[k] : bw,
                            json_pack("{s:o, s:o, s:o, s:i, s:o}", "best", num(best[k]), "median", num(s->median),
                                      "worst", num(s->worst), "trials", s->trials, "relative_spread",
                                      best[k] > 0 ? num((best[k] - s->worst) / best[k]) : json_null()));
    }
    return o;
}

static json_t *mpi_context_json(const sb_result *r)
{
    const sb_mpi_result *m = &r->mpi;
    json_t *o = json_object();
    json_object_set_new(o, "ranks", json_integer(m->ranks > 0 ? m->ranks : 1));
    json_object_set_new(o, "hosts", json_integer(m->hosts > 0 ? m->hosts : 1));
    json_object_set_new(o, "host_list", json_string(m->host_list && *m->host_list ? m->host_list : ""));
    json_object_set_new(o, "devices", json_integer(m->devices > 0 ? m->devices : 1));
    json_object_set_new(o, "library", json_string(m->library ? m->library : "none"));
    json_object_set_new(o, "comm", json_string(m->comm ? m->comm : "none"));
    json_object_set_new(o, "comm_detail", json_string(m->comm_detail ? m->comm_detail : ""));
    return o;
}

/* Per-rank throughput, communication share and efficiency (only with several ranks). */
static void set_mpi_fields(json_t *b, const sb_result *r)
{
    const sb_mpi_result *m = &r->mpi;
    json_object_set_new(b, "mpi_ranks", json_integer(m->ranks > 0 ? m->ranks : 1));
    if (m->ranks <= 1) return;
    json_t *a = json_array();
    for (int i = 0; i < m->ranks; i++) json_array_append_new(a, num(sb_rate(m->rank_items[i], m->rank_median[i])));
    json_object_set_new(b, "rank_items_per_second", a);
    json_object_set_new(b, "comm_share", num(m->comm_share));
    json_object_set_new(b, "comm_bytes_per_rep", num(m->comm_bytes));
    json_object_set_new(b, "parallel_efficiency", m->baseline_rate > 0 ? num(sb_mpi_efficiency(r)) : json_null());
}

static json_t *context_json(const sb_result *r, const sb_hwinfo *hw, const char *exe)
{
    json_t *o = json_object();
    json_object_set_new(o, "date", iso_date());
    json_object_set_new(o, "host_name", json_string(hw->hostname));
    json_object_set_new(o, "executable", json_string(exe ? exe : "scibench"));
    json_object_set_new(o, "num_cpus", json_integer(hw->cpu.logical_cpus));
    json_object_set_new(o, "mhz_per_cpu", json_integer((json_int_t)lround(hw->cpu_mhz)));
    json_object_set_new(o, "cpu_scaling_enabled", json_false());
    json_object_set_new(o, "caches", json_array());
    json_object_set_new(o, "library_build_type", json_string("release"));
    json_object_set_new(o, "machine", json_string(hw->machine));
    json_object_set_new(o, "git_commit", json_string(sb_version_commit()));
    json_object_set_new(o, "compiler", json_string(sb_version_cc()));
    json_object_set_new(o, "nvcc", json_string(sb_version_nvcc()));
    json_object_set_new(o, "arch", json_string(sb_version_arch()));
    json_object_set_new(o, "blas", json_string(sb_version_blas()));
    json_object_set_new(o, "cpu", cpu_json(&hw->cpu));
    json_object_set_new(o, "gpu", gpu_json(hw));
    json_object_set_new(o, "peaks", peaks_json(&r->peaks));
    json_object_set_new(o, "peaks_spread", spread_json(&r->peaks));
    json_object_set_new(o, "fma_isa", r->peaks.measured && r->peaks.fma_isa ? json_string(r->peaks.fma_isa) : json_null());
    json_object_set_new(o, "mpi", mpi_context_json(r));
    return o;
}

/* ---- scibench fields -------------------------------------------------- */

/* Every accepted key with its effective value, so a result records defaults too. */
static json_t *params_json(const sb_result *r)
{
    json_t *o = json_object();
    const sb_param_spec *spec = r->kernel->params;
    for (int i = 0; spec && spec[i].key; i++) {
        const char *v = sb_params_value(r->params, spec[i].key);
        json_object_set_new(o, spec[i].key, json_string(v ? v : spec[i].def));
    }
    for (int i = 0; i < r->params->nkv; i++)
        if (!json_object_get(o, r->params->kv[i].key))
            json_object_set_new(o, r->params->kv[i].key, json_string(r->params->kv[i].value));
    return o;
}

static json_t *launch_json(const sb_result *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->nlaunch; i++) {
        const sb_launch *l = &r->launch[i];
        json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "name", l->name, "block", l->block, "grid",
                              l->grid, "regs_per_thread", l->regs, "smem_static_bytes", l->smem_static,
                              "smem_dynamic_bytes", l->smem_dynamic, "blocks_per_sm", l->blocks_per_sm);
        json_object_set_new(o, "occupancy", num(l->occupancy));
        json_array_append_new(a, o);
    }
    return a;
}

static const char *kind_name(sb_tol_kind k)
{
    return k == SB_TOL_ABS ? "abs" : k == SB_TOL_REL ? "rel" : "max";
}

static json_t *validation_json(const sb_result *r)
{
    json_t *checks = json_array();
    for (int i = 0; i < r->validation.n; i++) {
        const sb_check *c = &r->validation.check[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "value", num(c->value));
        json_object_set_new(o, "reference", num(c->reference));
        json_object_set_new(o, "tolerance", num(c->tolerance));
        json_object_set_new(o, "kind", json_string(kind_name(c->kind)));
        json_object_set_new(o, "unit", json_string(c->unit));
        json_object_set_new(o, "source", json_string(c->source));
        json_object_set_new(o, "pass", json_boolean(c->pass));
        json_array_append_new(checks, o);
    }
    return json_pack("{s:b, s:o}", "passed", r->passed, "checks", checks);
}

/* ---- --profile ---------------------------------------------------------- */

static double per(double a, double b) { return b > 0 && !isnan(a) && !isnan(b) ? a / b : NAN; }

static json_t *group_json(const sb_prof_group *g, double items, int have_flops)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "launches", json_integer(g->launches));
    json_object_set_new(o, "block", json_integer(g->block));
    json_object_set_new(o, "grid", json_integer(g->grid));
    json_object_set_new(o, "duration_s", num(g->duration));
    json_object_set_new(o, "dram_read_bytes", num(g->dram_read));
    json_object_set_new(o, "dram_write_bytes", num(g->dram_write));
    json_object_set_new(o, "bytes_per_item", num(per(g->dram_read + g->dram_write, items)));
    json_object_set_new(o, "dram_pct_peak", num(g->dram_pct));
    json_object_set_new(o, "achieved_occupancy_pct", num(g->occ_achieved));
    json_object_set_new(o, "theoretical_occupancy_pct", num(g->occ_theoretical));
    json_object_set_new(o, "sm_throughput_pct", num(g->sm_pct));
    json_object_set_new(o, "fp64_pipe_pct", num(g->fp64_pct));
    json_object_set_new(o, "fp32_pipe_pct", num(g->fp32_pct));
    json_object_set_new(o, "l1_hit_pct", num(g->l1_hit));
    json_object_set_new(o, "l2_hit_pct", num(g->l2_hit));
    json_object_set_new(o, "ld_sectors_per_request", num(per(g->ld_sectors, g->ld_requests)));
    json_object_set_new(o, "st_sectors_per_request", num(per(g->st_sectors, g->st_requests)));
    /* requested bytes are an instrumented metric: unknown, not 0, without it */
    json_object_set_new(o, "ld_efficiency", have_flops ? num(per(g->ld_bytes_req, 32.0 * g->ld_sectors)) : json_null());
    json_object_set_new(o, "st_efficiency", have_flops ? num(per(g->st_bytes_req, 32.0 * g->st_sectors)) : json_null());
    json_object_set_new(o, "registers_per_thread", num(g->regs));
    json_object_set_new(o, "local_bytes", num(g->local_bytes));
    json_object_set_new(o, "flops_fp64", have_flops ? num(g->flops64) : json_null());
    json_object_set_new(o, "flops_fp32", have_flops ? num(g->flops32) : json_null());
    return o;
}

/* The measured side beside the model: totals and ratios, then per kernel (GPU) or the
 * raw counters (CPU). */
static json_t *profile_json(const sb_result *r)
{
    const sb_profile *p = &r->profile;
    sb_prof_totals t;
    sb_profile_totals(p, &r->work, &t);
    json_t *o = json_object();
    json_object_set_new(o, "tool", json_string(p->tool));
    json_object_set_new(o, "kind", json_string(p->kind == SB_PROF_GPU ? "gpu" : "cpu"));
    json_object_set_new(o, "items", num(p->items));
    json_object_set_new(o, "dram_read_bytes", num(t.dram_read));
    json_object_set_new(o, "dram_write_bytes", num(t.dram_write));
    json_object_set_new(o, "dram_bytes", num(t.dram_bytes));
    json_object_set_new(o, "bytes_per_item", num(t.bytes_per_item));
    json_object_set_new(o, "model_bytes_per_item", num(t.model_bytes_per_item));
    json_object_set_new(o, "bytes_ratio", num(t.bytes_ratio));
    json_object_set_new(o, "flops", num(t.flops));
    json_object_set_new(o, "flops_per_item", num(t.flops_per_item));
    json_object_set_new(o, "model_flops_per_item", num(t.model_flops_per_item));
    json_object_set_new(o, "flops_ratio", num(t.flops_ratio));
    if (p->kind == SB_PROF_GPU) {
        json_object_set_new(o, "counted_repetitions", json_integer(p->reps > 1 ? p->reps : 1));
        json_object_set_new(o, "launches", json_integer(p->nlaunch));
        json_object_set_new(o, "metrics", json_string(p->have_flops ? "full" : "hardware"));
        json_object_set_new(o, "duration_s", num(t.duration));
        json_t *g = json_array();
        for (int i = 0; i < p->ngroups; i++) json_array_append_new(g, group_json(&p->group[i], p->items, p->have_flops));
        json_object_set_new(o, "groups", g);
    } else {
        json_object_set_new(o, "threads", json_integer(p->threads));
        json_object_set_new(o, "cycles", num(p->cycles));
        json_object_set_new(o, "instructions", num(p->instructions));
        json_object_set_new(o, "ipc", num(per(p->instructions, p->cycles)));
        json_object_set_new(o, "vector_instructions", p->have_vec ? num(p->vec_instructions) : json_null());
        json_object_set_new(o, "vector_event", json_string(p->vec_event));
        json_object_set_new(o, "vector_share", p->have_vec ? num(per(p->vec_instructions, p->instructions)) : json_null());
        json_object_set_new(o, "llc_misses", p->have_llc ? num(p->llc_misses) : json_null());
        json_object_set_new(o, "llc_event", json_string(p->llc_event));
    }
    return o;
}

/* ---- benchmarks ------------------------------------------------------- */

/* time_s is this entry's real_time; rate_s the time its rates derive from
 * (an aggregate "min" holds the minimum of each field, so its rates come
 * from the slowest repetition, as Google Benchmark computes them). */
static void set_measurements(json_t *b, const sb_result *r, double time_s, double rate_s)
{
    double bw = sb_rate(r->work.bytes, rate_s), fl = sb_rate(r->work.flops, rate_s);
    json_object_set_new(b, "real_time", num(time_s * 1e3));
    json_object_set_new(b, "cpu_time", num(time_s * 1e3));
    json_object_set_new(b, "time_unit", json_string("ms"));
    json_object_set_new(b, "items_per_second", num(sb_rate(r->work.items, rate_s)));
    json_object_set_new(b, "bytes_per_second", num(bw));
    json_object_set_new(b, "flops_per_second", r->work.flops > 0 ? num(fl) : json_null());
    json_object_set_new(b, "percent_peak_bandwidth", percent(bw, r->peaks.measured ? r->peaks.bandwidth : 0));
    json_object_set_new(b, "percent_peak_flops", r->work.flops > 0 ? percent(fl, sb_flop_peak(r)) : json_null());
    /* which FMA peak of context.peaks that percentage is of, for readers (compare --normalise) */
    json_object_set_new(b, "flops_precision", r->work.flops > 0 ? json_string(r->work.fp64 ? "fp64" : "fp32") : json_null());
}

/* case_level: the median entry, which alone holds what describes the whole case rather than
 * one repetition (the kernel's counters, the launches, the validation), so that a file grows
 * by a repetition's times, not by its checks. */
static void set_scibench_fields(json_t *b, const sb_result *r, int case_level)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->params->seed);
    /* Counters sit beside the standard fields, as Google Benchmark's user counters do;
     * a counter named like a standard field must not overwrite it. */
    for (int i = 0; case_level && i < r->counters.n; i++)
        if (!json_object_get(b, r->counters.c[i].name))
            json_object_set_new(b, r->counters.c[i].name, num(r->counters.c[i].value));
    json_object_set_new(b, "kernel", json_string(r->kernel->name));
    json_object_set_new(b, "backend", json_string(sb_backend_name(r->backend)));
    json_object_set_new(b, "size", json_integer(r->params->size));
    /* A uint64 seed can exceed JSON's safe integers. */
    json_object_set_new(b, "seed", r->params->seed <= (1ull << 53) ? json_integer((json_int_t)r->params->seed) : json_string(seed));
    json_object_set_new(b, "params", params_json(r));
    json_object_set_new(b, "item", json_string(r->kernel->item));
    if (case_level) {
        json_object_set_new(b, "launch", launch_json(r));
        json_object_set_new(b, "validation", validation_json(r));
    }
    set_mpi_fields(b, r);
}

static json_t *entry(const sb_result *r, const char *run_name, const char *aggregate)
{
    char name[192];
    json_t *b = json_object();
    snprintf(name, sizeof name, "%s%s%s", run_name, aggregate ? "_" : "", aggregate ? aggregate : "");
    json_object_set_new(b, "name", json_string(name));
    json_object_set_new(b, "family_index", json_integer(0));
    json_object_set_new(b, "per_family_instance_index", json_integer(0));
    json_object_set_new(b, "run_name", json_string(run_name));
    json_object_set_new(b, "run_type", json_string(aggregate ? "aggregate" : "iteration"));
    json_object_set_new(b, "repetitions", json_integer(r->params->reps));
    json_object_set_new(b, "threads", json_integer(r->threads));
    json_object_set_new(b, "iterations", json_integer(1));
    return b;
}

static json_t *benchmarks_json(const sb_result *r)
{
    char run_name[160];
    const sb_stats *s = &r->stats;
    json_t *a = json_array();
    snprintf(run_name, sizeof run_name, "%s/%s/%d", r->kernel->name, sb_backend_name(r->backend), r->params->size);
    for (int i = 0; i < r->params->reps; i++) {
        json_t *b = entry(r, run_name, NULL);
        json_object_set_new(b, "repetition_index", json_integer(i));
        set_measurements(b, r, r->times[i], r->times[i]);
        set_scibench_fields(b, r, 0);
        json_array_append_new(a, b);
    }
    const char *agg[3] = {"median", "min", "max"};
    const double t[3] = {s->median, s->min, s->max}, rate_t[3] = {s->median, s->max, s->min};
    for (int k = 0; k < 3; k++) {
        json_t *b = entry(r, run_name, agg[k]);
        json_object_set_new(b, "aggregate_name", json_string(agg[k]));
        json_object_set_new(b, "aggregate_unit", json_string("time"));
        set_measurements(b, r, t[k], rate_t[k]);
        set_scibench_fields(b, r, k == 0);
        /* counters describe the case, not a repetition: once, in the median entry */
        if (k == 0 && r->profile.kind != SB_PROF_NONE) json_object_set_new(b, "profile", profile_json(r));
        else if (k == 0 && r->profile.why[0]) json_object_set_new(b, "profile_unavailable", json_string(r->profile.why));
        json_array_append_new(a, b);
    }
    return a;
}

static volatile sig_atomic_t held_signal;
static void hold_signal(int sig) { held_signal = sig; }

/* root into a new temporary beside path, then renamed onto it. 0, or -1 with errno. */
static int write_and_rename(json_t *root, const char *path)
{
    char tmp[4400];
    int fd = make_temp(path, tmp, sizeof tmp);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
        return -1;
    }
    errno = 0;
    int bad = json_dumpf(root, f, JSON_INDENT(2)) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) bad = 1, err = errno; /* a full disk shows at the flush */
    if (!bad && rename(tmp, path) != 0) bad = 1, err = errno;
    if (bad) {
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}

int sb_json_write(const char *path, const sb_result *r, const sb_hwinfo *hw, const char *exe)
{
    json_t *root = json_object();
    json_object_set_new(root, "context", context_json(r, hw, exe));
    json_object_set_new(root, "benchmarks", benchmarks_json(r));
    int rc = sb_json_save(root, path);
    json_decref(root);
    return rc;
}

int sb_json_save(json_t *root, const char *path)
{
    /* Ctrl-C, a hang-up or kill while the file is written is held back until it is complete
     * and renamed, or removed: an interrupted run never leaves its temporary or a partial FILE.
     * A handler, not a blocked mask: OpenMP's threads would still take the signal. */
    static const int held[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction hold = {.sa_handler = hold_signal, .sa_flags = SA_RESTART}, was[4];
    sigemptyset(&hold.sa_mask);
    held_signal = 0;
    for (int i = 0; i < 4; i++) sigaction(held[i], &hold, &was[i]);
    int bad = write_and_rename(root, path) != 0;
    int err = errno;
    for (int i = 0; i < 4; i++) sigaction(held[i], &was[i], NULL);
    if (held_signal) raise(held_signal); /* now, with the file whole or gone */
    if (bad) {
        sb_error("could not write %s: %s", path, err ? strerror(err) : "write failed");
        return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}
