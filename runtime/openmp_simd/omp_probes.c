/* CPU peak probes: STREAM triad bandwidth and FMA throughput, measured on this machine with
 * all OpenMP threads, each thread pinned to one CPU for the probe. Each probe runs several
 * trials; the peak is the best, and the median and the worst say how far one measurement can
 * be trusted. The FMA probe runs the widest FMA the CPU offers (AVX-512 or AVX2, chosen at run
 * time, whatever -march built this file), so that every build of one machine measures the
 * same roof. Results are cached per process. Budget: about 1.5 s in total on a 2-core VM.
 */
#define _GNU_SOURCE /* sched_setaffinity and the CPU_* macros: the probes pin their threads */
#include "sb_omp.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "sb.h"

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

/* ---- last-level cache size ------------------------------------------------ */

static int read_line(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* "32768K", "1M", "1048576" -> bytes */
static size_t parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'K': case 'k': v <<= 10; break;
    case 'M': case 'm': v <<= 20; break;
    case 'G': case 'g': v <<= 30; break;
    default: break;
    }
    return (size_t)v;
}

/* Sum of all instances of the highest-level data/unified cache (sysfs),
 * falling back to sysconf and then to 32 MiB. STREAM sizes its arrays
 * against this total. */
static size_t llc_bytes_total(void) {
    enum { MAX_SEEN = 128, LIST_LEN = 128 };
    static char seen[MAX_SEEN][LIST_LEN];
    int nseen = 0, best_level = 0;
    size_t total = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1) ncpu = 1;
    if (ncpu > 4096) ncpu = 4096;
    for (long cpu = 0; cpu < ncpu; cpu++) {
        for (int idx = 0; idx < 16; idx++) {
            char path[128], buf[LIST_LEN], list[LIST_LEN];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/level", cpu, idx);
            if (!read_line(path, buf, sizeof buf)) break;
            int level = atoi(buf);
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/type", cpu, idx);
            if (read_line(path, buf, sizeof buf) && strcmp(buf, "Instruction") == 0) continue;
            if (level < best_level) continue;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/size", cpu, idx);
            if (!read_line(path, buf, sizeof buf)) continue;
            size_t bytes = parse_size(buf);
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/shared_cpu_list", cpu, idx);
            if (!read_line(path, list, sizeof list)) snprintf(list, sizeof list, "cpu%ld", cpu);
            if (level > best_level) {
                best_level = level;
                total = 0;
                nseen = 0;
            }
            int dup = 0;
            for (int k = 0; k < nseen && !dup; k++) dup = strcmp(seen[k], list) == 0;
            if (dup) continue;
            if (nseen < MAX_SEEN) snprintf(seen[nseen++], LIST_LEN, "%s", list);
            total += bytes;
        }
    }
    if (total == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        total = l3 > 0 ? (size_t)l3 : 32 * MiB;
    }
    return total;
}

/* ---- pinning and statistics ------------------------------------------------------ */

/* Each OpenMP thread on one CPU of the process's CPUs (their union over the threads, so that
 * threads the runtime already bound still spread), its former mask kept to restore. A thread
 * the kernel does not let move keeps its mask: the probe still runs. */
typedef struct {
    int n;
    cpu_set_t *was;
} pinning;

static void pin_threads(pinning *p) {
    int n = omp_get_max_threads();
    cpu_set_t all;
    CPU_ZERO(&all);
    p->n = 0;
    p->was = calloc((size_t)n, sizeof *p->was);
    if (!p->was) return;
    p->n = n;
#pragma omp parallel num_threads(n)
    {
        int t = omp_get_thread_num();
        if (sched_getaffinity(0, sizeof p->was[t], &p->was[t]) != 0) CPU_ZERO(&p->was[t]);
#pragma omp critical
        CPU_OR(&all, &all, &p->was[t]);
    }
    int ncpu = CPU_COUNT(&all);
    if (ncpu == 0) return;
#pragma omp parallel num_threads(n)
    {
        int t = omp_get_thread_num(), k = t % ncpu, cpu = 0;
        for (; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &all) && k-- == 0) break;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        (void)sched_setaffinity(0, sizeof one, &one);
    }
}

