/* dfratom_scf: the automatic basis-size optimisation (job=bsize), CUDAProphet's workflow.
 * Start from the large well-tempered basis s(1:M) p(1:M) d(1:M) f(1:M) and optimise its
 * parameters (alpha, beta, gamma, delta) with NEWUOA. Then shrink one range end at a time: the
 * upper ends of f, d, p and s, then the lower ends of f, d and p. At each step every smaller
 * size of that end is a candidate; each candidate's parameters are optimised from the current
 * basis's, and the smallest candidate whose energy stays within bsize_tol (relative) of the
 * reference becomes the current basis. A symmetry without an occupied shell does not enter the
 * closed-shell SCF (its functions cannot change the energy), so its ranges go to nothing
 * without an SCF.
 *
 * The candidates of a step are optimised together (lockstep.c): each NEWUOA round's trial
 * points, one per candidate still running, are evaluated as one batch (batch.c). Candidates of
 * different sizes run in the shape of the largest of their group, the functions they lack as
 * padding (dfr_basis_build_in); bsize_groups splits a step's candidates by size into groups
 * padded apart, which run side by side (bsize_side). Under MPI the candidates of a step are
 * dealt to the ranks. */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"
#include "sb_mpi.h"
#include "sb_omp.h"

#define NX 4 /* ln alpha, ln(beta - 1), gamma, delta */

static const char spdf[] = "spdf";

typedef struct {
    dfr_wtbs w;     /* ranges; after the optimisation, the best parameters */
    int l, group;   /* the range end it varies; its padding group */
    int feasible;   /* holds the occupied shells */
    double e, best; /* optimised energy (NAN: failed); best value so far (during) */
    double rint;    /* radial 2e integrals of one Fock build in its own basis */
    double xbest[NX];
    int evals, stopped; /* stopped: passed after a smaller size had passed */
} cand;

typedef struct {
    dfr_case *d;
    dfr_bsize_result *r;
    int engine, lmax;       /* the atom's l range: 0 .. lmax */
    int nocc_l[4];          /* occupied shells per l (the larger of its two kappas) */
    dfr_batch_out o;        /* the groups' timers and Fock builds, summed (opt_free) */
    char *text;             /* the report (rank 0) */
    size_t len, cap;
} bz_run;

