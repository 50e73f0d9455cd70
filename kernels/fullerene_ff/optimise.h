/* fullerene_ff: constants of the CG optimiser (optimise.c has the exact algorithm; the
 * OpenMP-SIMD and CUDA backends mirror it with these values). */
#ifndef FULLERENE_FF_OPTIMISE_H
#define FULLERENE_FF_OPTIMISE_H

/* Line search: accept a step when |s(alpha)| <= FF_LS_CURV |s(0)|, s = grad E . d. */
#define FF_LS_CURV 0.1
/* Line search: at most this many energy+gradient evaluations; then the last point is taken. */
#define FF_LS_MAXEVAL 20
/* Stall: an isomer whose last FF_LS_STALLS line searches all ran out of evaluations stops,
 * not converged. Healthy isomers accept within a few evaluations; the few C200 isomers that
 * never converge (0.08 %) otherwise spend 50 N iterations x 20 evaluations and set the time
 * of a whole GPU batch. */
#define FF_LS_STALLS 5
/* Progress: an isomer stops (stalled, not converged) when its best |g|^2 has not fallen to a
 * quarter (the RMS gradient halved) for FF_PROGRESS_PER_ATOM x N iterations. Converging
 * isomers need at most ~2.5 N iterations in all (C400) and halve their gradient many times
 * over; the few C200 isomers stuck at an RMS gradient of ~50 FFU/A otherwise run to the
 * 50 N cap with ~6 evaluations per iteration and set a GPU batch's time. */
#define FF_PROGRESS_PER_ATOM 2
/* First trial step of an isomer's first line search: the RMS atom displacement, Angstrom. */
#define FF_LS_STEP0 0.05
/* Default RMS gradient tolerance, FFU/Angstrom, and iteration cap per atom (ff_opts).
 * 1e-5 FFU/A puts optimised C60-Ih's atoms at one centroid distance to 2e-7 relative (worst
 * of 20 perturbed starts; the acceptance is 1e-6) and its bonds within 1e-6 A of 1.458 and
 * 1.401 A; 1e-6 costs 15 % more evaluations (C60 isomers: 172 instead of 149 on average). */
#define FF_GTOL_DEFAULT 1e-5
#define FF_MAXIT_PER_ATOM 50
#define FF_MAXIT_MIN_PER_ATOM 10 /* the smallest maxit accepted, per atom (setup.c says why) */


#include "fullerene_ff/ff_physics.h" /* FF_HD */

/* Options left at 0 take the defaults (every backend accepts a batch built that way). */
static inline ff_opts ff_opts_resolved(ff_opts o, int N)
{
    if (o.gtol <= 0) o.gtol = FF_GTOL_DEFAULT;
    if (o.maxit <= 0) o.maxit = (long)FF_MAXIT_PER_ATOM * N;
    return o;
}

/* The line search's bracket, shared by every backend so that all of them take the same
 * decisions from the same s values (optimise.c describes the rule). */
typedef struct {
    double s0, lo, slo, hi, shi;
    int have_hi, last;
} ff_ls;

FF_HD void ff_ls_start(ff_ls *ls, double s0)
{
    ls->s0 = s0, ls->lo = 0, ls->slo = s0, ls->hi = 0, ls->shi = 0;
    ls->have_hi = 0, ls->last = -1;
}

/* After evaluating s = s(alpha): 1 when alpha is accepted, else 0 and *alpha is the next
 * trial (doubling until bracketed, then Illinois). */
FF_HD int ff_ls_step(ff_ls *ls, double *alpha, double s)
{
    if (fabs(s) <= FF_LS_CURV * fabs(ls->s0)) return 1;
    if (s < 0) {
        ls->lo = *alpha, ls->slo = s;
        if (ls->have_hi && ls->last < 0) ls->shi *= 0.5;
    } else {
        if (ls->last > 0) ls->slo *= 0.5;
        ls->hi = *alpha, ls->shi = s, ls->have_hi = 1;
    }
    ls->last = s < 0 ? -1 : 1;
    *alpha = ls->have_hi ? ls->lo - ls->slo * (ls->hi - ls->lo) / (ls->shi - ls->slo) : 2 * *alpha;
    return 0;
}


