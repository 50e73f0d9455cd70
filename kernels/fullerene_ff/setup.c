/* fullerene_ff: parameters, isomer generation at setup, batches. */
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ffcase.h"
#include "sb_omp.h"

int ff_case_parse(sb_params *p, ff_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    int N = p->size;
    if (N % 2 != 0 || N == 22) {
        sb_error("fullerene_ff: size %d is not a fullerene C_N: N must be even, 20 <= N <= %d, N != 22", N,
                 FF_MAX_N);
        return SB_EXIT_USAGE;
    }
    cfg->N = N;
    cfg->seed = p->seed;
    const char *iso = sb_param_string(p, "isomers");
    if (iso && strcmp(iso, "all") == 0) {
        cfg->all = 1;
    } else if (iso) {
        char *end;
        long m = strtol(iso, &end, 10);
        if (*iso == '\0' || *end != '\0' || m < 1 || m > 10000000) {
            sb_error("fullerene_ff: isomers=%s: expected 'all' or an integer 1..10000000", iso);
            return SB_EXIT_USAGE;
        }
        cfg->M = m;
    } else {
        cfg->M = 10000;
    }
    const char *f = sb_param_string(p, "spirals");
    cfg->spiral_file = (f && *f) ? f : NULL;
    if (cfg->spiral_file && iso) {
        sb_error("fullerene_ff: give either isomers= or spirals=, not both");
        return SB_EXIT_USAGE;
    }
    long maxit;
    int rc = sb_param_double(p, "gtol", FF_GTOL_DEFAULT, 1e-12, 1.0, &cfg->opts.gtol);
    /* maxit: the CG converges a sample of 200 isomers in 57 (C40), 89 (C60) and 151 (C100)
     * iterations at the default gtol, so fewer than 10 N leave isomers flagged, which fails the
     * flagged-share check */
    if (!rc) rc = sb_param_long(p, "maxit", (long)FF_MAXIT_PER_ATOM * N, (long)FF_MAXIT_MIN_PER_ATOM * N, 100000000L, &maxit);
    if (!rc) rc = sb_param_long(p, "oracle", 16, 0, 10000000L, &cfg->oracle);
    /* fill: a GPU is full long before 1e6 (throughput is flat past fill = 1e4 on the H100); 1e6
     * copies of C_40 validate in under 3 min on 2 CPU cores, and 1e7 of C_400 would need 200 GB */
    if (!rc) rc = sb_param_long(p, "fill", 0, 0, 1000000L, &cfg->fill);
    if (!rc) rc = sb_param_long(p, "pipeline", 0, 0, 10000000L, &cfg->pipeline);
    if (!rc) rc = sb_param_long(p, "mpi_chunk", 0, 0, 100000000L, &cfg->mpi_chunk);
    if (!rc && cfg->pipeline && (cfg->all || cfg->spiral_file || cfg->fill)) {
        sb_error("fullerene_ff: pipeline=%ld draws a sample (isomers=M); not with isomers=all, spirals= or fill=",
                 cfg->pipeline);
        rc = SB_EXIT_USAGE;
    }
    cfg->opts.maxit = maxit;
    /* the validation's data, read before anything runs: a missing file stops the run here */
    if (!rc && cfg->all) rc = ff_oeis_count(N, &cfg->oeis);
    return rc;
}

const ff_ops *ff_ops_for(sb_backend b)
{
    switch (b) {
    case SB_BACKEND_OPENMP_SIMD: return &ff_ops_openmp_simd;
#ifdef SB_HAVE_CUDA
    case SB_BACKEND_CUDA: return &ff_ops_cuda;
#endif
    case SB_BACKEND_REFERENCE: return &ff_ops_reference;
    default: return NULL;
    }
}

int ff_windup_all(int N, const ff_spiral *s, long M, uint16_t *dual)
{
    size_t stride = (size_t)ff_faces(N) * 6;
    int bad = 0;
    long first_bad = -1;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : bad)
    for (long i = 0; i < M; i++)
        if (ff_windup(N, &s[i], dual + (size_t)i * stride) != 0) {
            bad++;
#pragma omp critical
            if (first_bad < 0 || i < first_bad) first_bad = i;
        }
    if (bad) {
        const uint16_t *p = s[first_bad].pent;
        sb_error("fullerene_ff: %d spiral(s) do not wind up into C_%d, first: isomer %ld, pentagons "
                 "%d %d %d %d %d %d %d %d %d %d %d %d (1-based)",
                 bad, N, first_bad, p[0] + 1, p[1] + 1, p[2] + 1, p[3] + 1, p[4] + 1, p[5] + 1, p[6] + 1,
                 p[7] + 1, p[8] + 1, p[9] + 1, p[10] + 1, p[11] + 1);
        return -1;
    }
    return 0;
}

