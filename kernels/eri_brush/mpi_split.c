/* eri_brush over MPI ranks: the screened quartets are cut into tasks of about equal
 * modelled cost (pieces of the class/contraction segments), and the tasks are dealt to the
 * ranks by longest-processing-time-first: each task, the dearest first, goes to the rank
 * with the least cost so far. Every rank computes the same deal from the same worklist, so
 * no message is needed; each builds its own worklist from its tasks and digests its share
 * of J[D], which the repetition then sums over the ranks. */
#include <stdlib.h>
#include <string.h>

#include "eri_brush/ericase.h"
#include "sb_mpi.h"

/* Tasks per rank on average: enough for the greedy deal to even out the big classes. */
#define ERI_TASKS_PER_RANK 64

typedef struct {
    long q0, q1;
    double cost;
} eri_task;

static int by_cost_desc(const void *a, const void *b)
{
    const eri_task *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
    return x->q0 < y->q0 ? -1 : x->q0 > y->q0; /* a total order: every rank deals alike */
}

static double seg_cost(const eri_case *ec, const eri_segment *s, long n)
{
    return (double)n * eri_quartet_flops(s->cls, s->path, s->nb, s->nk, ec->cfg.pure);
}

/* Cuts the segments into tasks of at most `target` modelled flops (at least one quartet). */
static eri_task *make_tasks(const eri_case *ec, double target, long *ntask)
{
    const eri_worklist *w = &ec->w;
    long n = 0, cap = w->nseg + (long)(w->flops / target) + 1;
    eri_task *t = malloc(sizeof *t * (size_t)cap);
    if (!t) return NULL;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        long len = s->q1 - s->q0, pieces = (long)(seg_cost(ec, s, len) / target) + 1;
        if (pieces > len) pieces = len;
        for (long p = 0; p < pieces && n < cap; p++) {
            long a = s->q0 + len * p / pieces, b = s->q0 + len * (p + 1) / pieces;
            t[n++] = (eri_task){a, b, seg_cost(ec, s, b - a)};
        }
    }
    *ntask = n;
    return t;
}

int eri_mpi_split(eri_case *ec)
{
    const int ranks = sb_mpi_size(), me = sb_mpi_rank();
    if (ec->cfg.mode == ERI_MODE_STORE) {
        sb_error("eri_brush: mode=store keeps every integral on one rank; under mpirun use mode=digest");
        return SB_EXIT_USAGE;
    }
    long ntask = 0;
    double target = ec->w.flops / ((double)ranks * ERI_TASKS_PER_RANK);
    eri_task *t = make_tasks(ec, target > 0 ? target : 1.0, &ntask);
    double *load = calloc((size_t)ranks, sizeof *load);
    long nmine = 0;
    eri_quartet *mine = malloc(sizeof *mine * (size_t)(ec->w.nq ? ec->w.nq : 1));
    if (!t || !load || !mine) {
        free(t), free(load), free(mine);
        sb_error("eri_brush: out of memory dealing %ld quartets to %d ranks", ec->w.nq, ranks);
        return SB_EXIT_RUNTIME;
    }
    qsort(t, (size_t)ntask, sizeof *t, by_cost_desc);
    for (long i = 0; i < ntask; i++) {
        int r = 0;
        for (int k = 1; k < ranks; k++) r = load[k] < load[r] ? k : r;
        load[r] += t[i].cost;
        if (r != me) continue;
        memcpy(mine + nmine, ec->w.q + t[i].q0, sizeof *mine * (size_t)(t[i].q1 - t[i].q0));
        nmine += t[i].q1 - t[i].q0;
    }
    double max = 0, sum = 0;
    for (int r = 0; r < ranks; r++) max = load[r] > max ? load[r] : max, sum += load[r];
    ec->mpi_imbalance = sum > 0 ? max / (sum / ranks) : 1.0;
    int rc = eri_worklist_from(&ec->bas, &ec->ps, mine, nmine, &ec->wl);
    free(t), free(load), free(mine);
    if (rc) return rc;
    eri_worklist_force_path(&ec->wl, ec->cfg.path, ec->cfg.pure);
    ec->b.w = &ec->wl;
    return SB_OK;
}

/* The repetition's J[D] share from the backend, summed over the ranks (timed: a
 * distributed J build is not done before every rank has the sum). */
int eri_mpi_reduce(eri_case *ec)
{
    int rc = ec->ops->download(&ec->b);
    if (!rc) sb_mpi_sum(ec->M, (long)ec->bas.nbf * ec->bas.nbf);
    return rc;
}
