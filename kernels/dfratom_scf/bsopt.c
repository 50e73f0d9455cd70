/* dfratom_scf: basis-set optimisation (job=bsopt). Minimises the SCF total energy over the
 * well-tempered parameters (alpha, beta) with Powell's derivative-free NEWUOA as NLopt
 * implements it; every objective evaluation is one SCF with the case's backend. */
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"
#include "sb_mpi.h"

typedef struct {
    dfr_case *d;
    int evals, failures;
    double best;
} bs_state;

/* One SCF in basis (alpha, beta); the energy, or NAN when it cannot be done */
double dfr_bsopt_energy(dfr_case *d, double alpha, double beta, dfr_result *r)
{
    dfr_wtbs w = d->w;
    w.alpha = alpha;
    w.beta = beta;
    return dfr_candidate_energy(d, &w, r, NULL);
}

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    (void)n, (void)grad;
    bs_state *s = data;
    double alpha, beta;
    dfr_bsopt_params(x, &alpha, &beta);
    dfr_result r;
    double e = dfr_bsopt_energy(s->d, alpha, beta, &r);
    s->evals++;
    s->d->bs.fock_builds += r.fock_builds;
    if (!isfinite(e)) { /* a failed SCF: steer the optimiser away without a NaN */
        s->failures++;
        return s->best + 1.0;
    }
    if (e < s->best) s->best = e;
    sb_progress("dfratom_scf bsopt: evaluation %d  alpha %.6g  beta %.6g  E %.10f Eh", s->evals, alpha, beta, e);
    return e;
}

enum { BS_E, BS_ALPHA, BS_BETA, BS_EVALS, BS_FAILS, BS_BUILDS, BS_NFIELD };

/* NEWUOA from start j; out[] as the enum above (E = NAN when NLopt failed) */
static void bs_newuoa(dfr_case *d, int j, double e0, double *out)
{
    bs_state s = {d, 0, 0, e0};
    int builds0 = d->bs.fock_builds;
    double x[2], step[2] = {0.2, 0.05}, f = NAN;
    dfr_bsopt_start_x(d, j, x);
    nlopt_opt opt = nlopt_create(NLOPT_LN_NEWUOA, 2);
    nlopt_result res = NLOPT_FAILURE;
    if (opt) {
        nlopt_set_min_objective(opt, objective, &s);
        nlopt_set_initial_step(opt, step);
        nlopt_set_maxeval(opt, d->bs_maxeval);
        nlopt_set_ftol_abs(opt, 1e-9);
        nlopt_set_xtol_rel(opt, 1e-6);
        res = nlopt_optimize(opt, x, &f);
        nlopt_destroy(opt);
    }
    if (res < 0) sb_error("dfratom_scf: bsopt: NLopt NEWUOA failed from start %d (code %d)", j, (int)res);
    out[BS_E] = res < 0 ? NAN : f;
    dfr_bsopt_params(x, &out[BS_ALPHA], &out[BS_BETA]);
    out[BS_EVALS] = s.evals, out[BS_FAILS] = s.failures;
    out[BS_BUILDS] = d->bs.fock_builds - builds0;
}

/* bsopt_scan = n > 0: candidates 0 .. n-1 (dfr_bsopt_start) in one batch (batch.c), every
 * rank the same; the NEWUOA starts become the best S of them, best first */
