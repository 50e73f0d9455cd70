/* dfratom_scf: many NEWUOA minimisations in lockstep (job=bsize). NLopt calls its objective
 * once per trial point and waits for the value, so a batch of optimisations cannot hand their
 * points to one evaluator through that interface alone. Each optimisation therefore runs in a
 * thread of its own whose objective posts the trial point and sleeps; the caller collects the
 * points of every optimisation still running (one per optimisation and round), evaluates them
 * together and hands the values back. Each optimisation sees exactly the values a serial run
 * would, so the outcome does not depend on which others share its rounds. */
#include <math.h>
#include <nlopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

enum { LS_RUNNING, LS_ASKING, LS_ANSWERED, LS_DONE };

typedef struct {
    dfr_lockstep *ls;
    int i, state, evals, started, stop;
    double *x, value;
    nlopt_opt opt;
    nlopt_result res;
    double fbest;
    pthread_t thread;
    pthread_cond_t wake;
} ls_slot;

struct dfr_lockstep {
    int n, dim, stop;
    pthread_mutex_t mu;
    pthread_cond_t asked; /* an optimisation posted a point or ended */
    ls_slot *slot;
    double *x;            /* n x dim: the current (then final) points */
    double *xs, *v;       /* scratch for dfr_lockstep_free: n points, n values */
    int *idx;
};

static double ls_objective(unsigned dim, const double *x, double *grad, void *data)
{
    (void)grad;
    ls_slot *s = data;
    dfr_lockstep *ls = s->ls;
    pthread_mutex_lock(&ls->mu);
    memcpy(s->x, x, sizeof(double) * dim);
    s->state = LS_ASKING;
    pthread_cond_signal(&ls->asked);
    while (s->state == LS_ASKING) pthread_cond_wait(&s->wake, &ls->mu);
    const double v = s->value;
    s->evals++;
    if (ls->stop || s->stop) nlopt_force_stop(s->opt);
    pthread_mutex_unlock(&ls->mu);
    return v;
}

static void *ls_run(void *arg)
{
    ls_slot *s = arg;
    double *x = malloc(sizeof(double) * s->ls->dim), f = NAN;
    nlopt_result res = NLOPT_OUT_OF_MEMORY;
    if (x) {
        memcpy(x, s->x, sizeof(double) * s->ls->dim);
        res = nlopt_optimize(s->opt, x, &f);
    }
    pthread_mutex_lock(&s->ls->mu);
    if (x) memcpy(s->x, x, sizeof(double) * s->ls->dim);
    s->res = res, s->fbest = f, s->state = LS_DONE;
    pthread_cond_signal(&s->ls->asked);
    pthread_mutex_unlock(&s->ls->mu);
    free(x);
    return NULL;
}

int dfr_lockstep_start(int n, int dim, const double *x0, const double *step, const dfr_lockstep_opts *o,
                       dfr_lockstep **out)
{
    dfr_lockstep *ls = calloc(1, sizeof *ls);
    *out = ls;
    if (!ls) return SB_EXIT_RUNTIME;
    ls->n = n, ls->dim = dim;
    pthread_mutex_init(&ls->mu, NULL);
    pthread_cond_init(&ls->asked, NULL);
    ls->slot = calloc(n > 0 ? n : 1, sizeof *ls->slot);
    const size_t nn = (size_t)(n > 0 ? n : 1);
    ls->x = malloc(sizeof(double) * nn * dim), ls->xs = malloc(sizeof(double) * nn * dim);
    ls->v = malloc(sizeof(double) * nn), ls->idx = malloc(sizeof(int) * nn);
    if (!ls->slot || !ls->x || !ls->xs || !ls->v || !ls->idx) return SB_EXIT_RUNTIME;
    memcpy(ls->x, x0, sizeof(double) * (size_t)n * dim);
    int rc = SB_OK;
    for (int i = 0; i < n; ++i) {
        ls_slot *s = &ls->slot[i];
        s->ls = ls, s->i = i, s->x = ls->x + (size_t)i * dim, s->state = LS_DONE, s->res = NLOPT_FAILURE;
        s->fbest = NAN;
        pthread_cond_init(&s->wake, NULL);
        s->opt = nlopt_create(NLOPT_LN_NEWUOA, (unsigned)dim);
        if (!s->opt) {
            rc = SB_EXIT_RUNTIME;
            continue;
        }
        nlopt_set_min_objective(s->opt, ls_objective, s);
        nlopt_set_initial_step(s->opt, step);
        nlopt_set_maxeval(s->opt, o->maxeval);
        nlopt_set_ftol_abs(s->opt, o->ftol_abs);
        nlopt_set_xtol_rel(s->opt, o->xtol_rel);
    }
    for (int i = 0; i < n && !rc; ++i) {
        ls_slot *s = &ls->slot[i];
        s->state = LS_RUNNING;
        if (pthread_create(&s->thread, NULL, ls_run, s)) {
            s->state = LS_DONE;
            rc = SB_EXIT_RUNTIME;
        } else {
            s->started = 1;
        }
    }
    if (rc) sb_error("dfratom_scf: bsize: could not start %d NEWUOA optimisations (threads or NLopt)", n);
    return rc;
}

