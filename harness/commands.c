#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "hwinfo.h"
#include "info.h"
#include "params.h"
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
    printf("run params (--param key=value, every kernel)\n");
    for (int i = 0; sb_run_params[i].key; i++)
        printf("  %-10s default %-10s %s\n", sb_run_params[i].key, sb_run_params[i].def, sb_run_params[i].help);
    printf("backends on this machine\n");
    printf("  %-12s available (all OpenMP threads, SIMD)\n", "openmp_simd");
    if (sb_cuda_available(&why))
        printf("  %-12s available\n", "cuda");
    else
        printf("  %-12s not available: %s\n", "cuda", why ? why : "no CUDA device");
    printf("  %-12s available (scalar C oracle, 1 thread)\n", "reference");
    return SB_OK;
}

static int cmd_version(void)
{
    printf("scibench %s\ncompiler  %s\nnvcc      %s\narch      %s\nblas      %s\n", sb_version_commit(),
           sb_version_cc(), sb_version_nvcc(), sb_version_arch(), sb_version_blas());
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
    case SB_CMD_INFO: return sb_info_main(c->nargs, c->args);
    case SB_CMD_RUN:
    case SB_CMD_VALIDATE: return cmd_case(c, exe);
    case SB_CMD_COMPARE: return sb_compare_main(c->nargs, c->args, stdout);
    case SB_CMD_TABLE: return sb_table_main(c->nargs, c->args, stdout);
    case SB_CMD_MACHINE: return cmd_machine();
    }
    return SB_EXIT_USAGE;
}
