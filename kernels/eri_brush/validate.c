/* eri_brush validation: libint2 (external truth), analytic (ss|ss) and permutational
 * symmetry, the scalar reference (oracle), and tr(JD) >= 0 (invariant). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/ericase.h"
#include "eri_brush/refdata.h"

#define ERI_PI 3.14159265358979323846

#define SRC_LIBINT2 "libint2 2.7 via tools/eri_libint2 (data/ref/)"
#define SRC_REF "scalar reference (reference.c, generic Obara-Saika)"

static long pair_index(int s, int t) { return s >= t ? (long)s * (s + 1) / 2 + t : (long)t * (t + 1) / 2 + s; }

/* The 8 permutations of a quartet that leave (ab|cd) unchanged. */
static const int perm8[8][4] = {{0, 1, 2, 3}, {1, 0, 2, 3}, {0, 1, 3, 2}, {1, 0, 3, 2},
                                {2, 3, 0, 1}, {3, 2, 0, 1}, {2, 3, 1, 0}, {3, 2, 1, 0}};

/* Value of element f[] of quartet (s[0] s[1]|s[2] s[3]) read from a block computed over
 * shells sh[] (another member of the same symmetry orbit). */
static double block_value(const eri_basis *bs, const double *blk, const int sh[4], const int s[4], const int f[4])
{
    for (int k = 0; k < 8; k++) {
        const int *p = perm8[k];
        if (s[p[0]] != sh[0] || s[p[1]] != sh[1] || s[p[2]] != sh[2] || s[p[3]] != sh[3]) continue;
        int n1 = bs->sh[sh[1]].nbf, n2 = bs->sh[sh[2]].nbf, n3 = bs->sh[sh[3]].nbf;
        return blk[((f[p[0]] * n1 + f[p[1]]) * n2 + f[p[2]]) * n3 + f[p[3]]];
    }
    return NAN;
}

static void quartet_shells(const eri_pairs *ps, eri_quartet q, int sh[4])
{
    sh[0] = ps->pair[q.P].a, sh[1] = ps->pair[q.P].b, sh[2] = ps->pair[q.Q].a, sh[3] = ps->pair[q.Q].b;
}

