/* The measured side of `--profile`: totals, the model ratios and the report table. */
#include <math.h>
#include <string.h>

#include "profile.h"

static double ratio(double measured, double model) { return model > 0 && !isnan(measured) ? measured / model : NAN; }

void sb_profile_totals(const sb_profile *p, const sb_work *w, sb_prof_totals *t)
{
    memset(t, 0, sizeof *t);
    t->flops = NAN;
    if (p->kind == SB_PROF_GPU) {
        double f32 = 0, f64 = 0;
        for (int i = 0; i < p->ngroups; i++) {
            const sb_prof_group *g = &p->group[i];
            t->dram_read += g->dram_read;
            t->dram_write += g->dram_write;
            t->duration += g->duration;
            f32 += g->flops32;
            f64 += g->flops64;
        }
        t->dram_bytes = t->dram_read + t->dram_write;
        t->flops = !p->have_flops ? NAN : w->fp64 ? f64 : f32; /* the precision the model counts */
    } else if (p->kind == SB_PROF_CPU) {
        /* LLC misses bring a line each from DRAM; write-backs are not counted by the event */
        t->dram_read = t->dram_bytes = p->have_llc ? p->llc_misses * 64.0 : NAN;
        t->dram_write = NAN;
    }
    double items = w->items > 0 ? w->items : NAN;
    t->bytes_per_item = t->dram_bytes / items;
    t->model_bytes_per_item = w->bytes > 0 ? w->bytes / items : NAN;
    t->bytes_ratio = ratio(t->bytes_per_item, t->model_bytes_per_item);
    t->flops_per_item = t->flops / items;
    t->model_flops_per_item = w->flops > 0 ? w->flops / items : NAN;
    t->flops_ratio = ratio(t->flops_per_item, t->model_flops_per_item);
}

void sb_profile_mean(sb_profile *p, int reps)
{
    p->reps = reps;
    if (reps <= 1) return;
    const double f = 1.0 / reps;
    p->nlaunch = (p->nlaunch + reps / 2) / reps;
    for (int i = 0; i < p->ngroups; i++) {
        sb_prof_group *g = &p->group[i];
        g->launches = (g->launches + reps / 2) / reps;
        double *sum[] = {&g->duration, &g->dram_read, &g->dram_write, &g->ld_sectors, &g->ld_requests,
                         &g->st_sectors, &g->st_requests, &g->ld_bytes_req, &g->st_bytes_req,
                         &g->local_bytes, &g->flops32, &g->flops64};
        for (size_t k = 0; k < sizeof sum / sizeof sum[0]; k++) *sum[k] *= f;
    }
}

const char *sb_profile_hint(const char *what, double r)
{
    if (isnan(r) || (r >= SB_PROF_RATIO_LO && r <= SB_PROF_RATIO_HI)) return NULL;
    int bytes = !strcmp(what, "bytes");
    if (bytes && r > SB_PROF_RATIO_HI)
        return "more DRAM traffic than modelled: data re-read between launches or passes, uncoalesced access, "
               "spills, or data the model omits";
    if (bytes)
        return "less DRAM traffic than modelled: the working set stays in cache (L2 hit rate), or the model counts "
               "bytes the code never moves";
    if (r > SB_PROF_RATIO_HI)
        return "more FP add/mul/FMA than modelled: redundant work, or arithmetic the model leaves out";
    return "fewer FP add/mul/FMA than modelled: the model counts divisions, square roots, special functions or "
           "skipped (screened) work as flops";
}

static void fmt(char *buf, size_t n, double v, const char *f)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, f, v);
}

/* Requested / transferred global bytes, %. Above 100 % (">100") the instrumented count
 * holds bytes the L1 did not serve as global sectors, as generic-address accesses that
 * resolve to shared memory are. */
static void eta(char *buf, size_t n, double requested, double sectors)
{
    double e = sectors > 0 && requested > 0 ? 100.0 * requested / (32.0 * sectors) : NAN;
    if (e > 105.0)
        snprintf(buf, n, ">100");
    else
        fmt(buf, n, e, "%.1f");
}

static void print_group(FILE *out, const sb_prof_group *g, double items)
{
    char c[16][24];
    fmt(c[0], 24, g->duration * 1e3, "%.3f");
    fmt(c[1], 24, (g->dram_read + g->dram_write) / items, "%.2f");
    fmt(c[2], 24, g->dram_pct, "%.1f");
    fmt(c[3], 24, g->occ_achieved, "%.1f");
    fmt(c[4], 24, g->occ_theoretical, "%.1f");
    fmt(c[5], 24, g->sm_pct, "%.1f");
    fmt(c[6], 24, g->fp64_pct, "%.1f");
    fmt(c[7], 24, g->fp32_pct, "%.1f");
    fmt(c[8], 24, g->l1_hit, "%.1f");
    fmt(c[9], 24, g->l2_hit, "%.1f");
    fmt(c[10], 24, g->ld_requests > 0 ? g->ld_sectors / g->ld_requests : NAN, "%.2f");
    fmt(c[11], 24, g->st_requests > 0 ? g->st_sectors / g->st_requests : NAN, "%.2f");
    eta(c[12], 24, g->ld_bytes_req, g->ld_sectors);
    eta(c[13], 24, g->st_bytes_req, g->st_sectors);
    fmt(c[14], 24, g->regs, "%.0f");
    fmt(c[15], 24, g->local_bytes / 1e6, "%.2f");
    fprintf(out, "  %-30.30s %5d %9s %8s %6s %11s/%-5s %5s %6s %6s %6s %6s %7s %7s %6s %6s %5s %8s\n", g->name,
            g->launches, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13],
            c[14], c[15]);
}

