/* dfratom_scf job=bsize on the CPU: the pieces and the workflow on small atoms.
 *   lockstep   NEWUOA minimisations run in lockstep (lockstep.c) end exactly where the same
 *              NLopt runs one at a time end (points, values, evaluations), on quadratic bowls
 *              whose minima the test knows;
 *   padding    a basis run in a larger shape, the functions it lacks padded (zero coefficients),
 *              gives the energy of the basis alone (Be Dirac, Ne nonrelativistic: 1e-12 relative),
 *              with the positronic count of the padded shape;
 *   He         job=bsize, nonrelativistic, point nucleus, from s(1:12) against the numerical HF
 *              limit with bsize_tol = 8e-6: every check passes (final basis within the tolerance,
 *              one function less at the shrunk end breaks it, the written basis read back gives
 *              the energy in a fresh SCF), the basis shrank, and job=scf reading the written file
 *              reproduces the workflow's energy to 1e-10 (its own check passes);
 *   local      He with no step run: the local checks take each basis one smaller that stays
 *              within the tolerance, until one smaller breaks it;
 *   engines    the same He workflow with one candidate at a time (batch_engine=sequential):
 *              the same final ranges, energies within a fifth of the tolerance (the engines'
 *              round-off differs, so NEWUOA's paths part);
 *   Ne         job=bsize from s(1:8) p(1:8) against the optimised start basis (bsize_ref=large),
 *              bsize_tol = 2e-5: s and p ranges, the lower end of p included, all checks pass;
 *              and the same run with the padding groups one after another (bsize_side=0)
 *              instead of side by side ends bit for bit the same;
 *   bad input  a tolerance the start basis cannot reach, a nonrelativistic atom without a tabulated
 *              limit, bsize_max below the occupied shells, a malformed reference, a basis file
 *              beside alpha: exit 2 each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

#include "dfratom_scf_util.h"
#include "dfratom_scf/dfrcase.h"

/* bowl i: sum_j (j + 1) (x_j - m_ij)^2 + 0.1 x_0 x_1, minimum known in closed form only roughly:
 * the test compares lockstep with serial NLopt, not with the minimum */
static double bowl(int i, const double *x)
{
    double f = 0.1 * x[0] * x[1];
    for (int j = 0; j < 4; ++j) {
        const double m = 0.3 * (i + 1) - 0.2 * j;
        f += (j + 1) * (x[j] - m) * (x[j] - m);
    }
    return f;
}

typedef struct {
    int i, evals;
} bowl_data;

static double bowl_nlopt(unsigned n, const double *x, double *grad, void *data)
{
    (void)n, (void)grad;
    bowl_data *b = data;
    b->evals++;
    return bowl(b->i, x);
}

static void lockstep_equals_serial(void **state)
{
    (void)state;
    enum { N = 5 };
    const double step[4] = {0.2, 0.05, 0.1, 0.5};
    double x0[N * 4];
    for (int k = 0; k < N * 4; ++k) x0[k] = 0.05 * k;
    dfr_lockstep_opts o = {200, 1e-12, 1e-8};
    dfr_lockstep *ls;
    assert_int_equal(dfr_lockstep_start(N, 4, x0, step, &o, &ls), SB_OK);
    int idx[N], m, rounds = 0;
    double X[N * 4], F[N];
    while ((m = dfr_lockstep_points(ls, idx, X)) > 0) {
        for (int k = 0; k < m; ++k) F[k] = bowl(idx[k], X + 4 * k);
        dfr_lockstep_values(ls, m, idx, F);
        rounds++;
    }
    for (int i = 0; i < N; ++i) {
        double x[4], f, xs[4], fs;
        int evals;
        dfr_lockstep_result(ls, i, x, &f, &evals);
        bowl_data b = {i, 0};
        nlopt_opt opt = nlopt_create(NLOPT_LN_NEWUOA, 4);
        nlopt_set_min_objective(opt, bowl_nlopt, &b);
        nlopt_set_initial_step(opt, step);
        nlopt_set_maxeval(opt, o.maxeval);
        nlopt_set_ftol_abs(opt, o.ftol_abs);
        nlopt_set_xtol_rel(opt, o.xtol_rel);
        memcpy(xs, x0 + 4 * i, sizeof xs);
        assert_true(nlopt_optimize(opt, xs, &fs) > 0);
        nlopt_destroy(opt);
        assert_memory_equal(x, xs, sizeof x);
        assert_true(f == fs);
        assert_int_equal(evals, b.evals);
        assert_true(evals > 9 && rounds >= evals); /* beyond NEWUOA's 2n + 1 start points */
        assert_true(fs < 0.3);                     /* a minimum was found: the bowls start above 1 */
    }
    dfr_lockstep_free(ls);
}

