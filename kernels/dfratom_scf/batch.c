/* dfratom_scf: a batch of candidate bases (job=batch), the workload of a basis optimisation
 * that evaluates many bases at once. Candidate j is the case's well-tempered basis moved by
 * bsopt's start offset j (the case's basis, then Halton points in ln alpha and ln(beta - 1)).
 *
 * engine=batched runs the candidates' SCFs in lockstep: each candidate's two-electron map is
 * stored once (dfr_tshape: a tensor per candidate, computed for every candidate of a chunk in
 * one pass), and each iteration contracts every candidate's density at once (one cuBLAS
 * strided-batched dgemv on the GPU); the host steps of the SCF (eigen-solves, DIIS) run in
 * parallel over the candidates; with eigensolver=cusolver on cuda the eigen-solves of every
 * candidate go to the GPU at once, one batched solve per symmetry and iteration.
 * engine=sequential is the baseline: the candidates one after another, each an ordinary
 * direct SCF on the case's backend. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"
#include "sb_omp.h"

/* Outcome of candidate j, run in shape y: energy (NAN unless converged), iterations, spectrum check */
static void record(dfr_batch_out *o, int j, int rc, const dfr_result *r, const dfr_case *d, const dfr_sym *y)
{
    const double c = d->o.c;
    int bad = 0;
    if (!rc && d->o.ham == DFR_DIRAC) {
        for (int s = 0; s < y->ns; ++s) bad += r->below_minus_c2[s] != y->n[s];
        bad += !(r->min_occ_eps > -2.0 * c * c);
    }
    o->energy[j] = !rc && r->converged ? r->energy : NAN;
    o->iters[j] = rc ? 0 : r->iterations;
    for (int i = 0; i < DFR_HIST; ++i) o->ratio[(long)j * DFR_HIST + i] = rc ? INFINITY : r->conv_ratio[i];
    o->bad_spectrum[j] = bad != 0;
}

/* An SCF that ran to maxit, or stalled, without converging: its Fock builds are those a round
 * waits for */
static void count_unconverged(dfr_batch_out *a, const dfr_result *r, int maxit)
{
    if (r->converged) return;
    if (r->stalled) a->stalled_scfs++, a->stalled_builds += r->fock_builds;
    if (r->iterations < maxit) return;
    a->maxit_scfs++;
    a->maxit_builds += r->fock_builds;
}

/* Candidates w[0 .. n) one after another, each a direct SCF in its own basis; outcomes at o[obase + i] */
static int eval_sequential(dfr_case *d, const dfr_wtbs *w, int n, dfr_batch_out *o, int obase, dfr_warm *warm)
{
    for (int i = 0; i < n; ++i) {
        dfr_result r;
        memset(&r, 0, sizeof r); /* left as it is where the basis cannot be built */
        double e = dfr_candidate_energy(d, &w[i], &r, warm ? &warm[i] : NULL);
        record(o, obase + i, isfinite(e) ? SB_OK : SB_EXIT_RUNTIME, &r, d, &d->y);
        o->fock_builds += r.fock_builds;
        count_unconverged(o, &r, d->o.maxit);
        sb_progress("dfratom_scf batch (sequential): candidate %d of %d", i + 1, n);
    }
    /* dfr_candidate_energy left the last candidate's basis in the case: restore the case's own */
    return dfr_basis_build(&d->w, d->y.ns, &d->y, d->f);
}

/* Candidates whose tensors fit in gib GiB, at least one, at most n */
static int batch_fit(double gib, const dfr_tshape *t, int n)
{
    double fit = floor(gib * 1073741824.0 / (8.0 * (double)t->per));
    return fit < 1.0 ? 1 : fit < n ? (int)fit : n;
}

int dfr_batch_chunk(const dfr_case *d, const dfr_tshape *t, int n) { return batch_fit(d->batch_mem, t, n); }

typedef struct {
    const dfr_case *d;
    const dfr_tshape *t;
    const dfr_sym *y;      /* the shape every candidate runs in */
    const dfr_wtbs *u;     /* its ranges */
    int Bmax, B, par, nthr, lane; /* nthr: threads of its host loops; lane 0 reports progress */
    int report;            /* 0: a batch running beside others, silent */
    dfr_batch_out acc;     /* its timers and counts (records go to the caller's) */
    dfr_fun *f;            /* Bmax x nf */
    dfr_scf_run **st;
    int *live, *rc;
    int *nblk, *brc;       /* a candidate's density blocks this iteration, and each block's outcome */
    double **G;
    double *T, *x, *yv;    /* T: host backends only */
    void *gpu;
    /* eigensolver=cusolver: per symmetry, the live candidates' F (then C) and w side by side */
    double *eF[DFR_NSYM], *eW[DFR_NSYM], *eL;
    int *eidx;
} chunk;