static void unpin_threads(pinning *p) {
    if (p->n > 0) {
#pragma omp parallel num_threads(p->n)
        {
            int t = omp_get_thread_num();
            if (CPU_COUNT(&p->was[t]) > 0) (void)sched_setaffinity(0, sizeof p->was[t], &p->was[t]);
        }
    }
    free(p->was);
    p->was = NULL;
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* best, median and worst of n rates (sorted in place) */
static void summarise(double *rate, int n, sb_probe_stats *out) {
    if (n > 0) qsort(rate, (size_t)n, sizeof *rate, cmp_dbl);
    out->isa = NULL;
    out->trials = n;
    out->best = n ? rate[n - 1] : -1.0;
    out->worst = n ? rate[0] : -1.0;
    out->median = n ? 0.5 * (rate[(n - 1) / 2] + rate[n / 2]) : -1.0;
}

/* ---- STREAM triad ----------------------------------------------------------- */

static double triad_expected(long i) { return (double)(i & 1023) + 3.0 * (0.25 * (double)(i & 511)); }

#define TRIAD_MAX_TRIALS 100

static void triad_run(sb_probe_stats *out) {
    /* Each array >= 4x the LLC total and >= 64 MiB; at most 1/12 of RAM
     * (3 arrays in a quarter of memory) and 4 GiB. */
    size_t per = 4 * llc_bytes_total();
    if (per < 64 * MiB) per = 64 * MiB;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        size_t cap = (size_t)pages * (size_t)page / 12;
        if (per > cap) per = cap;
    }
    if (per > 4 * GiB) per = 4 * GiB;
    if (per < 8 * MiB) per = 8 * MiB;
    const long n = (long)(per / sizeof(double));
    summarise(NULL, 0, out);

    double *a = sb_aligned_alloc((size_t)n * sizeof(double));
    double *b = sb_aligned_alloc((size_t)n * sizeof(double));
    double *c = sb_aligned_alloc((size_t)n * sizeof(double));
    if (!a || !b || !c) {
        sb_aligned_free(a);
        sb_aligned_free(b);
        sb_aligned_free(c);
        return;
    }
    pinning pin;
    pin_threads(&pin);

    /* First touch with the triad's own static schedule, threads pinned: each thread's pages
     * land on its NUMA node. Values are small integers and quarters, so the triad is exact
     * and checkable. */
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = (double)(i & 1023);
        c[i] = 0.25 * (double)(i & 511);
    }

    /* At least 40 trials and 0.6 s: enough for the best to repeat from run to run on a
     * machine that others share. Every other trial deals the array in chunks as the threads
     * come free: a thread that another process holds up then no longer holds up the trial (a
     * 2-core VM with one core busy elsewhere: 25 % spread over 10 runs with the static
     * schedule alone, 12 % with both). The static trials keep each thread on the pages it
     * touched first, which is what a NUMA machine needs when it is quiet. */
    const double s = 3.0;
    double rate[TRIAD_MAX_TRIALS], spent = 0.0;
    int trials = 0;
    while (trials < TRIAD_MAX_TRIALS && (trials < 40 || spent < 0.6)) {
        double t0 = sb_clock_seconds();
        if (trials % 2 == 0) {
#pragma omp parallel for simd schedule(static)
            for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        } else {
#pragma omp parallel for simd schedule(dynamic, 32768)
            for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        }
        double dt = sb_clock_seconds() - t0;
        spent += dt;
        if (dt > 0.0) rate[trials++] = 3.0 * sizeof(double) * (double)n / dt;
        else if (spent == 0.0 && trials == 0) spent = 1e-9; /* a clock that does not move: give up at the cap */
    }
    unpin_threads(&pin);
    summarise(rate, trials, out);

    for (long k = 0; k <= 4096; k++) {
        long i = k < 4096 ? k * (n / 4096) + (k % 13) : n - 1;
        if (i >= n) i = n - 1;
        if (a[i] != triad_expected(i)) {
            sb_error("triad probe: a[%ld] = %.17g, expected %.17g", i, a[i], triad_expected(i));
            summarise(NULL, 0, out);
            break;
        }
    }
    sb_aligned_free(a);
    sb_aligned_free(b);
    sb_aligned_free(c);
}

const sb_probe_stats *sb_cpu_probe_triad(void) {
    static int done = 0;
    static sb_probe_stats cached;
    if (!done) {
        triad_run(&cached);
        done = 1;
    }
    return &cached;
}

double sb_cpu_probe_triad_bw(void) { return sb_cpu_probe_triad()->best; }

/* ---- FMA throughput --------------------------------------------------------- */

/* NCHAIN independent vector accumulators acc = acc*m + c, enough to cover the FMA latency
 * (4-5 cycles) x 2 FMA ports while staying in registers (32 zmm on AVX-512, 16 ymm on AVX2).
 * Each returns the sum of its lanes (so the chains are live) and adds its flops (an FMA
 * counts 2) to *flops. The chains converge to c/(1-m) = 5000: no overflow, no denormals. */
#if defined(__x86_64__)
#define NCHAIN_512 16
#define NCHAIN_256 12

