/* CPU hardware counters through PAPI, for `--profile`. PAPI counts per thread, and
 * the OpenMP threads exist before counting starts, so every thread of a full team
 * opens and starts its own event set, and a second team of the same size (libgomp
 * keeps each team slot on the same thread) stops and reads them. Threads of nested
 * teams a kernel starts itself are not counted. */
#include "omp_counters.h"

#include <omp.h>
#include <papi.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sb.h"

enum { EV_CYC, EV_INS, EV_VEC, EV_LLC, EV_COUNT };

typedef struct {
    int set;
    int slot[EV_COUNT]; /* position of each event in the set; -1 absent */
    long long v[EV_COUNT];
    int ok;
} thread_set;

static struct {
    int threads;
    thread_set *t;
    int vec_code, llc_code;
    char vec_name[32], llc_name[32];
} cc;

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

/* Why this machine has no counters, in words a user can act on. */
static void no_pmu_reason(int err, char *why, size_t n)
{
    if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
        snprintf(why, n, "PAPI: %s; this machine exposes no CPU PMU to the OS (no "
                 "/sys/bus/event_source/devices/cpu, as in most virtual machines)", PAPI_strerror(err));
    else
        snprintf(why, n, "PAPI: %s (perf_event_paranoid or a container may forbid counting; "
                 "/proc/sys/kernel/perf_event_paranoid <= 2 is needed)", PAPI_strerror(err));
}

static int library(char *why, size_t n)
{
    static int state; /* 0 not tried, 1 ready, -1 failed */
    static char reason[256];
    if (state == 0) {
        int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT)
            snprintf(reason, sizeof reason, "PAPI_library_init failed: %s", v < 0 ? PAPI_strerror(v) : "version mismatch");
        else if ((v = PAPI_thread_init(thread_id)) != PAPI_OK)
            snprintf(reason, sizeof reason, "PAPI_thread_init failed: %s", PAPI_strerror(v));
        state = reason[0] ? -1 : 1;
    }
    if (state < 0) snprintf(why, n, "%s", reason);
    return state > 0 ? 0 : -1;
}

/* The first preset of a list this PMU has. */
static int pick(const int *codes, int ncodes, char *name, size_t n)
{
    for (int i = 0; i < ncodes; i++)
        if (PAPI_query_event(codes[i]) == PAPI_OK) {
            char buf[PAPI_MAX_STR_LEN];
            PAPI_event_code_to_name(codes[i], buf);
            snprintf(name, n, "%.31s", buf);
            return codes[i];
        }
    name[0] = '\0';
    return 0;
}

/* In the calling thread: an event set with cycles and instructions (required) and the
 * vector and LLC events when the PMU takes them together. */
static int open_set(thread_set *s, int *err)
{
    const int codes[EV_COUNT] = {PAPI_TOT_CYC, PAPI_TOT_INS, cc.vec_code, cc.llc_code};
    memset(s, 0, sizeof *s);
    s->set = PAPI_NULL;
    PAPI_register_thread();
    if ((*err = PAPI_create_eventset(&s->set)) != PAPI_OK) return -1;
    int k = 0;
    for (int e = 0; e < EV_COUNT; e++) {
        s->slot[e] = -1;
        if (!codes[e]) continue;
        int rc = PAPI_add_event(s->set, codes[e]);
        if (rc == PAPI_OK) s->slot[e] = k++;
        else if (e <= EV_INS) {
            *err = rc;
            return -1;
        }
    }
    if ((*err = PAPI_start(s->set)) != PAPI_OK) return -1;
    s->ok = 1;
    return 0;
}

int sb_cpu_counters_start(char *why, size_t n)
{
    if (library(why, n)) return -1;
    const int vec[] = {PAPI_VEC_INS, PAPI_VEC_DP, PAPI_VEC_SP}, llc[] = {PAPI_L3_TCM, PAPI_L3_LDM, PAPI_L2_TCM};
    cc.vec_code = pick(vec, 3, cc.vec_name, sizeof cc.vec_name);
    cc.llc_code = pick(llc, 3, cc.llc_name, sizeof cc.llc_name);
    /* One set on this thread first: a machine without counters says so here, once. */
    thread_set probe;
    int err = PAPI_OK;
    if (open_set(&probe, &err)) {
        no_pmu_reason(err, why, n);
        if (probe.set != PAPI_NULL) PAPI_destroy_eventset(&probe.set);
        return -1;
    }
    long long junk[EV_COUNT];
    PAPI_stop(probe.set, junk);
    PAPI_cleanup_eventset(probe.set);
    PAPI_destroy_eventset(&probe.set);

    cc.threads = omp_get_max_threads();
    free(cc.t);
    cc.t = calloc((size_t)cc.threads, sizeof *cc.t);
    if (!cc.t) {
        snprintf(why, n, "out of memory for %d threads' event sets", cc.threads);
        return -1;
    }
    int failed = 0;
#pragma omp parallel num_threads(cc.threads) reduction(| : failed)
    {
        int e2;
        failed |= open_set(&cc.t[omp_get_thread_num()], &e2) != 0;
    }
    if (failed) {
        snprintf(why, n, "PAPI could not start counters on every OpenMP thread");
        return -1;
    }
    return 0;
}

int sb_cpu_counters_stop(sb_cpu_counts *out)
{
    memset(out, 0, sizeof *out);
#pragma omp parallel num_threads(cc.threads)
    {
        thread_set *s = &cc.t[omp_get_thread_num()];
        long long v[EV_COUNT] = {0};
        if (s->ok && PAPI_stop(s->set, v) == PAPI_OK)
            for (int e = 0; e < EV_COUNT; e++) s->v[e] = s->slot[e] >= 0 ? v[s->slot[e]] : 0;
        else
            s->ok = 0;
        if (s->set != PAPI_NULL) {
            PAPI_cleanup_eventset(s->set);
            PAPI_destroy_eventset(&s->set);
        }
    }
    int all = 1;
    out->threads = cc.threads;
    out->have_vec = out->have_llc = 1;
    for (int i = 0; i < cc.threads; i++) {
        thread_set *s = &cc.t[i];
        all &= s->ok;
        out->cycles += (double)s->v[EV_CYC];
        out->instructions += (double)s->v[EV_INS];
        out->vec_instructions += (double)s->v[EV_VEC];
        out->llc_misses += (double)s->v[EV_LLC];
        out->have_vec &= s->slot[EV_VEC] >= 0;
        out->have_llc &= s->slot[EV_LLC] >= 0;
    }
    snprintf(out->vec_event, sizeof out->vec_event, "%s", cc.vec_name);
    snprintf(out->llc_event, sizeof out->llc_event, "%s", cc.llc_name);
    snprintf(out->tool, sizeof out->tool, "PAPI %d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION));
    free(cc.t);
    cc.t = NULL;
    return all ? 0 : -1;
}