static int by_pq(const void *x, const void *y)
{
    const long *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/* Whether quartet (s[0] s[1]|s[2] s[3]) has a shell beyond the generated code (an f shell). */
static int beyond_code(const eri_basis *bs, const int s[4])
{
    int f = 0;
    for (int t = 0; t < 4; t++) f |= bs->sh[s[t]].l > ERI_CODE_LMAX;
    return f;
}

/* The backend that stores the integrals of worklist w: ops, or the scalar reference where w
 * has a class without generated code (f shells; the backend's J is checked on its own). */
static const eri_ops *store_ops(const eri_ops *ops, const eri_worklist *w, const char **tag)
{
    const int ref = eri_worklist_nocode_class(w) >= 0;
    *tag = ref ? " (reference.c)" : "";
    return ref ? &eri_ops_reference : ops;
}

/* libint2's blocks against the backend's, element by element. */
static int check_blocks(eri_case *ec, const eri_ops *ops, const eri_ref *r, sb_validation *v)
{
    const eri_basis *bs = &ec->bas;
    eri_quartet *q = malloc(sizeof *q * (size_t)r->nblock);
    long *key = malloc(sizeof(long) * 2 * (size_t)r->nblock);
    if (!q || !key) return free(q), free(key), SB_EXIT_RUNTIME;
    for (long i = 0; i < r->nblock; i++) {
        const int *s = r->blk[i].s;
        for (int k = 0; k < 4; k++)
            if (s[k] < 0 || s[k] >= bs->nshell) {
                sb_error("eri_brush: reference quartet %ld names shell %d; the basis has %d", i, s[k], bs->nshell);
                return free(q), free(key), SB_EXIT_VALIDATION;
            }
        q[i].P = (int)pair_index(s[0], s[1]), q[i].Q = (int)pair_index(s[2], s[3]);
    }
    eri_worklist w;
    double *st = NULL;
    const char *tag = "";
    int rc = eri_worklist_from(bs, &ec->ps, q, r->nblock, &w);
    if (!rc) rc = eri_store_run(ec, store_ops(ops, &w, &tag), &w, &st);
    if (rc) return free(q), free(key), eri_worklist_free(&w), rc;
    long npair = ec->ps.npair;
    for (long i = 0; i < w.nq; i++) {
        long P = w.q[i].P, Q = w.q[i].Q;
        key[2 * i] = P > Q ? P * npair + Q : Q * npair + P;
        key[2 * i + 1] = i;
    }
    qsort(key, (size_t)w.nq, 2 * sizeof(long), by_pq);
    /* [0]: blocks of the classes with generated code, [1]: blocks with an f shell (reference.c) */
    double maxabs[2] = {0, 0}, maxrel[2] = {0, 0};
    long n[2] = {0, 0}, nrel[2] = {0, 0}, missing = 0;
    for (long b = 0; b < r->nblock; b++) {
        const eri_ref_block *rb = &r->blk[b];
        long P = q[b].P, Q = q[b].Q, k[2] = {P > Q ? P * npair + Q : Q * npair + P, 0};
        long *hit = bsearch(k, key, (size_t)w.nq, 2 * sizeof(long), by_pq);
        int sh[4], nb[4];
        const int fs = beyond_code(bs, rb->s);
        for (int t = 0; t < 4; t++) nb[t] = bs->sh[rb->s[t]].nbf;
        if (!hit || nb[0] * nb[1] * nb[2] * nb[3] != rb->n) {
            missing++;
            continue;
        }
        quartet_shells(&ec->ps, w.q[hit[1]], sh);
        const double *blk = st + w.store_off[hit[1]];
        for (int e = 0; e < rb->n; e++) {
            int f[4] = {e / (nb[1] * nb[2] * nb[3]), e / (nb[2] * nb[3]) % nb[1], e / nb[3] % nb[2], e % nb[3]};
            double ours = block_value(bs, blk, sh, rb->s, f), ref = r->vals[rb->v0 + e];
            double d = fabs(ours - ref);
            if (!(d <= maxabs[fs])) maxabs[fs] = d; /* NaN propagates */
            if (fabs(ref) > 1e-6) {
                if (!(d / fabs(ref) <= maxrel[fs])) maxrel[fs] = d / fabs(ref);
                nrel[fs]++;
            }
            n[fs]++;
        }
    }
    char name[96]; /* sb_check_add keeps 63 characters; these stay below */
    snprintf(name, sizeof name, "libint2 integrals%s: max |dI| (%ld)", tag, n[0]);
    sb_check_add(v, name, maxabs[0], 0, 1e-12, SB_TOL_ABS, "hartree", SRC_LIBINT2);
    snprintf(name, sizeof name, "libint2 integrals%s |I|>1e-6: max rel (%ld)", tag, nrel[0]);
    sb_check_add(v, name, maxrel[0], 0, 1e-10, SB_TOL_ABS, "1", SRC_LIBINT2);
    if (n[1]) {
        /* The f blocks: the same 1e-12 hartree; relative 1e-9, not 1e-10: an (sf|ff) element of
         * 1.3e-6 in benzene/cc-pVTZ differs by 1.1e-15 hartree (8.6e-10), rounding of the same size
         * as the f classes show against their own permutations (check_symmetry). */
        snprintf(name, sizeof name, "libint2 f blocks (reference.c): max |dI| (%ld)", n[1]);
        sb_check_add(v, name, maxabs[1], 0, 1e-12, SB_TOL_ABS, "hartree", SRC_LIBINT2);
        snprintf(name, sizeof name, "libint2 f blocks |I|>1e-6: max rel (%ld)", nrel[1]);
        sb_check_add(v, name, maxrel[1], 0, 1e-9, SB_TOL_ABS, "1", SRC_LIBINT2);
    }
    sb_check_add(v, "libint2 quartets not found", (double)missing, 0, 0, SB_TOL_ABS, "quartets", SRC_LIBINT2);
    free(st), free(q), free(key);
    eri_worklist_free(&w);
    return SB_OK;
}

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

static void check_libint2(eri_case *ec, const eri_ops *ops, sb_validation *v, int *rc)
{
    const eri_ref r = ec->ref;
    const eri_basis *bs = &ec->bas;
    sb_check_add(v, "libint2 basis functions", bs->nbf, r.nbf, 0, SB_TOL_ABS, "functions", SRC_LIBINT2);
    sb_check_add(v, "libint2 shells", bs->nshell, r.nshell, 0, SB_TOL_ABS, "shells", SRC_LIBINT2);
    if (r.nbf != bs->nbf || r.nshell != bs->nshell || r.pure != ec->cfg.pure) return;
    if (r.nblock && (*rc = check_blocks(ec, ops, &r, v))) return;
    int same_set = r.screen == ec->cfg.screen;
    if (same_set) {
        /* a quartet whose Schwarz product rounds across the threshold may fall either side */
        sb_check_add(v, "libint2 screened quartets", (double)ec->w.nq, r.nquartets, 1e-4, SB_TOL_REL, "quartets",
                     SRC_LIBINT2);
    }
    const char *tag = "";
    const eri_ops *sops = store_ops(ops, &ec->w, &tag);
    if (same_set && r.has_sums && ec->w.neris <= (sops == ops ? 1e8 : 1e7)) {
        double *st = ec->store;
        if (!st && (*rc = eri_store_run(ec, sops, &ec->w, &st))) return;
        double s = 0, s2 = 0;
        for (long i = 0; i < ec->w.store_off[ec->w.nq]; i++) s += st[i], s2 += st[i] * st[i];
        if (st != ec->store) free(st);
        char name[96];
        snprintf(name, sizeof name, "libint2 sum of integrals%s", tag);
        sb_check_add(v, name, s, r.sum, 1e-10, SB_TOL_REL, "hartree", SRC_LIBINT2);
        snprintf(name, sizeof name, "libint2 sum of squares%s", tag);
        sb_check_add(v, name, s2, r.sum2, 1e-10, SB_TOL_REL, "hartree^2", SRC_LIBINT2);
    }
    if (same_set && r.has_j && ec->cfg.mode == ERI_MODE_DIGEST && (uint64_t)r.seed == ec->cfg.seed) {
        size_t n = (size_t)bs->nbf;
        double ej = 0, jn = 0, dj = 0;
        for (size_t i = 0; i < n * n; i++) ej += ec->M[i] * ec->D[i], jn += ec->M[i] * ec->M[i];
        for (long k = 0; k < r.nj; k++) {
            double d = fabs(ec->M[(size_t)r.ji[k] * n + (size_t)r.jj[k]] - r.jv[k]);
            if (!(d <= dj)) dj = d;
        }
        sb_check_add(v, "libint2 tr(JD)", ej, r.ej, 1e-10, SB_TOL_REL, "hartree", SRC_LIBINT2);
        sb_check_add(v, "libint2 |J|_F", sqrt(jn), r.jnorm, 1e-10, SB_TOL_REL, "hartree", SRC_LIBINT2);
        if (r.nj) {
            char name[64];
            snprintf(name, sizeof name, "libint2 J: max |dJ|/max|J| (%ld)", r.nj);
            sb_check_add(v, name, dj / max_abs(ec->M, n * n), 0, 1e-10, SB_TOL_ABS, "1", SRC_LIBINT2);
        }
    }
}

/* (ss|ss) of one unit-normalised s primitive on one centre is 2 sqrt(alpha/pi). */
static void check_analytic(eri_case *ec, const eri_ops *ops, sb_validation *v, int *rc)
{
    const double alpha = 1.7;
    eri_shell sh = {.l = 0, .nprim = 1, .nbf = 1};
    sh.alpha[0] = alpha, sh.coef[0] = pow(2 * alpha / ERI_PI, 0.75);
    eri_basis bs = {.nshell = 1, .nbf = 1, .lmax = 0, .maxprim = 1, .sh = &sh};
    eri_pairs ps;
    eri_worklist w;
    if ((*rc = eri_pairs_build(&bs, 0.0, &ps))) return;
    if ((*rc = eri_worklist_build(&bs, &ps, 0.0, &w))) return eri_pairs_free(&ps);
    eri_case tiny = *ec;
    tiny.bas = bs, tiny.ps = ps;
    tiny.b.bas = &tiny.bas, tiny.b.ps = &tiny.ps;
    double *st = NULL;
    if (!(*rc = eri_store_run(&tiny, ops, &w, &st)))
        sb_check_add(v, "(ss|ss) one centre = 2 sqrt(a/pi)", st[0], 2 * sqrt(alpha / ERI_PI), 1e-14, SB_TOL_REL,
                     "hartree", "analytic (Szabo & Ostlund, app. A)");
    free(st);
    eri_worklist_free(&w);
    eri_pairs_free(&ps);
}

/* `per` quartets of each class (code_only: of each class with generated code), evenly spread
 * over the class's part of the worklist. */
static int class_sample(const eri_worklist *w, long per, int code_only, eri_quartet **out, long *nout)
{
    long cnt[ERI_NCLASS] = {0}, n = 0;
    for (int k = 0; k < w->nseg; k++)
        if (!code_only || eri_class_has_code(w->seg[k].cls)) cnt[w->seg[k].cls] += w->seg[k].q1 - w->seg[k].q0;
    for (int c = 0; c < ERI_NCLASS; c++) n += cnt[c] < per ? cnt[c] : per;
    eri_quartet *q = malloc(sizeof *q * (size_t)(n ? n : 1));
    if (!q) return SB_EXIT_RUNTIME;
    long m = 0;
    for (int c = 0; c < ERI_NCLASS; c++) {
        long take = cnt[c] < per ? cnt[c] : per;
        for (long t = 0; t < take; t++) {
            long want = (long)((double)t * (double)cnt[c] / (double)take), base = 0;
            for (int k = 0; k < w->nseg; k++) {
                if (w->seg[k].cls != c) continue;
                long len = w->seg[k].q1 - w->seg[k].q0;
                if (want < base + len) {
                    q[m++] = w->q[w->seg[k].q0 + want - base];
                    break;
                }
                base += len;
            }
        }
    }
    *out = q, *nout = m;
    return SB_OK;
}

static void check_oracle(eri_case *ec, const eri_ops *ops, sb_validation *v, int *rc)
{
    const eri_basis *bs = &ec->bas;
    size_t n = (size_t)bs->nbf;
    if (ec->cfg.mode == ERI_MODE_DIGEST && ec->w.neris <= ERI_ORACLE_FULL_ERIS) {
        double *Mr = calloc(n * n, sizeof *Mr);
        if (!Mr) return (void)(*rc = SB_EXIT_RUNTIME);
        eri_batch b = ec->b;
        b.w = &ec->w; /* the whole list, also where the run's batch held one MPI rank's share */
        b.M = Mr, b.store = NULL, b.seg_seconds = NULL, b.dev = NULL, b.share = NULL;
        *rc = eri_ops_reference.prepare(&b);
        if (!*rc) *rc = eri_ops_reference.run(&b);
        if (!*rc) *rc = eri_ops_reference.download(&b);
        eri_ops_reference.release(&b);
        if (!*rc) {
            eri_coulomb_finish(bs, Mr);
            double d = 0;
            for (size_t i = 0; i < n * n; i++)
                if (!(fabs(ec->M[i] - Mr[i]) <= d)) d = fabs(ec->M[i] - Mr[i]);
            sb_check_add(v, "oracle J: max |dJ|/max|J|", d / max_abs(Mr, n * n), 0, 1e-11, SB_TOL_ABS, "1", SRC_REF);
        }
        free(Mr);
        if (*rc) return;
    }
    if (ec->cfg.oracle <= 0) return;
    eri_quartet *q;
    long nq;
    eri_worklist w;
    if ((*rc = class_sample(&ec->w, ec->cfg.oracle, 1, &q, &nq))) return;
    if ((*rc = eri_worklist_from(bs, &ec->ps, q, nq, &w))) return free(q);
    double *a = NULL, *r = NULL;
    *rc = eri_store_run(ec, ops, &w, &a);
    if (!*rc) *rc = eri_store_run(ec, &eri_ops_reference, &w, &r);
    if (!*rc) {
        double dabs = 0, drel = 0;
        for (long i = 0; i < w.store_off[w.nq]; i++) {
            double d = fabs(a[i] - r[i]);
            if (!(d <= dabs)) dabs = d;
            if (fabs(r[i]) > 1e-6 && !(d / fabs(r[i]) <= drel)) drel = d / fabs(r[i]);
        }
        char name[64];
        snprintf(name, sizeof name, "oracle sample: max |dI| (%ld quartets)", w.nq);
        sb_check_add(v, name, dabs, 0, 1e-12, SB_TOL_ABS, "hartree", SRC_REF);
        sb_check_add(v, "oracle sample |I|>1e-6: max rel", drel, 0, 1e-10, SB_TOL_ABS, "1", SRC_REF);
    }
    free(a), free(r), free(q);
    eri_worklist_free(&w);
}

/* (ab|cd) = (ba|cd) = (ab|dc) = (cd|ab): the reference evaluated in other shell orders.
 * [0]: the classes with generated code (1e-14 hartree); [1]: those with an f shell, held to
 * 1e-13 of the sample's largest |I|: an f shell on the lower side of a pair (sf|, pf|, df|) takes
 * three horizontal transfers more than the canonical order, whose rounding reaches 4.3e-14 of
 * max|I| on water/cc-pVTZ (the canonical blocks agree with libint2 to 2.2e-15 hartree). */
static void check_symmetry(eri_case *ec, sb_validation *v, int *rc)
{
    eri_quartet *q;
    long nq;
    if ((*rc = class_sample(&ec->w, 2, 0, &q, &nq))) return;
    const eri_basis *bs = &ec->bas;
    int m = ERI_NCART(bs->lmax);
    double *x = malloc(sizeof(double) * (size_t)m * m * m * m), *y = malloc(sizeof(double) * (size_t)m * m * m * m);
    double d[2] = {0, 0}, big[2] = {0, 0};
    long cnt[2] = {0, 0};
    if (!x || !y) *rc = SB_EXIT_RUNTIME;
    for (long i = 0; !*rc && i < nq; i++) {
        int sh[4];
        quartet_shells(&ec->ps, q[i], sh);
        const int f = beyond_code(bs, sh);
        cnt[f]++;
        eri_ref_quartet(bs, sh[0], sh[1], sh[2], sh[3], x);
        for (int k = 1; k < 8; k++) {
            const int *p = perm8[k];
            int s[4] = {sh[p[0]], sh[p[1]], sh[p[2]], sh[p[3]]}, nb[4];
            for (int t = 0; t < 4; t++) nb[t] = bs->sh[s[t]].nbf;
            eri_ref_quartet(bs, s[0], s[1], s[2], s[3], y);
            for (int e = 0; e < nb[0] * nb[1] * nb[2] * nb[3]; e++) {
                int fn[4] = {e / (nb[1] * nb[2] * nb[3]), e / (nb[2] * nb[3]) % nb[1], e / nb[3] % nb[2], e % nb[3]};
                double dd = fabs(y[e] - block_value(bs, x, sh, s, fn));
                if (!(dd <= d[f])) d[f] = dd;
                if (fabs(y[e]) > big[f]) big[f] = fabs(y[e]);
            }
        }
    }
    if (!*rc) {
        char name[64];
        snprintf(name, sizeof name, "8-fold permutational symmetry (%ld quartets)", cnt[0]);
        sb_check_add(v, name, d[0], 0, 1e-14, SB_TOL_ABS, "hartree", "exact symmetry of (ab|cd)");
        if (cnt[1]) {
            snprintf(name, sizeof name, "8-fold symmetry, f: max|dI|/max|I| (%ld quartets)", cnt[1]);
            sb_check_add(v, name, d[1] / big[1], 0, 1e-13, SB_TOL_ABS, "1", "exact symmetry of (ab|cd)");
        }
    }
    free(x), free(y), free(q);
}

int eri_validate_all(eri_case *ec, sb_backend be, sb_validation *v, sb_counters *cs)
{
    (void)cs;
    int rc = SB_OK;
    const eri_ops *ops = ec->ops;
    if (ec->ref.nbf) check_libint2(ec, ops, v, &rc);
    if (!rc) check_analytic(ec, ops, v, &rc);
    if (!rc) check_symmetry(ec, v, &rc);
    if (!rc && be != SB_BACKEND_REFERENCE) check_oracle(ec, ops, v, &rc);
    if (!rc && ec->cfg.mode == ERI_MODE_DIGEST) {
        size_t n = (size_t)ec->bas.nbf;
        double ej = 0;
        for (size_t i = 0; i < n * n; i++) ej += ec->M[i] * ec->D[i];
        /* (ab|cd) is a positive semidefinite kernel: the Coulomb energy of any D is >= 0 */
        sb_check_add(v, "tr(JD) >= 0", -ej, 0, 0, SB_TOL_MAX, "hartree", "positive definite Coulomb kernel");
    }
    return rc;
}