__attribute__((target("avx512f"), noinline)) static double chains_avx512(long iters, int fp64, double m, double c,
                                                                          double seed, double *flops) {
    double s = 0.0;
    if (fp64) {
        __m512d acc[NCHAIN_512], vm = _mm512_set1_pd(m), vc = _mm512_set1_pd(c);
        for (int k = 0; k < NCHAIN_512; k++) acc[k] = _mm512_set1_pd(seed + k);
        for (long r = 0; r < iters; r++) {
#pragma GCC unroll 16
            for (int k = 0; k < NCHAIN_512; k++) acc[k] = _mm512_fmadd_pd(acc[k], vm, vc);
        }
        for (int k = 0; k < NCHAIN_512; k++) s += _mm512_reduce_add_pd(acc[k]);
        *flops = 2.0 * NCHAIN_512 * 8 * (double)iters;
    } else {
        __m512 acc[NCHAIN_512], vm = _mm512_set1_ps((float)m), vc = _mm512_set1_ps((float)c);
        for (int k = 0; k < NCHAIN_512; k++) acc[k] = _mm512_set1_ps((float)(seed + k));
        for (long r = 0; r < iters; r++) {
#pragma GCC unroll 16
            for (int k = 0; k < NCHAIN_512; k++) acc[k] = _mm512_fmadd_ps(acc[k], vm, vc);
        }
        for (int k = 0; k < NCHAIN_512; k++) s += _mm512_reduce_add_ps(acc[k]);
        *flops = 2.0 * NCHAIN_512 * 16 * (double)iters;
    }
    return s;
}

__attribute__((target("avx2,fma"), noinline)) static double chains_avx2(long iters, int fp64, double m, double c,
                                                                        double seed, double *flops) {
    double s = 0.0;
    if (fp64) {
        __m256d acc[NCHAIN_256], vm = _mm256_set1_pd(m), vc = _mm256_set1_pd(c);
        for (int k = 0; k < NCHAIN_256; k++) acc[k] = _mm256_set1_pd(seed + k);
        for (long r = 0; r < iters; r++) {
#pragma GCC unroll 12
            for (int k = 0; k < NCHAIN_256; k++) acc[k] = _mm256_fmadd_pd(acc[k], vm, vc);
        }
        double lanes[4];
        for (int k = 0; k < NCHAIN_256; k++) {
            _mm256_storeu_pd(lanes, acc[k]);
            s += lanes[0] + lanes[1] + lanes[2] + lanes[3];
        }
        *flops = 2.0 * NCHAIN_256 * 4 * (double)iters;
    } else {
        __m256 acc[NCHAIN_256], vm = _mm256_set1_ps((float)m), vc = _mm256_set1_ps((float)c);
        for (int k = 0; k < NCHAIN_256; k++) acc[k] = _mm256_set1_ps((float)(seed + k));
        for (long r = 0; r < iters; r++) {
#pragma GCC unroll 12
            for (int k = 0; k < NCHAIN_256; k++) acc[k] = _mm256_fmadd_ps(acc[k], vm, vc);
        }
        float lanes[8];
        for (int k = 0; k < NCHAIN_256; k++) {
            _mm256_storeu_ps(lanes, acc[k]);
            for (int l = 0; l < 8; l++) s += lanes[l];
        }
        *flops = 2.0 * NCHAIN_256 * 8 * (double)iters;
    }
    return s;
}
#endif

/* Without a run-time choice (not x86-64): the compiled vector width, fma() spelled out (the
 * build uses -ffp-contract=off), 12 chains of 4 lanes. */
__attribute__((noinline)) static double chains_plain(long iters, int fp64, double m, double c, double seed,
                                                     double *flops) {
    double acc[12][4], s = 0.0;
    for (int k = 0; k < 12; k++)
        for (int l = 0; l < 4; l++) acc[k][l] = seed + k + l;
    for (long r = 0; r < iters; r++)
        for (int k = 0; k < 12; k++) {
#pragma omp simd
            for (int l = 0; l < 4; l++) acc[k][l] = fp64 ? fma(acc[k][l], m, c) : (double)fmaf((float)acc[k][l], (float)m, (float)c);
        }
    for (int k = 0; k < 12; k++)
        for (int l = 0; l < 4; l++) s += acc[k][l];
    *flops = 2.0 * 48 * (double)iters;
    return s;
}

typedef double (*chains_fn)(long, int, double, double, double, double *);

/* The FMA kinds this CPU runs, widest first. */
static int fma_kinds(chains_fn *fn, const char **name) {
    int n = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) fn[n] = chains_avx512, name[n++] = "AVX-512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) fn[n] = chains_avx2, name[n++] = "AVX2+FMA";
#endif
    if (n == 0) fn[n] = chains_plain, name[n++] = "compiled SIMD";
    return n;
}

/* Read at run time so the compiler cannot specialise the chains. */
static volatile double fma_m = 0.9999, fma_c = 0.5;
static volatile double fma_sink;

/* One parallel run of `iters` chain steps a thread; returns flop/s over the slowest thread's
 * time (for the calibration and the non-finite check). */
