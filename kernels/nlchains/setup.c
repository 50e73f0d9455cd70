/* nlchains: parameters, initial state (seeded band or file), host-side physics and the
 * run driver (mode energies every `batch` steps, entropies, dumps, entropy limit). */
#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Random123/philox.h>

#include "nlchains/nlc.h"
#include "nlchains/physics.h"
#include "sb_mpi.h"
#include "sb_omp.h"

#define NLC_TAG_INIT 0x4e4c4330u /* "NLC0": Philox counter word 3 of the initial phases */
/* The largest dt omega_max accepted (nlc_parse says why): fput and toda, dnkg */
#define NLC_DT_OMEGA 0.36
#define NLC_DT_OMEGA_DNKG 0.25

nlc_coefs nlc_make_coefs(double h, double ks)
{
    nlc_coefs c;
    double w[NLC_STAGES];
    for (int s = 0; s < NLC_STAGES; s++) w[s] = nlc_weight(s);
    c.kfirst = c.klast = 0.5 * w[0] * h * ks;
    c.kjoin = w[0] * h * ks;
    for (int s = 0; s < 6; s++) c.kmid[s] = 0.5 * (w[s] + w[s + 1]) * h * ks;
    for (int s = 0; s < 7; s++) c.drift[s] = w[s] * h;
    return c;
}

double nlc_kick_scale(const nlc_config *cfg)
{
    return cfg->model == NLC_TODA ? 0.5 / cfg->alpha : 1.0;
}

static int parse_band(sb_params *p, const nlc_config *cfg, nlc_init_spec *init)
{
    int N = cfg->N, kmax = cfg->model == NLC_DNLS ? N - 1 : (N - 1) / 2;
    init->k0 = 1;
    init->k1 = N / 32 > 1 ? N / 32 : 1;
    const char *s = sb_param_string(p, "modes");
    if (!s) return SB_OK;
    char *end;
    long a = strtol(s, &end, 10), b = -1;
    if (*end == ':') b = strtol(end + 1, &end, 10);
    if (*end || end == s || a < 1 || b < a || b > kmax) {
        sb_error("nlchains: --param modes=%s: expected k0:k1 with 1 <= k0 <= k1 <= %d (N = %d)", s, kmax, N);
        return SB_EXIT_USAGE;
    }
    init->k0 = (int)a, init->k1 = (int)b;
    return SB_OK;
}

