/* dfratom_scf on the CUDA backend against the scalar reference. Skips without a GPU.
 *   G build  Ne (Dirac, Gaussian nucleus), the density after one SCF iteration: every
 *            element within 1e-12 of max |G| (only the summation order differs);
 *   SCF      Be (Dirac): energy within 1e-10 relative of the reference's, same iterations;
 *   launch   the occupancy report of the Fock-build kernel;
 *   eigen    cuSOLVER's dsygvd against LAPACKE's on one Roothaan block: eigenvalues to 1e-12,
 *            eigenvectors equal up to sign, a non-positive-definite metric returns info n+1;
 *   ill      a nearly singular well-tempered metric (K = 50): cuSOLVER bitwise deterministic,
 *            lowest eigenvalues within 1e-9 relative of LAPACK's, residuals printed;
 *   solvers  the whole kernel on cuda, Be, with eigensolver=lapack, cusolver and the default: the
 *            cuSOLVER path taken where asked, energies within 1e-10 relative, same iterations,
 *            and every validation check (the SCF oracle is the reference with LAPACK) passed;
 *   batch    job=batch, Ne (Dirac), 24 candidates in chunks of 7 (batch_mem): the batched engine's
 *            validation against the direct GPU SCF one after another passes (energies 1e-10
 *            relative, same iterations), and its best energy and iteration total equal the
 *            OpenMP batched engine's (1e-10 relative; equal);
 *   tensors  the batch's GPU tensor passes, table and direct, against the host's (products T x);
 *   bsize    job=bsize, Ne (Dirac) from s(1:8) p(1:8) against the optimised start basis, the
 *            candidates padded on the GPU in two groups of two shapes, side by side on two
 *            streams: every check passes, among them the written basis in a fresh direct GPU SCF
 *            against the padded batched energy (1e-10 relative) and one function less at each
 *            shrunk end breaking the tolerance; the same run with the groups one after another
 *            (bsize_side=0) ends bit for bit the same; the OpenMP workflow's start-basis optimum
 *            within a tenth of the tolerance of the GPU's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lapacke.h>
#include <math.h>

#include "dfratom_scf_util.h"
#include "dfratom_scf/dfratom_scf.h"
#include "gpu_util.h"
#include "runloop.h"
#include "test_util.h"

static void g_build_matches(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static dfr_small t;
    dfr_small_build(&t, "Ne", 0, 12, 0.2, 2.5, DFR_DIRAC, DFR_NUC_GAUSS);
    long n;
    double *D = dfr_small_first_density(&t, &n), *G1 = calloc(n, sizeof *G1), *G2 = calloc(n, sizeof *G2);
    assert_true(G1 && G2);
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

static void eig_matches_lapack(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static dfr_small t;
    dfr_small_build(&t, "Be", 0, 14, 0.05, 2.3, DFR_DIRAC, DFR_NUC_GAUSS);
    void *eig = NULL;
    assert_int_equal(dfr_eig_cuda_create(&t.y, 1, &eig), SB_OK);
    /* any symmetric A and SPD B test the contract; this pair's eigenvalues span -5875 .. 152 (a
     * low half, like the positronic states), gaps >= 5.5: vectors are defined to ~1e-13 */
    int n = 2 * t.y.n[0], info1 = 0;
    size_t nn = (size_t)n * n;
    double *A1 = malloc(sizeof(double) * nn), *B1 = malloc(sizeof(double) * nn), *w1 = malloc(sizeof(double) * n);
    double *A2 = malloc(sizeof(double) * nn), *B2 = malloc(sizeof(double) * nn), *w2 = malloc(sizeof(double) * n);
    assert_true(A1 && B1 && w1 && A2 && B2 && w2);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            A1[i + (size_t)j * n] = i == j ? (i < n / 2 ? -1e4 : 0.0) + 10.0 * i : 1.0 / (1.0 + i + j);
            B1[i + (size_t)j * n] = i == j ? 2.0 : 0.5 / (1.0 + abs(i - j));
        }
    memcpy(A2, A1, sizeof(double) * nn);
    memcpy(B2, B1, sizeof(double) * nn);
    assert_int_equal(LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', n, A1, n, B1, n, w1), 0);
    assert_int_equal(dfr_eig_cuda(eig, n, A2, B2, w2, &info1), SB_OK);
    assert_int_equal(info1, 0);
    double wmax = max_abs(w1, (size_t)n), dw = max_diff(w1, w2, (size_t)n), dv = 0.0;
    for (int e = 0; e < n; ++e) { /* the same B-normalised vector up to its sign */
        int big = 0;
        for (int i = 1; i < n; ++i)
            if (fabs(A1[i + (size_t)e * n]) > fabs(A1[big + (size_t)e * n])) big = i;
        double s = A1[big + (size_t)e * n] * A2[big + (size_t)e * n] < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < n; ++i) dv = fmax(dv, fabs(A1[i + (size_t)e * n] - s * A2[i + (size_t)e * n]));
    }
    printf("  dsygvd n=%d: max |w| %.3e, max |dw| %.3e, max |dv| (up to sign) %.3e\n", n, wmax, dw, dv);
    assert_true(dw <= 1e-12 * wmax);
    assert_true(dv <= 1e-9);
    /* a metric that is not positive definite: info n+i (minor i of B), for the caller to report */
    for (size_t e = 0; e < nn; ++e) B1[e] = B2[e] = e % (size_t)(n + 1) ? 0.0 : -1.0;
    int info2 = 0;
    lapack_int info_lapack = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', n, A1, n, B1, n, w1);
    assert_int_equal(dfr_eig_cuda(eig, n, A2, B2, w2, &info2), SB_OK);
    printf("  B = -1: info %d (LAPACKE), %d (cuSOLVER)\n", (int)info_lapack, info2);
    assert_int_equal((int)info_lapack, n + 1);
    assert_true(info2 > n);
    dfr_eig_cuda_destroy(eig);
    free(A1); free(B1); free(w1); free(A2); free(B2); free(w2);
}

