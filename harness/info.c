/* `scibench info`: this machine and its measured peaks; with --json FILE the machine's stored
 * peaks (results/<machine>/peaks.json), measured in --runs separate processes: a probe's
 * result is cached per process, and on the GPU a new process is the only new measurement. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwinfo.h"
#include "info.h"
#include "json_out.h"
#include "peaks_file.h"
#include "sb_cuda.h"
#include "sb_omp.h"
#include "version.h"

extern char **environ;

/* ---- the hardware ----------------------------------------------------------- */

static void print_hardware(const sb_hwinfo *hw)
{
    const sb_cpu_info *c = &hw->cpu;
    printf("machine        %s  (host %s)\n", hw->machine, hw->hostname);
    printf("CPU            %s, %d logical CPUs", c->cpu_model, c->logical_cpus);
    if (hw->cpu_mhz > 0) printf(", %.0f MHz", hw->cpu_mhz);
    printf("\n  OpenMP       %d threads, OMP_PROC_BIND %s\n", c->omp_threads, c->proc_bind);
    printf("  ISA          compiled %s, supported %s, %d float SIMD lanes\n", c->isa_compiled, c->isa_supported,
           c->simd_float_lanes);
    if (!hw->have_gpu) {
        printf("GPU            not available: %s\n", hw->gpu_why);
        return;
    }
    const sb_cuda_info *g = &hw->gpu;
    printf("GPU            %s (device %d), CC %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB\n", g->name, g->device, g->cc_major,
           g->cc_minor, g->sm_count, (double)g->global_mem_bytes / (1 << 30), g->l2_bytes / 1048576.0);
    printf("  clocks       SM %d MHz, memory %d MHz x %d bit (datasheet bandwidth %.1f GB/s)\n", g->sm_clock_mhz,
           g->mem_clock_mhz, g->mem_bus_bits, g->theoretical_bw / 1e9);
    printf("  CUDA         driver %d, runtime %d\n", g->driver_version, g->runtime_version);
}

/* ---- one run, in this process ---------------------------------------------------- */

static const char *const WHAT_CPU[3] = {"STREAM triad", "FMA FP32", "FMA FP64"};
static const char *const WHAT_GPU[3] = {"copy", "FMA FP32", "FMA FP64"};
static const char *const UNIT[3] = {"GB/s", "GFLOP/s", "GFLOP/s"};

static sb_stored_probe one(double v) { return (sb_stored_probe){v, v, v, 1}; }

/* Measures every probe once; prints each CPU probe's trials. SB_OK or SB_EXIT_RUNTIME. */
static int measure(const sb_hwinfo *hw, sb_stored_peaks *pk, int print)
{
    memset(pk, 0, sizeof *pk);
    sb_progress("measuring CPU peaks");
    const sb_probe_stats *p[3] = {sb_cpu_probe_triad(), sb_cpu_probe_fma_stats(0), sb_cpu_probe_fma_stats(1)};
    sb_progress_done();
    pk->have_cpu = 1;
    for (int k = 0; k < 3; k++) pk->cpu[k] = one(p[k]->best);
    snprintf(pk->fma_isa, sizeof pk->fma_isa, "%s", p[1]->isa ? p[1]->isa : "");
    if (print) {
        printf("CPU peaks      each the best of its trials, threads pinned one to a CPU; spread = (best - worst) / best\n");
        for (int k = 0; k < 3; k++)
            printf("  %-12s %10.1f %-7s (%s%s%d trials: median %.1f, worst %.1f, spread %.1f %%)\n", WHAT_CPU[k],
                   p[k]->best / 1e9, UNIT[k], p[k]->isa ? p[k]->isa : "", p[k]->isa ? ", " : "", p[k]->trials,
                   p[k]->median / 1e9, p[k]->worst / 1e9,
                   p[k]->best > 0 ? 100.0 * (p[k]->best - p[k]->worst) / p[k]->best : 0.0);
    }
    if (hw->have_gpu) {
        sb_progress("measuring GPU peaks");
        double g[3] = {sb_cuda_probe_copy_bw(), sb_cuda_probe_fma(0), sb_cuda_probe_fma(1)};
        sb_progress_done();
        pk->have_gpu = 1;
        for (int k = 0; k < 3; k++) pk->gpu[k] = one(g[k]);
        if (print) {
            printf("GPU peaks      each the median of the probe's timed launches\n");
            for (int k = 0; k < 3; k++) printf("  %-12s %10.1f %s\n", WHAT_GPU[k], g[k] / 1e9, UNIT[k]);
        }
    }
    for (int k = 0; k < 3; k++)
        if (!(pk->cpu[k].value > 0) || (pk->have_gpu && !(pk->gpu[k].value > 0))) {
            sb_error("info: a peak probe failed (%s)", !(pk->cpu[k].value > 0) ? WHAT_CPU[k] : WHAT_GPU[k]);
            return SB_EXIT_RUNTIME;
        }
    return SB_OK;
}

/* ---- several runs, one process each ------------------------------------------------ */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static sb_stored_probe over_runs(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return (sb_stored_probe){0.5 * (v[(n - 1) / 2] + v[n / 2]), v[0], v[n - 1], n};
}

