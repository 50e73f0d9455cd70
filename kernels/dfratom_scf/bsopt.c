/* dfratom_scf: basis-set optimisation (job=bsopt). Minimises the SCF total energy over the
 * well-tempered parameters (alpha, beta) with Powell's derivative-free NEWUOA as NLopt
 * implements it; every objective evaluation is one SCF with the case's backend. */
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

typedef struct {
    dfr_case *d;
    int evals, failures;
    double best;
} bs_state;

/* (alpha, beta) from the optimiser's unconstrained variables */
static void bs_params(const double *x, double *alpha, double *beta)
{
    *alpha = exp(x[0]);
    *beta = 1.0 + exp(x[1]);
}

/* One SCF in basis (alpha, beta); the energy, or NAN when it cannot be done */
double dfr_bsopt_energy(dfr_case *d, double alpha, double beta, dfr_result *r)
{
    memset(r, 0, sizeof *r);
    dfr_wtbs w = d->w;
    w.alpha = alpha;
    w.beta = beta;
    dfr_gbuild g;
    int ns = d->y.ns, rc;
    if (dfr_basis_build(&w, ns, &d->y, d->f) || dfr_builder_init(d, &g)) return NAN;
    rc = dfr_scf(&d->atom, &d->y, d->f, &d->o, &g, r, 0, NULL);
    dfr_builder_free(d, &g);
    return rc || !r->converged ? NAN : r->energy;
}

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    (void)n, (void)grad;
    bs_state *s = data;
    double alpha, beta;
    bs_params(x, &alpha, &beta);
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

int dfr_bsopt(dfr_case *d)
{
    dfr_bsopt_result *b = &d->bs;
    dfr_result r;
    b->fock_builds = 0;
    b->e0 = dfr_bsopt_energy(d, d->w.alpha, d->w.beta, &r);
    b->fock_builds += r.fock_builds;
    if (!isfinite(b->e0)) {
        sb_error("dfratom_scf: bsopt: the starting basis (alpha %g, beta %g) does not converge", d->w.alpha, d->w.beta);
        return SB_EXIT_RUNTIME;
    }
    bs_state s = {d, 1, 0, b->e0};
    nlopt_opt opt = nlopt_create(NLOPT_LN_NEWUOA, 2);
    if (!opt) return SB_EXIT_RUNTIME;
    double x[2] = {log(d->w.alpha), log(d->w.beta - 1.0)}, step[2] = {0.2, 0.05}, f = 0.0;
    nlopt_set_min_objective(opt, objective, &s);
    nlopt_set_initial_step(opt, step);
    nlopt_set_maxeval(opt, d->bs_maxeval);
    nlopt_set_ftol_abs(opt, 1e-9);
    nlopt_set_xtol_rel(opt, 1e-6);
    nlopt_result res = nlopt_optimize(opt, x, &f);
    nlopt_destroy(opt);
    sb_progress_done();
    if (res < 0) {
        sb_error("dfratom_scf: bsopt: NLopt NEWUOA failed (code %d)", (int)res);
        return SB_EXIT_RUNTIME;
    }
    bs_params(x, &b->alpha, &b->beta);
    b->energy = f;
    b->evals = s.evals;
    b->failures = s.failures;
    /* leave the case in the optimum, with its SCF result, for the report and the checks */
    d->w.alpha = b->alpha;
    d->w.beta = b->beta;
    b->energy_rerun = dfr_bsopt_energy(d, b->alpha, b->beta, &d->r);
    b->fock_builds += d->r.fock_builds;
    return SB_OK;
}
