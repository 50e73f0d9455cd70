#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_result.h"
#include "params.h"
#include "runloop.h"
#include "omp_counters.h"
#include "sb_cuda.h"
#include "sb_cuda_comm.h"
#include "sb_cuda_prof.h"
#include "sb_mpi.h"
#include "sb_omp.h"
#include "timing.h"

static int cuda_device; /* the GPU this rank uses: MPI counts distinct devices */

/* The run params (sb_run_params) that choose how GPU data moves between MPI ranks. */
typedef struct {
    int comm;  /* sb_comm_mode */
    long share_gpu;
} run_opts;

static int read_run_opts(sb_params *p, sb_backend b, run_opts *o)
{
    static const char *const comm_names[] = {"auto", "nccl", "host", NULL}; /* sb_comm_mode order */
    int rc = sb_param_choice(p, "comm", comm_names, SB_COMM_AUTO, &o->comm);
    if (!rc) rc = sb_param_long(p, "share_gpu", 0, 0, 1, &o->share_gpu);
    if (!rc && o->comm == SB_COMM_NCCL && b != SB_BACKEND_CUDA) {
        sb_error("--param comm=nccl moves GPU data between ranks: it needs --backend cuda, not %s", sb_backend_name(b));
        rc = SB_EXIT_USAGE;
    }
    return rc;
}

/* Ranks of one host that would share a GPU: only when asked, since each would then time
 * the others' kernels too. */
static int check_gpu_share(const sb_cuda_info *info, long share_gpu)
{
    const int local = sb_mpi_local_size();
    const char *pinned = getenv("SB_CUDA_DEVICE");
    const int shared = local > info->device_count || (local > 1 && pinned && *pinned);
    if (!shared || share_gpu) return SB_OK;
    sb_error("%d MPI ranks on host %d share %s: one rank a GPU, or --param share_gpu=1 to let them share",
             local, sb_mpi_host_index(), pinned && *pinned ? "the one GPU SB_CUDA_DEVICE names" : "fewer GPUs");
    if (local > info->device_count) sb_error("this host has %d GPU%s", info->device_count, info->device_count == 1 ? "" : "s");
    return SB_EXIT_USAGE;
}

/* A missing backend is an error, never a silent fallback to another one. */
static int check_backend(const sb_kernel *k, sb_backend b, const run_opts *o)
{
    if ((int)b < 0 || b >= SB_BACKEND_COUNT || !k->has_backend[b]) {
        sb_error("%s is not implemented for backend %s", k->name, sb_backend_name(b));
        return SB_EXIT_USAGE;
    }
    if (b != SB_BACKEND_CUDA) return SB_OK;
    const char *why = NULL;
    if (!sb_cuda_available(&why)) {
        sb_error("backend cuda is not available: %s", why ? why : "no CUDA device");
        return SB_EXIT_USAGE;
    }
    sb_cuda_info info;
    if (sb_cuda_init(&info) != 0) return SB_EXIT_RUNTIME;
    cuda_device = info.device;
    return check_gpu_share(&info, o->share_gpu);
}

