/* fullerene_ff over MPI ranks: every rank holds the whole isomer list (setup is
 * deterministic from the seed; a GPU rank uploads all of it before timing, as one rank
 * does); in a repetition the ranks take chunks from one global
 * counter (MPI fetch-and-add), so a rank that finishes early takes more. Afterwards the
 * results are gathered in isomer order, the same arrays a single rank fills. */
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ffcase.h"
#include "sb_mpi.h"

int ff_mpi_begin(ff_case *fc)
{
    long ranks = sb_mpi_size(), M = fc->M;
    if (fc->cfg.pipeline) {
        sb_error("fullerene_ff: pipeline=%ld runs on one rank; under mpirun the ranks share the isomers dynamically "
                 "instead (omit pipeline=)", fc->cfg.pipeline);
        return SB_EXIT_USAGE;
    }
    long chunk = fc->cfg.mpi_chunk > 0 ? fc->cfg.mpi_chunk : (M + 4 * ranks - 1) / (4 * ranks);
    fc->mpi.chunk = chunk > 0 ? chunk : 1;
    fc->mpi.owner = malloc(sizeof(int) * (size_t)M);
    fc->mpi.counter = sb_mpi_counter_create();
    if (!fc->mpi.owner || !fc->mpi.counter) {
        sb_error("fullerene_ff: out of memory for the MPI work queue");
        return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}

void ff_mpi_end(ff_case *fc)
{
    if (fc->mpi.counter) sb_mpi_counter_free(fc->mpi.counter);
    free(fc->mpi.owner);
    memset(&fc->mpi, 0, sizeof fc->mpi);
}

static void own(ff_case *fc, long start, long take, long *done)
{
    for (long i = start; i < start + take; i++) fc->mpi.owner[i] = sb_mpi_rank();
    *done += take;
}

/* A backend with ranges (the GPU) keeps the whole batch resident, as one rank does, and
 * holds two chunks in flight: the next chunk's blocks fill the SMs that the slowest
 * isomers of the current one leave idle, so a rank pays one tail, not one per chunk. */
static int run_ranges(ff_case *fc, long *done)
{
    ff_batch *b = &fc->b;
    const ff_ops *ops = fc->ops;
    const long M = b->M, chunk = fc->mpi.chunk;
    long start[2] = {-1, -1}, take[2] = {0, 0};
    for (int k = 0;; k ^= 1) {
        if (start[k] >= 0) {
            int rc = ops->range_wait(b, k);
            if (rc) return rc;
            own(fc, start[k], take[k], done);
            start[k] = -1;
        }
        long s = sb_mpi_counter_next(fc->mpi.counter, chunk);
        if (s < M) {
            take[k] = M - s < chunk ? M - s : chunk;
            int rc = ops->range_launch(b, k, s, take[k]);
            if (rc) return rc;
            start[k] = s;
        } else if (start[k ^ 1] < 0) {
            return SB_OK;
        }
    }
}

/* One repetition: chunks from the global counter until none is left. */
int ff_mpi_run(ff_case *fc)
{
    ff_batch *b = &fc->b;
    const long M = b->M, chunk = fc->mpi.chunk;
    memset(&b->t, 0, sizeof b->t);
    for (long i = 0; i < M; i++) fc->mpi.owner[i] = -1;
    long done = 0;
    if (fc->ops->range_launch) {
        int rc = run_ranges(fc, &done);
        if (rc) return rc;
    } else {
        for (long start; (start = sb_mpi_counter_next(fc->mpi.counter, chunk)) < M;) {
            long take = M - start < chunk ? M - start : chunk;
            int rc = ff_batch_run_range(fc->ops, b, start, take);
            if (rc) return rc;
            own(fc, start, take, &done);
        }
    }
    fc->mpi.done += done;
    fc->mpi.runs++;
    /* the counter is reset for the next repetition once every rank has left the loop */
    sb_mpi_counter_reset(fc->mpi.counter);
    return SB_OK;
}

/* Each rank's isomers of the last repetition to every rank, in isomer order. */
static int gather_rows(const ff_case *fc, char *base, size_t row, const long *owner)
{
    const long M = fc->M;
    const int ranks = sb_mpi_size(), me = sb_mpi_rank();
    size_t *counts = calloc((size_t)ranks, sizeof *counts);
    char *mine = malloc(row * (size_t)M), *all = malloc(row * (size_t)M);
    if (!counts || !mine || !all) {
        free(counts), free(mine), free(all);
        sb_error("fullerene_ff: out of memory gathering results");
        return SB_EXIT_RUNTIME;
    }
    size_t n = 0;
    for (long i = 0; i < M; i++) {
        counts[owner[i]] += row;
        if (owner[i] == me) memcpy(mine + n, base + (size_t)i * row, row), n += row;
    }
    sb_mpi_allgatherv(mine, n, all, counts);
    /* all holds rank 0's rows in isomer order, then rank 1's, ...: put each back */
    size_t *at = calloc((size_t)ranks, sizeof *at);
    if (!at) {
        free(counts), free(mine), free(all);
        return SB_EXIT_RUNTIME;
    }
    for (int r = 1; r < ranks; r++) at[r] = at[r - 1] + counts[r - 1];
    for (long i = 0; i < M; i++) memcpy(base + (size_t)i * row, all + at[owner[i]], row), at[owner[i]] += row;
    free(at), free(counts), free(mine), free(all);
    return SB_OK;
}

int ff_mpi_gather(ff_case *fc)
{
    ff_batch *b = &fc->b;
    /* ranges leave the results on the backend: this rank's rows come down with the rest */
    if (fc->ops->range_launch) {
        int rc = fc->ops->download(b);
        if (rc) return rc;
    }
    const long M = fc->M, N = b->N;
    const int me = sb_mpi_rank();
    /* each rank knows only its own isomers: exactly one rank holds each, so the sum of
     * "me where mine, else 0" is every isomer's owner */
    long *owner = malloc(sizeof(long) * (size_t)M);
    if (!owner) {
        sb_error("fullerene_ff: out of memory gathering results");
        return SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < M; i++) owner[i] = fc->mpi.owner[i] == me ? me : 0;
    sb_mpi_sum_long(owner, M);
    int rc = gather_rows(fc, (char *)b->graph, sizeof *b->graph * (size_t)N, owner);
    if (!rc) rc = gather_rows(fc, (char *)b->X, sizeof *b->X * (size_t)N * 3, owner);
    if (!rc) rc = gather_rows(fc, (char *)b->res, sizeof *b->res, owner);
    free(owner);
    /* stage times: the slowest rank's */
    double t[4] = {b->t.dualise, b->t.tutte, b->t.project, b->t.optimise};
    sb_mpi_max(t, 4);
    b->t.dualise = t[0], b->t.tutte = t[1], b->t.project = t[2], b->t.optimise = t[3];
    return rc;
}
