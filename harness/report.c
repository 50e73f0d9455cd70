#include <math.h>
#include <string.h>

#include "params.h"
#include "profile.h"
#include "report.h"

#define ROW "  %-15s"

/* 1.23e9 -> "1.230 G": readable rates in any item unit ("1.230 G site updates/s"). */
static const char *si(double v, char *buf, size_t n)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    while (fabs(v) >= 1000.0 && i < 6) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.3f%s%s", v, i ? " " : "", prefix[i]);
    return buf;
}

static void print_params(FILE *out, const sb_result *r)
{
    const sb_param_spec *spec = r->kernel->params;
    int any = 0;
    fprintf(out, ROW, "params");
    for (int i = 0; spec && spec[i].key; i++) {
        const char *v = sb_params_value(r->params, spec[i].key);
        if (v)
            fprintf(out, "%s%s=%s", any++ ? ", " : "", spec[i].key, v);
        else if (spec[i].def && *spec[i].def)
            fprintf(out, "%s%s=%s (default)", any++ ? ", " : "", spec[i].key, spec[i].def);
        else
            fprintf(out, "%s%s unset", any++ ? ", " : "", spec[i].key);
    }
    fprintf(out, "%s\n", any ? "" : "none");
}

static void print_case(FILE *out, const sb_result *r, int validate_only)
{
    const sb_params *p = r->params;
    fprintf(out, "scibench %s: %s on %s\n", validate_only ? "validate" : "run", r->kernel->name,
            sb_backend_name(r->backend));
    fprintf(out, ROW "%s: %s\n", "kernel", r->kernel->name, r->kernel->summary);
    fprintf(out, ROW "%d  (%s)\n", "size", p->size, r->kernel->size_meaning);
    fprintf(out, ROW "%d timed, after %d untimed warm-up%s\n", "repetitions", p->reps, p->warmup,
            p->warmup == 1 ? "" : "s");
    fprintf(out, ROW "%llu\n", "seed", (unsigned long long)p->seed);
    print_params(out, r);
}

static void print_machine(FILE *out, const sb_result *r, const sb_hwinfo *hw)
{
    const sb_cpu_info *c = &hw->cpu;
    const sb_cuda_info *g = &hw->gpu;
    fprintf(out, "machine          %s  (host %s)\n", hw->machine, hw->hostname);
    fprintf(out, ROW "%s, %d logical CPUs", "CPU", c->cpu_model, c->logical_cpus);
    if (hw->cpu_mhz > 0) fprintf(out, ", %.0f MHz", hw->cpu_mhz);
    fputc('\n', out);
    if (r->backend == SB_BACKEND_CUDA && hw->have_gpu)
        fprintf(out, ROW "%s, CC %d.%d, %d SMs, %.1f GiB, SM clock %d MHz, memory clock %d MHz x %d bit\n", "GPU",
                g->name, g->cc_major, g->cc_minor, g->sm_count, (double)g->global_mem_bytes / (1 << 30),
                g->sm_clock_mhz, g->mem_clock_mhz, g->mem_bus_bits);
}

static void print_time(FILE *out, const sb_result *r)
{
    const sb_stats *s = &r->stats;
    fprintf(out, "time per rep     median %.4f ms, min %.4f ms, max %.4f ms  (mean %.4f ms, stddev %.4f ms)\n",
            s->median * 1e3, s->min * 1e3, s->max * 1e3, s->mean * 1e3, s->stddev * 1e3);
    char b[32];
    fprintf(out, "throughput       %s %s/s  (%.6g %s per rep, at the median time)\n",
            si(sb_rate(r->work.items, s->median), b, sizeof b), r->kernel->item, r->work.items, r->kernel->item);
}

/* Ends the line: achieved as a share of the machine's measured peak, in G<unit>. */
static void print_percent(FILE *out, double achieved, double peak, const char *what, const char *unit)
{
    if (peak > 0)
        fprintf(out, " = %.1f %% of measured %s peak %.1f G%s\n", 100.0 * achieved / peak, what, peak / 1e9, unit);
    else
        fprintf(out, "  (peak not measured)\n");
}

static void print_roofline(FILE *out, const sb_result *r)
{
    const sb_peaks *pk = &r->peaks;
    double t = r->stats.median, bw = sb_rate(r->work.bytes, t);
    fprintf(out, "bandwidth        %.2f GB/s  (model %.4g MB per rep)", bw / 1e9, r->work.bytes / 1e6);
    print_percent(out, bw, pk->bandwidth, pk->bw_kind, "B/s");
    if (r->work.flops <= 0) {
        fprintf(out, "FLOP rate        not modelled for this kernel\n");
        return;
    }
    const char *prec = r->work.fp64 ? "FP64" : "FP32";
    double fl = sb_rate(r->work.flops, t);
    char what[64];
    snprintf(what, sizeof what, "%s FMA%s%s", prec, r->peaks.fma_isa ? " " : "", r->peaks.fma_isa ? r->peaks.fma_isa : "");
    fprintf(out, "FLOP rate        %.2f GFLOP/s %s  (model %.4g GFLOP per rep)", fl / 1e9, prec, r->work.flops / 1e9);
    print_percent(out, fl, sb_flop_peak(r), what, "FLOP/s");
}