typedef struct {
    double best_gg;
    long best_it;
} ff_progress;

FF_HD void ff_progress_start(ff_progress *p, double gg) { p->best_gg = gg, p->best_it = 0; }

/* After iteration it with |g|^2 = gg: 1 while the isomer still makes progress. */
FF_HD int ff_progress_ok(ff_progress *p, long it, double gg, int N)
{
    if (gg <= 0.25 * p->best_gg) p->best_gg = gg, p->best_it = it;
    return it - p->best_it < (long)FF_PROGRESS_PER_ATOM * N;
}

/* The conjugate gradient's scalar state and every decision it takes (restart, first trial
 * step, Polak-Ribiere+ beta, periodic restart, stopping), shared by the three backends; the
 * vector work (evaluations, dot products, updates of x, g, d) is each backend's own. */
typedef struct {
    int N;
    double gtol;
    long maxit;
    long it, k;               /* iterations; iterations since the last restart */
    int have_prev, stalls, progressing, conv;
    double alpha_prev, s0_prev; /* the last step taken and its s(0) */
    double gg;                /* |g|^2 at x */
    ff_progress pr;
} ff_cg;

FF_HD void ff_cg_start(ff_cg *c, int N, double gtol, long maxit, double gg)
{
    c->N = N, c->gtol = gtol, c->maxit = maxit, c->it = 0, c->k = 0;
    c->have_prev = 0, c->stalls = 0, c->progressing = 1, c->alpha_prev = 0, c->s0_prev = 0, c->gg = gg;
    c->conv = sqrt(gg / (3 * N)) <= gtol;
    ff_progress_start(&c->pr, gg);
}

/* Another iteration? Not after convergence, the cap, a non-finite gradient or a stall. */
FF_HD int ff_cg_running(const ff_cg *c)
{
    return !c->conv && c->it < c->maxit && isfinite(c->gg) && c->stalls < FF_LS_STALLS && c->progressing;
}

/* s0 = g.d >= 0: the caller sets d = -g; this is the new s0. */
FF_HD double ff_cg_restart(ff_cg *c)
{
    c->k = 0;
    return -c->gg;
}

/* The first trial step needs d.d only for an isomer's first line search. */
FF_HD int ff_cg_needs_dd(const ff_cg *c) { return !c->have_prev; }
FF_HD double ff_cg_first_alpha(const ff_cg *c, double s0, double dd)
{
    return c->have_prev ? c->alpha_prev * c->s0_prev / s0 : FF_LS_STEP0 / sqrt(dd / c->N);
}

/* After the line search (ok: it accepted alpha; alpha: the step taken; num = g1.(g1 - g0)):
 * beta for d = -g1 + beta d. */
FF_HD double ff_cg_beta(ff_cg *c, int ok, double alpha, double s0, double num)
{
    c->stalls = ok ? 0 : c->stalls + 1;
    c->alpha_prev = alpha, c->s0_prev = s0, c->have_prev = 1;
    double beta = num / c->gg;
    beta = beta > 0 ? beta : 0;
    if (++c->k >= 3 * c->N) beta = 0, c->k = 0;
    return beta;
}

/* The iteration ends at the new point, |g|^2 = gg there. */
FF_HD void ff_cg_next(ff_cg *c, double gg)
{
    c->gg = gg;
    c->it++;
    c->conv = sqrt(gg / (3 * c->N)) <= c->gtol;
    c->progressing = ff_progress_ok(&c->pr, c->it, gg, c->N);
}

FF_HD void ff_cg_result(const ff_cg *c, double e, int evals, ff_result *r)
{
    r->energy = e, r->grms = sqrt(c->gg / (3 * c->N)), r->iters = (int32_t)c->it, r->evals = evals;
    r->converged = c->conv;
    r->stalled = !c->conv && (c->stalls >= FF_LS_STALLS || !c->progressing);
}

#endif