/* The SCF energy of atom sym in basis w, alone or padded into the shape u */
static dfr_result padded_scf(const char *sym, dfr_hamiltonian ham, const dfr_wtbs *w, const dfr_wtbs *u)
{
    static dfr_small t;
    dfr_small_build(&t, sym, 0, w->K, w->alpha, w->beta, ham, ham == DFR_DIRAC ? DFR_NUC_GAUSS : DFR_NUC_POINT);
    assert_int_equal(dfr_basis_build_in(w, u, t.y.ns, &t.y, t.f), SB_OK);
    return dfr_small_scf(&t, dfr_g_openmp, NULL);
}

static void padding_is_exact(void **state)
{
    (void)state;
    for (int ham = 0; ham < 2; ++ham) {
        const char *sym = ham ? "Ne" : "Be";
        dfr_wtbs w = {0.08, 2.6, 0.3, 2.0, 14, {9, 7, 1, 1}, {3, 4, 1, 1}};
        dfr_wtbs u = {0.08, 2.6, 0.3, 2.0, 14, {12, 10, 1, 1}, {1, 2, 1, 1}};
        if (!ham) w.n[0] = 10, w.start[0] = 2, u.n[0] = 14, u.start[0] = 1;
        dfr_result a = padded_scf(sym, ham ? DFR_SCHRODINGER : DFR_DIRAC, &w, &w);
        dfr_result b = padded_scf(sym, ham ? DFR_SCHRODINGER : DFR_DIRAC, &w, &u);
        print_message("  %s: alone %.12f Eh (%d it), padded %.12f Eh (%d it)\n", sym, a.energy, a.iterations, b.energy,
                      b.iterations);
        assert_true(a.converged && b.converged);
        assert_true(abs(a.iterations - b.iterations) <= 1); /* the padding does not slow the SCF */
        assert_true(fabs(a.energy - b.energy) <= 1e-12 * fabs(a.energy));
        if (!ham) assert_int_equal(b.below_minus_c2[0], u.n[0]); /* padding counts among the positronic states */
    }
}

/* rc of one kernel run (no assertion on it) */
static int kernel_rc(sb_backend be, const char *const *kv, sb_result *res)
{
    sb_params p;
    memset(&p, 0, sizeof p);
    p.reps = 1, p.warmup = 0, p.seed = 1, p.quiet = 1;
    for (; kv[0]; kv += 2, p.nkv++) {
        strcpy(p.kv[p.nkv].key, kv[0]);
        strcpy(p.kv[p.nkv].value, kv[1]);
    }
    int rc = sb_run_case(&dfratom_scf_kernel, be, &p, 0, res);
    for (int i = 0; !rc && i < res->validation.n; i++)
        if (!res->validation.check[i].pass)
            print_message("FAIL %s: %g vs %g\n", res->validation.check[i].name, res->validation.check[i].value,
                          res->validation.check[i].reference);
    return rc;
}

static int has_check(const sb_result *r, const char *name)
{
    for (int i = 0; i < r->validation.n; i++)
        if (!strcmp(r->validation.check[i].name, name)) return r->validation.check[i].pass ? 1 : -1;
    return 0;
}

static char he_file[64];

