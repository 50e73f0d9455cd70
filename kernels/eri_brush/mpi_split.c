/* eri_brush over MPI ranks. Every rank keeps the whole worklist, so each runs the same
 * kernels on the same segments as one GPU does (the J engine's classes, the pair families),
 * only fewer quartets of each (eri_share in eri.h). Which class goes where is dealt by its
 * measured cost: after the backend is prepared, every rank digests the whole list once
 * (untimed) and rank 0's time per class decides for all. A class worth more than a
 * fraction of a rank's load is cut into equal slices, one a rank; the rest go whole, the
 * dearest first, to the rank with the least load so far, so that small classes, whose
 * time is mostly launch latency and tails, are not cut into still smaller launches. The
 * repetition's J[D] shares are then summed over the ranks on the GPUs (sb_cuda_comm) or on
 * the hosts. */
#include <stdlib.h>
#include <string.h>

#include "eri_brush/ericase.h"
#include "sb_cuda_comm.h"
#include "sb_mpi.h"

/* A class is cut into slices when its measured time is above this share of a rank's load
 * (the whole time / ranks): whole classes below it leave the ranks at most this share apart. */
#define ERI_SPLIT_SHARE 0.05

int eri_mpi_split(eri_case *ec)
{
    if (ec->cfg.mode == ERI_MODE_STORE) {
        sb_error("eri_brush: mode=store keeps every integral on one rank; under mpirun use mode=digest");
        return SB_EXIT_USAGE;
    }
    ec->share.rank = sb_mpi_rank(), ec->share.ranks = sb_mpi_size();
    memset(ec->share.owner, ERI_SHARE_SPLIT, sizeof ec->share.owner);
    return SB_OK;
}

typedef struct {
    int cls;
    double t;
} cls_time;

static int by_time_desc(const void *a, const void *b)
{
    const cls_time *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? 1 : -1;
    return x->cls - y->cls; /* a total order: every rank deals alike */
}

/* The deal from per-class times t (the same on every rank); returns the largest rank's
 * share of the measured time over the mean. Ranks beyond what a signed char names cut every
 * class. */
static double deal(eri_share *s, const double *t)
{
    const int R = s->ranks;
    cls_time c[ERI_NCLASS];
    int n = 0;
    double total = 0, *load = calloc((size_t)R, sizeof *load);
    memset(s->owner, ERI_SHARE_SPLIT, sizeof s->owner);
    if (!load || R > 127) {
        free(load);
        return 1.0;
    }
    for (int k = 0; k < ERI_NCLASS; k++)
        if (t[k] > 0) c[n++] = (cls_time){k, t[k]}, total += t[k];
    qsort(c, (size_t)n, sizeof *c, by_time_desc);
    const double cut = ERI_SPLIT_SHARE * total / R;
    for (int i = 0; i < n; i++) {
        if (c[i].t > cut) {
            for (int r = 0; r < R; r++) load[r] += c[i].t / R;
            continue;
        }
        int r = 0;
        for (int k = 1; k < R; k++) r = load[k] < load[r] ? k : r;
        load[r] += c[i].t;
        s->owner[c[i].cls] = (signed char)r;
    }
    double max = 0;
    for (int r = 0; r < R; r++) max = load[r] > max ? load[r] : max;
    free(load);
    return total > 0 ? max / (total / R) : 1.0;
}

/* ERIs of the quartets this rank digests: a segment's quartets are one class, so each
 * holds the same number of integrals. */
static void share_counts(const eri_case *ec, double *quartets, double *eris)
{
    const eri_worklist *w = &ec->w;
    *quartets = *eris = 0;
    for (int k = 0; k < w->nseg; k++) {
        const eri_segment *s = &w->seg[k];
        long a, b;
        eri_share_cut(&ec->share, s->cls, s->q0, s->q1, &a, &b);
        if (b <= a) continue;
        const eri_pair *P = &ec->ps.pair[w->q[s->q0].P], *Q = &ec->ps.pair[w->q[s->q0].Q];
        const eri_shell *sh = ec->bas.sh;
        *quartets += (double)(b - a);
        *eris += (double)(b - a) * sh[P->a].nbf * sh[P->b].nbf * sh[Q->a].nbf * sh[Q->b].nbf;
    }
}

int eri_mpi_deal(eri_case *ec, double *rank_items)
{
    const eri_worklist *w = &ec->w;
    double t[ERI_NCLASS] = {0};
    /* the whole list, timed per class; twice, since a first run also loads and captures */
    ec->b.share = NULL;
    int rc = ec->ops->run(&ec->b);
    if (!rc) rc = ec->ops->run(&ec->b);
    for (int k = 0; !rc && k < w->nseg; k++) t[w->seg[k].cls] += ec->b.seg_seconds[k];
    if ((rc = sb_mpi_max_int(rc))) return rc;
    sb_mpi_bcast(t, sizeof t, 0);
    ec->mpi_imbalance = deal(&ec->share, t);
    ec->b.share = &ec->share;
    double mine[2];
    share_counts(ec, &mine[0], &mine[1]);
    *rank_items = mine[1];
    ec->share_quartets = mine[0];
    return SB_OK;
}

/* The repetition's J[D] share summed over the ranks (timed: a distributed J build is not done
 * before every rank has the sum): on the GPUs where the backend keeps M there and NCCL
 * carries it, else on the hosts. */
int eri_mpi_reduce(eri_case *ec)
{
    const long n = (long)ec->bas.nbf * ec->bas.nbf;
    if (ec->ops->device_M && sb_cuda_comm_nccl()) {
        ec->reduced_on_device = 1;
        return sb_cuda_comm_sum(ec->ops->device_M(&ec->b), n, NULL);
    }
    int rc = ec->ops->download(&ec->b);
    if (!rc) sb_mpi_sum(ec->M, n);
    return rc;
}