int nlc_parse(sb_params *p, nlc_config *cfg, nlc_init_spec *init)
{
    static const char *const models[] = {"fput", "toda", "dnkg", "dnls", NULL};
    static const char *const collects[] = {"async", "sync", NULL};
    int rc;
    memset(cfg, 0, sizeof *cfg);
    cfg->N = p->size;
    cfg->seed = p->seed;
    /* dt, energy and the couplings stop where this run's energy check (|H - H0| <= 1e-6 |H0|)
     * still passes with the other parameters at their defaults, with a margin, both for the
     * default ensemble (N = 1024, 8192 chains, 100 steps of dt = 0.1, energy 0.1 per site) and
     * for one chain of N = 8, whose energy reaches the fastest modes at once (the harder case for
     * the step, README); beyond, the 6th-order step no longer resolves the motion, or the chain
     * leaves the well of an unbounded potential. First failures, ensemble / one chain: dt 0.45 /
     * 0.21 (fput, toda), 0.63 / 0.23 (dnkg), 1.24 / past 0.3 (dnls); energy 3.2, 2.7, 6.7, 1.07
     * (fput, toda, dnkg, dnls; none on one chain below the ends); fput alpha 0.97, beta 4.0 and
     * -0.067 (V unbounded below); toda alpha 1.31; dnkg beta 6.7 and -0.18, m 75 / 19; dnls beta
     * 10.7 and -5.4 (beta |psi|^2, the on-site phase rate, limits dnls). The step's own limit is
     * dt omega_max, omega_max = 2 for the harmonic coupling (fput, toda) and sqrt(4 + m) for dnkg:
     * one chain fails from 0.42 (fput, toda) and, its error oscillating with m, from 0.33 (dnkg,
     * m = 7 at dt = 0.1), so dt omega_max stays <= 0.36 (fput, toda; one chain's worst 3.5e-7 of
     * H) and 0.25 (dnkg; worst 3.6e-7 over dt = 0.02 .. 0.11). */
    if ((rc = sb_param_choice(p, "model", models, NLC_FPUT, &cfg->model)) ||
        (rc = sb_param_long(p, "copies", 8192, 1, 1L << 24, &cfg->copies)) ||
        (rc = sb_param_double(p, "dt", 0.1, 1e-9, cfg->model == NLC_DNLS ? 0.3 : cfg->model == NLC_DNKG ? 0.11
                                                                              : NLC_DT_OMEGA / 2.0, &cfg->dt)) ||
        (rc = sb_param_long(p, "steps", 100, 1, 1000000000L, &cfg->steps_per_rep)) ||
        (rc = sb_param_long(p, "batch", 100, 0, 1000000000L, &cfg->batch)) ||
        (rc = sb_param_double(p, "entropy_limit", 0.0, 0.0, 1e6, &cfg->entropy_limit)) ||
        (rc = sb_param_choice(p, "collect", collects, 0, &cfg->collect_sync)))
        return rc;
    static const double energy_max[] = {[NLC_FPUT] = 2.0, [NLC_TODA] = 2.0, [NLC_DNKG] = 4.0, [NLC_DNLS] = 0.7};
    if ((rc = sb_param_double(p, "energy", 0.1, 1e-12, energy_max[cfg->model], &init->energy))) return rc;
    /* only the parameters of the chosen model are read: any other is reported unused */
    switch (cfg->model) {
    case NLC_FPUT:
        if ((rc = sb_param_double(p, "alpha", 0.25, -0.8, 0.8, &cfg->alpha)) ||
            (rc = sb_param_double(p, "beta", 0.1, 0.0, 3.0, &cfg->beta)))
            return rc;
        break;
    case NLC_TODA:
        if ((rc = sb_param_double(p, "alpha", 0.25, -1.0, 1.0, &cfg->alpha))) return rc;
        if (cfg->alpha == 0.0) {
            sb_error("nlchains: --param alpha=0 for toda: the Toda potential needs alpha != 0 "
                     "(alpha -> 0 is the harmonic chain: use model=fput alpha=0 beta=0)");
            return SB_EXIT_USAGE;
        }
        break;
    case NLC_DNKG:
        if ((rc = sb_param_double(p, "m", 1.0, 0.0, fmin(1e6, (NLC_DT_OMEGA_DNKG * NLC_DT_OMEGA_DNKG / (cfg->dt * cfg->dt) - 4.0) * (1.0 + 1e-12)),
                                  &cfg->m)) ||
            (rc = sb_param_double(p, "beta", 0.1, 0.0, 5.0, &cfg->beta)))
            return rc;
        break;
    default:
        if ((rc = sb_param_double(p, "beta", 1.0, -4.0, 8.0, &cfg->beta))) return rc;
    }
    cfg->init_file = sb_param_string(p, "init_file");
    cfg->dump = sb_param_string(p, "dump");
    return parse_band(p, cfg, init);
}

/* Uniform in (0, 1) from one 32-bit word. */
static double u01(uint32_t r) { return ((double)r + 0.5) * (1.0 / 4294967296.0); }

