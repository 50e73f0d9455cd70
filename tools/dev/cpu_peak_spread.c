/* Why the CPU peaks of `scibench info` differ from process to process on a host: one process
 * measures, with every OpenMP thread pinned to one CPU,
 *   - the core clock each thread runs at: a chain of dependent 64-bit register multiplies (three
 *     cycles each on every x86 core since Nehalem; a chain of immediate adds is no clock, since
 *     Golden Cove folds them at rename), all threads at once, before and after the probes;
 *   - the FP64 FMA roof and the STREAM triad with the harness's own probes (runtime/openmp_simd);
 *   - the steal time the hypervisor reports for the whole run (/proc/stat).
 * Run it as ten processes in a row; if FMA / clock holds still while both move, the roof
 * follows the clock the host grants, which no probe length or pinning can fix.
 *   make && gcc -O2 -std=c11 -fopenmp -Icore -Iruntime/openmp_simd tools/dev/cpu_peak_spread.c \
 *       build/libscibench.a -lm -o build/tools/cpu_peak_spread
 *   for i in $(seq 10); do build/tools/cpu_peak_spread; done
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>

#include "sb_omp.h"

/* user+nice+system+idle+iowait+irq+softirq+steal jiffies, and steal alone */
static void stat_cpu(long long *total, long long *steal) {
    long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    *total = *steal = 0;
    if (!f) return;
    if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
               &v[7]) == 8) {
        for (int k = 0; k < 8; k++) *total += v[k];
        *steal = v[7];
    }
    fclose(f);
}

/* 8 dependent multiplies an iteration: 24 cycles, the loop counter runs beside them; the threads
 * pinned one to a CPU, as the probes pin theirs */
static double clock_ghz(void) {
    const long iters = 20000000;
    double sum = 0;
    int nt = 1;
#pragma omp parallel reduction(+ : sum)
    {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(omp_get_thread_num(), &one);
        (void)sched_setaffinity(0, sizeof one, &one);
        long x = omp_get_thread_num() + 1, n = iters, one_ = 1;
#pragma omp barrier
        double t0 = sb_clock_seconds();
        __asm__ volatile("1:\n\t"
                         "imul %2, %0\n\timul %2, %0\n\timul %2, %0\n\timul %2, %0\n\t"
                         "imul %2, %0\n\timul %2, %0\n\timul %2, %0\n\timul %2, %0\n\t"
                         "dec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(n)
                         : "r"(one_));
        sum += 24.0 * (double)iters / (sb_clock_seconds() - t0) / 1e9;
#pragma omp single
        nt = omp_get_num_threads();
    }
    return sum / nt;
}

int main(void) {
    long long tot0, st0, tot1, st1;
    stat_cpu(&tot0, &st0);
    double g0 = clock_ghz();
    const sb_probe_stats *fma = sb_cpu_probe_fma_stats(1), *tri = sb_cpu_probe_triad();
    double g1 = clock_ghz();
    stat_cpu(&tot1, &st1);
    int nt = omp_get_max_threads();
    printf("threads %d  clock %.3f/%.3f GHz  fma64 %.1f GFLOP/s %s  flop/cycle/thread %.2f  triad %.1f GB/s  "
           "steal %.2f %%\n",
           nt, g0, g1, fma->best / 1e9, fma->isa ? fma->isa : "", fma->best / (nt * 0.5 * (g0 + g1) * 1e9),
           tri->best / 1e9, tot1 > tot0 ? 100.0 * (double)(st1 - st0) / (double)(tot1 - tot0) : 0.0);
    return 0;
}
