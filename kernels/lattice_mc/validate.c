/* lattice_mc validation, three layers (docs/DESIGN.md):
 *  exact limits  - bulk energy at low T (equipartition) and high T (cumulant series),
 *  oracle        - the backend against reference.c, site by site, same seed,
 *  invariants    - energy bookkeeping and unit directors.
 * The auxiliary simulations run on the backend under test, on a 16^3 lattice.
 * Under MPI, the oracle and the droplet bookkeeping run decomposed over the ranks
 * like the benchmark (where 16 splits into slabs, i.e. 2 x ranks divides 16), so the
 * halo exchange is checked site by site against reference.c; the long statistical
 * runs of the exact limits do not depend on the decomposition and run whole on
 * every rank, each on its own lattice. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lattice_mc/validate.h"
#include "sb_mpi.h"

#define AUX_L 16

/* The auxiliary runs take the benchmark's CUDA sweep variant (fuse, slab), so the
 * oracle checks the path that was timed. */
static lmc_config aux_config(const lmc_config *bench, int geometry, double T, double W, double chi, double step,
                             int aligned, uint64_t seed, int decompose)
{
    lmc_config c;
    memset(&c, 0, sizeof c);
    c.fuse = bench->fuse, c.slab = bench->slab;
    c.L = AUX_L, c.geometry = geometry, c.T0 = c.T1 = T, c.W = W, c.chi = chi, c.step = step;
    c.init_aligned = aligned, c.sweeps_per_rep = 1, c.seed = seed;
    c.decompose = decompose && AUX_L % (2 * sb_mpi_size()) == 0;
    return c;
}

/* Creates and uploads a lattice; on success the caller owns m. */
static int aux_start(lmc *m, const lmc_config *cfg, sb_backend b)
{
    int rc = lmc_create(m, cfg, b);
    if (rc) return rc;
    m->E0 = lmc_energy(m);
    if ((rc = m->ops->upload(m))) lmc_destroy(m);
    return rc;
}

/* Bookkeeping: E0 + sum of accepted dE against the energy recomputed from the
 * downloaded directors. Returns the relative difference, or NAN on error. */
static double bookkeeping_error(lmc *m, double *E_out)
{
    double dE, acc;
    if (lmc_totals(m, &dE, &acc) || lmc_download(m)) return NAN;
    double E = lmc_energy(m);
    *E_out = E;
    return fabs(m->E0 + dE - E) / fabs(E);
}

/* Mean energy per site over `measure` sweeps after `equil` (amplitude adapted
 * while equilibrating), with the batch-means standard error. */
static int energy_average(const lmc_config *cfg, sb_backend b, long equil, long measure, double *mean,
                          double *sigma)
{
    lmc m;
    int rc = aux_start(&m, cfg, b);
    if (rc) return rc;
    enum { NB = 20 };
    double batch[NB] = {0}, dE, acc;
    if ((rc = lmc_run_sweeps(&m, equil, 1))) goto out;
    for (long s = 0; s < measure; s++) {
        if ((rc = lmc_run_sweeps(&m, 1, 0)) || (rc = lmc_totals(&m, &dE, &acc))) goto out;
        batch[s * NB / measure] += (m.E0 + dE) / (double)m.nactive;
    }
    double sum = 0.0, sq = 0.0;
    for (int k = 0; k < NB; k++) {
        batch[k] /= (double)(measure / NB);
        sum += batch[k];
    }
    *mean = sum / NB;
    for (int k = 0; k < NB; k++) sq += (batch[k] - *mean) * (batch[k] - *mean);
    *sigma = sqrt(sq / (NB - 1) / NB);
out:
    lmc_destroy(&m);
    return rc;
}

static int exact_limits(const lmc_config *bc, sb_backend b, uint64_t seed, sb_validation *v, sb_counters *cs)
{
    /* Low T: two quadratic degrees of freedom per site, U/N = -3 + T + c T^2.
     * y(T) = (U/N + 3)/T = 1 + c T; from T = 0.01 and 0.02, 2 y1 - y2 = 1 removes c. */
    double u1, s1, u2, s2, uh, sh;
    int rc;
    sb_progress("lattice_mc validation: low-temperature limit");
    lmc_config lo1 = aux_config(bc, LMC_BULK, 0.01, 0, 0, 0.05, 1, seed, 0);
    lmc_config lo2 = aux_config(bc, LMC_BULK, 0.02, 0, 0, 0.05, 1, seed + 1, 0);
    if ((rc = energy_average(&lo1, b, 500, 2000, &u1, &s1)) || (rc = energy_average(&lo2, b, 500, 2000, &u2, &s2)))
        return rc;
    double y1 = (u1 + 3.0) / 0.01, y2 = (u2 + 3.0) / 0.02;
    sb_check_add(v, "low-T U/N at T=0.01", u1, -3.0 + 0.01, 0.0005, SB_TOL_ABS, "epsilon",
                 "spin waves: U/N = -3 eps + k_B T + O(T^2); tol covers |c| T^2 <= 5e-4");
    sb_check_add(v, "low-T heat capacity, T->0", 2.0 * y1 - y2, 1.0, 0.03, SB_TOL_ABS, "k_B",
                 "equipartition, 2 dof/site: d(U/N)/dT = 1 at T=0 (2y(.01)-y(.02) removes O(T))");
    sb_counter_set(cs, "lowT_sigma_U_T0.01", s1, "epsilon");
    /* High T: U/N = -3 beta/5 - 3 beta^2/35 + O(beta^3) from the cumulants of P2
     * under the uniform measure (<P2^2> = 1/5, <P2^3> = 2/35); the beta^3 term,
     * tree and plaquette, is -0.079 beta^3 = -8e-5 at T = 10. */
    sb_progress("lattice_mc validation: high-temperature limit");
    lmc_config hi = aux_config(bc, LMC_BULK, 10.0, 0, 0, 10.0, 0, seed + 2, 0);
    if ((rc = energy_average(&hi, b, 100, 2000, &uh, &sh))) return rc;
    double beta = 0.1;
    sb_check_add(v, "high-T U/N at T=10", uh, -0.6 * beta - 3.0 / 35.0 * beta * beta, 0.0015, SB_TOL_ABS,
                 "epsilon", "high-T series -3b/5 - 3b^2/35; tol = 5 sigma(stat) + |b^3 term|");
    sb_counter_set(cs, "highT_sigma_U_T10", sh, "epsilon");
    return SB_OK;
}