/* Chain c (q, p its rows): each mode k of the band gets the energy E (for the real models
 * its mirror N-k too, so the chain has e N in all), split between P_k and omega_k Q_k by a
 * random angle u, with independent random phases of Q_k and P_k:
 *   |P_k| = sqrt(2E) cos u, omega_k |Q_k| = sqrt(2E) sin u  =>  (|P_k|^2 + omega_k^2 |Q_k|^2)/2 = E.
 * The state is the inverse unitary DFT, q_j = N^{-1/2} sum_k Q_k exp(2 pi i j k / N), by a c2r
 * transform of the Hermitian half-spectrum. dnls: psi_hat_k = sqrt(N E') e^{i phi} with
 * E' = e N / (k1 - k0 + 1), so |psi_hat_k|^2 / N = E' and sum |psi|^2 = e N. The random
 * words are Philox4x32-10 keyed by the seed, counter (chain, k, 0, tag): any backend or
 * thread count builds the same ensemble. */
static void init_chain(const nlc_config *cfg, const nlc_init_spec *in, long c, double *q, double *p,
                       fftw_complex *X, fftw_complex *Y, fftw_plan pr, fftw_plan pc)
{
    const int N = cfg->N, nb = in->k1 - in->k0 + 1;
    const double twopi = 2.0 * 3.14159265358979323846;
    philox4x32_key_t key = {{(uint32_t)cfg->seed, (uint32_t)(cfg->seed >> 32)}};
    memset(X, 0, (size_t)N * sizeof(fftw_complex));
    for (int k = in->k0; k <= in->k1; k++) {
        philox4x32_ctr_t ctr = {{(uint32_t)c, (uint32_t)k, 0, NLC_TAG_INIT}};
        philox4x32_ctr_t r = philox4x32(ctr, key);
        double u = 0.5 * 3.14159265358979323846 * u01(r.v[0]), fq = twopi * u01(r.v[1]), fp = twopi * u01(r.v[2]);
        if (cfg->model == NLC_DNLS) {
            double a = sqrt((double)N * in->energy * N / nb);
            X[k][0] = a * cos(fq), X[k][1] = a * sin(fq);
            continue;
        }
        double E = in->energy * N / (2.0 * nb), w = sqrt(nlc_omega2(cfg->model, k, N, cfg->m));
        double aq = sqrt(2.0 * E) * sin(u) / w, ap = sqrt(2.0 * E) * cos(u);
        X[k][0] = aq * cos(fq), X[k][1] = aq * sin(fq);               /* Q_k: c2r input */
        Y[k][0] = ap * cos(fp), Y[k][1] = ap * sin(fp);               /* P_k */
    }
    if (cfg->model == NLC_DNLS) {
        fftw_execute_dft(pc, X, Y); /* backward: psi_j = (1/N) sum psi_hat_k e^{+...} */
        for (int j = 0; j < N; j++) q[j] = Y[j][0] / N, p[j] = Y[j][1] / N;
        return;
    }
    const double s = 1.0 / sqrt((double)N);
    double *out = (double *)(Y + N); /* c2r output after the half-spectrum inputs */
    fftw_execute_dft_c2r(pr, X, out);
    for (int j = 0; j < N; j++) q[j] = out[j] * s;
    for (int k = 0; k <= N / 2; k++) X[k][0] = Y[k][0], X[k][1] = Y[k][1];
    fftw_execute_dft_c2r(pr, X, out);
    for (int j = 0; j < N; j++) p[j] = out[j] * s;
}

int nlc_init_band(const nlc_config *cfg, const nlc_init_spec *in, double *q, double *p)
{
    const int N = cfg->N;
    fftw_complex *X = fftw_alloc_complex((size_t)N), *Y = fftw_alloc_complex(2 * (size_t)N);
    if (!X || !Y) return SB_EXIT_RUNTIME;
    /* c2r destroys its input (hence the copy of the half-spectrum into X before each) */
    fftw_plan pr = NULL, pc = NULL;
    if (cfg->model == NLC_DNLS)
        pc = fftw_plan_dft_1d(N, X, Y, FFTW_BACKWARD, FFTW_ESTIMATE);
    else
        pr = fftw_plan_dft_c2r_1d(N, X, (double *)(Y + N), FFTW_ESTIMATE);
    int ok = pr || pc;
    if (ok) {
        memset(Y, 0, 2 * (size_t)N * sizeof(fftw_complex));
        for (long c = 0; c < cfg->copies; c++) {
            if (cfg->model != NLC_DNLS) memset(Y, 0, (size_t)N * sizeof(fftw_complex));
            init_chain(cfg, in, cfg->copy0 + c, q + c * N, p + c * N, X, Y, pr, pc);
        }
    }
    if (pr) fftw_destroy_plan(pr);
    if (pc) fftw_destroy_plan(pc);
    fftw_free(X);
    fftw_free(Y);
    return ok ? SB_OK : SB_EXIT_RUNTIME;
}