/* Every live candidate's eigenproblems of this iteration, one batched GPU solve per symmetry;
 * each candidate's next density step takes its solution (dfr_scf_eig_given). */
static int gpu_eigensolves(chunk *k)
{
    for (int s = 0; s < k->y->ns; ++s) {
        int n = 0, dim = 0;
        for (int c = 0; c < k->B; ++c) {
            if (!k->live[c]) continue;
            const double *F, *L;
            dim = dfr_scf_eig_input(k->st[c], s, &F, &L);
            const size_t dd = (size_t)dim * dim;
            memcpy(k->eF[s] + n * dd, F, sizeof(double) * dd);
            memcpy(k->eL + n * dd, L, sizeof(double) * dd);
            k->eidx[n++] = c;
        }
        if (!n) return SB_OK;
        int rc = k->d->ops->batch_eig(k->gpu, dim, n, k->eF[s], k->eL, k->eW[s]);
        if (rc) return rc;
        for (int i = 0; i < n; ++i)
            dfr_scf_eig_given(k->st[k->eidx[i]], s, k->eW[s] + (size_t)i * dim, k->eF[s] + (size_t)i * dim * dim);
    }
    return SB_OK;
}

/* The k->B candidates w[0 ..] to the end of every SCF (from warm's densities where given);
 * outcomes into o from obase, timers into k->acc */
static int run_chunk(chunk *k, const dfr_wtbs *w, dfr_batch_out *o, int obase, dfr_warm *warm)
{
    dfr_batch_out *a = &k->acc;
    const dfr_case *d = k->d;
    const dfr_tshape *t = k->t;
    const dfr_sym *ys = k->y;
    const int B = k->B, nf = ys->nf, gpu = d->ops->batch_create != NULL;
    double t0 = sb_clock_seconds();
#pragma omp parallel for schedule(dynamic, 1) if (k->par) num_threads(k->nthr)
    for (int c = 0; c < B; ++c) {
        dfr_sym y;
        k->st[c] = NULL;
        k->rc[c] = dfr_basis_build_in(&w[c], k->u, ys->ns, &y, k->f + (long)c * nf);
        if (!k->rc[c]) k->rc[c] = dfr_scf_begin(&d->atom, ys, k->f + (long)c * nf, &d->o, NULL, 0, &k->st[c]);
        if (!k->rc[c] && warm && warm[c].valid) dfr_scf_guess(k->st[c], warm[c].Dw);
        k->live[c] = !k->rc[c];
    }
    double t1 = sb_clock_seconds();
    int rc = SB_OK;
    if (!d->atom.one_electron) {
        if (gpu) rc = d->ops->batch_tensors(k->gpu, k->f, B, &a->tabulated);
        else a->tabulated += dfr_tensor_host(t, ys, k->f, B, k->T, k->par);
    }
    a->t_host += t1 - t0;
    a->t_tensor += sb_clock_seconds() - t1;
    /* The iterations run in one parallel region, steps on the GPU in `single`: under two lanes
     * the region is nested, and libgomp starts a nested team's threads anew for each one */
    int live = B;
    double ts[3] = {0};
#pragma omp parallel if (k->par) num_threads(k->nthr)
    while (live > 0 && !rc) { /* live and rc are read after a barrier: every thread agrees */
#pragma omp single
        {
            if (k->eidx) {
                const double te = sb_clock_seconds();
                rc = gpu_eigensolves(k);
                a->t_eig += sb_clock_seconds() - te;
            }
            ts[0] = sb_clock_seconds();
        }
        if (rc) break;
        /* the density step with every live candidate's symmetry blocks solved side by side, the
         * largest (s = 0) first: a round waits for its slowest candidate, whose blocks would
         * otherwise run one after another on one thread while others idle */
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < B; ++c) {
            k->nblk[c] = 0;
            if (!k->live[c]) continue;
            const double *Dw;
            k->nblk[c] = dfr_scf_density_begin(k->st[c], &Dw, &k->G[c]);
            if (!k->nblk[c] && Dw) dfr_tshape_gather(t, ys, Dw, k->x + (long)c * t->xlen);
        }
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < ys->ns * B; ++i) {
            const int s = i / B, c = i % B;
            k->brc[(long)c * DFR_NSYM + s] = s < k->nblk[c] ? dfr_scf_density_block(k->st[c], s) : SB_OK;
        }
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < B; ++c) {
            if (!k->nblk[c]) continue;
            for (int s = 0; s < k->nblk[c] && !k->rc[c]; ++s) k->rc[c] = k->brc[(long)c * DFR_NSYM + s];
            if (k->rc[c]) {
                k->live[c] = 0;
                continue;
            }
            const double *Dw;
            dfr_scf_density_end(k->st[c], &Dw, &k->G[c]);
            if (Dw) dfr_tshape_gather(t, ys, Dw, k->x + (long)c * t->xlen);
        }
