/* Why the CPU peaks of `scibench info` differ from process to process on a host: one process
 * measures, with every OpenMP thread pinned to one CPU,
 *   - the core clock each thread runs at: a chain of dependent integer adds (one cycle each on
 *     x86), all threads at once, before and after the FMA probe;
 *   - the FP64 FMA roof the way `scibench info` measures it (AVX-512 chains in short chunks,
 *     each thread's best chunk, summed over the threads), for a given total time;
 *   - the STREAM triad best-of-trials, for a given total time;
 *   - the steal time the hypervisor reports for the whole run (/proc/stat).
 * Run it as ten processes in a row; if FMA / clock holds still while both move, the roof
 * follows the clock the host grants, which no probe length or pinning can fix.
 *   gcc -O3 -std=c11 -fopenmp tools/dev/cpu_peak_spread.c -o build/tools/cpu_peak_spread
 *   for i in $(seq 10); do build/tools/cpu_peak_spread [FMA seconds] [triad seconds]; done
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

static void pin(void) {
#pragma omp parallel
    {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(omp_get_thread_num(), &one);
        (void)sched_setaffinity(0, sizeof one, &one);
    }
}

/* 8 dependent adds an iteration: 8 cycles, the loop counter runs beside them */
static double clock_ghz(void) {
    const long iters = 5000000;
    double ghz[1024] = {0};
    int nt = 0;
#pragma omp parallel
    {
        long x = omp_get_thread_num(), n = iters;
#pragma omp barrier
        double t0 = now();
        __asm__ volatile("1:\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "dec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(n));
        double dt = now() - t0;
        ghz[omp_get_thread_num()] = 8.0 * (double)iters / dt / 1e9 + 0.0 * (double)x;
#pragma omp single
        nt = omp_get_num_threads();
    }
    double s = 0;
    for (int t = 0; t < nt; t++) s += ghz[t];
    return s / nt;
}

/* read at run time, so that the compiler can neither fold the chains nor share calls */
static volatile double fma_m = 0.9999, fma_c = 0.5;

__attribute__((target("avx512f"), noinline)) static double chains(long iters, double seed, double m, double c) {
    __m512d acc[16], vm = _mm512_set1_pd(m), vc = _mm512_set1_pd(c);
    for (int k = 0; k < 16; k++) acc[k] = _mm512_set1_pd(seed + k);
    for (long r = 0; r < iters; r++)
#pragma GCC unroll 16 /* the chains stay in registers */
        for (int k = 0; k < 16; k++) acc[k] = _mm512_fmadd_pd(acc[k], vm, vc);
    double s = 0;
    for (int k = 0; k < 16; k++) s += _mm512_reduce_add_pd(acc[k]);
    return s;
}

static volatile double sink;

/* each thread's best chunk of about 0.25 ms, over `seconds`, summed over the threads */
static double fma_roof(double seconds) {
    const long chunk = 4000; /* 16 chains x 8 lanes x 2 flops x 4000 = 1.0 Mflop */
    double roof = 0, live = 0;
#pragma omp parallel reduction(+ : roof, live)
    {
        double best = 0;
#pragma omp barrier
        double start = now(), t = start;
        while (t - start < seconds) {
            live += chains(chunk, omp_get_thread_num(), fma_m, fma_c);
            double t1 = now(), r = 256.0 * (double)chunk / (t1 - t);
            best = r > best ? r : best;
            t = t1;
        }
        roof += best;
    }
    sink = live;
    return roof;
}

static double triad_best(double seconds) {
    const long n = 1L << 26;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), best = 0;
    if (!a || !b || !c) return -1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = 0, b[i] = (double)(i & 1023), c[i] = 0.25;
    double start = now();
    for (int k = 0; now() - start < seconds || k < 10; k++) {
        double t0 = now();
        if (k % 2 == 0) {
#pragma omp parallel for schedule(static)
            for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        } else {
#pragma omp parallel for schedule(dynamic, 65536)
            for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        }
        double r = 24.0 * (double)n / (now() - t0);
        best = r > best ? r : best;
    }
    sink = a[n / 2];
    free(a), free(b), free(c);
    return best;
}

int main(int argc, char **argv) {
    double fs = argc > 1 ? atof(argv[1]) : 0.2, ts = argc > 2 ? atof(argv[2]) : 0.6;
    long long tot0, st0, tot1, st1;
    pin();
    stat_cpu(&tot0, &st0);
    double g0 = clock_ghz(), fma = fma_roof(fs), g1 = clock_ghz(), tri = triad_best(ts);
    stat_cpu(&tot1, &st1);
    int nt = omp_get_max_threads();
    printf("threads %d  clock %.3f/%.3f GHz  fma64 %.1f GFLOP/s (%.1f s)  flop/cycle/thread %.2f  triad %.1f GB/s "
           "(%.1f s)  steal %.2f %%\n",
           nt, g0, g1, fma / 1e9, fs, fma / (nt * 0.5 * (g0 + g1) * 1e9), tri / 1e9, ts,
           tot1 > tot0 ? 100.0 * (double)(st1 - st0) / (double)(tot1 - tot0) : 0.0);
    return 0;
}