int dfr_lockstep_points(dfr_lockstep *ls, int *idx, double *X)
{
    int m = 0;
    pthread_mutex_lock(&ls->mu);
    for (int i = 0; i < ls->n; ++i) {
        ls_slot *s = &ls->slot[i];
        while (s->state == LS_RUNNING || s->state == LS_ANSWERED) pthread_cond_wait(&ls->asked, &ls->mu);
        if (s->state != LS_ASKING) continue;
        idx[m] = i;
        memcpy(X + (size_t)m * ls->dim, s->x, sizeof(double) * ls->dim);
        m++;
    }
    pthread_mutex_unlock(&ls->mu);
    return m;
}

void dfr_lockstep_values(dfr_lockstep *ls, int m, const int *idx, const double *f)
{
    pthread_mutex_lock(&ls->mu);
    for (int k = 0; k < m; ++k) {
        ls_slot *s = &ls->slot[idx[k]];
        s->value = f[k], s->state = LS_ANSWERED;
        pthread_cond_signal(&s->wake);
    }
    pthread_mutex_unlock(&ls->mu);
}

void dfr_lockstep_stop(dfr_lockstep *ls, int i)
{
    pthread_mutex_lock(&ls->mu);
    ls->slot[i].stop = 1;
    pthread_mutex_unlock(&ls->mu);
}

int dfr_lockstep_result(const dfr_lockstep *ls, int i, double *x, double *f, int *evals)
{
    const ls_slot *s = &ls->slot[i];
    memcpy(x, s->x, sizeof(double) * ls->dim);
    *f = s->fbest;
    *evals = s->evals;
    return (int)s->res;
}

/* Ends every optimisation still running (after an evaluation error: each is told to stop at
 * its next value), then frees */
void dfr_lockstep_free(dfr_lockstep *ls)
{
    if (!ls) return;
    if (ls->slot && ls->x && ls->idx && ls->v) {
        pthread_mutex_lock(&ls->mu);
        ls->stop = 1;
        pthread_mutex_unlock(&ls->mu);
        for (int m; (m = dfr_lockstep_points(ls, ls->idx, ls->xs)) > 0;) {
            for (int k = 0; k < m; ++k) ls->v[k] = HUGE_VAL;
            dfr_lockstep_values(ls, m, ls->idx, ls->v);
        }
    }
    for (int i = 0; ls->slot && i < ls->n; ++i) {
        ls_slot *s = &ls->slot[i];
        if (s->started) pthread_join(s->thread, NULL);
        if (s->opt) nlopt_destroy(s->opt);
        pthread_cond_destroy(&s->wake);
    }
    pthread_mutex_destroy(&ls->mu);
    pthread_cond_destroy(&ls->asked);
    free(ls->slot), free(ls->x), free(ls->xs), free(ls->idx), free(ls->v);
    free(ls);
}