int nlc_create(nlc *m, const nlc_config *cfg, const nlc_init_spec *init, sb_backend b)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->ops = b == SB_BACKEND_OPENMP_SIMD ? &nlc_ops_openmp_simd : &nlc_ops_reference;
    if (b == SB_BACKEND_CUDA) {
#ifdef SB_HAVE_CUDA
        m->ops = &nlc_ops_cuda;
#else
        sb_error("nlchains: this build has no CUDA backend for nlchains");
        return SB_EXIT_USAGE;
#endif
    }
    size_t n = (size_t)cfg->copies * (size_t)cfg->N;
    m->q = sb_aligned_alloc(n * sizeof(double));
    m->p = sb_aligned_alloc(n * sizeof(double));
    if (!m->q || !m->p) {
        nlc_destroy(m);
        return SB_EXIT_RUNTIME;
    }
    int rc = cfg->init_file ? nlc_read_init_file(cfg, m->q, m->p) : nlc_init_band(cfg, init, m->q, m->p);
    if (rc) nlc_destroy(m);
    return rc;
}

void nlc_destroy(nlc *m)
{
    if (m->dev && m->ops) m->ops->release(m);
    sb_aligned_free(m->q);
    sb_aligned_free(m->p);
    memset(m, 0, sizeof *m);
}

double nlc_chain_energy(const nlc_config *cfg, const double *q, const double *p)
{
    const int N = cfg->N;
    double H = 0.0;
    for (int i = 0; i < N; i++) {
        int j = (i + 1) % N;
        double r = q[j] - q[i];
        switch (cfg->model) {
        case NLC_FPUT: H += 0.5 * p[i] * p[i] + nlc_fput_bond_energy(r, cfg->alpha, cfg->beta); break;
        case NLC_TODA: H += 0.5 * p[i] * p[i] + nlc_toda_bond_energy(r, cfg->alpha); break;
        case NLC_DNKG: H += nlc_dnkg_site_energy(q[i], q[j], p[i], cfg->m, cfg->beta); break;
        default: { /* H = sum -(psi_i^* psi_{i+1} + c.c.) + beta |psi_i|^4 / 2 */
            double a = q[i] * q[i] + p[i] * p[i];
            H += -2.0 * (q[i] * q[j] + p[i] * p[j]) + 0.5 * cfg->beta * a * a;
        }
        }
    }
    return H;
}

/* Chain by chain, then over the chains with Neumaier's compensated sum: the total is then the
 * same to ~1e-16 relative however the chains are split over threads or MPI ranks (a plain sum
 * of 1e4 terms in another order moved the dnls norm by 8e-14). */
double nlc_ensemble_total(const nlc *m, nlc_chain_fn chain)
{
    const long N = m->cfg.N, C = m->cfg.copies;
    double *x = malloc(sizeof(double) * (size_t)(C ? C : 1));
    if (!x) return NAN; /* fails every check that uses it, loudly */
#pragma omp parallel for schedule(static)
    for (long c = 0; c < C; c++) x[c] = chain(&m->cfg, m->q + c * N, m->p + c * N);
    double s = 0.0, comp = 0.0;
    for (long c = 0; c < C; c++) {
        double t = s + x[c];
        comp += fabs(s) >= fabs(x[c]) ? (s - t) + x[c] : (x[c] - t) + s;
        s = t;
    }
    free(x);
    return nlc_ensemble_sum(m, s + comp);
}

