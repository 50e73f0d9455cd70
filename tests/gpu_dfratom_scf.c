/* dfratom_scf on the CUDA backend against the scalar reference. Skips without a GPU.
 *   G build  Ne (Dirac, Gaussian nucleus), the density after one SCF iteration: every
 *            element within 1e-12 of max |G| (only the summation order differs);
 *   SCF      Be (Dirac): energy within 1e-10 relative of the reference's, same iterations;
 *   launch   the occupancy report of the Fock-build kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "dfr_util.h"
#include "gpu_util.h"
#include "test_util.h"

static void g_build_matches(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static dfr_small t;
    dfr_small_build(&t, "Ne", 0, 12, 0.2, 2.5, DFR_DIRAC, DFR_NUC_GAUSS);
    long n = dfr_set_size(&t.y);
    double *D = calloc(n, sizeof *D), *G1 = calloc(n, sizeof *G1), *G2 = calloc(n, sizeof *G2);
    assert_true(D && G1 && G2);
    t.o.maxit = 1;
    dfr_small_scf(&t, dfr_g_reference, D);
    dfr_gbuild g;
    assert_int_equal(dfr_gbuild_init(&g, &t.y, t.f, 1), SB_OK);
    assert_int_equal(dfr_g_reference(&g, D, G1), SB_OK);
    assert_int_equal(dfr_g_cuda_init(&g), SB_OK);
    assert_int_equal(g.build(&g, D, G2), SB_OK);
    double gmax = max_abs(G1, (size_t)n), dmax = max_diff(G1, G2, (size_t)n);
    printf("  G build: max |G| %.3e, max |dG| %.3e\n", gmax, dmax);
    assert_true(gmax > 1.0);
    assert_true(dmax <= 1e-12 * gmax);
    sb_launch l;
    assert_int_equal(dfr_g_cuda_launches(&g, &l, 1), 1);
    printf("  %s: block %d, %d regs, occupancy %.2f\n", l.name, l.block, l.regs, l.occupancy);
    assert_true(l.occupancy > 0.0);
    dfr_g_cuda_free(&g);
    dfr_gbuild_free(&g);
    free(D);
    free(G1);
    free(G2);
}

static void scf_matches(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static dfr_small t;
    dfr_small_build(&t, "Be", 0, 14, 0.05, 2.3, DFR_DIRAC, DFR_NUC_GAUSS);
    dfr_result a = dfr_small_scf(&t, dfr_g_reference, NULL);
    dfr_gbuild g;
    dfr_result b;
    assert_int_equal(dfr_gbuild_init(&g, &t.y, t.f, 1), SB_OK);
    assert_int_equal(dfr_g_cuda_init(&g), SB_OK);
    assert_int_equal(dfr_scf(&t.a, &t.y, t.f, &t.o, &g, &b, 0, NULL), SB_OK);
    dfr_g_cuda_free(&g);
    dfr_gbuild_free(&g);
    printf("  Be: reference %.12f Eh (%d it), CUDA %.12f Eh (%d it)\n", a.energy, a.iterations, b.energy, b.iterations);
    assert_true(b.converged);
    assert_true(fabs(a.energy - b.energy) <= 1e-10 * fabs(a.energy));
    assert_int_equal(a.iterations, b.iterations);
}

int main(void)
{
    sb_set_quiet(1);
    const struct CMUnitTest tests[] = {cmocka_unit_test(g_build_matches), cmocka_unit_test(scf_matches)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
