/* nlchains: ensemble-averaged energy per normal mode, with FFTW3 (physics.h defines it).
 *
 * With FFTW's unnormalised forward transform X_k = sum_j x_j exp(-2 pi i j k / N) the
 * unitary Q_k of physics.h is X_k / sqrt(N), so
 *   fput, toda, dnkg: E_k = (|P_k|^2 + omega_k^2 |Q_k|^2) / 2 = (|FP_k|^2 + omega_k^2 |FQ_k|^2) / (2 N),
 *                     from r2c transforms of q and p (k = 0..N/2; E_{N-k} = E_k for real chains);
 *   dnls:             E_k = |Fpsi_k|^2 / N, from a c2c transform of psi = q + i p.
 * Then E_k is averaged over the C chains. Each chain row is first copied into an aligned
 * per-thread buffer: FFTW's new-array execute needs arrays aligned like the planning ones,
 * and rows of odd N are not. Plans are made once here (planning is not thread-safe,
 * execution is). */
#include <fftw3.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"
#include "sb_omp.h"

struct nlc_modes {
    int model, N, nh; /* nh = N/2 + 1 complex outputs of r2c */
    double *omega2;   /* omega_k^2, k = 0..N-1 */
    fftw_plan r2c, c2c;
};

nlc_modes *nlc_modes_create(const nlc_config *cfg, int measure)
{
    nlc_modes *md = calloc(1, sizeof *md);
    if (!md) return NULL;
    int N = cfg->N;
    md->model = cfg->model, md->N = N, md->nh = N / 2 + 1;
    md->omega2 = malloc((size_t)N * sizeof(double));
    /* scratch for planning only (MEASURE overwrites it); executes use per-thread buffers */
    fftw_complex *a = fftw_alloc_complex((size_t)N), *b = fftw_alloc_complex((size_t)N);
    if (!md->omega2 || !a || !b) goto fail;
    for (int k = 0; k < N; k++) md->omega2[k] = nlc_omega2(cfg->model, k, N, cfg->m);
    unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    if (cfg->model == NLC_DNLS)
        md->c2c = fftw_plan_dft_1d(N, a, b, FFTW_FORWARD, flags);
    else
        md->r2c = fftw_plan_dft_r2c_1d(N, (double *)a, b, flags);
    if (!md->c2c && !md->r2c) goto fail;
    fftw_free(a);
    fftw_free(b);
    return md;
fail:
    fftw_free(a);
    fftw_free(b);
    nlc_modes_destroy(md);
    return NULL;
}

void nlc_modes_destroy(nlc_modes *md)
{
    if (!md) return;
    if (md->r2c) fftw_destroy_plan(md->r2c);
    if (md->c2c) fftw_destroy_plan(md->c2c);
    free(md->omega2);
    free(md);
}

/* Adds chain c's E_k (k = 0..N-1) to acc. buf: 3 N complex of aligned scratch. */
static void chain_modes(const nlc_modes *md, const double *q, const double *p, fftw_complex *buf, double *acc)
{
    const int N = md->N;
    const double inv = 1.0 / N;
    if (md->model == NLC_DNLS) {
        fftw_complex *in = buf, *out = buf + N;
        for (int j = 0; j < N; j++) in[j][0] = q[j], in[j][1] = p[j];
        fftw_execute_dft(md->c2c, in, out);
        for (int k = 0; k < N; k++) acc[k] += (out[k][0] * out[k][0] + out[k][1] * out[k][1]) * inv;
        return;
    }
    double *in = (double *)buf;
    fftw_complex *fq = buf + N, *fp = buf + 2 * N;
    memcpy(in, q, (size_t)N * sizeof(double));
    fftw_execute_dft_r2c(md->r2c, in, fq);
    memcpy(in, p, (size_t)N * sizeof(double));
    fftw_execute_dft_r2c(md->r2c, in, fp);
    for (int k = 0; k < md->nh; k++) {
        double aq = fq[k][0] * fq[k][0] + fq[k][1] * fq[k][1];
        double ap = fp[k][0] * fp[k][0] + fp[k][1] * fp[k][1];
        double e = 0.5 * (ap + md->omega2[k] * aq) * inv;
        acc[k] += e;
        if (k > 0 && N - k != k) acc[N - k] += e;
    }
}

int nlc_modes_compute(nlc_modes *md, const double *q, const double *p, long C, int parallel, double *ek)
{
    const int N = md->N;
    int nt = parallel ? omp_get_max_threads() : 1;
    /* per thread: 3 N complex of transform scratch and N doubles of partial sums */
    size_t per = 3 * (size_t)N * sizeof(fftw_complex) + (size_t)N * sizeof(double);
    per = (per + 63) & ~(size_t)63; /* every thread's buffer aligned like the planning arrays */
    char *work = fftw_malloc(per * (size_t)nt);
    if (!work) return SB_EXIT_RUNTIME;
    memset(work, 0, per * (size_t)nt);
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        fftw_complex *buf = (fftw_complex *)(work + per * (size_t)t);
        double *acc = (double *)(buf + 3 * N);
#pragma omp for schedule(static)
        for (long c = 0; c < C; c++) chain_modes(md, q + c * N, p + c * N, buf, acc);
    }
    /* fixed order over threads: the result does not depend on the schedule's timing */
    for (int k = 0; k < N; k++) {
        double s = 0.0;
        for (int t = 0; t < nt; t++) s += ((double *)(work + per * (size_t)t + 3 * (size_t)N * sizeof(fftw_complex)))[k];
        ek[k] = s / (double)C;
    }
    fftw_free(work);
    return SB_OK;
}
