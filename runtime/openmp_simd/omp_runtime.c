/* CPU runtime layer: CPU/ISA/thread report, aligned memory, monotonic clock. */
#include "sb_omp.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sb.h"

#define SB_ALIGN 64

/* Copies the value of the first "model name" line of /proc/cpuinfo (other
 * architectures: "Processor", "cpu model", "uarch"), trimmed. */
static void read_cpu_model(char *out, size_t cap) {
    static const char *const keys[] = {"model name", "Processor", "cpu model", "uarch", NULL};
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        int match = 0;
        for (int k = 0; keys[k] && !match; k++)
            match = strncmp(line, keys[k], strlen(keys[k])) == 0;
        if (!match) continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        size_t n = strlen(v);
        while (n > 0 && (v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t')) v[--n] = '\0';
        if (n > 0) {
            snprintf(out, cap, "%s", v);
            break;
        }
    }
    fclose(f);
}

static const char *isa_compiled(void) {
#if defined(__AVX512F__)
    return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2+FMA";
#elif defined(__AVX2__)
    return "AVX2";
#elif defined(__AVX__)
    return "AVX";
#elif defined(__SSE4_2__)
    return "SSE4.2";
#elif defined(__SSE2__)
    return "SSE2";
#elif defined(__ARM_FEATURE_SVE)
    return "SVE";
#elif defined(__ARM_NEON)
    return "NEON";
#else
    return "scalar";
#endif
}

static const char *isa_supported(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "AVX-512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "AVX2+FMA";
    if (__builtin_cpu_supports("avx2")) return "AVX2";
    if (__builtin_cpu_supports("avx")) return "AVX";
    if (__builtin_cpu_supports("sse4.2")) return "SSE4.2";
    if (__builtin_cpu_supports("sse2")) return "SSE2";
    return "scalar";
#else
    return isa_compiled(); /* no portable run-time query: report what we were built for */
#endif
}

static int simd_float_lanes(void) {
#if defined(__AVX512F__)
    return 16;
#elif defined(__AVX__)
    return 8;
#else
    return 4; /* SSE2 / NEON: 128-bit */
#endif
}

static const char *proc_bind_name(void) {
    switch ((int)omp_get_proc_bind()) {
    case 0: return "false";
    case 1: return "true";
    case 2: return "primary"; /* "master" before OpenMP 5.1 */
    case 3: return "close";
    case 4: return "spread";
    default: return "unknown";
    }
}

void sb_cpu_get_info(sb_cpu_info *info) {
    memset(info, 0, sizeof *info);
    read_cpu_model(info->cpu_model, sizeof info->cpu_model);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    info->logical_cpus = n > 0 ? (int)n : 1;
    info->omp_threads = omp_get_max_threads();
    snprintf(info->isa_compiled, sizeof info->isa_compiled, "%s", isa_compiled());
    snprintf(info->isa_supported, sizeof info->isa_supported, "%s", isa_supported());
    info->simd_float_lanes = simd_float_lanes();
    snprintf(info->proc_bind, sizeof info->proc_bind, "%s", proc_bind_name());
}

void *sb_aligned_alloc(size_t bytes) {
    if (bytes > SIZE_MAX - (SB_ALIGN - 1)) {
        sb_error("cannot allocate %zu bytes: size too large", bytes);
        return NULL;
    }
    /* Round up to whole cache lines (also makes 0 a valid, freeable request). */
    size_t rounded = bytes == 0 ? SB_ALIGN : (bytes + SB_ALIGN - 1) / SB_ALIGN * SB_ALIGN;
    void *p = NULL;
    int rc = posix_memalign(&p, SB_ALIGN, rounded);
    if (rc != 0) {
        sb_error("out of memory: cannot allocate %zu bytes (%.2f GB) of host memory: %s", bytes, bytes / 1e9,
                 strerror(rc));
        return NULL;
    }
    return p;
}

void sb_aligned_free(void *p) { free(p); }

double sb_clock_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