#pragma omp single
        {
            ts[1] = sb_clock_seconds();
            if (gpu && !d->atom.one_electron) rc = d->ops->batch_contract(k->gpu, B, k->x, k->yv);
        }
        if (rc) break;
        if (!gpu && !d->atom.one_electron) {
#pragma omp for schedule(dynamic, 1)
            for (int c = 0; c < B; ++c)
                dfr_contract_one(t, k->T + c * t->per, k->x + (long)c * t->xlen, k->yv + (long)c * t->ylen);
        }
#pragma omp single
        ts[2] = sb_clock_seconds(), live = 0;
        /* the Fock step likewise: each candidate's DIIS errors block by block, side by side */
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < B; ++c) {
            k->nblk[c] = 0;
            if (!k->live[c]) continue;
            int done = 0;
            if (!d->atom.one_electron) dfr_tshape_scatter(t, ys, k->yv + (long)c * t->ylen, k->G[c]);
            k->nblk[c] = dfr_scf_fock_begin(k->st[c], &done);
            if (done) k->live[c] = 0;
        }
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < ys->ns * B; ++i) {
            const int s = i / B, c = i % B;
            if (s < k->nblk[c]) dfr_scf_fock_block(k->st[c], s);
        }
#pragma omp for schedule(dynamic, 1) reduction(+ : live)
        for (int c = 0; c < B; ++c) {
            if (k->nblk[c]) dfr_scf_fock_end(k->st[c]);
            live += k->live[c];
        }
#pragma omp single
        {
            a->t_host += (ts[1] - ts[0]) + (sb_clock_seconds() - ts[2]);
            a->t_contract += ts[2] - ts[1];
            if (!k->lane && k->report)
                sb_progress("dfratom_scf batch: candidates %d..%d, %d SCFs still iterating", obase, obase + B - 1,
                            live);
        }
    }
    for (int c = 0; c < B; ++c) {
        dfr_result r;
        memset(&r, 0, sizeof r);
        dfr_scf_end(k->st[c], &r, warm && !k->rc[c] ? warm[c].Dw : NULL);
        if (warm) warm[c].valid = !k->rc[c] && r.converged;
        record(o, obase + c, k->rc[c], &r, d, ys);
        a->fock_builds += r.fock_builds;
        if (!k->rc[c]) count_unconverged(a, &r, d->o.maxit);
    }
    return rc;
}

/* Host buffers (and on cuda the device state) of a lane of up to B candidates */
static int chunk_alloc(chunk *k, const dfr_case *d, const dfr_tshape *t, const dfr_sym *y, const dfr_wtbs *u, int B)
{
    const int gpu = d->ops->batch_create != NULL;
    k->d = d, k->t = t, k->y = y, k->u = u, k->Bmax = k->B = B, k->par = d->backend != SB_BACKEND_REFERENCE;
    k->f = calloc((size_t)B * y->nf, sizeof *k->f);
    k->st = calloc(B, sizeof *k->st);
    k->live = calloc(B, sizeof *k->live), k->rc = calloc(B, sizeof *k->rc);
    k->nblk = calloc(B, sizeof *k->nblk), k->brc = calloc((size_t)B * DFR_NSYM, sizeof *k->brc);
    k->G = calloc(B, sizeof *k->G);
    k->x = calloc((size_t)B * t->xlen, sizeof(double)), k->yv = calloc((size_t)B * t->ylen, sizeof(double));
    if (!gpu) k->T = malloc(sizeof(double) * (size_t)B * t->per);
    int bad = !k->f || !k->st || !k->live || !k->rc || !k->nblk || !k->brc || !k->G || !k->x || !k->yv || (!gpu && !k->T);
    if (gpu && d->eig_gpu) {
        const int m = d->o.ham == DFR_DIRAC ? 2 : 1;
        size_t maxdd = 0;
        for (int s = 0; s < y->ns; ++s) {
            const size_t dim = (size_t)m * y->n[s];
            k->eF[s] = malloc(sizeof(double) * B * dim * dim), k->eW[s] = malloc(sizeof(double) * B * dim);
            bad |= !k->eF[s] || !k->eW[s];
            maxdd = dim * dim > maxdd ? dim * dim : maxdd;
        }
        k->eL = malloc(sizeof(double) * B * maxdd), k->eidx = malloc(sizeof(int) * B);
        bad |= !k->eL || !k->eidx;
    }
    if (bad) {
        sb_error("dfratom_scf: batch of %d candidates: out of host memory (%.2f GB of tensors; lower --param "
                 "batch_mem)", B, 8e-9 * B * t->per);
        return SB_EXIT_RUNTIME;
    }
    return gpu ? d->ops->batch_create(t, y, B, &k->gpu) : SB_OK;
}