/* The backend and reference.c from one initial state, same seed, 4 sweeps:
 * same decisions for every site, hence identical directors. The reference runs the
 * whole lattice; the backend, under MPI, only this rank's slab of it. */
static int oracle(const lmc_config *bc, sb_backend b, uint64_t seed, int geometry, sb_validation *v)
{
    lmc_config cfg = geometry == LMC_BULK ? aux_config(bc, LMC_BULK, 1.0, 0, 0, 0.3, 0, seed, 1)
                                          : aux_config(bc, LMC_DROPLET, 0.8, 1.0, 0.3, 0.3, 0, seed, 1);
    lmc_config whole = cfg;
    whole.decompose = 0;
    lmc r, t;
    int rc = aux_start(&r, &whole, SB_BACKEND_REFERENCE);
    if (rc) return rc;
    if ((rc = aux_start(&t, &cfg, b))) {
        lmc_destroy(&r);
        return rc;
    }
    double dr, ar, dt, at;
    if ((rc = lmc_run_sweeps(&r, 4, 0)) || (rc = lmc_run_sweeps(&t, 4, 0)) || (rc = lmc_totals(&r, &dr, &ar)) ||
        (rc = lmc_totals(&t, &dt, &at)) || (rc = lmc_download(&r)) || (rc = lmc_download(&t)))
        goto out;
    double worst = 0.0;
    const long off = (long)t.z0 * AUX_L * AUX_L;
    for (long i = 0; i < t.nlocal; i++) {
        long j = off + i;
        double d = fmax(fabs(r.nx[j] - t.nx[i]), fmax(fabs(r.ny[j] - t.ny[i]), fabs(r.nz[j] - t.nz[i])));
        worst = fmax(worst, d);
    }
    if (t.ranks > 1) sb_mpi_max(&worst, 1);
    const char *g = geometry == LMC_BULK ? "bulk" : "droplet";
    char name[64];
    snprintf(name, sizeof name, "oracle %s: max |n - n_ref|", g);
    sb_check_add(v, name, worst, 1e-6, 0, SB_TOL_MAX, "1", "reference.c, same seed, 16^3, 4 sweeps");
    snprintf(name, sizeof name, "oracle %s: accepted moves", g);
    sb_check_add(v, name, at, ar, 0, SB_TOL_ABS, "moves", "reference.c: identical accept/reject decisions");
    snprintf(name, sizeof name, "oracle %s: energy", g);
    sb_check_add(v, name, lmc_energy(&t), lmc_energy(&r), 1e-5, SB_TOL_REL, "epsilon", "reference.c energy");
out:
    lmc_destroy(&r);
    lmc_destroy(&t);
    return rc;
}

int lmc_validate_all(lmc *bench, sb_backend b, uint64_t seed, sb_validation *v, sb_counters *cs)
{
    double E;
    double err = bookkeeping_error(bench, &E);
    if (isnan(err)) return SB_EXIT_RUNTIME;
    sb_check_add(v, "bookkeeping, this run", err, 1e-4, 0, SB_TOL_MAX, "rel",
                 "invariant: E0 + sum of accepted dE = recomputed E (float32 updates)");
    sb_check_add(v, "max ||n| - 1|, this run", lmc_max_norm_error(bench), 1e-5, 0, SB_TOL_MAX, "1",
                 "invariant: directors stay unit vectors (float32 rounding)");
    /* bookkeeping with every energy term switched on: droplet, anchoring, field */
    lmc m;
    lmc_config cfg = aux_config(&bench->cfg, LMC_DROPLET, 0.5, 2.0, 0.5, 0.3, 0, seed + 3, 1);
    int rc = aux_start(&m, &cfg, b);
    if (rc) return rc;
    sb_progress("lattice_mc validation: bookkeeping over 100 sweeps");
    rc = lmc_run_sweeps(&m, 100, 0);
    err = rc ? NAN : bookkeeping_error(&m, &E);
    lmc_destroy(&m);
    if (isnan(err)) return rc ? rc : SB_EXIT_RUNTIME;
    sb_check_add(v, "bookkeeping, droplet 100 sweeps", err, 1e-4, 0, SB_TOL_MAX, "rel",
                 "invariant: E0 + sum of accepted dE = recomputed E (W=2, chi=0.5)");
    if (b != SB_BACKEND_REFERENCE) {
        sb_progress("lattice_mc validation: oracle");
        if ((rc = oracle(&bench->cfg, b, seed, LMC_BULK, v)) || (rc = oracle(&bench->cfg, b, seed, LMC_DROPLET, v)))
            return rc;
    }
    rc = exact_limits(&bench->cfg, b, seed, v, cs);
    sb_progress_done();
    return rc;
}