/* Hydrogen-like Z = 54 in K normalised s Gaussians zeta_k = 0.02 * 1.55^k: the metric of a large,
 * nearly linearly dependent well-tempered basis (the NR Xe K = 50 case). Closed forms:
 * S = (2 sqrt(zi zj) / (zi + zj))^(3/2), T = 3 zi zj / (zi + zj) S, V = -Z 2 sqrt((zi + zj) / pi) S.
 * cuSOLVER must be deterministic (the SCF's convergence test needs it) and its lowest
 * eigenvalues must match LAPACK's; residuals of both are printed. */
static void eig_ill_conditioned(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    enum { K = 50 };
    static dfr_small t;
    dfr_small_build(&t, "Be", 0, K, 0.05, 2.3, DFR_SCHRODINGER, DFR_NUC_POINT);
    void *eig = NULL;
    assert_int_equal(dfr_eig_cuda_create(&t.y, 0, &eig), SB_OK);
    static double H[K * K], S[K * K], A[3][K * K], B[3][K * K], w[3][K];
    for (int i = 0; i < K; ++i)
        for (int j = 0; j < K; ++j) {
            double zi = 0.02 * pow(1.55, i), zj = 0.02 * pow(1.55, j), zs = zi + zj;
            double s = pow(2.0 * sqrt(zi * zj) / zs, 1.5);
            S[i + j * K] = s;
            H[i + j * K] = 3.0 * zi * zj / zs * s - 54.0 * 2.0 * sqrt(zs / 3.14159265358979323846) * s;
        }
    for (int k = 0; k < 3; ++k) {
        memcpy(A[k], H, sizeof H);
        memcpy(B[k], S, sizeof S);
    }
    int i1 = 0, i2 = 0;
    assert_int_equal(LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', K, A[0], K, B[0], K, w[0]), 0);
    assert_int_equal(dfr_eig_cuda(eig, K, A[1], B[1], w[1], &i1), SB_OK);
    assert_int_equal(dfr_eig_cuda(eig, K, A[2], B[2], w[2], &i2), SB_OK);
    assert_int_equal(i1, 0);
    assert_int_equal(i2, 0);
    for (int k = 0; k < 2; ++k) { /* residual |H v - w S v| / |w| of the lowest 3 pairs */
        double rmax = 0.0;
        for (int e = 0; e < 3; ++e)
            for (int i = 0; i < K; ++i) {
                double r = 0.0;
                for (int j = 0; j < K; ++j) r += (H[i + j * K] - w[k][e] * S[i + j * K]) * A[k][j + e * K];
                rmax = fmax(rmax, fabs(r) / fabs(w[k][e]));
            }
        printf("  K=%d hydrogenic Z=54 %s: E0 %.12f, E1 %.12f, max residual %.2e\n", K, k ? "cuSOLVER" : "LAPACKE",
               w[k][0], w[k][1], rmax);
    }
    printf("  cuSOLVER twice: eigenvalues %s, vectors %s\n", memcmp(w[1], w[2], sizeof w[1]) ? "DIFFER" : "bitwise equal",
           memcmp(A[1], A[2], sizeof A[1]) ? "DIFFER" : "bitwise equal");
    assert_memory_equal(w[1], w[2], sizeof w[1]);
    assert_memory_equal(A[1], A[2], sizeof A[1]);
    for (int e = 0; e < 3; ++e) assert_true(fabs(w[0][e] - w[1][e]) <= 1e-9 * fabs(w[0][e]));
    dfr_eig_cuda_destroy(eig);
}

static void kernel_eigensolvers_agree(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static const char *const solvers[] = {"lapack", "cusolver", NULL}; /* NULL: the default */
    double e[3], it[3];
    for (int k = 0; k < 3; ++k) {
        const char *const kv[] = {"atom", "Be", solvers[k] ? "eigensolver" : NULL, solvers[k], NULL};
        sb_result res;
        dfr_kernel_run(SB_BACKEND_CUDA, 12, kv, &res);
        assert_true(res.passed);
        assert_true(dfr_counter(&res.counters, "eigensolver_cusolver") == (k == 1 ? 1.0 : 0.0));
        e[k] = dfr_counter(&res.counters, "energy");
        it[k] = dfr_counter(&res.counters, "scf_iterations");
        printf("  Be K=12 cuda, eigensolver=%s: %.12f Eh, %g iterations, eigen-solves %.3f ms\n",
               solvers[k] ? solvers[k] : "default", e[k], it[k], 1e3 * dfr_counter(&res.counters, "eigensolve_time"));
        sb_result_free(&res);
    }
    assert_true(fabs(e[1] - e[0]) <= 1e-10 * fabs(e[0]));
    assert_true(it[1] == it[0]);
    assert_true(fabs(e[2] - e[0]) <= 1e-12 * fabs(e[0]) && it[2] == it[0]); /* the default is LAPACK, on cuda too */
}

static void batch_matches(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static const char *const kv[] = {"atom", "Ne", "job", "batch", "batch", "24", "batch_check", "24",
                                     "batch_mem", "0.0065", NULL};
    sb_result g, c;
    dfr_kernel_run(SB_BACKEND_CUDA, 10, kv, &g);
    assert_true(g.passed);
    assert_true(dfr_counter(&g.counters, "batch_chunk") == 7.0);
    dfr_kernel_run(SB_BACKEND_OPENMP_SIMD, 10, kv, &c);
    assert_true(c.passed);
    printf("  Ne K=10 batch of 24: best %.12f Eh (cuda) %.12f Eh (openmp), %g SCF/s on cuda\n",
           dfr_counter(&g.counters, "batch_best_energy"), dfr_counter(&c.counters, "batch_best_energy"),
           dfr_counter(&g.counters, "batch_scfs_per_s"));
    dfr_batches_agree(&g, &c);
    sb_result_free(&g);
    sb_result_free(&c);
}

/* eigensolver=cusolver in a batch: every candidate's eigenproblems go to the GPU at once
 * (L^-1 F L^-T, cusolverDnXsyevBatched, L^-T V); in chunks of 7 the live set shrinks as SCFs
 * converge. Validated by the harness against the sequential engine (cusolverDnDsygvd per SCF)
 * for all 24, and here against the OpenMP batch (LAPACK). */
static void batch_gpu_eigensolves(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    static const char *const kv[] = {"atom", "Ne", "job", "batch", "batch", "24", "batch_check", "24",
                                     "batch_mem", "0.0065", "eigensolver", "cusolver", NULL};
    static const char *const kv_host[] = {"atom", "Ne", "job", "batch", "batch", "24", "batch_check", "0", NULL};
    sb_result g, c;
    dfr_kernel_run(SB_BACKEND_CUDA, 10, kv, &g);
    assert_true(g.passed);
    assert_true(dfr_counter(&g.counters, "batch_chunk") == 7.0);
    assert_true(dfr_counter(&g.counters, "batch_time_gpu_eigensolves") > 0.0);
    dfr_kernel_run(SB_BACKEND_OPENMP_SIMD, 10, kv_host, &c);
    assert_true(c.passed);
    const double eg = dfr_counter(&g.counters, "batch_best_energy"), ec = dfr_counter(&c.counters, "batch_best_energy");
    const double ig = dfr_counter(&g.counters, "batch_scf_iterations"), ic = dfr_counter(&c.counters, "batch_scf_iterations");
    printf("  Ne K=10 batch of 24, GPU eigen-solves: best %.12f Eh (openmp, LAPACK %.12f), %g / %g SCF iterations\n", eg,
           ec, ig, ic);
    assert_true(fabs(eg - ec) <= 1e-10 * fabs(ec));
    assert_true(fabs(ig - ic) <= 24.0); /* at most one apart per candidate */
    sb_result_free(&g);
    sb_result_free(&c);
}

/* The GPU tensor passes against the host's, through the products T x: two candidates whose
 * exponents fit the table numbering go through dfr_e_kernel + dfr_t_kernel<table>; one exponent
 * moved in the second candidate sends the pass to the direct dfr_t_kernel<false>. For Kr
 * (Dirac) and Ne (Schroedinger); every product within 1e-12 of max |y| (summation order). */
static void batch_tensor_paths(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    for (int ham = 0; ham < 2; ++ham) {
        static dfr_small t;
        dfr_gbuild g;
        dfr_tshape ts;
        dfr_tensor_case(&t, &g, &ts, ham);
        const int nf = t.y.nf;
        dfr_fun *f = malloc(sizeof *f * 2 * nf);
        double *T = malloc(sizeof(double) * 2 * ts.per), *x = malloc(sizeof(double) * 2 * ts.xlen);
        double *yh = malloc(sizeof(double) * 2 * ts.ylen), *yg = malloc(sizeof(double) * 2 * ts.ylen);
        assert_true(f && T && x && yh && yg);
        for (long i = 0; i < 2 * ts.xlen; ++i) x[i] = 1.0 / (1.0 + (double)(i % 17)) - 0.3;
        void *gpu = NULL;
        assert_int_equal(dfr_batch_cuda_create(&ts, &t.y, 2, &gpu), SB_OK);
        for (int moved = 0; moved < 2; ++moved) {
            memcpy(f, t.f, sizeof *f * nf), memcpy(f + nf, t.f, sizeof *f * nf);
            if (moved) f[2 * nf - 1].zeta *= 1.25;
            int tab = 0;
            assert_int_equal(dfr_batch_cuda_tensors(gpu, f, 2, &tab), SB_OK);
            assert_int_equal(tab, moved ? 0 : 2);
            assert_int_equal(dfr_batch_cuda_contract(gpu, 2, x, yg), SB_OK);
            dfr_tensor_host(&ts, &t.y, f, 2, T, 1);
            dfr_contract_host(&ts, 2, T, x, yh, 1);
            double big = 0.0, diff = 0.0;
            for (long i = 0; i < 2 * ts.ylen; ++i) big = fmax(big, fabs(yh[i])), diff = fmax(diff, fabs(yg[i] - yh[i]));
            printf("  %s, %s path: max |y| %.3e, max |y_gpu - y_host| %.3e\n", ham ? "Ne" : "Kr",
                   moved ? "direct" : "table", big, diff);
            assert_true(big > 0.0 && diff <= 1e-12 * big);
        }
        dfr_batch_cuda_destroy(gpu);
        free(f), free(T), free(x), free(yh), free(yg);
        dfr_gbuild_free(&g);
        dfr_tshape_free(&ts);
    }
}

static void bsize_on_gpu(void **state)
{
    (void)state;
    sb_cuda_info info;
    REQUIRE_GPU(&info);
    /* Enough evaluations for NEWUOA to converge (the start basis in about 100 SCFs): an
     * optimisation stopped early ends where the rounding of its path takes it, and the
     * backends' rounding differs (at 20 evaluations their references lie 5e-5 apart). */
    static const char *const kv[] = {"atom", "Ne", "job", "bsize", "bsize_max", "8", "bsize_ref", "large", "bsize_tol",
                                     "2e-5", "bsize_evals", "300", "bsize_groups", "2", NULL};
    sb_result g, c;
    dfr_kernel_run(SB_BACKEND_CUDA, 8, kv, &g);
    assert_true(g.passed);
    dfr_kernel_run(SB_BACKEND_OPENMP_SIMD, 8, kv, &c);
    assert_true(c.passed);
    const char *const names[] = {"bsize_s_last", "bsize_p_first", "bsize_p_last"};
    for (int i = 0; i < 3; ++i) {
        printf("  Ne Dirac bsize from s(1:8) p(1:8): %s %g (cuda) %g (openmp)\n", names[i],
               dfr_counter(&g.counters, names[i]), dfr_counter(&c.counters, names[i]));
        assert_true(dfr_counter(&g.counters, names[i]) == dfr_counter(&c.counters, names[i]));
    }
    const double rg = dfr_counter(&g.counters, "bsize_reference"), rc = dfr_counter(&c.counters, "bsize_reference");
    printf("  start basis optimised: %.12f Eh (cuda) %.12f Eh (openmp); %g SCFs, %.1f SCF/s on cuda\n", rg, rc,
           dfr_counter(&g.counters, "bsize_scfs"), dfr_counter(&g.counters, "bsize_scfs_per_s"));
    assert_true(fabs(rg - rc) <= 0.1 * 2e-5 * fabs(rc));
    /* groups one after another: a candidate's SCFs do not depend on the batches beside its own */
    static const char *const one[] = {"atom", "Ne", "job", "bsize", "bsize_max", "8", "bsize_ref", "large",
                                      "bsize_tol", "2e-5", "bsize_evals", "300", "bsize_groups", "2", "bsize_side",
                                      "0", NULL};
    sb_result q;
    dfr_kernel_run(SB_BACKEND_CUDA, 8, one, &q);
    assert_true(q.passed);
    assert_true(dfr_counter(&g.counters, "bsize_groups_side_by_side") == 1.0);
    static const char *const same[] = {"bsize_energy", "bsize_energy_start", "bsize_scfs", "bsize_fock_builds",
                                       "bsize_s_last", "bsize_p_first", "bsize_p_last", "bsize_alpha", "bsize_beta"};
    dfr_counters_same(&g, &q, same, sizeof same / sizeof *same); /* side by side against one after another */
    sb_result_free(&g);
    sb_result_free(&c);
    sb_result_free(&q);
}

int main(void)
{
    sb_set_quiet(1);
    const struct CMUnitTest tests[] = {cmocka_unit_test(g_build_matches), cmocka_unit_test(scf_matches),
                                       cmocka_unit_test(eig_matches_lapack), cmocka_unit_test(eig_ill_conditioned),
                                       cmocka_unit_test(kernel_eigensolvers_agree), cmocka_unit_test(batch_matches),
                                       cmocka_unit_test(batch_gpu_eigensolves), cmocka_unit_test(batch_tensor_paths),
                                       cmocka_unit_test(bsize_on_gpu)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
