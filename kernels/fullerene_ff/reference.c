/* fullerene_ff scalar reference backend, the oracle: one isomer after the other, each
 * through ff_dualise, ff_tutte, ff_project and ff_optimise, writing straight into the
 * batch's host outputs (download has nothing to move). Stage times are the sums over the
 * isomers of each stage's monotonic-clock time. Options left at 0 take the defaults of
 * optimise.h: gtol = FF_GTOL_DEFAULT, maxit = FF_MAXIT_PER_ATOM * N. */
#include <stdlib.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/optimise.h"
#include "sb_omp.h"

static int ref_prepare(ff_batch *b)
{
    b->dev = NULL;
    return b->N >= FF_MIN_N && b->N <= FF_MAX_N && b->F == ff_faces(b->N) ? SB_OK : SB_EXIT_USAGE;
}

static int ref_run(ff_batch *b)
{
    const int N = b->N, F = b->F;
    const ff_opts o = ff_opts_resolved(b->opts, N);
    double xy[2 * FF_MAX_N];
    ff_stage_times t = {0, 0, 0, 0};
    for (long m = 0; m < b->M; m++) {
        ff_atom *g = b->graph + m * N;
        double *X = b->X + m * 3 * N;
        ff_result *r = &b->res[m];
        double t0 = sb_clock_seconds();
        if (ff_dualise(N, b->dual + m * F * 6, g)) return SB_EXIT_RUNTIME;
        double t1 = sb_clock_seconds();
        const int sweeps = ff_tutte(N, g, xy);
        double t2 = sb_clock_seconds();
        ff_project(N, g, xy, X);
        double t3 = sb_clock_seconds();
        ff_optimise(N, g, X, &o, r);
        r->tutte_sweeps = sweeps;
        double t4 = sb_clock_seconds();
        t.dualise += t1 - t0, t.tutte += t2 - t1, t.project += t3 - t2, t.optimise += t4 - t3;
    }
    b->t = t;
    return SB_OK;
}

static int ref_download(ff_batch *b)
{
    (void)b;
    return SB_OK;
}

static void ref_release(ff_batch *b) { b->dev = NULL; }

const ff_ops ff_ops_reference = {ref_prepare, ref_run, ref_download, ref_release, NULL, NULL, NULL};