double nlc_total_energy(const nlc *m) { return nlc_ensemble_total(m, nlc_chain_energy); }

static double chain_norm(const nlc_config *cfg, const double *q, const double *p)
{
    double s = 0.0;
    for (int i = 0; i < cfg->N; i++) s += q[i] * q[i] + p[i] * p[i];
    return s;
}

double nlc_total_norm(const nlc *m) { return nlc_ensemble_total(m, chain_norm); }

int nlc_skip_mode0(const nlc_config *cfg)
{
    return cfg->model == NLC_FPUT || cfg->model == NLC_TODA || (cfg->model == NLC_DNKG && cfg->m == 0.0);
}

/* With M modes and e_k = M E_k / sum E (mean 1), as in Pistone's nlchains
 * (common/results_entropy.cpp; Onorato et al., PNAS 112, 4208 (2015)):
 *   wave-turbulence (spectral, Wiener) entropy  S_wt   = -sum_k ln e_k,
 *   information entropy                         S_info =  sum_k e_k ln e_k.
 * Both are >= 0 and vanish exactly at equipartition (all e_k = 1); S_wt is +inf while
 * any mode is empty, and an empty mode adds 0 to S_info (x ln x -> 0). */
void nlc_entropies(const double *ek, int N, int skip0, double *wt, double *info)
{
    int k0 = skip0 ? 1 : 0, M = N - k0;
    double tot = 0.0;
    for (int k = k0; k < N; k++) tot += ek[k];
    double sw = 0.0, si = 0.0;
    for (int k = k0; k < N; k++) {
        double e = M * ek[k] / tot;
        sw -= log(e);
        if (e > 0.0) si += e * log(e);
    }
    *wt = sw, *info = si;
}

int nlc_driver_init(nlc_driver *d, const nlc *m)
{
    memset(d, 0, sizeof *d);
    d->stop_step = -1;
    d->ek = calloc((size_t)m->cfg.N, sizeof(double));
    return d->ek ? SB_OK : SB_EXIT_RUNTIME;
}

void nlc_driver_free(nlc_driver *d)
{
    free(d->ek);
    memset(d, 0, sizeof *d);
}

static int write_file(const char *path, const char *mode, const void *a, size_t n)
{
    FILE *f = fopen(path, mode);
    if (!f || fwrite(a, 1, n, f) != n) {
        sb_error("nlchains: cannot write %s: %s", path, strerror(errno));
        if (f) fclose(f);
        return SB_EXIT_RUNTIME;
    }
    return fclose(f) ? SB_EXIT_RUNTIME : SB_OK;
}

/* The whole ensemble in one file: under MPI rank 0 creates it and every rank writes its
 * chains at their place (the same bytes a single rank writes). */
static int write_state(const nlc *m, const char *path, const void *a, size_t n)
{
    if (!m->cfg.copies_total) return write_file(path, "wb", a, n);
    int rc = sb_mpi_rank() == 0 ? write_file(path, "wb", "", 0) : SB_OK;
    if (sb_mpi_max_int(rc)) return SB_EXIT_RUNTIME;
    FILE *f = fopen(path, "r+b");
    int bad = !f || fseek(f, 16L * m->cfg.N * m->cfg.copy0, SEEK_SET) != 0 || fwrite(a, 1, n, f) != n;
    if (f && fclose(f)) bad = 1;
    if (bad) sb_error("nlchains: cannot write %s: %s", path, strerror(errno));
    return sb_mpi_max_int(bad) ? SB_EXIT_RUNTIME : SB_OK;
}

double nlc_ensemble_sum(const nlc *m, double x)
{
    if (m->cfg.copies_total) sb_mpi_sum(&x, 1);
    return x;
}