/* This program's `info --runs 1 --json` in runs child processes, one after the other. */
static int measure_runs(int runs, sb_stored_peaks *pk)
{
    char exe[PATH_MAX], dir[] = "/tmp/scibench_info_XXXXXX", path[SB_INFO_MAX_RUNS][PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    sb_stored_peaks got[SB_INFO_MAX_RUNS];
    int rc = SB_OK, done = 0;
    if (len <= 0) {
        sb_error("info --runs: cannot find this program's path (/proc/self/exe)");
        return SB_EXIT_RUNTIME;
    }
    exe[len] = '\0';
    if (!mkdtemp(dir)) {
        sb_error("info --runs: cannot make a scratch folder in /tmp: %s", strerror(errno));
        return SB_EXIT_RUNTIME;
    }
    for (int r = 0; r < runs && !rc; r++, done++) {
        snprintf(path[r], sizeof path[r], "%s/run%d.json", dir, r);
        char *argv[] = {exe, "info", "--runs", "1", "--json", path[r], NULL};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        pid_t pid;
        int st = 0;
        sb_progress("info: run %d of %d (a process each)", r + 1, runs);
        if (posix_spawn(&pid, exe, &fa, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) != pid) st = -1;
        posix_spawn_file_actions_destroy(&fa);
        if (st != 0) {
            sb_progress_done();
            sb_error("info --runs: run %d of %d failed (%s)", r + 1, runs,
                     WIFEXITED(st) ? "its exit code is not 0" : "it did not exit normally");
            rc = SB_EXIT_RUNTIME;
        } else {
            rc = sb_peaks_file_read(path[r], &got[r]);
        }
    }
    sb_progress_done();
    for (int r = 0; r < done; r++) unlink(path[r]);
    rmdir(dir);
    if (rc) return rc;
    *pk = got[0];
    double v[SB_INFO_MAX_RUNS];
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < runs; r++) v[r] = got[r].cpu[k].value;
        pk->cpu[k] = over_runs(v, runs);
        for (int r = 0; pk->have_gpu && r < runs; r++) v[r] = got[r].gpu[k].value;
        if (pk->have_gpu) pk->gpu[k] = over_runs(v, runs);
    }
    printf("peaks over %d runs (a process each): the median of the runs, their range and spread = (max - min) / median\n",
           runs);
    for (int side = 0; side < 2; side++) {
        if (side && !pk->have_gpu) continue;
        for (int k = 0; k < 3; k++) {
            const sb_stored_probe *p = side ? &pk->gpu[k] : &pk->cpu[k];
            printf("  %s %-12s %10.1f %-7s (min %.1f, max %.1f, spread %.1f %%)%s%s\n", side ? "GPU" : "CPU",
                   side ? WHAT_GPU[k] : WHAT_CPU[k], p->value / 1e9, UNIT[k], p->min / 1e9, p->max / 1e9,
                   100.0 * (p->max - p->min) / p->value, !side && k ? ", " : "", !side && k ? pk->fma_isa : "");
        }
    }
    return SB_OK;
}

/* ---- the peaks file ------------------------------------------------------------ */

static json_t *iso_now(void)
{
    char buf[40];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    return json_string(buf);
}

static json_t *peaks_doc(const sb_stored_peaks *pk, const sb_hwinfo *hw, int runs)
{
    static const char *const CPU_KEY[3] = {"triad_bandwidth_Bps", "fma_fp32_flops", "fma_fp64_flops"};
    static const char *const GPU_KEY[3] = {"copy_bandwidth_Bps", "fma_fp32_flops", "fma_fp64_flops"};
    char source[96];
    snprintf(source, sizeof source, "scibench info --runs %d --json", runs);
    json_t *o = json_object(), *cpu = json_object();
    json_object_set_new(o, "scibench_peaks", json_integer(1));
    json_object_set_new(o, "machine", json_string(hw->machine));
    json_object_set_new(o, "host_name", json_string(hw->hostname));
    json_object_set_new(o, "date", iso_now());
    json_object_set_new(o, "git_commit", json_string(sb_version_commit()));
    json_object_set_new(o, "arch", json_string(sb_version_arch()));
    json_object_set_new(o, "source", json_string(source));
    json_object_set_new(cpu, "model", json_string(hw->cpu.cpu_model));
    json_object_set_new(cpu, "logical_cpus", json_integer(hw->cpu.logical_cpus));
    json_object_set_new(cpu, "omp_threads", json_integer(hw->cpu.omp_threads));
    json_object_set_new(cpu, "isa_supported", json_string(hw->cpu.isa_supported));
    json_object_set_new(cpu, "fma_isa", json_string(pk->fma_isa));
    for (int k = 0; k < 3; k++) json_object_set_new(cpu, CPU_KEY[k], sb_stored_probe_json(&pk->cpu[k]));
    json_object_set_new(o, "cpu", cpu);
    if (pk->have_gpu) {
        json_t *gpu = json_object();
        json_object_set_new(gpu, "name", json_string(hw->gpu.name));
        for (int k = 0; k < 3; k++) json_object_set_new(gpu, GPU_KEY[k], sb_stored_probe_json(&pk->gpu[k]));
        json_object_set_new(o, "gpu", gpu);
    } else {
        json_object_set_new(o, "gpu", json_null());
    }
    return o;
}

int sb_info_main(int argc, char **argv)
{
    sb_info_options o;
    sb_hwinfo hw;
    sb_stored_peaks pk;
    int rc = sb_info_parse(argc, argv, &o);
    if (!rc && o.json) rc = sb_json_check_path(o.json);
    if (rc) return rc;
    sb_hwinfo_get(&hw);
    print_hardware(&hw);
    rc = o.runs == 1 ? measure(&hw, &pk, 1) : measure_runs(o.runs, &pk);
    printf("build          %s, %s, nvcc %s, -march=%s\n", sb_version_commit(), sb_version_cc(), sb_version_nvcc(),
           sb_version_arch());
    printf("  BLAS         %s\n", sb_version_blas());
    if (!rc && o.json) {
        json_t *doc = peaks_doc(&pk, &hw, o.runs);
        rc = sb_json_save(doc, o.json);
        json_decref(doc);
        if (!rc) printf("peaks          written to %s\n", o.json);
    }
    return rc;
}