static void print_ratio(FILE *out, const char *label, double meas, double model, double r, const char *what,
                        const char *item)
{
    char m[32], d[32], rr[32];
    fmt(m, sizeof m, meas, "%.4g");
    fmt(d, sizeof d, model, "%.4g");
    fmt(rr, sizeof rr, r, "%.2f");
    fprintf(out, "  %-16s measured %s per %s, model %s: measured/model %s", label, m, item, d, rr);
    const char *hint = sb_profile_hint(what, r);
    if (hint)
        fprintf(out, "  OUTSIDE %.2f..%.2f: %s\n", SB_PROF_RATIO_LO, SB_PROF_RATIO_HI, hint);
    else
        fputc('\n', out);
}

static void print_gpu(FILE *out, const sb_profile *p, const sb_prof_totals *t, const char *item)
{
    char reps[48] = "one untimed repetition";
    if (p->reps > 1) snprintf(reps, sizeof reps, "the mean of %d untimed repetitions", p->reps);
    fprintf(out, "PROFILE          %s, %s in a child process, %d launch%s of %d kernel%s each (the child "
                 "rerun once per pass of counters)\n",
            p->tool, reps, p->nlaunch, p->nlaunch == 1 ? "" : "es", p->ngroups, p->ngroups == 1 ? "" : "s");
    fprintf(out, "  %-30s %5s %9s %8s %6s %17s %5s %6s %6s %6s %6s %7s %7s %6s %6s %5s %8s\n", "kernel", "lnch",
            "time ms", "DRAM B/", "DRAM%", "occ ach/theo %", "SM%", "FP64%", "FP32%", "L1hit", "L2hit", "ld s/rq",
            "st s/rq", "eta ld", "eta st", "regs", "local MB");
    for (int i = 0; i < p->ngroups; i++) print_group(out, &p->group[i], p->items > 0 ? p->items : NAN);
    fprintf(out, "  (DRAM B/: measured DRAM bytes read + written per %s; %% are of the GPU's peak, weighted by launch "
                 "time;\n   s/rq: global 32-B sectors per request; eta: requested / transferred global bytes, %% (>100: "
                 "generic accesses served by shared memory);\n   local MB: local-memory traffic through L1 (spills, "
                 "local arrays); - : no value)\n", item);
    fprintf(out, "  DRAM total       read %.4g MB, written %.4g MB in %.4g ms of kernel time\n", t->dram_read / 1e6,
            t->dram_write / 1e6, t->duration * 1e3);
}

static void print_cpu(FILE *out, const sb_profile *p, const char *item)
{
    fprintf(out, "PROFILE          %s, one untimed repetition, %d thread%s (counters of every OpenMP thread)\n",
            p->tool, p->threads, p->threads == 1 ? "" : "s");
    fprintf(out, "  cycles %.4g, instructions %.4g, IPC %.2f (per thread, summed over threads)\n", p->cycles,
            p->instructions, p->cycles > 0 ? p->instructions / p->cycles : NAN);
    if (p->have_vec)
        fprintf(out, "  vector instructions (%s) %.4g = %.1f %% of instructions\n", p->vec_event, p->vec_instructions,
                p->instructions > 0 ? 100.0 * p->vec_instructions / p->instructions : NAN);
    else
        fprintf(out, "  vector instructions: no such event on this PMU\n");
    if (p->have_llc)
        fprintf(out, "  last-level cache misses (%s) %.4g = %.4g MB from DRAM at 64 B a line, %.4g B per %s\n",
                p->llc_event, p->llc_misses, p->llc_misses * 64.0 / 1e6,
                p->items > 0 ? p->llc_misses * 64.0 / p->items : NAN, item);
    else
        fprintf(out, "  last-level cache misses: no such event on this PMU\n");
    fprintf(out, "  uncore memory-controller counters are not read: DRAM bytes are LLC misses x 64 B (reads only)\n");
}

void sb_profile_print(FILE *out, const sb_profile *p, const sb_work *w, const char *item)
{
    if (p->kind == SB_PROF_NONE) {
        if (p->why[0]) fprintf(out, "PROFILE          no hardware counters here: %s\n", p->why);
        return;
    }
    sb_prof_totals t;
    sb_profile_totals(p, w, &t);
    if (p->kind == SB_PROF_GPU)
        print_gpu(out, p, &t, item);
    else
        print_cpu(out, p, item);
    print_ratio(out, "DRAM bytes", t.bytes_per_item, t.model_bytes_per_item, t.bytes_ratio, "bytes", item);
    if (w->flops > 0 && p->kind == SB_PROF_GPU)
        print_ratio(out, w->fp64 ? "FP64 flops" : "FP32 flops", t.flops_per_item, t.model_flops_per_item,
                    t.flops_ratio, "flops", item);
}