static void chunk_free(chunk *k)
{
    if (k->gpu) k->d->ops->batch_destroy(k->gpu);
    free(k->f), free(k->st), free(k->live), free(k->rc), free(k->nblk), free(k->brc), free(k->G), free(k->x), free(k->yv), free(k->T);
    for (int s = 0; s < DFR_NSYM; ++s) free(k->eF[s]), free(k->eW[s]);
    free(k->eL), free(k->eidx);
}

/* Chunks of up to k->Bmax candidates of w starting at first, first + stride, ... before end */
static int run_lane(chunk *k, const dfr_wtbs *w, int first, int end, int stride, dfr_batch_out *o, int obase,
                    dfr_warm *warm)
{
    int rc = SB_OK;
    for (int j = first; j < end && !rc; j += stride) {
        k->B = end - j < k->Bmax ? end - j : k->Bmax;
        rc = run_chunk(k, w + j, o, obase + j, warm ? warm + j : NULL);
    }
    return rc;
}

/* Candidates of one shape, their buffers kept from run to run (dfrcase.h). On cuda a chunk is
 * two lanes of half the candidates, each a host thread with half the cores, so that one lane's
 * host steps (densities, Fock matrices, DIIS) run while the other's eigen-solves and
 * contractions run on the GPU. Lane l takes sub-chunks l, l + 2, ... */
struct dfr_batcher {
    dfr_case *d;
    dfr_wtbs u;
    dfr_sym y;
    dfr_fun *f0;   /* the shape's basis in u's own exponents: numbers the integral tables */
    dfr_gbuild g;  /* the shape's output list */
    dfr_tshape t;
    int B, lanes;  /* candidates in flight, lanes they run in */
    chunk k[2];
};

int dfr_batcher_create(dfr_case *d, const dfr_wtbs *u, int nmax, double gib, dfr_batcher **out)
{
    dfr_batcher *b = calloc(1, sizeof *b);
    *out = b;
    if (!b || !(b->f0 = calloc((size_t)DFR_NSYM * DFR_MAXN, sizeof *b->f0))) return SB_EXIT_RUNTIME;
    b->d = d, b->u = *u;
    int rc = dfr_basis_build(u, d->y.ns, &b->y, b->f0);
    if (!rc) rc = dfr_gbuild_init(&b->g, &b->y, b->f0, d->o.ham == DFR_DIRAC);
    if (!rc) rc = dfr_tshape_init(&b->t, &b->g, d->o.ham == DFR_DIRAC);
    if (rc) return rc;
    const int B = b->B = batch_fit(gib, &b->t, nmax), gpu = d->ops->batch_create != NULL;
    b->lanes = gpu && d->batch_lanes == 2 && B > 1 ? 2 : 1;
    const int Bl = (B + b->lanes - 1) / b->lanes;
    for (int l = 0; l < b->lanes && !rc; ++l) rc = chunk_alloc(&b->k[l], d, &b->t, &b->y, &b->u, Bl), b->k[l].lane = l;
    dfr_batcher_share(b, omp_get_max_threads(), 1);
    return rc;
}

void dfr_batcher_share(dfr_batcher *b, int threads, int report)
{
    for (int l = 0; l < b->lanes; ++l) {
        b->k[l].nthr = b->lanes == 2 ? (threads + 1 - l) / 2 : threads, b->k[l].report = report;
        if (b->k[l].nthr < 1) b->k[l].nthr = 1;
    }
}