int ff_batch_alloc(ff_batch *b, int N, long M, const uint16_t *dual, const ff_opts *o)
{
    memset(b, 0, sizeof *b);
    b->N = N;
    b->F = ff_faces(N);
    b->M = M;
    b->dual = dual;
    b->opts = *o;
    b->graph = calloc((size_t)M * N, sizeof *b->graph);
    b->X = calloc((size_t)M * N * 3, sizeof *b->X);
    b->res = calloc((size_t)M, sizeof *b->res);
    if (!b->graph || !b->X || !b->res) {
        sb_error("fullerene_ff: out of memory for a batch of %ld isomers of C_%d", M, N);
        ff_batch_free(b);
        return SB_EXIT_RUNTIME;
    }
    return SB_OK;
}

void ff_batch_free(ff_batch *b)
{
    free(b->graph);
    free(b->X);
    free(b->res);
    b->graph = NULL, b->X = NULL, b->res = NULL;
}

int ff_batch_run_once(const ff_ops *ops, ff_batch *b)
{
    int rc = ops->prepare(b);
    if (!rc) rc = ops->run(b);
    if (!rc) rc = ops->download(b);
    ops->release(b);
    return rc;
}

static void add_times(ff_stage_times *sum, const ff_stage_times *t)
{
    sum->dualise += t->dualise, sum->tutte += t->tutte, sum->project += t->project, sum->optimise += t->optimise;
}

int ff_batch_run_range(const ff_ops *ops, ff_batch *b, long start, long take)
{
    const long F = b->F, N = b->N;
    ff_batch cb = {.N = b->N, .F = b->F, .M = take, .dual = b->dual + (size_t)start * F * 6, .opts = b->opts,
                   .graph = b->graph + (size_t)start * N, .X = b->X + (size_t)start * N * 3, .res = b->res + start};
    int rc = ff_batch_run_once(ops, &cb);
    if (!rc) add_times(&b->t, &cb.t);
    return rc;
}

static int generate(ff_case *fc)
{
    const ff_config *cfg = &fc->cfg;
    double t0 = sb_clock_seconds();
    long M;
    if (cfg->spiral_file) {
        int rc = ff_read_spirals(cfg->spiral_file, cfg->N, &fc->spirals, &M);
        if (rc) return rc;
        if (M == 0) {
            sb_error("fullerene_ff: %s holds no isomers", cfg->spiral_file);
            return SB_EXIT_USAGE;
        }
    } else if (cfg->all) {
        M = ff_enumerate(cfg->N, &fc->spirals, 0);
    } else {
        M = ff_sample(cfg->N, cfg->M, cfg->seed, &fc->spirals);
    }
    if (M < 0) {
        sb_error("fullerene_ff: isomer generation for C_%d failed (out of memory)", cfg->N);
        return SB_EXIT_RUNTIME;
    }
    if (M == 0) { /* only C_22 has no isomer, and parse rejects it */
        sb_error("fullerene_ff: C_%d has no isomers", cfg->N);
        return SB_EXIT_USAGE;
    }
    fc->unique = M;
    long copies = (cfg->fill + M - 1) / M; /* the batch repeats the isomers, whole copies */
    if (copies > 1) {
        ff_spiral *r = realloc(fc->spirals, (size_t)(M * copies) * sizeof *r);
        if (!r) {
            sb_error("fullerene_ff: out of memory repeating %ld isomers %ld times (fill=%ld)", M, copies, cfg->fill);
            return SB_EXIT_RUNTIME;
        }
        for (long k = 1; k < copies; k++) memcpy(r + k * M, r, (size_t)M * sizeof *r);
        fc->spirals = r;
        M *= copies;
    }
    fc->M = M;
    fc->gen_seconds = sb_clock_seconds() - t0;
    return SB_OK;
}

int ff_case_create(ff_case *fc, const ff_config *cfg, sb_backend b)
{
    memset(fc, 0, sizeof *fc);
    fc->cfg = *cfg;
    if (!(fc->ops = ff_ops_for(b))) {
        sb_error("fullerene_ff: this build has no %s backend for fullerene_ff", sb_backend_name(b));
        return SB_EXIT_USAGE;
    }
    if (cfg->pipeline) { /* run() generates; room for the M asked for */
        fc->M = fc->unique = cfg->M;
        fc->spirals = malloc((size_t)cfg->M * sizeof *fc->spirals);
    } else {
        int rc = generate(fc);
        if (rc) return rc;
    }
    size_t n = (size_t)fc->M * ff_faces(cfg->N) * 6;
    if (!fc->spirals || !(fc->dual = malloc(n * sizeof *fc->dual))) {
        sb_error("fullerene_ff: out of memory for %ld dual graphs", fc->M);
        return SB_EXIT_RUNTIME;
    }
    double t0 = sb_clock_seconds();
    if (!cfg->pipeline && ff_windup_all(cfg->N, fc->spirals, fc->M, fc->dual)) return SB_EXIT_USAGE;
    fc->windup_seconds = sb_clock_seconds() - t0;
    return ff_batch_alloc(&fc->b, cfg->N, fc->M, fc->dual, &cfg->opts);
}

void ff_case_destroy(ff_case *fc)
{
    ff_batch_free(&fc->b);
    free(fc->dual);
    free(fc->spirals);
    memset(fc, 0, sizeof *fc);
}
