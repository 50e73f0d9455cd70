/* fullerene_ff: the sb_kernel the harness drives. */
#include <math.h>
#include <stdlib.h>

#include "fullerene_ff/ffcase.h"
#include "fullerene_ff/fullerene_ff.h"
#include "sb_mpi.h"

static const sb_param_spec ff_params[] = {
    {"isomers", "10000", "'all' (the whole isomer space of C_N, N <= 120: the sizes whose isomer count validates it) or "
                         "M: a reproducible sample of min(M, all) distinct isomers, 1..10000000"},
    {"spirals", "", "file of isomers: one line per isomer, 12 1-based pentagon positions of its face spiral"},
    {"gtol", "1e-5", "convergence: RMS force-field gradient, FFU/Angstrom"},
    {"maxit", "50*N", "conjugate-gradient iteration cap per isomer, 10*N .. 1e8 (below, isomers stop unconverged: C60 "
                     "needs about 90)"},
    {"oracle", "16", "isomers re-optimised by the scalar reference for the oracle check (0: none)"},
    {"fill", "0", "repeat the isomers (whole copies) until the batch holds >= fill: fills a GPU when C_N has few isomers "
                  "(0 .. 1e6: a GPU is full long before)"},
    {"pipeline", "0", "C > 0: time generation too, overlapped with the backend, which takes the isomers in chunks of C"},
    {"mpi_chunk", "0", "under mpirun: isomers a rank takes from the shared queue at a time (0: M / (4 ranks))"},
    {NULL, NULL, NULL}};

static int ffk_setup(sb_case *c)
{
    ff_config cfg;
    int rc = ff_case_parse(c->params, &cfg);
    if (rc) return rc;
    ff_case *fc = calloc(1, sizeof *fc);
    if (!fc) return SB_EXIT_RUNTIME;
    c->state = fc;
    if ((rc = ff_case_create(fc, &cfg, c->backend))) return rc;
    if (sb_mpi_size() > 1 && (rc = ff_mpi_begin(fc))) return rc;
    c->work.items = (double)fc->M;
    /* compulsory traffic: read the dual graph, write the graph, coordinates and result */
    c->work.bytes = (double)fc->M * ((double)ff_faces(cfg.N) * 12.0 +
                                     (double)cfg.N * (sizeof(ff_atom) + 24.0) + sizeof(ff_result));
    c->work.flops = 0.0; /* set by finish: it depends on the evaluations the optimiser made */
    c->work.fp64 = 1;
    return SB_OK;
}

static int ffk_prepare(sb_case *c)
{
    ff_case *fc = c->state;
    /* each repetition prepares its chunks, unless the backend runs ranges of one batch */
    if (fc->cfg.pipeline || (sb_mpi_size() > 1 && !fc->ops->range_launch)) return SB_OK;
    int rc = fc->ops->prepare(&fc->b);
    if (rc || !fc->ops->launches) return rc;
    int n = fc->ops->launches(&fc->b, c->launch, SB_MAX_LAUNCH);
    if (n < 0) return SB_EXIT_RUNTIME;
    c->nlaunch = n;
    return SB_OK;
}

static int ffk_run(sb_case *c)
{
    ff_case *fc = c->state;
    if (fc->cfg.pipeline) {
        int rc = ff_pipeline_run(fc);
        c->work.items = (double)fc->M; /* the sample may hold fewer than asked for */
        return rc;
    }
    if (sb_mpi_size() > 1) {
        int rc = ff_mpi_run(fc);
        c->rank_items = (double)fc->mpi.done / (double)fc->mpi.runs;
        return rc;
    }
    return fc->ops->run(&fc->b);
}

static int ffk_finish(sb_case *c)
{
    ff_case *fc = c->state;
    ff_batch *b = &fc->b;
    /* the pipeline and the MPI queue download per chunk */
    int rc = sb_mpi_size() > 1 ? ff_mpi_gather(fc) : fc->cfg.pipeline ? SB_OK : fc->ops->download(b);
    if (rc) return rc;
    double iters = 0, evals = 0, conv = 0, sweeps = 0, emean = 0;
    for (long i = 0; i < b->M; i++) {
        iters += b->res[i].iters;
        evals += b->res[i].evals;
        conv += b->res[i].converged != 0;
        sweeps += b->res[i].tutte_sweeps;
        emean += b->res[i].energy;
    }
    double M = (double)b->M, N = b->N, total = b->t.dualise + b->t.tutte + b->t.project + b->t.optimise;
    c->work.flops = evals * N * FF_FLOPS_PER_ATOM_EVAL;
    sb_counters *cs = &c->counters;
    sb_counter_set(cs, "isomers", M, "isomers");
    sb_counter_set(cs, "converged_fraction", conv / M, "1");
    sb_counter_set(cs, "cg_iterations_mean", iters / M, "iterations");
    sb_counter_set(cs, "evaluations_mean", evals / M, "evaluations");
    sb_counter_set(cs, "tutte_sweeps_mean", sweeps / M, "sweeps");
    sb_counter_set(cs, "energy_mean", emean / M, "FFU");
    if (total > 0) sb_counter_set(cs, "atom_iterations_per_s", iters * N / total, "atom*it/s");
    sb_counter_set(cs, "t_dualise", b->t.dualise, "s");
    sb_counter_set(cs, "t_tutte", b->t.tutte, "s");
    sb_counter_set(cs, "t_project", b->t.project, "s");
    sb_counter_set(cs, "t_optimise", b->t.optimise, "s");
    sb_counter_set(cs, "t_generate_setup", fc->gen_seconds, "s");
    sb_counter_set(cs, "t_windup_setup", fc->windup_seconds, "s");
    return SB_OK;
}

static int ffk_validate(sb_case *c, sb_validation *v)
{
    ff_case *fc = c->state;
    return ff_validate_all(fc, c->backend, v, &c->counters);
}

static void ffk_teardown(sb_case *c)
{
    ff_case *fc = c->state;
    if (!fc) return;
    if (fc->ops) fc->ops->release(&fc->b); /* nothing to release where chunks were batches */
    ff_mpi_end(fc);
    ff_case_destroy(fc);
    free(fc);
    c->state = NULL;
}

const sb_kernel fullerene_ff_kernel = {
    .name = "fullerene_ff",
    .summary = "fullerene isomers C_N: spiral -> dual -> Tutte -> sphere -> force-field CG, one isomer per block",
    .item = "isomers",
    .size_meaning = "N, atoms of C_N (even, N != 22)",
    .default_size = 60,
    .min_size = FF_MIN_N,
    .max_size = FF_MAX_N,
    .ci_size = 50,
    .params = ff_params,
#ifdef SB_HAVE_CUDA
    .has_backend = {1, 1, 1},
#else
    .has_backend = {1, 0, 1},
#endif
    .setup = ffk_setup,
    .prepare = ffk_prepare,
    .run = ffk_run,
    .finish = ffk_finish,
    .validate = ffk_validate,
    .teardown = ffk_teardown,
};