/* ek of this rank's chains averaged over the whole ensemble (a no-op unless split) */
static void modes_over_ranks(nlc *m, double *ek)
{
    if (!m->cfg.copies_total) return;
    const int N = m->cfg.N;
    for (int k = 0; k < N; k++) ek[k] *= (double)m->cfg.copies;
    sb_mpi_sum(ek, N);
    for (int k = 0; k < N; k++) ek[k] /= (double)m->cfg.copies_total;
}

int nlc_mode_energies(nlc *m, double *ek)
{
    int rc = m->ops->mode_energies(m, ek);
    if (!rc) modes_over_ranks(m, ek);
    return rc;
}

int nlc_dump(nlc *m, const double *ek)
{
    char path[512];
    const long n = m->cfg.copies * (long)m->cfg.N;
    int rc = m->ops->download(m);
    double *rec = malloc(2 * (size_t)n * sizeof(double));
    if (rc || !rec) {
        free(rec);
        return rc ? rc : SB_EXIT_RUNTIME;
    }
    for (long i = 0; i < n; i++) rec[2 * i] = m->q[i], rec[2 * i + 1] = m->p[i];
    snprintf(path, sizeof path, "%s-%ld", m->cfg.dump, m->step);
    rc = write_state(m, path, rec, 2 * (size_t)n * sizeof(double));
    free(rec);
    snprintf(path, sizeof path, "%s-linenergies-%ld", m->cfg.dump, m->step);
    if (!rc && sb_mpi_rank() == 0) rc = write_file(path, "wb", ek, (size_t)m->cfg.N * sizeof(double));
    return rc;
}

/* The entropies of a collection's d->ek, counted. */
static void collected(nlc *m, nlc_driver *d)
{
    nlc_entropies(d->ek, m->cfg.N, nlc_skip_mode0(&m->cfg), &d->s_wt, &d->s_info);
    d->collections++;
}

int nlc_driver_flush(nlc *m, nlc_driver *d)
{
    if (!d->pending) return SB_OK;
    d->pending = 0;
    int rc = m->ops->mode_energies_wait(m, d->ek);
    if (!rc) {
        modes_over_ranks(m, d->ek);
        collected(m, d);
    }
    return rc;
}

/* One collection at the current step: mode energies, entropies, dumps, the limit. */
static int collect(nlc *m, nlc_driver *d)
{
    int rc;
    if (m->ops->mode_energies_start && !m->cfg.collect_sync && !m->cfg.dump && m->cfg.entropy_limit <= 0.0) {
        if ((rc = nlc_driver_flush(m, d)) || (rc = m->ops->mode_energies_start(m))) return rc;
        d->pending = d->async = 1;
        return SB_OK;
    }
    if ((rc = nlc_mode_energies(m, d->ek))) return rc;
    collected(m, d);
    if (m->cfg.dump) {
        char path[512];
        double rec[3] = {m->step * m->cfg.dt, d->s_wt, d->s_info}; /* nlchains' <prefix>-entropy tuples */
        snprintf(path, sizeof path, "%s-entropy", m->cfg.dump);
        if ((rc = nlc_dump(m, d->ek))) return rc;
        if (sb_mpi_rank() == 0 && (rc = write_file(path, "ab", rec, sizeof rec))) return rc;
    }
    if (m->cfg.entropy_limit > 0.0 && d->s_info < m->cfg.entropy_limit && d->stop_step < 0) d->stop_step = m->step;
    return SB_OK;
}

int nlc_driver_advance(nlc *m, nlc_driver *d, long nsteps)
{
    const long K = m->cfg.batch;
    while (nsteps > 0 && d->stop_step < 0) {
        long chunk = K > 0 ? K - m->step % K : nsteps;
        if (chunk > nsteps) chunk = nsteps;
        int rc = m->ops->steps(m, chunk); /* the backend advances m->step */
        if (rc) return rc;
        nsteps -= chunk;
        if (K > 0 && m->step % K == 0 && (rc = collect(m, d))) return rc;
    }
    return SB_OK;
}