static void helium_workflow(void **state)
{
    (void)state;
    snprintf(he_file, sizeof he_file, "/tmp/test_dfr_bsize_%d.json", (int)getpid());
    const char *const kv[] = {"atom", "He", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point",
                              "bsize_max", "12", "bsize_tol", "8e-6", "bsize_evals", "40", "bsize_out", he_file, NULL};
    sb_result r;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, kv, &r), SB_OK);
    assert_true(r.passed);
    assert_int_equal(has_check(&r, "bsize_final_within_tol"), 1);
    assert_int_equal(has_check(&r, "bsize_minimal_s_upper"), 1);
    assert_int_equal(has_check(&r, "bsize_written_basis_scf"), 1);
    assert_true(dfr_counter(&r.counters, "bsize_reference_hf_limit") == 1.0);
    const double e = dfr_counter(&r.counters, "bsize_energy"), last = dfr_counter(&r.counters, "bsize_s_last");
    assert_true(last < 12.0);
    assert_true(e > -2.86167999561 && e < -2.86167999561 * (1.0 - 8e-6));
    /* job=scf reads the written basis back: the same energy, and its own check of it */
    const char *const scf[] = {"atom", "He", "hamiltonian", "schrodinger", "nucleus", "point", "basis", he_file, NULL};
    sb_result s;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, scf, &s), SB_OK);
    assert_true(s.passed);
    assert_int_equal(has_check(&s, "basis_file_energy"), 1);
    assert_int_equal(has_check(&s, "basis_file_within_tol"), 1); /* the tolerance and reference it records */
    assert_int_equal(has_check(&s, "not_below_hf_limit"), 1);
    assert_true(fabs(dfr_counter(&s.counters, "energy") - e) <= 1e-10 * fabs(e));
    assert_true(dfr_counter(&s.counters, "basis_functions") == last);
    /* one candidate at a time: the same workflow's outcome */
    const char *const seq[] = {"atom", "He", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point",
                               "bsize_max", "12", "bsize_tol", "8e-6", "bsize_evals", "40", "batch_engine",
                               "sequential", NULL};
    sb_result q;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, seq, &q), SB_OK);
    assert_true(q.passed);
    assert_true(dfr_counter(&q.counters, "bsize_s_last") == last);
    /* the engines' energies differ by round-off, so their NEWUOA paths part: the optima agree to
     * the optimisation's precision, well inside the tolerance */
    print_message("  He: batched %.12f Eh, one at a time %.12f Eh\n", e, dfr_counter(&q.counters, "bsize_energy"));
    assert_true(fabs(dfr_counter(&q.counters, "bsize_energy") - e) <= 0.2 * 8e-6 * fabs(e));
    assert_true(dfr_counter(&q.counters, "bsize_engine_sequential") == 1.0);
    /* the iterations a round waits for: one candidate at a time, every SCF's (an iteration is a
     * Fock build); batched, a round's slowest group's, so fewer than its SCFs' together */
    const double cq = dfr_counter(&q.counters, "bsize_critical_iterations");
    const double cr = dfr_counter(&r.counters, "bsize_critical_iterations");
    assert_true(cq == dfr_counter(&q.counters, "bsize_fock_builds"));
    assert_true(cr >= dfr_counter(&r.counters, "bsize_rounds") && cr < dfr_counter(&r.counters, "bsize_fock_builds"));
    assert_true(dfr_counter(&r.counters, "bsize_maxit_scfs") == 0.0); /* He converges */
    sb_result_free(&r), sb_result_free(&s), sb_result_free(&q);
    remove(he_file);
}

/* bsize_steps=1: no range end is shrunk by a step, so the local checks start from s(1:12). Each
 * basis one smaller that stays within the tolerance is taken and checked again: the checks do
 * the shrinking, one function a pass, and the last pass's basis one smaller breaks the tolerance. */
static void local_checks_take_smaller(void **state)
{
    (void)state;
    const char *const kv[] = {"atom", "He", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point",
                              "bsize_max", "12", "bsize_tol", "8e-6", "bsize_evals", "40", "bsize_steps", "1", NULL};
    sb_result r;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, kv, &r), SB_OK);
    assert_true(r.passed);
    const double last = dfr_counter(&r.counters, "bsize_s_last"), taken = dfr_counter(&r.counters, "bsize_local_taken");
    print_message("  He from s(1:12), no step: s(1:%g) after %g bases taken by the local checks\n", last, taken);
    assert_true(taken >= 1.0 && last == 12.0 - taken);
    assert_int_equal(has_check(&r, "bsize_minimal_s_upper"), 1);
    assert_int_equal(has_check(&r, "bsize_final_within_tol"), 1);
    sb_result_free(&r);
}