static void say(bz_run *z, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(bz_run *z, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (z->len + n + 1 > z->cap) {
        size_t cap = 2 * (z->len + n + 1);
        char *t = realloc(z->text, cap);
        if (!t) return;
        z->text = t, z->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(z->text + z->len, z->cap - z->len, fmt, ap);
    va_end(ap);
    z->len += n;
}

static void to_x(const dfr_wtbs *w, double *x)
{
    x[0] = log(w->alpha), x[1] = log(w->beta - 1.0), x[2] = w->gamma, x[3] = w->delta;
}

static void from_x(const double *x, dfr_wtbs *w)
{
    w->alpha = exp(x[0]), w->beta = 1.0 + exp(x[1]), w->gamma = x[2], w->delta = x[3];
}

/* The ranges of w, e.g. "s(1:31) p(3:28)" */
static const char *ranges(const bz_run *z, const dfr_wtbs *w, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int l = 0; l <= z->lmax && at < n; ++l)
        at += snprintf(buf + at, n - at, "%s%c(%d:%d)", l ? " " : "", spdf[l], w->start[l], w->start[l] + w->n[l] - 1);
    return buf;
}

/* Parameters that give a usable sequence for w: within the parameters' ranges; over the indices its
 * ranges use, every exponent
 * within 1e-8 .. 1e14 bohr^-2 and strictly increasing (no two functions alike); over the whole
 * sequence 1 .. K, which padding may take its exponents from, finite and positive */
static int usable(const bz_run *z, const dfr_wtbs *w)
{
    /* the command line's ranges, so that the basis file written is one job=scf reads */
    const dfr_range *r[4] = {&dfr_range_alpha, &dfr_range_beta, &dfr_range_gamma, &dfr_range_delta};
    const double x[4] = {w->alpha, w->beta, w->gamma, w->delta};
    for (int i = 0; i < 4; ++i)
        if (!(x[i] >= r[i]->lo && x[i] <= r[i]->hi)) return 0;
    int lo = DFR_MAXN + 1, hi = 0;
    for (int l = 0; l <= z->lmax; ++l) {
        lo = w->start[l] < lo ? w->start[l] : lo;
        hi = w->start[l] + w->n[l] - 1 > hi ? w->start[l] + w->n[l] - 1 : hi;
    }
    double prev = 0.0;
    for (int k = 1; k <= w->K; ++k) {
        const double zk = dfr_wtbs_zeta(w, k);
        if (!(isfinite(zk) && zk > 0.0)) return 0;
        if (k < lo || k > hi) continue;
        if (!(zk > prev && zk >= 1e-8 && zk <= 1e14)) return 0;
        prev = zk;
    }
    return 1;
}

static double rel_err(const bz_run *z, double e) { return fabs(e - z->r->e_ref) / fabs(z->r->e_ref); }

/* Radial 2e integrals of one Fock build in w's own basis (they depend on the ranges only) */
static double rint_of(const bz_run *z, const dfr_wtbs *w)
{
    dfr_sym y;
    dfr_fun f[DFR_NSYM * DFR_MAXN];
    dfr_counts cnt;
    if (dfr_basis_build(w, z->d->y.ns, &y, f)) return 0.0;
    dfr_count(&y, f, z->d->o.ham == DFR_DIRAC, &cnt);
    return cnt.rint_per_build;
}

/* Doubles of a packed matrix set in w's shape (dfr_set_size) */
static long set_size(const bz_run *z, const dfr_wtbs *w)
{
    long n = 0;
    for (int s = 0; s < z->d->y.ns; ++s) n += 3L * w->n[dfr_l(dfr_kappa[s])] * w->n[dfr_l(dfr_kappa[s])];
    return n;
}

/* The union of the ranges of c[0 .. n) */
static dfr_wtbs shape_of(const bz_run *z, const cand *c, int n)
{
    dfr_wtbs u = c[0].w;
    for (int i = 1; i < n; ++i)
        for (int l = 0; l <= z->lmax; ++l) {
            int lo = u.start[l] < c[i].w.start[l] ? u.start[l] : c[i].w.start[l];
            int a = u.start[l] + u.n[l], b = c[i].w.start[l] + c[i].w.n[l];
            u.start[l] = lo, u.n[l] = (a > b ? a : b) - lo;
        }
    return u;
}

/* One optimisation of a step: its candidates, their padding groups and evaluation buffers */
typedef struct {
    bz_run *z;
    cand *c;
    int n, G;
    dfr_wtbs *ug;       /* each group's shape */
    dfr_batcher **bt;   /* batched engine: each group's buffers */
    dfr_warm *wm;       /* each candidate's last density (bsize_warm) */
    double *X, *F;      /* a round's points and values */
    int *idx, *it;      /* a round's candidates; SCF iterations of each point (-1: no SCF) */
    int *gbase, *grc;   /* each group's slice of pos, w, wq (its size is its candidates'); outcome */
    int *pos;
    dfr_wtbs *w;        /* a group's points as bases */
    dfr_warm *wq;
    dfr_batch_out *og;  /* each group's outcomes */
    int side_by_side;   /* groups run at once, each on `share` threads */
    int share;
} bz_opt;

static void opt_free(bz_opt *p)
{
    for (int g = 0; g < p->G && p->bt; ++g) dfr_batcher_free(p->bt[g]);
    for (int i = 0; i < p->n && p->wm; ++i) free(p->wm[i].Dw);
    for (int g = 0; g < p->G && p->og; ++g) dfr_batch_out_add(&p->z->o, &p->og[g]), dfr_batch_out_free(&p->og[g]);
    free(p->ug), free(p->bt), free(p->wm), free(p->X), free(p->F), free(p->idx), free(p->it), free(p->gbase);
    free(p->grc), free(p->pos), free(p->w), free(p->wq), free(p->og);
}

/* Buffers for c[0 .. n), whose groups (c[i].group < G) run in the shapes ug (batched engine) */
static int opt_init(bz_opt *p, bz_run *z, cand *c, int n, int G, const dfr_wtbs *ug)
{
    dfr_case *d = z->d;
    const int batched = z->engine == DFR_ENGINE_BATCHED;
    memset(p, 0, sizeof *p);
    p->z = z, p->c = c, p->n = n, p->G = G;
    p->ug = malloc(sizeof *p->ug * G), p->bt = calloc(G, sizeof *p->bt), p->wm = calloc(n, sizeof *p->wm);
    p->X = malloc(sizeof(double) * NX * n), p->F = malloc(sizeof(double) * n);
    p->idx = malloc(sizeof(int) * n), p->it = malloc(sizeof(int) * n), p->pos = malloc(sizeof(int) * n);
    p->gbase = calloc(G, sizeof(int)), p->grc = calloc(G, sizeof(int)), p->og = calloc(G, sizeof *p->og);
    p->w = malloc(sizeof *p->w * n), p->wq = malloc(sizeof *p->wq * n);
    if (!p->ug || !p->bt || !p->wm || !p->X || !p->F || !p->idx || !p->it || !p->pos || !p->gbase || !p->grc ||
        !p->og || !p->w || !p->wq)
        return SB_EXIT_RUNTIME;
    memcpy(p->ug, ug, sizeof *ug * G);
    for (int i = 0; i < n; ++i) c[i].best = NAN, c[i].e = NAN, c[i].stopped = 0, c[i].rint = rint_of(z, &c[i].w);
    /* A group's batch is short (a handful of candidates) and its SCF steps wait on each other:
     * run one after another, a round would cost the sum of the groups' SCFs */
    p->side_by_side = batched && G > 1 && d->bz.side && d->backend != SB_BACKEND_REFERENCE;
    const int threads = omp_get_max_threads();
    p->share = p->side_by_side && threads / G > 1 ? threads / G : 1;
    int rc = SB_OK;
    for (int g = 0, base = 0; g < G && !rc; ++g) {
        int m = 0;
        for (int i = 0; i < n; ++i) m += c[i].group == g;
        p->gbase[g] = base, base += m;
        rc = dfr_batch_out_alloc(&p->og[g], m > 0 ? m : 1);
        if (rc || !m || !batched) continue;
        rc = dfr_batcher_create(d, &p->ug[g], m, d->batch_mem / G, &p->bt[g]); /* held together */
        if (!rc && p->side_by_side) dfr_batcher_share(p->bt[g], p->share, g == 0);
    }
    /* each candidate's SCFs start from its previous point's density, in the shape they run in */
    for (int i = 0; i < n && !rc && d->bz.warm; ++i)
        if (!(p->wm[i].Dw = calloc(set_size(z, batched ? &p->ug[c[i].group] : &c[i].w), sizeof(double))))
            rc = SB_EXIT_RUNTIME;
    return rc;
}

/* Group g's points of this round (m points, p->idx, p->X) evaluated: energies into p->F, SCF
 * iterations into p->it. Touches only the group's own points, slices and outcomes, so groups
 * may run at once. */
static int opt_group(bz_opt *p, int g, int m)
{
    bz_run *z = p->z;
    dfr_case *d = z->d;
    dfr_batch_out *o = &p->og[g];
    int *pos = p->pos + p->gbase[g], q = 0, rc;
    dfr_wtbs *w = p->w + p->gbase[g];
    dfr_warm *wq = p->wq + p->gbase[g];
    for (int k = 0; k < m; ++k) {
        cand *ck = &p->c[p->idx[k]];
        if (ck->group != g) continue;
        dfr_wtbs wk = ck->w;
        from_x(p->X + NX * k, &wk);
        p->F[k] = NAN, p->it[k] = -1;
        if (!usable(z, &wk)) continue;
        wq[q] = p->wm[p->idx[k]], pos[q] = k, w[q++] = wk;
    }
    if (!q) return SB_OK;
    dfr_warm *warm = d->bz.warm ? wq : NULL;
    if (z->engine == DFR_ENGINE_BATCHED) rc = dfr_batcher_run(p->bt[g], w, q, o, 0, warm);
    else rc = dfr_batch_list(d, DFR_ENGINE_SEQUENTIAL, NULL, w, q, o, 0, warm);
    for (int i = 0; i < q; ++i) {
        const int k = pos[i];
        p->F[k] = o->energy[i], p->it[k] = o->iters[i];
        p->wm[p->idx[k]].valid = wq[i].valid;
    }
    return rc;
}

/* Every group's points of this round: side by side, each group on a thread of its own whose
 * share of the cores (dfr_batcher_share) its batch's loops use; on the GPU each group's
 * copies and launches go to its own host thread's stream */
static int opt_round(bz_opt *p, int m)
{
    bz_run *z = p->z;
    int rc = SB_OK;
    if (!p->side_by_side) {
        for (int g = 0; g < p->G && !rc; ++g) rc = opt_group(p, g, m);
    } else {
        const int levels = omp_get_max_active_levels();
        if (levels < 3) omp_set_max_active_levels(3); /* groups, a group's lanes, a lane's team */
#pragma omp parallel for num_threads(p->G) proc_bind(spread) schedule(dynamic, 1)
        for (int g = 0; g < p->G; ++g) {
            omp_set_num_threads(p->share);
            p->grc[g] = opt_group(p, g, m);
        }
        if (levels < 3) omp_set_max_active_levels(levels);
        for (int g = 0; g < p->G && !rc; ++g) rc = p->grc[g];
    }
    /* a group's batch iterates until its slowest SCF ends; side by side, the round waits for
     * the slowest group, one after another for every group; the sequential engine for every SCF */
    const int serial = z->engine == DFR_ENGINE_SEQUENTIAL;
    int gmax[DFR_BSIZE_GROUPS_MAX] = {0}, crit = 0;
    for (int k = 0; k < m; ++k) {
        if (p->it[k] < 0) continue;
        const double items = p->c[p->idx[k]].rint * p->it[k];
        z->r->items += items, z->r->rank_items += items, z->r->scfs++;
        const int g = p->c[p->idx[k]].group;
        if (serial) crit += p->it[k];
        else if (p->it[k] > gmax[g]) gmax[g] = p->it[k];
    }
    for (int g = 0; g < p->G; ++g) crit = p->side_by_side ? (gmax[g] > crit ? gmax[g] : crit) : crit + gmax[g];
    z->r->critical_iters += crit;
    return rc;
}

/* NEWUOA for each of c[0 .. n) (this rank's share: candidate k is the step's me + k * ranks of
 * ntot) in lockstep from parameters x0; every round's points in one batch per padding group. On
 * return c[i].e (NAN: no SCF converged), c[i].w with the best parameters, evals. nested: the
 * candidates are sizes of one range end, ascending, and one that passes is stopped once a smaller
 * one has passed: it can no longer be chosen (passing is for good, the best value only falls), so
 * the step's choice is the same as without. The ranks go round by round together and share which
 * candidates pass, so every candidate stops in the round it would on one rank: the SCFs, and the
 * rounds, are those of one rank. */
static int optimise(bz_run *z, cand *c, int n, int ntot, const double *x0, int nested, int G, const dfr_wtbs *ug)
{
    dfr_bsize_result *r = z->r;
    const double tol = z->d->bz.tol;
    const int ranks = sb_mpi_size(), me = sb_mpi_rank();
    if (ntot <= 0 || (ranks == 1 && n <= 0)) return SB_OK;
    bz_opt p = {0};
    dfr_lockstep *ls = NULL;
    int rc = n > 0 ? opt_init(&p, z, c, n, G, ug) : SB_OK;
    double *x = malloc(sizeof(double) * NX * (n > 0 ? n : 1));
    double *passed = calloc((size_t)ntot, sizeof *passed); /* by the step's index, summed over ranks */
    if (!x || !passed) rc = SB_EXIT_RUNTIME;
    for (int i = 0; i < n && !rc; ++i) memcpy(x + NX * i, x0, sizeof(double) * NX), memcpy(c[i].xbest, x0, sizeof c[i].xbest);
    const double step[NX] = {0.2, 0.15, 0.1, 0.3}; /* ln alpha, ln(beta - 1), gamma, delta */
    /* No energy criterion: NLopt's NEWUOA stops at the first accepted step that gains less than
     * ftol_abs, however early, and a step along delta while gamma is near 0 gains nothing (the start
     * basis of Ne stopped after 14 SCFs at 1e-10 Eh). The trust region ends at 1e-3 of the steps. */
    dfr_lockstep_opts lo = {z->d->bz.evals, 0.0, 1e-3};
    if (!rc && n > 0) rc = dfr_lockstep_start(n, NX, x, step, &lo, &ls);
    for (;;) {
        int m = !rc && n > 0 ? dfr_lockstep_points(ls, p.idx, p.X) : 0;
        /* 2: a rank failed, every rank stops; 1: some rank has points; 0: every rank is done */
        const int state = ranks > 1 ? sb_mpi_max_int(rc ? 2 : m > 0) : (rc ? 2 : m > 0);
        if (state != 1) break;
        if (m > 0) rc = opt_round(&p, m);
        for (int k = 0; k < m && !rc; ++k) {
            cand *ck = &c[p.idx[k]];
            if (!isfinite(p.F[k])) { /* no SCF, or one that failed: steer NEWUOA away without a NaN */
                r->failed_scfs++;
                p.F[k] = (isfinite(ck->best) ? ck->best : r->e_ref) + 1.0;
            } else if (!(p.F[k] >= ck->best)) {
                ck->best = p.F[k];
                memcpy(ck->xbest, p.X + NX * k, sizeof ck->xbest);
            }
        }
        if (nested) {
            memset(passed, 0, sizeof *passed * (size_t)ntot);
            for (int i = 0; i < n && !rc; ++i)
                passed[me + (long)i * ranks] = isfinite(c[i].best) && rel_err(z, c[i].best) <= tol;
            if (ranks > 1) sb_mpi_sum(passed, ntot);
            for (int j = 0, k = 0, smaller_passed = 0; j < ntot && !rc; ++j) {
                if (j % ranks == me) { /* this rank's candidate k */
                    if (passed[j] > 0 && smaller_passed && !c[k].stopped) dfr_lockstep_stop(ls, k), c[k].stopped = 1;
                    k++;
                }
                smaller_passed |= passed[j] > 0;
            }
        }
        r->rounds++;
        sb_progress("dfratom_scf bsize: round %d, %d candidates, %d SCFs so far", r->rounds, m, r->scfs);
        if (!rc && m > 0) dfr_lockstep_values(ls, m, p.idx, p.F);
    }
    for (int i = 0; i < n && !rc; ++i) {
        double xi[NX], f;
        dfr_lockstep_result(ls, i, xi, &f, &c[i].evals);
        from_x(c[i].xbest, &c[i].w);
        c[i].e = c[i].best;
    }
    dfr_lockstep_free(ls);
    if (n > 0) opt_free(&p);
    free(x), free(passed);
    return rc;
}

/* c[0 .. n) (ascending in size where nested) optimised, dealt to the ranks (i % ranks); every
 * rank ends with every outcome. The padding groups (bsize_groups of consecutive candidates, each
 * in the shape of its largest) are the step's, whatever the number of ranks: a candidate's SCFs,
 * and so its optimisation, do not depend on which others share its batch. */
static int optimise_all(bz_run *z, cand *c, int n, const double *x0, int nested)
{
    const int ranks = sb_mpi_size(), me = sb_mpi_rank();
    const int groups = z->engine != DFR_ENGINE_BATCHED || n < 1 ? 1 : z->d->bz.groups < n ? z->d->bz.groups : n;
    int mine = 0;
    cand *my = malloc(sizeof *my * (n > 0 ? n : 1));
    double *buf = calloc((size_t)(n > 0 ? n : 1) * (NX + 3), sizeof *buf);
    dfr_wtbs *ug = malloc(sizeof *ug * groups);
    if (!my || !buf || !ug) {
        free(my), free(buf), free(ug);
        return SB_EXIT_RUNTIME;
    }
    for (int g = 0, i0 = 0; g < groups && n > 0; ++g) {
        int m = 0;
        while (i0 + m < n && (long)(i0 + m) * groups / n == g) c[i0 + m].group = g, m++;
        ug[g] = m ? shape_of(z, c + i0, m) : c[0].w;
        i0 += m;
    }
    for (int i = me; i < n; i += ranks) my[mine++] = c[i];
    const int scfs0 = z->r->scfs, fail0 = z->r->failed_scfs;
    const double items0 = z->r->items;
    int rc = optimise(z, my, mine, n, x0, nested, groups, ug);
    free(ug);
    for (int k = 0, i = me; k < mine; ++k, i += ranks) {
        double *b = buf + (size_t)i * (NX + 3);
        to_x(&my[k].w, b);
        b[NX] = my[k].e, b[NX + 1] = my[k].evals, b[NX + 2] = my[k].stopped;
    }
    free(my);
    rc = sb_mpi_max_int(rc);
    if (ranks > 1) {
        double cnt[3] = {z->r->scfs - scfs0, z->r->failed_scfs - fail0, z->r->items - items0};
        sb_mpi_sum(buf, (long)n * (NX + 3)); /* each candidate's row is nonzero on one rank only */
        sb_mpi_sum(cnt, 3);
        z->r->scfs = scfs0 + (int)cnt[0], z->r->failed_scfs = fail0 + (int)cnt[1], z->r->items = items0 + cnt[2];
    }
    for (int i = 0; i < n; ++i) {
        const double *b = buf + (size_t)i * (NX + 3);
        from_x(b, &c[i].w);
        c[i].e = b[NX], c[i].evals = (int)b[NX + 1], c[i].stopped = (int)b[NX + 2];
    }
    free(buf);
    return rc;
}

/* Step `step`: the upper (or lower) end of l's range, every smaller size a candidate */
static int shrink(bz_run *z, int step, int l, int upper, dfr_wtbs *cur, double *ecur)
{
    dfr_bsize_result *r = z->r;
    char rb[128];
    const char *end = upper ? "upper" : "lower";
    r->step_chosen[step] = -1;
    if (l > z->lmax) {
        say(z, "step %d: %c %s end: no occupied %c shell, so no %c function enters the closed-shell SCF: %c "
               "range empty (0 SCFs)\n", step, spdf[l], end, spdf[l], spdf[l], spdf[l]);
        r->step_chosen[step] = 0;
        return SB_OK;
    }
    const int size = cur->n[l], need = z->nocc_l[l], nc = size - 1;
    cand *c = calloc(nc > 0 ? nc : 1, sizeof *c);
    if (!c) return SB_EXIT_RUNTIME;
    int nf = 0;
    for (int m = 1; m < size; ++m) { /* ascending size */
        cand *k = &c[m - 1];
        k->w = *cur, k->l = l, k->w.n[l] = m, k->feasible = m >= need, k->e = NAN;
        if (!upper) k->w.start[l] = cur->start[l] + size - m;
        nf += k->feasible;
    }
    double x0[NX];
    to_x(cur, x0);
    const int scfs0 = r->scfs;
    /* the infeasible ones are the smallest: the feasible ones are c[nc - nf ..] */
    int rc = optimise_all(z, c + (nc - nf), nf, x0, 1);
    say(z, "step %d: %c %s end, from %s (%d candidates, %d SCFs)\n", step, spdf[l], end, ranges(z, cur, rb, sizeof rb),
        nf, r->scfs - scfs0);
    say(z, "  %4s  %-26s  %20s  %9s  %5s  %s\n", "size", "ranges", "E (Eh)", "error", "evals", "");
    int chosen = -1;
    for (int i = 0; i < nc; ++i) {
        const cand *k = &c[i];
        if (!k->feasible) {
            say(z, "  %4d  %-26s  %20s  %9s  %5s  cannot hold the %d occupied %c shells\n", k->w.n[l],
                ranges(z, &k->w, rb, sizeof rb), "-", "-", "-", need, spdf[l]);
            continue;
        }
        const double err = rel_err(z, k->e);
        const int pass = isfinite(k->e) && err <= z->d->bz.tol;
        if (pass && chosen < 0) chosen = i;
        say(z, "  %4d  %-26s  %20.10f  %9.2e  %5d  %s\n", k->w.n[l], ranges(z, &k->w, rb, sizeof rb), k->e, err,
            k->evals, !isfinite(k->e) ? "fail (no SCF converged)" : !pass ? "fail"
                      : k->stopped ? "pass (stopped: a smaller size passed)" : "pass");
    }
    say(z, "  %4d  %-26s  %20.10f  %9.2e  %5s  current\n", size, ranges(z, cur, rb, sizeof rb), *ecur,
        rel_err(z, *ecur), "-");
    if (chosen >= 0) *cur = c[chosen].w, *ecur = c[chosen].e;
    say(z, "  chosen: %s\n", ranges(z, cur, rb, sizeof rb));
    r->step_chosen[step] = cur->n[l];
    r->step_cands[step] = nf;
    free(c);
    return rc;
}

/* The final basis less one function at each end the workflow shrinks, optimised again. One
 * within the tolerance is taken (the lowest if several) and its ends are checked in turn, so
 * the checks of the last pass all break the tolerance. */
static int local_checks(bz_run *z, dfr_wtbs *fin, double *efin)
{
    dfr_bsize_result *r = z->r;
    cand c[DFR_BSIZE_ENDS];
    int end_of[DFR_BSIZE_ENDS], nf, rc = SB_OK;
    for (;;) { /* each pass that finds a smaller basis within the tolerance takes it: at most K passes */
        nf = 0, r->nlocal = 0;
        for (int upper = 1; upper >= 0; --upper)
            for (int l = z->lmax; l >= (upper ? 0 : 1); --l) {
                const int e = r->nlocal++;
                r->local_l[e] = l, r->local_hi[e] = upper, r->local_err[e] = INFINITY;
                if (fin->n[l] - 1 < z->nocc_l[l]) continue; /* cannot: the range holds the occupied shells */
                cand *k = &c[nf];
                memset(k, 0, sizeof *k);
                k->w = *fin, k->l = l, k->feasible = 1, k->w.n[l] = fin->n[l] - 1;
                if (!upper) k->w.start[l]++;
                end_of[nf++] = e;
            }
        double x0[NX];
        to_x(fin, x0);
        rc = optimise_all(z, c, nf, x0, 0);
        int take = -1;
        for (int i = 0; i < nf; ++i) {
            r->local_err[end_of[i]] = isfinite(c[i].e) ? rel_err(z, c[i].e) : INFINITY;
            if (r->local_err[end_of[i]] <= z->d->bz.tol && (take < 0 || c[i].e < c[take].e)) take = i;
        }
        if (rc || take < 0) break;
        /* NEWUOA from the final parameters found what the step's own run from the step's start
         * did not: the basis one smaller passes. It becomes the final basis, and its ends are
         * checked in turn. */
        char rb[128];
        say(z, "local minimality: %s, re-optimised, is within the tolerance (error %.2e): taken, its ends checked "
               "again\n", ranges(z, &c[take].w, rb, sizeof rb), r->local_err[end_of[take]]);
        *fin = c[take].w, *efin = c[take].e, r->local_taken++;
    }
    say(z, "local minimality: the final basis less one function at an end, re-optimised\n");
    for (int e = 0, i = 0; e < r->nlocal; ++e) {
        const int l = r->local_l[e];
        if (i < nf && end_of[i] == e) {
            char rb[128];
            say(z, "  %c %s end: %-26s  error %9.2e  %s\n", spdf[l], r->local_hi[e] ? "upper" : "lower",
                ranges(z, &c[i].w, rb, sizeof rb), r->local_err[e],
                r->local_err[e] > z->d->bz.tol ? "breaks the tolerance" : "STILL WITHIN: not minimal");
            i++;
        } else {
            say(z, "  %c %s end: cannot remove a function, the range holds exactly the %d occupied %c shells\n",
                spdf[l], r->local_hi[e] ? "upper" : "lower", z->nocc_l[l], spdf[l]);
        }
    }
    return rc;
}

static const char *ref_name(int kind)
{
    return kind == DFR_REF_LIMIT ? "numerical HF limit, data/REFERENCES.md"
           : kind == DFR_REF_LARGE ? "the optimised start basis"
                                   : "given (bsize_ref)";
}

int dfr_bsize(dfr_case *d)
{
    dfr_bsize_result *r = &d->bzr;
    const dfr_bsize_opts *bo = &d->bz;
    free(r->report);
    memset(r, 0, sizeof *r);
    bz_run z = {.d = d, .r = r, .engine = d->engine};
    for (int s = 0; s < d->y.ns; ++s) {
        const int l = dfr_l(dfr_kappa[s]);
        z.lmax = l > z.lmax ? l : z.lmax;
        z.nocc_l[l] = d->atom.nocc[s] > z.nocc_l[l] ? d->atom.nocc[s] : z.nocc_l[l];
    }
    int rc = SB_OK;
    const double t0 = sb_clock_seconds();
    /* step 0: the start basis */
    r->ref_kind = bo->ref_kind;
    r->e_ref = bo->ref_kind == DFR_REF_LIMIT ? dfr_hf_limit(d) : bo->ref_kind == DFR_REF_VALUE ? bo->ref_value : NAN;
    /* until the start basis is known (bsize_ref=large), the Thomas-Fermi energy -0.7687 Z^(7/3) Eh: it
     * is only the value of a failed point before any SCF of the start's optimisation converged */
    if (!isfinite(r->e_ref)) r->e_ref = -0.7687 * pow(d->atom.Z, 7.0 / 3.0);
    cand c0;
    memset(&c0, 0, sizeof c0);
    c0.w = d->w, c0.feasible = 1;
    r->start = d->w;
    double x0[NX];
    to_x(&d->w, x0);
    if (!rc) rc = optimise_all(&z, &c0, 1, x0, 0);
    if (!rc && !isfinite(c0.e)) {
        sb_error("dfratom_scf: bsize: no SCF in the start basis converged (alpha %g, beta %g): change alpha or beta",
                 d->w.alpha, d->w.beta);
        rc = SB_EXIT_RUNTIME;
    }
    if (rc) {
        free(z.text);
        return rc;
    }
    r->e_start = c0.e;
    if (bo->ref_kind == DFR_REF_LARGE) r->e_ref = c0.e;
    char rb[128];
    say(&z, "dfratom_scf bsize: %s%s, %s, %s nucleus; reference %.10f Eh (%s); tolerance %.3g relative; %s engine\n",
        d->atom.symbol, d->atom.charge ? " (ion)" : "", d->o.ham == DFR_DIRAC ? "Dirac-Coulomb" : "nonrelativistic",
        d->o.nucleus == DFR_NUC_POINT ? "point" : "Gaussian", r->e_ref, ref_name(r->ref_kind), bo->tol,
        d->engine == DFR_ENGINE_BATCHED ? "batched" : "sequential");
    say(&z, "step 0: start basis %s optimised: E = %.10f Eh, error %.2e, alpha %.6g beta %.6g gamma %.4g delta %.4g "
            "(%d SCFs)\n", ranges(&z, &c0.w, rb, sizeof rb), c0.e, rel_err(&z, c0.e), c0.w.alpha, c0.w.beta, c0.w.gamma,
        c0.w.delta, r->scfs);
    r->step_chosen[0] = d->w.K;
    if (rel_err(&z, c0.e) > bo->tol) {
        sb_error("dfratom_scf: bsize_tol=%g: the optimised start basis %s is %.2e (relative) from the reference %.10f Eh "
                 "(%s), so no basis can meet it: raise bsize_tol or bsize_max",
                 bo->tol, ranges(&z, &c0.w, rb, sizeof rb), rel_err(&z, c0.e), r->e_ref, ref_name(r->ref_kind));
        free(z.text);
        return SB_EXIT_USAGE;
    }
    dfr_wtbs cur = c0.w;
    double ecur = c0.e;
    /* steps 1-7: upper ends f, d, p, s; lower ends f, d, p */
    static const int step_l[DFR_BSIZE_STEPS] = {-1, 3, 2, 1, 0, 3, 2, 1};
    for (int st = 1; st < DFR_BSIZE_STEPS && !rc; ++st) {
        if (st >= bo->steps) {
            r->step_chosen[st] = -1;
            continue;
        }
        rc = shrink(&z, st, step_l[st], st <= 4, &cur, &ecur);
    }
    if (!rc && bo->local_check) rc = local_checks(&z, &cur, &ecur);
    r->final = cur, r->e_final = ecur, r->err_rel = rel_err(&z, ecur);
    r->seconds = sb_clock_seconds() - t0;
    r->t_tensor = z.o.t_tensor, r->t_contract = z.o.t_contract, r->t_host = z.o.t_host, r->t_eig = z.o.t_eig;
    double builds[5] = {z.o.fock_builds, z.o.maxit_scfs, z.o.maxit_builds, z.o.stalled_scfs,
                        z.o.stalled_builds}; /* of this rank's candidates */
    sb_mpi_sum(builds, 5);
    r->fock_builds = (int)builds[0], r->rounds = sb_mpi_max_int(r->rounds);
    r->maxit_scfs = (int)builds[1], r->maxit_builds = (int)builds[2];
    r->stalled_scfs = (int)builds[3], r->stalled_builds = (int)builds[4];
    r->critical_iters = sb_mpi_max_int(r->critical_iters); /* ranks run their rounds together */
    say(&z, "final basis: %s, alpha %.12g beta %.12g gamma %.8g delta %.8g (K = %d): E = %.10f Eh, error %.2e "
            "(tolerance %.3g); %d SCFs in %d rounds, %.1f s\n", ranges(&z, &cur, rb, sizeof rb), cur.alpha, cur.beta,
        cur.gamma, cur.delta, cur.K, ecur, r->err_rel, bo->tol, r->scfs, r->rounds, r->seconds);
    if (!rc) rc = dfr_basis_json(d, &cur, ecur, r->json, sizeof r->json);
    if (!rc && bo->out[0] && sb_mpi_rank() == 0) {
        FILE *fp = fopen(bo->out, "w");
        if (!fp || fputs(r->json, fp) < 0 || fclose(fp)) {
            sb_error("dfratom_scf: bsize_out=%s: cannot write the basis file", bo->out);
            rc = SB_EXIT_RUNTIME;
        } else {
            say(&z, "written: %s (job=scf reads it with --param basis=%s)\n", bo->out, bo->out);
        }
    }
    r->report = z.text;
    return rc;
}