static int bs_scan(dfr_case *d, int *start)
{
    dfr_bsopt_result *b = &d->bs;
    const int n = d->bs_scan, S = d->bs_starts;
    b->scan_scfs = b->scan_fock_builds = 0;
    b->scan_best = NAN;
    if (n <= 0) return SB_OK;
    dfr_batch_out o;
    int rc = dfr_batch_out_alloc(&o, n);
    if (!rc) rc = dfr_batch_eval(d, DFR_ENGINE_BATCHED, 0, n, &o);
    for (int k = 0; k < S && !rc; ++k) { /* selection: the k-th lowest converged energy */
        int m = -1;
        for (int j = 0; j < n; ++j) {
            int taken = 0;
            for (int q = 0; q < k; ++q) taken |= start[q] == j;
            if (!taken && isfinite(o.energy[j]) && (m < 0 || o.energy[j] < o.energy[m])) m = j;
        }
        if (m < 0) {
            sb_error("dfratom_scf: bsopt: only %d of the %d scanned bases converged, %d starts asked", k, n, S);
            rc = SB_EXIT_RUNTIME;
            break;
        }
        start[k] = m;
        if (k == 0) b->scan_best = o.energy[m];
    }
    b->scan_scfs = n;
    b->scan_fock_builds = o.fock_builds;
    dfr_batch_out_free(&o);
    return rc;
}

/* The starts are dealt round-robin to the MPI ranks (each NEWUOA is serial); every rank
 * then holds every start's outcome and takes the same best one, so the result does not
 * depend on the number of ranks. */
int dfr_bsopt(dfr_case *d)
{
    dfr_bsopt_result *b = &d->bs;
    dfr_result r;
    const int S = d->bs_starts, ranks = sb_mpi_size(), me = sb_mpi_rank();
    b->fock_builds = 0; /* objective() counts this rank's starts here */
    b->e0 = dfr_bsopt_energy(d, d->w.alpha, d->w.beta, &r);
    const int shared = r.fock_builds; /* every rank makes the first and the last SCF */
    if (!isfinite(b->e0)) {
        sb_error("dfratom_scf: bsopt: the starting basis (alpha %g, beta %g) does not converge", d->w.alpha, d->w.beta);
        return SB_EXIT_RUNTIME;
    }
    double *out = calloc((size_t)S * BS_NFIELD, sizeof *out);
    int *start = malloc(sizeof(int) * S);
    if (!out || !start) {
        free(out), free(start);
        return SB_EXIT_RUNTIME;
    }
    for (int j = 0; j < S; ++j) start[j] = j;
    int rc = bs_scan(d, start);
    if (rc) {
        free(out), free(start);
        return rc;
    }
    for (int j = me; j < S; j += ranks) bs_newuoa(d, start[j], b->e0, out + (size_t)j * BS_NFIELD);
    const int mine = b->fock_builds;
    sb_mpi_sum(out, (long)S * BS_NFIELD); /* each start's row is nonzero on one rank only */
    sb_progress_done();
    int best = -1;
    b->evals = 1 + b->scan_scfs, b->failures = 0, b->fock_builds = shared + b->scan_fock_builds;
    for (int j = 0; j < S; j++) {
        const double *o = out + (size_t)j * BS_NFIELD;
        b->evals += (int)o[BS_EVALS], b->failures += (int)o[BS_FAILS], b->fock_builds += (int)o[BS_BUILDS];
        if (isfinite(o[BS_E]) && (best < 0 || o[BS_E] < out[(size_t)best * BS_NFIELD + BS_E])) best = j;
    }
    if (best < 0) {
        free(out);
        free(start);
        sb_error("dfratom_scf: bsopt: NLopt NEWUOA failed from every start");
        return SB_EXIT_RUNTIME;
    }
    b->alpha = out[(size_t)best * BS_NFIELD + BS_ALPHA];
    b->beta = out[(size_t)best * BS_NFIELD + BS_BETA];
    b->energy = out[(size_t)best * BS_NFIELD + BS_E];
    b->best_start = start[best];
    free(out);
    free(start);
    /* leave the case in the optimum, with its SCF result, for the report and the checks */
    d->w.alpha = b->alpha;
    d->w.beta = b->beta;
    b->energy_rerun = dfr_bsopt_energy(d, b->alpha, b->beta, &d->r);
    b->fock_builds += d->r.fock_builds;
    b->rank_fock_builds = shared + b->scan_fock_builds + mine + d->r.fock_builds;
    return SB_OK;
}