static int check_counts(const sb_params *p)
{
    if (p->reps < 1 || p->reps > SB_MAX_REPS) {
        sb_error("--reps %d is out of range; accepted: 1..%d", p->reps, SB_MAX_REPS);
        return SB_EXIT_USAGE;
    }
    if (p->warmup < 0 || p->warmup > SB_MAX_WARMUP) {
        sb_error("--warmup %d is out of range; accepted: 0..%d", p->warmup, SB_MAX_WARMUP);
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}

static int resolve_size(const sb_kernel *k, sb_params *p)
{
    if (p->size == 0) p->size = k->default_size;
    if (p->size < k->min_size || p->size > k->max_size) {
        sb_error("--size %d is out of range for %s; accepted: %d..%d (%s)", p->size, k->name, k->min_size,
                 k->max_size, k->size_meaning ? k->size_meaning : "size");
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}

static const char *case_label(const sb_case *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s/%d", c->kernel->name, sb_backend_name(c->backend), c->params->size);
    return buf;
}

static int warm_up(sb_case *c)
{
    char label[128];
    case_label(c, label, sizeof label);
    for (int i = 0; i < c->params->warmup; i++) {
        sb_progress("%s: warm-up %d/%d", label, i + 1, c->params->warmup);
        int rc = sb_mpi_alone(c->kernel->run(c));
        if (rc) return rc;
    }
    /* Surfaces asynchronous launch errors here rather than in the first timed rep. */
    if (c->backend == SB_BACKEND_CUDA && c->params->warmup > 0 && sb_cuda_sync() != 0) return SB_EXIT_RUNTIME;
    return SB_OK;
}

/* times[i]: the slowest rank's time of repetition i (every rank starts it together);
 * own[i], comm[i] and bytes[i]: this rank's time, its time inside MPI calls and the bytes
 * it sent to other ranks. */
static int timed_reps(sb_case *c, double *times, double *own, double *comm, double *bytes)
{
    char label[128];
    sb_timer t;
    int rc = sb_timer_init(&t, c->backend);
    case_label(c, label, sizeof label);
    /* Under ncu (--profile's child): every timed repetition is counted, nothing between them. */
    int range = c->backend == SB_BACKEND_CUDA && sb_profile_range_requested();
    for (int i = 0; !rc && i < c->params->reps; i++) {
        sb_mpi_barrier();
        sb_mpi_comm_reset();
        if (range) rc = sb_cuda_profiler_start();
        if (!rc) rc = sb_timer_start(&t);
        if (!rc) rc = c->kernel->run(c);
        double s = rc ? 0 : sb_timer_stop(&t);
        if (!rc && range) rc = sb_cuda_profiler_stop();
        if (!rc && s < 0) {
            sb_error("%s: timer failed in repetition %d", label, i + 1);
            rc = SB_EXIT_RUNTIME;
        }
        rc = sb_mpi_alone(rc);
        own[i] = s;
        comm[i] = sb_mpi_comm_seconds();
        bytes[i] = sb_mpi_comm_bytes();
        times[i] = s;
        sb_mpi_max(&times[i], 1);
        if (!rc) sb_progress("%s: rep %d/%d  %.3f ms", label, i + 1, c->params->reps, times[i] * 1e3);
    }
    sb_timer_free(&t);
    return rc;
}

/* --profile on the CPU: one more repetition, after the validation (which it cannot
 * change), counted by PAPI on every OpenMP thread. No counters: p->why says why. */
static int cpu_profile(sb_case *c, sb_profile *p)
{
    memset(p, 0, sizeof *p);
    if (sb_cpu_counters_start(p->why, sizeof p->why)) return SB_OK;
    sb_progress("%s: --profile: one counted repetition", c->kernel->name);
    int rc = c->kernel->run(c);
    sb_cpu_counts n;
    int read = sb_cpu_counters_stop(&n) == 0;
    if (rc) return rc;
    if (!read) {
        snprintf(p->why, sizeof p->why, "PAPI could not read the counters of every OpenMP thread");
        return SB_OK;
    }
    p->kind = SB_PROF_CPU;
    snprintf(p->tool, sizeof p->tool, "%s", n.tool);
    p->items = c->work.items;
    p->threads = n.threads;
    p->cycles = n.cycles;
    p->instructions = n.instructions;
    p->vec_instructions = n.vec_instructions;
    p->llc_misses = n.llc_misses;
    p->have_vec = n.have_vec;
    p->have_llc = n.have_llc;
    snprintf(p->vec_event, sizeof p->vec_event, "%s", n.vec_event);
    snprintf(p->llc_event, sizeof p->llc_event, "%s", n.llc_event);
    return SB_OK;
}

/* Everything between setup and teardown; the caller tears down on any outcome. */
static int drive(sb_case *c, sb_result *r, int flags)
{
    const sb_kernel *k = c->kernel;
    int rc = sb_params_check_unused(k, c->params);
    if (!rc && k->prepare) rc = sb_mpi_alone(k->prepare(c));
    if (!rc) rc = warm_up(c);
    const int reps = c->params->reps;
    double *own = calloc((size_t)reps * 3, sizeof *own);
    if (!own) {
        sb_error("out of memory for %d repetition times", c->params->reps);
        return sb_mpi_alone(SB_EXIT_RUNTIME);
    }
    if (!rc) rc = timed_reps(c, r->times, own, own + reps, own + 2 * reps);
    /* --profile's child under ncu: its counted repetitions are all it is for; the case and
     * its validation are the parent's */
    if (!rc && sb_profile_range_requested()) {
        free(own);
        return SB_OK;
    }
    if (!rc && k->finish) rc = sb_mpi_alone(k->finish(c));
    if (!rc) {
        sb_progress("%s: validating", k->name);
        rc = sb_mpi_alone(k->validate(c, &r->validation));
    }
    if (!rc) rc = sb_mpi_gather_result(c, own, own + reps, own + 2 * reps, r);
    if (!rc && (flags & SB_RUN_PROFILE) && c->backend != SB_BACKEND_CUDA) rc = cpu_profile(c, &r->profile);
    free(own);
    return rc;
}

static void keep_outputs(const sb_case *c, sb_result *r)
{
    r->work = c->work;
    r->counters = c->counters;
    r->nlaunch = c->nlaunch < SB_MAX_LAUNCH ? c->nlaunch : SB_MAX_LAUNCH;
    memcpy(r->launch, c->launch, sizeof r->launch);
}

static void probe_peaks(sb_result *r)
{
    sb_peaks *pk = &r->peaks;
    sb_progress("measuring this machine's peak bandwidth and FMA rates");
    if (r->backend == SB_BACKEND_CUDA) {
        pk->bw_kind = "copy";
        pk->bandwidth = sb_cuda_probe_copy_bw();
        pk->fma_fp32 = sb_cuda_probe_fma(0);
        pk->fma_fp64 = sb_cuda_probe_fma(1);
    } else {
        const sb_probe_stats *p[3] = {sb_cpu_probe_triad(), sb_cpu_probe_fma_stats(0), sb_cpu_probe_fma_stats(1)};
        pk->bw_kind = "triad";
        pk->bandwidth = p[0]->best;
        pk->fma_fp32 = p[1]->best;
        pk->fma_fp64 = p[2]->best;
        for (int k = 0; k < 3; k++) pk->spread[k] = (sb_peak_spread){p[k]->median, p[k]->worst, p[k]->trials};
        pk->fma_isa = p[1]->isa;
    }
    pk->measured = 1;
}

static int start(const sb_kernel *k, sb_backend b, sb_params *p, sb_result *r, run_opts *o)
{
    memset(r, 0, sizeof *r);
    r->kernel = k;
    r->backend = b;
    r->params = p;
    r->threads = b == SB_BACKEND_OPENMP_SIMD ? omp_get_max_threads() : 1;
    r->peaks.bw_kind = b == SB_BACKEND_CUDA ? "copy" : "triad";
    int rc = check_counts(p);
    if (!rc) rc = resolve_size(k, p);
    if (!rc) rc = read_run_opts(p, b, o);
    if (!rc) rc = check_backend(k, b, o);
    if (!rc && p->baseline_path)
        rc = sb_mpi_read_baseline(p->baseline_path, k, b, &r->mpi.baseline_rate);
    if (!rc && !(r->times = calloc((size_t)p->reps, sizeof *r->times))) {
        sb_error("out of memory for %d repetition times", p->reps);
        rc = SB_EXIT_RUNTIME;
    }
    return rc;
}

int sb_run_case(const sb_kernel *k, sb_backend b, sb_params *p, int flags, sb_result *r)
{
    if ((flags & SB_RUN_PROFILE) && sb_mpi_size() > 1) {
        sb_error("--profile counts one process's hardware events: run it without mpirun");
        return SB_EXIT_USAGE;
    }
    run_opts o = {SB_COMM_AUTO, 0};
    int rc = sb_mpi_max_int(start(k, b, p, r, &o));
    if (rc) return rc;
    /* collective: after every rank has its GPU (and only when every rank got one) */
    if (b == SB_BACKEND_CUDA && (rc = sb_cuda_comm_init(o.comm, (int)o.share_gpu))) return rc;
    r->mpi.comm = sb_mpi_size() == 1 ? "none" : b == SB_BACKEND_CUDA ? sb_cuda_comm_path() : "mpi";
    r->mpi.comm_detail = b == SB_BACKEND_CUDA ? sb_cuda_comm_detail() : sb_mpi_size() == 1 ? "" : "host memory, MPI";
    sb_case c = {.kernel = k, .backend = b, .params = p};
    /* Every rank parses the same arguments, so a setup error is everyone's: agree on it
     * rather than leave the others waiting in a collective. */
    rc = sb_mpi_max_int(k->setup(&c));
    sb_errors_from_all_ranks(1);
    if (!rc) rc = drive(&c, r, flags);
    keep_outputs(&c, r);
    k->teardown(&c);
    if (b == SB_BACKEND_CUDA) sb_cuda_comm_finalize();
    sb_errors_from_all_ranks(0);
    sb_progress_done();
    if (rc) return rc;
    if (sb_stats_compute(r->times, p->reps, &r->stats)) {
        sb_error("out of memory computing statistics");
        return SB_EXIT_RUNTIME;
    }
    r->passed = sb_mpi_min_int(sb_validation_passed(&r->validation));
    /* One rank probes (ranks sharing a device would disturb each other's probe); the
     * peaks then scale to the number of distinct devices the ranks ran on. */
    r->mpi.devices = sb_mpi_count_devices(b == SB_BACKEND_CUDA ? cuda_device : 0);
    if ((flags & SB_RUN_PEAKS) && sb_mpi_rank() == 0) {
        probe_peaks(r);
        r->peaks.bandwidth *= r->mpi.devices;
        r->peaks.fma_fp32 *= r->mpi.devices;
        r->peaks.fma_fp64 *= r->mpi.devices;
        for (int k = 0; k < 3; k++) {
            r->peaks.spread[k].median *= r->mpi.devices;
            r->peaks.spread[k].worst *= r->mpi.devices;
        }
    }
    sb_progress_done();
    return SB_OK;
}

void sb_result_free(sb_result *r)
{
    free(r->times);
    free(r->mpi.rank_median);
    r->times = NULL;
    r->mpi.rank_median = r->mpi.rank_items = NULL;
}

double sb_rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

double sb_flop_peak(const sb_result *r)
{
    if (!r->peaks.measured) return 0.0;
    return r->work.fp64 ? r->peaks.fma_fp64 : r->peaks.fma_fp32;
}