int dfr_batcher_run(dfr_batcher *b, const dfr_wtbs *w, int n, dfr_batch_out *o, int obase, dfr_warm *warm)
{
    chunk *k = b->k;
    const int Bl = k[0].Bmax;
    int rc = SB_OK;
    o->chunk = b->B;
    o->table_per = b->t.tab->per;
    if (b->lanes == 1) /* no enclosing region: libgomp starts new threads for every nested one */
        rc = run_lane(&k[0], w, 0, n, Bl, o, obase, warm);
    else {
        int lrc[2] = {0, 0};
        const int nested = omp_get_max_active_levels();
        if (nested < 2) omp_set_max_active_levels(2);
        /* spread: each lane gets its own half of the places, and its inner teams bind within it
         * (with close they would start next to each other and share cores). The inner teams are
         * nested, and libgomp starts their threads anew each time (about 0.1-1 ms a region). */
#pragma omp parallel num_threads(2) proc_bind(spread)
        {
            const int l = omp_get_thread_num();
            lrc[l] = run_lane(&k[l], w, l * Bl, n, 2 * Bl, o, obase, warm);
        }
        if (nested < 2) omp_set_max_active_levels(nested);
        rc = lrc[0] ? lrc[0] : lrc[1];
    }
    for (int l = 0; l < b->lanes; ++l) {
        dfr_batch_out_add(o, &k[l].acc);
        dfr_batch_out_clear(&k[l].acc);
    }
    return rc;
}

void dfr_batcher_free(dfr_batcher *b)
{
    if (!b) return;
    for (int l = 0; l < 2; ++l) chunk_free(&b->k[l]);
    dfr_tshape_free(&b->t);
    dfr_gbuild_free(&b->g);
    free(b->f0);
    free(b);
}

int dfr_batch_list(dfr_case *d, int engine, const dfr_wtbs *u, const dfr_wtbs *w, int n, dfr_batch_out *o, int obase,
                   dfr_warm *warm)
{
    if (engine == DFR_ENGINE_SEQUENTIAL) return eval_sequential(d, w, n, o, obase, warm);
    dfr_batcher *b;
    int rc = dfr_batcher_create(d, u, n, d->batch_mem, &b);
    if (!rc) rc = dfr_batcher_run(b, w, n, o, obase, warm);
    dfr_batcher_free(b);
    return rc;
}

/* Candidates j0 .. j0+n-1: the case's basis moved by bsopt's start offsets */
int dfr_batch_eval(dfr_case *d, int engine, int j0, int n, dfr_batch_out *o)
{
    dfr_batch_out_clear(o);
    o->chunk = 1;
    o->table_per = 0;
    dfr_wtbs *w = malloc(sizeof *w * (size_t)n);
    if (!w) return SB_EXIT_RUNTIME;
    for (int i = 0; i < n; ++i) {
        w[i] = d->w;
        dfr_bsopt_start(d, j0 + i, &w[i].alpha, &w[i].beta);
    }
    int rc = dfr_batch_list(d, engine, &d->w, w, n, o, j0, NULL);
    free(w);
    sb_progress_done();
    return rc;
}

void dfr_batch_out_add(dfr_batch_out *to, const dfr_batch_out *o)
{
    to->t_host += o->t_host, to->t_tensor += o->t_tensor, to->t_contract += o->t_contract, to->t_eig += o->t_eig;
    to->fock_builds += o->fock_builds, to->tabulated += o->tabulated;
    to->maxit_scfs += o->maxit_scfs, to->maxit_builds += o->maxit_builds;
    to->stalled_scfs += o->stalled_scfs, to->stalled_builds += o->stalled_builds;
}

void dfr_batch_out_clear(dfr_batch_out *o)
{
    o->t_host = o->t_tensor = o->t_contract = o->t_eig = 0.0;
    o->fock_builds = o->tabulated = o->maxit_scfs = o->maxit_builds = o->stalled_scfs = o->stalled_builds = 0;
}

int dfr_batch_out_alloc(dfr_batch_out *o, int n)
{
    memset(o, 0, sizeof *o);
    o->energy = calloc(n, sizeof *o->energy);
    o->iters = calloc(n, sizeof *o->iters);
    o->bad_spectrum = calloc(n, sizeof *o->bad_spectrum);
    o->ratio = calloc((size_t)n * DFR_HIST, sizeof *o->ratio);
    return o->energy && o->iters && o->bad_spectrum && o->ratio ? SB_OK : SB_EXIT_RUNTIME;
}

void dfr_batch_out_free(dfr_batch_out *o)
{
    free(o->energy);
    free(o->iters);
    free(o->bad_spectrum);
    free(o->ratio);
    memset(o, 0, sizeof *o);
}