static double fma_trial(chains_fn fn, int fp64, long iters, double *seconds) {
    const double m = fma_m, c = fma_c;
    double sum = 0.0, flops = 0.0;
    double t0 = sb_clock_seconds();
#pragma omp parallel reduction(+ : sum, flops)
    {
        double f = 0.0;
        sum += fn(iters, fp64, m, c, 1.0 + omp_get_thread_num(), &f);
        flops += f;
    }
    *seconds = sb_clock_seconds() - t0;
    fma_sink = sum;
    if (!isfinite(sum)) return -1.0;
    return *seconds > 0.0 ? flops / *seconds : -1.0;
}

#define FMA_WINDOWS 8
#define FMA_WINDOW_S 0.025
#define FMA_CHUNK_S 0.00025

/* FMA_WINDOWS windows of FMA_WINDOW_S in which every thread runs chunks of about
 * FMA_CHUNK_S back to back, timing each itself; a window's roof is the sum over the threads
 * of each one's best chunk. On a machine whose cores other processes share, a moment when
 * every thread runs undisturbed at once is rare, a short chunk that a given thread ran
 * undisturbed is not, and its rate then repeats from run to run. The threads run together
 * throughout, so each core is measured at the clock it has with all of them busy. best is the
 * sum of the threads' best chunks over all windows; median and worst are the windows'. On a
 * 2-core VM with one core busy elsewhere, 10 runs spread 23 % (FP32) and 38 % (FP64) when the
 * whole team's trial was timed, 0.1 % and 0.0 % so. */
static void fma_kind_run(chains_fn fn, int fp64, sb_probe_stats *out) {
    const int nt = omp_get_max_threads();
    double dt = 0.0, roof[FMA_WINDOWS];
    double *best = calloc((size_t)nt, sizeof *best);
    long iters = 256;
    summarise(NULL, 0, out);
    if (!best) return;
    for (;;) {
        if (fma_trial(fn, fp64, iters, &dt) < 0.0) {
            sb_error("FMA probe (%s): non-finite result", fp64 ? "fp64" : "fp32");
            free(best);
            return;
        }
        if (dt >= 0.003 || iters > (1L << 40)) break;
        iters *= 4;
    }
    long chunk = (long)((double)iters * (FMA_CHUNK_S / dt));
    if (chunk < 16) chunk = 16;
    const double m = fma_m, c = fma_c;
    int n = 0, bad = 0;
    double live = 0.0; /* the chains' sums, kept live */
    for (int w = 0; w < FMA_WINDOWS; w++) {
        double r = 0.0;
#pragma omp parallel reduction(+ : r, live) reduction(| : bad)
        {
            const int t = omp_get_thread_num();
            double mine = 0.0, sum = 0.0;
#pragma omp barrier
            const double start = sb_clock_seconds();
            for (double now = start; now - start < FMA_WINDOW_S;) {
                double f = 0.0;
                sum += fn(chunk, fp64, m, c, 1.0 + t, &f);
                const double t1 = sb_clock_seconds(), rate = t1 > now ? f / (t1 - now) : 0.0;
                mine = rate > mine ? rate : mine;
                now = t1;
            }
            bad |= !isfinite(sum);
            live += sum;
            r += mine;
#pragma omp critical
            best[t] = mine > best[t] ? mine : best[t];
        }
        if (r > 0.0) roof[n++] = r;
    }
    fma_sink = live;
    if (bad) {
        sb_error("FMA probe (%s): non-finite result", fp64 ? "fp64" : "fp32");
        n = 0;
    }
    summarise(roof, n, out);
    if (n > 0) {
        double sum = 0.0;
        for (int k = 0; k < nt; k++) sum += best[k];
        out->best = sum;
    }
    free(best);
}

/* Every FMA kind the CPU has; the best is the machine's roof (AVX-512 is not faster on every
 * CPU that offers it), named in out->isa. */
static void fma_run(int fp64, sb_probe_stats *out) {
    chains_fn fn[3];
    const char *name[3];
    int kinds = fma_kinds(fn, name);
    pinning pin;
    pin_threads(&pin);
    summarise(NULL, 0, out);
    for (int k = 0; k < kinds; k++) {
        sb_probe_stats s;
        fma_kind_run(fn[k], fp64, &s);
        if (s.best > out->best) *out = s, out->isa = name[k];
    }
    unpin_threads(&pin);
}

const sb_probe_stats *sb_cpu_probe_fma_stats(int fp64) {
    static int done[2] = {0, 0};
    static sb_probe_stats cached[2];
    int k = fp64 ? 1 : 0;
    if (!done[k]) {
        fma_run(k, &cached[k]);
        done[k] = 1;
    }
    return &cached[k];
}

double sb_cpu_probe_fma(int fp64) { return sb_cpu_probe_fma_stats(fp64)->best; }
