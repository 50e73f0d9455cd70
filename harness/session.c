#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "session.h"
#include "sb_cuda.h"
#include "hwinfo.h"
#include "json_out.h"
#include "profile.h"
#include "report.h"
#include "runloop.h"
#include "sb_mpi.h"

/* --profile on the GPU: ncu runs this same case again in a child (`validate`: no peak
 * probes; reps repetitions, each counted between cudaProfilerStart and Stop). */
static int gpu_profile(const sb_kernel *k, const sb_params *p, int reps, sb_profile *prof)
{
    char exe[PATH_MAX], size[16], seed[24], warmup[8], nreps[8];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        sb_error("--profile: cannot find this program's path (/proc/self/exe)");
        return SB_EXIT_RUNTIME;
    }
    exe[n] = '\0';
    snprintf(size, sizeof size, "%d", p->size);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)p->seed);
    /* a warm-up when the timed run had one, so the counted repetition is a steady one */
    snprintf(warmup, sizeof warmup, "%d", p->warmup > 0 ? 1 : 0);
    snprintf(nreps, sizeof nreps, "%d", reps);
    char *argv[16 + 2 * SB_MAX_PARAMS];
    int a = 0;
    char *fixed[] = {exe, "validate", (char *)k->name, "--backend", "cuda", "--size", size, "--seed", seed,
                     "--reps", nreps, "--warmup", warmup, "--quiet"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[a++] = fixed[i];
    char kv[SB_MAX_PARAMS][260];
    for (int i = 0; i < p->nkv; i++) {
        snprintf(kv[i], sizeof kv[i], "%s=%s", p->kv[i].key, p->kv[i].value);
        argv[a++] = "--param";
        argv[a++] = kv[i];
    }
    argv[a] = NULL;
    /* Released, the device is the child's as in a run of its own. With this process's context
     * alive the child's buffers land elsewhere, and kernels whose local memory lives in L2
     * write a different share of it back to DRAM: eri_brush 4 counted 0.85-1.10 MB of writes
     * against 0.55 MB by hand, and 0.55 MB once released. One rank only: under MPI the
     * context holds the ranks' communicator. */
    if (sb_mpi_size() == 1) {
        int rc = sb_cuda_release();
        if (rc) return rc;
    }
    int rc = sb_ncu_profile(argv, k->profile_as_range, prof);
    if (!rc && prof->kind == SB_PROF_GPU) sb_profile_mean(prof, reps);
    return rc;
}

int sb_session_run(const sb_kernel *k, sb_backend b, sb_params *p, const sb_session_opts *o)
{
    sb_result r;
    sb_hwinfo hw;
    int root = sb_mpi_rank() == 0;
    int rc = sb_mpi_max_int(p->json_path && root ? sb_json_check_path(p->json_path) : SB_OK);
    if (rc) return rc;
    int profile_reps = 1;
    if (o->profile && b == SB_BACKEND_CUDA && (rc = sb_profile_reps(&profile_reps))) return rc;
    sb_set_quiet(p->quiet);
    int flags = (o->validate_only ? 0 : SB_RUN_PEAKS) | (o->profile ? SB_RUN_PROFILE : 0);
    rc = sb_run_case(k, b, p, flags, &r);
    if (sb_profile_range_requested()) { /* --profile's child: counters only, no report */
        sb_result_free(&r);
        return rc;
    }
    if (!rc && !root) rc = r.passed ? SB_OK : SB_EXIT_VALIDATION; /* rank 0 reports for all */
    else if (!rc) {
        /* after the timed run and its validation: profiling never enters the timed region */
        if (o->profile && b == SB_BACKEND_CUDA)
            rc = gpu_profile(k, p, profile_reps, &r.profile);
        r.profile.items = r.work.items;
        sb_hwinfo_get(&hw);
        if (!rc) sb_report_print(o->out ? o->out : stdout, &r, &hw, o->validate_only);
        if (!rc && p->json_path) rc = sb_json_write(p->json_path, &r, &hw, o->exe);
        if (!rc && !r.passed) rc = SB_EXIT_VALIDATION;
    }
    sb_result_free(&r);
    return rc;
}
