/* CPU peak probes: STREAM triad bandwidth and FMA throughput, measured on
 * this machine with all OpenMP threads. Results are cached per process.
 * Budget: under 1 s in total on a 2-core machine (first touch of the triad
 * arrays, ~0.35 s for 384 MiB on a small VM, dominates). */
#include "sb_omp.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- STREAM triad ----------------------------------------------------------- */

static double triad_expected(long i) { return (double)(i & 1023) + 3.0 * (0.25 * (double)(i & 511)); }

static double triad_run(void) {
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

    double *a = sb_aligned_alloc((size_t)n * sizeof(double));
    double *b = sb_aligned_alloc((size_t)n * sizeof(double));
    double *c = sb_aligned_alloc((size_t)n * sizeof(double));
    if (!a || !b || !c) {
        sb_aligned_free(a);
        sb_aligned_free(b);
        sb_aligned_free(c);
        return -1.0;
    }

    /* First touch with the triad's own static schedule: each thread's pages
     * land on its NUMA node. Values are small integers and quarters, so the
     * triad is exact and checkable. */
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = (double)(i & 1023);
        c[i] = 0.25 * (double)(i & 511);
    }

    const double s = 3.0;
    double best = 0.0, spent = 0.0;
    for (int t = 0; t < 20; t++) {
        double t0 = sb_clock_seconds();
#pragma omp parallel for simd schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        double dt = sb_clock_seconds() - t0;
        spent += dt;
        if (dt > 0.0 && (best == 0.0 || dt < best)) best = dt;
        if (t + 1 >= 6 && spent > 0.12) break; /* best of >= 6 trials, >= ~0.12 s */
    }

    double rate = best > 0.0 ? 3.0 * sizeof(double) * (double)n / best : -1.0;
    for (long k = 0; k <= 4096; k++) {
        long i = k < 4096 ? k * (n / 4096) + (k % 13) : n - 1;
        if (i >= n) i = n - 1;
        if (a[i] != triad_expected(i)) {
            sb_error("triad probe: a[%ld] = %.17g, expected %.17g", i, a[i], triad_expected(i));
            rate = -1.0;
            break;
        }
    }
    sb_aligned_free(a);
    sb_aligned_free(b);
    sb_aligned_free(c);
    return rate;
}

double sb_cpu_probe_triad_bw(void) {
    static int done = 0;
    static double cached = -1.0;
    if (!done) {
        cached = triad_run();
        done = 1;
    }
    return cached;
}

/* ---- FMA throughput --------------------------------------------------------- */

/* Vector width this file is compiled for, and enough independent vector
 * accumulators to cover FMA latency (4-5 cycles) x 2 FMA ports while staying
 * in registers (16 ymm on AVX2, 32 zmm on AVX-512). */
#if defined(__AVX512F__)
#define VBYTES 64
#define NCHAIN 16
#elif defined(__AVX__)
#define VBYTES 32
#define NCHAIN 12
#else
#define VBYTES 16
#define NCHAIN 12
#endif
#define LANES_F (VBYTES / 4)
#define LANES_D (VBYTES / 8)

/* NCHAIN x LANES independent chains acc = acc*m + c; the inner simd loop
 * over lanes becomes one vfmadd per chain, the chains stay in registers.
 * (The build uses -ffp-contract=off, so the FMA is spelled out: fmaf/fma.) */
__attribute__((noinline)) static float fma_chains_f32(long iters, float m, float c, float seed) {
    float acc[NCHAIN][LANES_F];
    for (int k = 0; k < NCHAIN; k++)
        for (int l = 0; l < LANES_F; l++) acc[k][l] = seed + (float)(k * LANES_F + l);
    for (long r = 0; r < iters; r++) {
        for (int k = 0; k < NCHAIN; k++) {
#pragma omp simd
            for (int l = 0; l < LANES_F; l++) acc[k][l] = fmaf(acc[k][l], m, c);
        }
    }
    float s = 0.0f;
    for (int k = 0; k < NCHAIN; k++)
        for (int l = 0; l < LANES_F; l++) s += acc[k][l];
    return s;
}

__attribute__((noinline)) static double fma_chains_f64(long iters, double m, double c, double seed) {
    double acc[NCHAIN][LANES_D];
    for (int k = 0; k < NCHAIN; k++)
        for (int l = 0; l < LANES_D; l++) acc[k][l] = seed + (double)(k * LANES_D + l);
    for (long r = 0; r < iters; r++) {
        for (int k = 0; k < NCHAIN; k++) {
#pragma omp simd
            for (int l = 0; l < LANES_D; l++) acc[k][l] = fma(acc[k][l], m, c);
        }
    }
    double s = 0.0;
    for (int k = 0; k < NCHAIN; k++)
        for (int l = 0; l < LANES_D; l++) s += acc[k][l];
    return s;
}

/* Read at run time so the compiler cannot specialise the chains; the chains
 * converge to c/(1-m) = 5000 (no overflow, no denormals). */
static volatile double fma_m = 0.9999, fma_c = 0.5;
static volatile double fma_sink;

/* One parallel run; returns flop/s (FMA = 2) and the elapsed time. */
static double fma_trial(int fp64, long iters, double *seconds) {
    const double m = fma_m, c = fma_c;
    double sum = 0.0;
    int nthreads = 1;
    double t0 = sb_clock_seconds();
#pragma omp parallel reduction(+ : sum)
    {
        int tid = omp_get_thread_num();
#pragma omp single nowait
        nthreads = omp_get_num_threads();
        if (fp64)
            sum += fma_chains_f64(iters, m, c, 1.0 + tid);
        else
            sum += (double)fma_chains_f32(iters, (float)m, (float)c, 1.0f + (float)tid);
    }
    *seconds = sb_clock_seconds() - t0;
    fma_sink = sum;
    if (!isfinite(sum)) return -1.0;
    double lanes = fp64 ? LANES_D : LANES_F;
    double flops = 2.0 * NCHAIN * lanes * (double)iters * nthreads;
    return *seconds > 0.0 ? flops / *seconds : -1.0;
}

static double fma_run(int fp64) {
    double dt = 0.0, rate = 0.0, best = -1.0;
    long iters = 4096;
    /* Calibrate: grow until one run takes >= 20 ms. */
    for (;;) {
        rate = fma_trial(fp64, iters, &dt);
        if (rate < 0.0) break;
        if (dt >= 0.02 || iters > (1L << 40)) break;
        iters *= 4;
    }
    if (rate < 0.0) {
        sb_error("FMA probe (%s): non-finite result", fp64 ? "fp64" : "fp32");
        return -1.0;
    }
    best = rate;
    /* Two runs of ~80 ms each; keep the best. */
    long target = (long)((double)iters * (0.08 / dt));
    if (target < iters) target = iters;
    for (int t = 0; t < 2; t++) {
        rate = fma_trial(fp64, target, &dt);
        if (rate > best) best = rate;
    }
    return best;
}

double sb_cpu_probe_fma(int fp64) {
    static int done[2] = {0, 0};
    static double cached[2] = {-1.0, -1.0};
    int k = fp64 ? 1 : 0;
    if (!done[k]) {
        cached[k] = fma_run(k);
        done[k] = 1;
    }
    return cached[k];
}
