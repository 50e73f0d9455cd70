/* dfratom_scf tests: a small case (atom, even-tempered basis, options) built through the
 * kernel's own setup functions. Include after <cmocka.h>. */
#ifndef SB_TESTS_DFR_UTIL_H
#define SB_TESTS_DFR_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr.h"
#include "dfratom_scf/dfratom_scf.h"
#include "runloop.h"

typedef struct {
    dfr_atom a;
    dfr_sym y;
    dfr_fun f[DFR_NSYM * DFR_MAXN];
    dfr_scf_opts o;
} dfr_small;

static inline void dfr_small_build(dfr_small *t, const char *sym, int charge, int K, double alpha, double beta,
                            dfr_hamiltonian ham, dfr_nucleus nuc)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(dfr_atom_parse(sym, charge, &t->a), SB_OK);
    int ns = 0;
    for (int s = 0; s < DFR_NSYM; ++s)
        if (t->a.nocc[s]) ns = s + 1;
    dfr_wtbs w = {alpha, beta, 0.0, 0.0, K, {K, K - 4, K - 8, K - 12}, {1, 1, 1, 1}};
    assert_int_equal(dfr_basis_build(&w, ns, &t->y, t->f), SB_OK);
    dfr_scf_opts o = {137.03599976, nuc, nuc == DFR_NUC_GAUSS ? dfr_xi_from_mass(t->a.mass) : 0.0, ham, 100,
                      1e-10, 1e-8, 1e-10, 1e-12, 8, 0, 0};
    t->o = o;
}

/* The tensor-path case of the batch tests: Kr (Dirac, ham = 0) or Ne (Schroedinger, ham = 1),
 * K = 10, with its G builder and tensor shape set up (free with dfr_gbuild_free, dfr_tshape_free) */
static inline void dfr_tensor_case(dfr_small *t, dfr_gbuild *g, dfr_tshape *ts, int ham)
{
    dfr_small_build(t, ham ? "Ne" : "Kr", 0, 10, 0.2, 2.5, ham ? DFR_SCHRODINGER : DFR_DIRAC, DFR_NUC_GAUSS);
    assert_int_equal(dfr_gbuild_init(g, &t->y, t->f, !ham), SB_OK);
    assert_int_equal(dfr_tshape_init(ts, g, !ham), SB_OK);
}

/* The SCF with builder fn; returns the result */
static inline dfr_result dfr_small_scf(dfr_small *t, dfr_g_fn fn, double *Dw)
{
    dfr_gbuild g;
    dfr_result r;
    assert_int_equal(dfr_gbuild_init(&g, &t->y, t->f, t->o.ham == DFR_DIRAC), SB_OK);
    g.build = fn;
    assert_int_equal(dfr_scf(&t->a, &t->y, t->f, &t->o, &g, &r, 0, Dw), SB_OK);
    dfr_gbuild_free(&g);
    return r;
}
/* The occupation-weighted density after one SCF iteration (core guess), reference build;
 * *n its length (dfr_set_size) */
static inline double *dfr_small_first_density(dfr_small *t, long *n)
{
    *n = dfr_set_size(&t->y);
    double *D = calloc(*n, sizeof *D);
    assert_non_null(D);
    dfr_scf_opts all = t->o;
    t->o.maxit = 1;
    dfr_small_scf(t, dfr_g_reference, D);
    t->o = all;
    return D;
}

/* The whole kernel, one repetition: kv is a NULL-terminated list of key, value pairs; every
 * failed validation check is printed */
static inline void dfr_kernel_run(sb_backend b, int size, const char *const *kv, sb_result *res)
{
    sb_params p;
    memset(&p, 0, sizeof p);
    p.size = size, p.reps = 1, p.warmup = 0, p.seed = 1, p.quiet = 1;
    for (; kv[0]; kv += 2, p.nkv++) {
        strcpy(p.kv[p.nkv].key, kv[0]);
        strcpy(p.kv[p.nkv].value, kv[1]);
    }
    assert_int_equal(sb_run_case(&dfratom_scf_kernel, b, &p, 0, res), SB_OK);
    for (int i = 0; i < res->validation.n; i++)
        if (!res->validation.check[i].pass)
            print_message("FAIL %s: %g vs %g\n", res->validation.check[i].name, res->validation.check[i].value,
                          res->validation.check[i].reference);
}

static inline double dfr_counter(const sb_counters *cs, const char *name)
{
    for (int i = 0; i < cs->n; i++)
        if (!strcmp(cs->c[i].name, name)) return cs->c[i].value;
    fail_msg("counter %s missing", name);
    return NAN;
}
/* The counters names[0 .. n) equal bit for bit in runs a and b (each difference printed first) */
static inline void dfr_counters_same(const sb_result *a, const sb_result *b, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const double x = dfr_counter(&a->counters, names[i]), y = dfr_counter(&b->counters, names[i]);
        if (x != y) print_message("  %s: %.17g against %.17g\n", names[i], x, y);
        assert_true(x == y);
    }
}
/* Two job=batch runs over the same candidates: the same best energy (1e-10 relative) and the
 * same total of SCF iterations */
static inline void dfr_batches_agree(const sb_result *a, const sb_result *b)
{
    double ea = dfr_counter(&a->counters, "batch_best_energy"), eb = dfr_counter(&b->counters, "batch_best_energy");
    assert_true(fabs(ea - eb) <= 1e-10 * fabs(eb));
    assert_true(dfr_counter(&a->counters, "batch_scf_iterations") == dfr_counter(&b->counters, "batch_scf_iterations"));
}
#endif
