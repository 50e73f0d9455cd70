#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "hwinfo.h"
#include "registry.h"
#include "table.h"
#include "sb_cuda.h"
#include "sb_omp.h"
#include "session.h"
#include "version.h"

static void list_kernel(const sb_kernel *k)
{
    printf("  %s: %s\n", k->name, k->summary);
    printf("    item       %s (throughput is counted in %s/s)\n", k->item, k->item);
    printf("    size       %s: default %d, min %d, max %d, CI %d\n", k->size_meaning, k->default_size, k->min_size,
           k->max_size, k->ci_size);
    printf("    backends  ");
    for (int b = 0; b < SB_BACKEND_COUNT; b++)
        if (k->has_backend[b]) printf(" %s", sb_backend_name((sb_backend)b));
    printf("\n    params%s\n", k->params && k->params[0].key ? " (--param key=value)" : "     none");
    int w = 10; /* the key column: as wide as the kernel's longest key */
    for (int i = 0; k->params && k->params[i].key; i++)
        if ((int)strlen(k->params[i].key) > w) w = (int)strlen(k->params[i].key);
    for (int i = 0; k->params && k->params[i].key; i++) {
        const char *def = k->params[i].def && *k->params[i].def ? k->params[i].def : "unset";
        printf("      %-*s default %-10s %s\n", w, k->params[i].key, def, k->params[i].help);
    }
}

static int cmd_list(void)
{
    const char *why = NULL;
    printf("kernels\n");
    for (int i = 0; i < sb_registry_count(); i++) list_kernel(sb_registry_at(i));
    printf("backends on this machine\n");
    printf("  %-12s available (all OpenMP threads, SIMD)\n", "openmp_simd");
    if (sb_cuda_available(&why))
        printf("  %-12s available\n", "cuda");
    else
        printf("  %-12s not available: %s\n", "cuda", why ? why : "no CUDA device");
    printf("  %-12s available (scalar C oracle, 1 thread)\n", "reference");
    return SB_OK;
}

static void info_cpu(const sb_hwinfo *hw)
{
    const sb_cpu_info *c = &hw->cpu;
    printf("CPU            %s, %d logical CPUs", c->cpu_model, c->logical_cpus);
    if (hw->cpu_mhz > 0) printf(", %.0f MHz", hw->cpu_mhz);
    printf("\n  OpenMP       %d threads, OMP_PROC_BIND %s\n", c->omp_threads, c->proc_bind);
    printf("  ISA          compiled %s, supported %s, %d float SIMD lanes\n", c->isa_compiled, c->isa_supported,
           c->simd_float_lanes);
    sb_progress("measuring CPU peaks");
    const sb_probe_stats *p[3] = {sb_cpu_probe_triad(), sb_cpu_probe_fma_stats(0), sb_cpu_probe_fma_stats(1)};
    sb_progress_done();
    static const char *const what[3] = {"STREAM triad", "FMA FP32", "FMA FP64"};
    static const char *const unit[3] = {"GB/s", "GFLOP/s", "GFLOP/s"};
    printf("  measured     each the best of its trials, threads pinned one to a CPU; spread = (best - worst) / best\n");
    for (int k = 0; k < 3; k++)
        printf("    %-12s %10.1f %-7s (%s%s%d trials: median %.1f, worst %.1f, spread %.1f %%)\n", what[k], p[k]->best / 1e9,
               unit[k], p[k]->isa ? p[k]->isa : "", p[k]->isa ? ", " : "", p[k]->trials, p[k]->median / 1e9,
               p[k]->worst / 1e9, p[k]->best > 0 ? 100.0 * (p[k]->best - p[k]->worst) / p[k]->best : 0.0);
}

static void info_gpu(const sb_hwinfo *hw)
{
    const sb_cuda_info *g = &hw->gpu;
    if (!hw->have_gpu) {
        printf("GPU            not available: %s\n", hw->gpu_why);
        return;
    }
    printf("GPU            %s (device %d), CC %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB\n", g->name, g->device, g->cc_major,
           g->cc_minor, g->sm_count, (double)g->global_mem_bytes / (1 << 30), g->l2_bytes / 1048576.0);
    printf("  clocks       SM %d MHz, memory %d MHz x %d bit (datasheet bandwidth %.1f GB/s)\n", g->sm_clock_mhz,
           g->mem_clock_mhz, g->mem_bus_bits, g->theoretical_bw / 1e9);
    printf("  CUDA         driver %d, runtime %d\n", g->driver_version, g->runtime_version);
    sb_progress("measuring GPU peaks");
    double bw = sb_cuda_probe_copy_bw(), f32 = sb_cuda_probe_fma(0), f64 = sb_cuda_probe_fma(1);
    sb_progress_done();
    printf("  measured     copy %.1f GB/s, FMA FP32 %.1f GFLOP/s, FMA FP64 %.1f GFLOP/s\n", bw / 1e9, f32 / 1e9,
           f64 / 1e9);
}

static int cmd_info(void)
{
    sb_hwinfo hw;
    sb_hwinfo_get(&hw);
    printf("machine        %s  (host %s)\n", hw.machine, hw.hostname);
    info_cpu(&hw);
    info_gpu(&hw);
    printf("build          %s, %s, nvcc %s, -march=%s\n", sb_version_commit(), sb_version_cc(), sb_version_nvcc(),
           sb_version_arch());
    return SB_OK;
}

static int cmd_version(void)
{
    printf("scibench %s\ncompiler  %s\nnvcc      %s\narch      %s\n", sb_version_commit(), sb_version_cc(),
           sb_version_nvcc(), sb_version_arch());
    return SB_OK;
}

static int cmd_machine(void)
{
    sb_hwinfo hw;
    sb_hwinfo_get(&hw);
    printf("%s\n", hw.machine);
    return SB_OK;
}

static int cmd_case(sb_cli *c, const char *exe)
{
    const sb_kernel *k;
    int rc = sb_registry_find(c->kernel, &k);
    if (rc) return rc;
    sb_session_opts o = {.validate_only = c->cmd == SB_CMD_VALIDATE, .profile = c->profile, .exe = exe, .out = stdout};
    return sb_session_run(k, c->backend, &c->params, &o);
}

int sb_command_run(sb_cli *c, const char *exe)
{
    switch (c->cmd) {
    case SB_CMD_HELP: sb_cli_help(stdout); return SB_OK;
    case SB_CMD_VERSION: return cmd_version();
    case SB_CMD_LIST: return cmd_list();
    case SB_CMD_INFO: return cmd_info();
    case SB_CMD_RUN:
    case SB_CMD_VALIDATE: return cmd_case(c, exe);
    case SB_CMD_COMPARE: return sb_compare_main(c->nargs, c->args, stdout);
    case SB_CMD_TABLE: return sb_table_main(c->nargs, c->args, stdout);
    case SB_CMD_MACHINE: return cmd_machine();
    }
    return SB_EXIT_USAGE;
}