static void print_openmp(FILE *out, const sb_hwinfo *hw, const sb_result *r)
{
    const sb_cpu_info *c = &hw->cpu;
    fprintf(out, "OpenMP           %d threads, ISA compiled %s, supported %s, %d float SIMD lanes, OMP_PROC_BIND %s\n",
            r->threads, c->isa_compiled, c->isa_supported, c->simd_float_lanes, c->proc_bind);
}

static void print_launches(FILE *out, const sb_result *r)
{
    if (r->nlaunch == 0) return;
    fprintf(out, "CUDA launches\n  %-28s %6s %9s %9s %14s %13s %10s %12s\n", "kernel", "block", "grid",
            "regs/thr", "smem static B", "smem dyn B", "blocks/SM", "occupancy %");
    for (int i = 0; i < r->nlaunch; i++) {
        const sb_launch *l = &r->launch[i];
        fprintf(out, "  %-28s %6d %9d %9d %14d %13d %10d %12.1f\n", l->name, l->block, l->grid, l->regs,
                l->smem_static, l->smem_dynamic, l->blocks_per_sm, 100.0 * l->occupancy);
    }
}

static void print_mpi(FILE *out, const sb_result *r)
{
    const sb_mpi_result *m = &r->mpi;
    if (m->ranks <= 1) return;
    char b[32];
    fprintf(out, "MPI              %d ranks on %d host%s (%s), %d distinct device%s; %s\n", m->ranks, m->hosts,
            m->hosts == 1 ? "" : "s", m->host_list, m->devices, m->devices == 1 ? "" : "s", m->library);
    fprintf(out, "  %-15stimes above are the slowest rank's; peaks are one device's x %d\n", "", m->devices);
    double lo = 0, hi = 0;
    for (int i = 0; i < m->ranks; i++) {
        double x = sb_rate(m->rank_items[i], m->rank_median[i]);
        lo = i == 0 || x < lo ? x : lo;
        hi = i == 0 || x > hi ? x : hi;
    }
    fprintf(out, "  per rank       %s", si(lo, b, sizeof b));
    fprintf(out, " .. %s %s/s (each rank's own median time)\n", si(hi, b, sizeof b), r->kernel->item);
    fprintf(out, "  communication  %.2f %% of a repetition (median; slowest rank's host time in MPI calls), %.4g MB "
                 "sent by the busiest rank a repetition\n",
            100.0 * m->comm_share, m->comm_bytes / 1e6);
    fprintf(out, "  data between   %s%s%s\n", m->comm ? m->comm : "none", m->comm_detail && *m->comm_detail ? ": " : "",
            m->comm_detail ? m->comm_detail : "");
    if (m->baseline_rate > 0)
        fprintf(out, "  efficiency     %.1f %% = items/s / (%d x %s %s/s of the one-rank baseline)\n",
                100.0 * sb_mpi_efficiency(r), m->ranks, si(m->baseline_rate, b, sizeof b), r->kernel->item);
}

static void print_counters(FILE *out, const sb_counters *cs)
{
    if (cs->n == 0) return;
    fprintf(out, "counters\n");
    for (int i = 0; i < cs->n; i++)
        fprintf(out, "  %-30s %18.10g %s\n", cs->c[i].name, cs->c[i].value, cs->c[i].unit[0] ? cs->c[i].unit : "(1)");
}

static const char *tolerance_text(const sb_check *c, char *buf, size_t n)
{
    switch (c->kind) {
    case SB_TOL_ABS: snprintf(buf, n, "abs %.3g", c->tolerance); break;
    case SB_TOL_REL: snprintf(buf, n, "rel %.3g", c->tolerance); break;
    case SB_TOL_MAX: snprintf(buf, n, "<= reference"); break;
    }
    return buf;
}

void sb_report_validation(FILE *out, const sb_validation *v)
{
    int w = 5;
    for (int i = 0; i < v->n; i++) w = (int)strlen(v->check[i].name) > w ? (int)strlen(v->check[i].name) : w;
    fprintf(out, "VALIDATION\n  %-*s %18s %18s %14s %-10s %-6s %s\n", w, "check", "value", "reference", "tolerance",
            "unit", "result", "source");
    for (int i = 0; i < v->n; i++) {
        const sb_check *c = &v->check[i];
        char tol[32];
        fprintf(out, "  %-*s %18.10g %18.10g %14s %-10s %-6s %s\n", w, c->name, c->value, c->reference,
                tolerance_text(c, tol, sizeof tol), c->unit[0] ? c->unit : "(1)", c->pass ? "PASS" : "FAIL",
                c->source);
    }
    if (v->n == 0) fprintf(out, "  (the kernel reported no checks)\n");
    fprintf(out, "VALIDATION %s\n", sb_validation_passed(v) ? "PASSED" : "FAILED");
}

void sb_report_print(FILE *out, const sb_result *r, const sb_hwinfo *hw, int validate_only)
{
    print_case(out, r, validate_only);
    print_machine(out, r, hw);
    print_time(out, r);
    if (!validate_only) {
        print_roofline(out, r);
        if (r->backend == SB_BACKEND_OPENMP_SIMD) print_openmp(out, hw, r);
        if (r->backend == SB_BACKEND_CUDA) print_launches(out, r);
    }
    print_mpi(out, r);
    sb_profile_print(out, &r->profile, &r->work, r->kernel->item);
    print_counters(out, &r->counters);
    sb_report_validation(out, &r->validation);
    fflush(out);
}
