/* fullerene_ff pipeline mode (--param pipeline=C): the thesis's producer-consumer pipeline.
 * One thread's team draws the isomer sample and winds the spirals up while another thread
 * feeds the backend chunks of C isomers as soon as they exist, so generation overlaps the
 * GPU stages instead of preceding them. A repetition then times everything from the first
 * draw to the last optimised isomer. The isomers, their order and every result are those of
 * the non-pipelined run with the same seed: only the chunking and the timing differ. */
#include <omp.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "fullerene_ff/ffcase.h"

typedef struct {
    ff_case *fc;
    long copied;        /* producer side: spirals copied and wound up */
    int bad;            /* producer side: a windup failed */
    atomic_long ready;  /* isomers the consumer may take */
    atomic_int finished;
} pipe_state;

/* Producer, after each batch of draws: copy the new isomers and wind them up. */
static void publish(void *u, const ff_spiral *list, long n)
{
    pipe_state *p = u;
    ff_case *fc = p->fc;
    const long have = p->copied, F = ff_faces(fc->cfg.N);
    if (n <= have || p->bad) return;
    if (n > fc->cfg.M) n = fc->cfg.M;
    memcpy(fc->spirals + have, list + have, (size_t)(n - have) * sizeof *list);
    if (ff_windup_all(fc->cfg.N, fc->spirals + have, n - have, fc->dual + (size_t)have * F * 6)) {
        p->bad = 1;
        return;
    }
    p->copied = n;
    atomic_store_explicit(&p->ready, n, memory_order_release);
}

static int produce(pipe_state *p)
{
    ff_case *fc = p->fc;
    ff_spiral *final = NULL;
    long n = ff_sample_stream(fc->cfg.N, fc->cfg.M, fc->cfg.seed, &final, publish, p);
    int rc = SB_OK;
    if (n < 0 || p->bad) {
        rc = SB_EXIT_RUNTIME;
    } else if (n != p->copied || memcmp(final, fc->spirals, (size_t)n * sizeof *final) != 0) {
        /* the sampler fell back to enumeration after publishing random draws */
        sb_error("fullerene_ff: pipeline: the sample of C_%d changed while it was consumed; run without pipeline=",
                 fc->cfg.N);
        rc = SB_EXIT_RUNTIME;
    }
    free(final);
    atomic_store_explicit(&p->finished, rc == SB_OK ? 1 : -1, memory_order_release);
    return rc;
}

static int consume(pipe_state *p)
{
    ff_case *fc = p->fc;
    ff_batch *b = &fc->b;
    const long chunk = fc->cfg.pipeline;
    const struct timespec nap = {0, 100000}; /* 0.1 ms: short against a chunk's GPU time */
    long done = 0;
    memset(&b->t, 0, sizeof b->t);
    for (;;) {
        const int fin = atomic_load_explicit(&p->finished, memory_order_acquire);
        const long ready = atomic_load_explicit(&p->ready, memory_order_acquire);
        if (fin < 0) return SB_EXIT_RUNTIME;
        long take = ready - done;
        if (take > chunk) take = chunk;
        if (take < chunk && !(fin && take > 0)) {
            if (fin) break;
            nanosleep(&nap, NULL);
            continue;
        }
        int rc = ff_batch_run_range(fc->ops, b, done, take);
        if (rc) return rc;
        done += take;
    }
    fc->M = fc->unique = b->M = done;
    return SB_OK;
}

int ff_pipeline_run(ff_case *fc)
{
    pipe_state p = {.fc = fc, .copied = 0, .bad = 0};
    atomic_init(&p.ready, 0);
    atomic_init(&p.finished, 0);
    int rc_prod = SB_OK, rc_cons = SB_OK;
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2); /* the producer's draws run in a nested team */
#pragma omp parallel num_threads(2)
    {
        if (omp_get_num_threads() < 2) { /* no second thread to be had: no overlap */
            rc_prod = produce(&p);
            if (!rc_prod) rc_cons = consume(&p);
        } else if (omp_get_thread_num() == 0) {
            rc_cons = consume(&p);
        } else {
            rc_prod = produce(&p);
        }
    }
    omp_set_max_active_levels(levels);
    return rc_prod ? rc_prod : rc_cons;
}