static void neon_workflow(void **state)
{
    (void)state;
    const char *const kv[] = {"atom", "Ne", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point",
                              "bsize_max", "8", "bsize_tol", "2e-5", "bsize_ref", "large", "bsize_evals", "30", NULL};
    sb_result r;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, kv, &r), SB_OK);
    assert_true(r.passed);
    assert_true(dfr_counter(&r.counters, "bsize_reference_hf_limit") == 0.0);
    for (int i = 0; i < 3; ++i) {
        static const char *const ends[] = {"bsize_minimal_s_upper", "bsize_minimal_p_upper", "bsize_minimal_p_lower"};
        assert_int_equal(has_check(&r, ends[i]), 1);
    }
    assert_true(dfr_counter(&r.counters, "bsize_functions") < dfr_counter(&r.counters, "bsize_functions_start"));
    print_message("  Ne: s(%g:%g) p(%g:%g), %g SCFs\n", dfr_counter(&r.counters, "bsize_s_first"),
                  dfr_counter(&r.counters, "bsize_s_last"), dfr_counter(&r.counters, "bsize_p_first"),
                  dfr_counter(&r.counters, "bsize_p_last"), dfr_counter(&r.counters, "bsize_scfs"));
    /* the padding groups one after another (bsize_side=0) instead of side by side: a candidate's
     * SCFs do not depend on which batches run beside its own, so every outcome is the same bit
     * for bit */
    const char *const one[] = {"atom", "Ne", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point",
                               "bsize_max", "8", "bsize_tol", "2e-5", "bsize_ref", "large", "bsize_evals", "30",
                               "bsize_side", "0", NULL};
    sb_result q;
    assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, one, &q), SB_OK);
    assert_true(dfr_counter(&r.counters, "bsize_groups_side_by_side") == 1.0);
    assert_true(dfr_counter(&q.counters, "bsize_groups_side_by_side") == 0.0);
    static const char *const same[] = {"bsize_energy", "bsize_energy_start", "bsize_scfs", "bsize_fock_builds",
                                       "bsize_rounds", "bsize_s_last", "bsize_p_first", "bsize_p_last",
                                       "bsize_alpha", "bsize_beta", "bsize_gamma", "bsize_delta"};
    dfr_counters_same(&r, &q, same, sizeof same / sizeof *same); /* side by side against one after another */
    sb_result_free(&r), sb_result_free(&q);
}

static void bad_input(void **state)
{
    (void)state;
    static const char *const cases[][16] = {
        /* the optimised s(1:6) of He is ~1e-4 from the HF limit */
        {"atom", "He", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point", "bsize_max", "6", "bsize_tol",
         "1e-9", NULL},
        {"atom", "Mg", "job", "bsize", "hamiltonian", "schrodinger", "nucleus", "point", NULL},
        {"atom", "Xe", "job", "bsize", "bsize_max", "4", NULL},
        {"atom", "He", "job", "bsize", "bsize_ref", "-2.8x", NULL},
        {"atom", "He", "job", "bsize", "hamiltonian", "dirac", "bsize_ref", "limit", NULL},
        {"atom", "He", "basis", "/nonexistent/basis.json", NULL},
        {"atom", "He", "basis", "x.json", "alpha", "0.1", NULL},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; ++i) {
        sb_result r;
        assert_int_equal(kernel_rc(SB_BACKEND_OPENMP_SIMD, cases[i], &r), SB_EXIT_USAGE);
        sb_result_free(&r);
    }
}

int main(void)
{
    sb_set_quiet(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lockstep_equals_serial),    cmocka_unit_test(padding_is_exact),
        cmocka_unit_test(helium_workflow),           cmocka_unit_test(local_checks_take_smaller),
        cmocka_unit_test(neon_workflow),             cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
