/* dfratom_scf: validation. External truth (exact Dirac one-electron energies, numerical
 * Hartree-Fock limits in data/REFERENCES.md, PySCF's Dirac-Hartree-Fock energies in the same
 * basis in data/pyscf_dhf.tsv), the scalar reference as oracle,
 * and invariants (no variational collapse, convergence, j-degeneracy in the
 * nonrelativistic limit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfr_math.h"
#include "dfratom_scf/dfrcase.h"

/* Below this basis size the tables are not expected to be met: the deviation is reported as
 * a counter, not checked (README: "large basis"). */
#define DFR_TABLE_MIN_K 30

/* Exact Dirac ground state of a one-electron ion (point nucleus), shifted by -c^2:
 * E = c^2 (sqrt(1 - Z^2/c^2) - 1) = -Z^2 / (1 + sqrt(1 - Z^2/c^2)), the second form free of the
 * cancellation that costs the first log10(c^2/Z^2) digits (1.4e-8 relative at Z = 1, c = 1e4) */
double dfr_dirac_1s(int Z, double c)
{
    const double q = Z / c;
    return -(double)Z * Z / (1.0 + sqrt(1.0 - q * q));
}

/* The 1s1/2 behaves as r^(gamma-1), gamma = sqrt(1 - Z^2/c^2): the smaller gamma, the higher the
 * exponents it needs. Errors depend on Z/c alone (the basis scales with Z^2). 50 even-tempered s
 * (ratio 1.8, up to 3e12 Z^2): 4e-11 for Z/c <= 0.5, 3.2e-10 at 0.6, 9.5e-8 at 0.8; 80 of them (up
 * to 1e22 Z^2): 2e-11 at 0.6, 1.4e-11 at 0.8, 7.2e-11 at 0.85, 3.4e-9 at 0.9, 2.2e-8 at 0.92, but
 * 1.6e-8 where Z/c < 0.009 (round-off of their largest exponents). Past DFR_1S_MAX_ZC no basis
 * met 1e-8 (wider ratios lose the solution to round-off), and at Z/c >= 1 a point nucleus binds
 * no 1s1/2 at all: those ions are not checked. */
#define DFR_1S_MAX_ZC 0.85
static void check_hydrogenic(sb_case *c, const dfr_case *d, sb_validation *v)
{
    static const int Zs[] = {1, 10, 54, 80};
    int unchecked = 0;
    for (unsigned i = 0; i < sizeof Zs / sizeof *Zs; ++i) {
        const int Z = Zs[i];
        const double zc = Z / d->o.c;
        if (zc > DFR_1S_MAX_ZC) {
            unchecked++;
            continue;
        }
        dfr_atom a = {0};
        a.Z = Z;
        a.nelec = 1;
        a.nocc[0] = 1;
        a.one_electron = 1;
        const int K = zc <= 0.6 ? 50 : 80;
        dfr_wtbs w = {0.01 * Z * Z, 1.8, 0.0, 0.0, K, {K, 1, 1, 1}, {1, 1, 1, 1}};
        dfr_sym y;
        dfr_fun f[80];
        dfr_scf_opts o = d->o;
        o.nucleus = DFR_NUC_POINT;
        o.ham = DFR_DIRAC;
        dfr_result r;
        dfr_gbuild g = {0};
        if (dfr_basis_build(&w, 1, &y, f) || dfr_scf(&a, &y, f, &o, &g, &r, 0, NULL)) r.energy = NAN;
        char name[64], src[160];
        snprintf(name, sizeof name, "dirac_one_electron_Z%d", Z);
        snprintf(src, sizeof src, "exact Dirac 1s1/2: -Z^2/(1+sqrt(1-Z^2/c^2)), point nucleus, %d even-tempered s", K);
        sb_check_add(v, name, r.energy, dfr_dirac_1s(Z, o.c), 1e-8, SB_TOL_REL, "Eh", src);
    }
    if (unchecked)
        sb_counter_set(&c->counters, "dirac_one_electron_unchecked", unchecked, "ions");
}

/* Dirac-Hartree-Fock energies from PySCF in exactly the case's basis, written by
 * tools/dfr_pyscf.py; the build turns the files into these tables: data/pyscf_dhf.tsv for the
 * plain bases (gamma = 0, every range from the first exponent, s over all K), and
 * data/pyscf_dhf_ranges.tsv for any basis, such as the ones job=bsize writes. */
typedef struct {
    const char *sym;
    int Z, A, K;
    double alpha, beta;
    int n[3]; /* p, d, f functions; 0 where the atom has no such shell */
    double e;
} dhf_row;
static const dhf_row dhf_pyscf[] = {
#include "dfratom_scf/pyscf_dhf.h"
};
typedef struct {
    const char *sym;
    int Z, A, K;
    double alpha, beta, gamma, delta;
    int first[4], last[4]; /* s, p, d, f ranges; 0 where the atom has no such shell */
    double e;
} dhf_range_row;
static const dhf_range_row dhf_pyscf_ranges[] = {
#include "dfratom_scf/pyscf_dhf_ranges.h"
    {NULL, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, {0}, {0}, 0.0}};

/* w is the basis t: the same K, parameters (beta to 1e-14, the others exactly; delta only
 * matters where gamma does not vanish) and range of every l the atom occupies */
static int same_basis(const dfr_case *d, const dfr_wtbs *w, const dfr_wtbs *t)
{
    int same = t->K == w->K && t->alpha == w->alpha && fabs(t->beta - w->beta) <= 1e-14 * t->beta &&
               t->gamma == w->gamma && (w->gamma == 0.0 || t->delta == w->delta);
    for (int l = 0; l <= 3; ++l) /* the shells the atom uses: symmetry 2l-1 (s: 0) is l's first */
        if (d->y.ns > (l ? 2 * l - 1 : 0)) same = same && t->n[l] == w->n[l] && t->start[l] == w->start[l];
    return same;
}

/* The energy PySCF computed in basis w with the case's Hamiltonian (NAN: no row). PySCF's runs
 * used c = 137.03599976, the Visscher-Dyall Gaussian nucleus of mass A, the neutral atom. */
static double dhf_same_basis(const dfr_case *d, const dfr_wtbs *w, const char **table)
{
    if (d->o.ham != DFR_DIRAC || d->o.nucleus != DFR_NUC_GAUSS || d->o.c != 137.03599976 || d->atom.charge)
        return NAN;
    for (size_t i = 0; i < sizeof dhf_pyscf / sizeof *dhf_pyscf; ++i) {
        const dhf_row *r = &dhf_pyscf[i];
        dfr_wtbs t = {r->alpha, r->beta, 0.0, 0.0, r->K, {r->K, r->n[0], r->n[1], r->n[2]}, {1, 1, 1, 1}};
        *table = "data/pyscf_dhf.tsv";
        if (r->Z == d->atom.Z && r->A == d->atom.mass && same_basis(d, w, &t)) return r->e;
    }
    for (const dhf_range_row *r = dhf_pyscf_ranges; r->sym; ++r) {
        dfr_wtbs t = {r->alpha, r->beta, r->gamma, r->delta, r->K, {0}, {0}};
        for (int l = 0; l < 4; ++l) t.start[l] = r->first[l], t.n[l] = r->last[l] - r->first[l] + 1;
        *table = "data/pyscf_dhf_ranges.tsv";
        if (r->Z == d->atom.Z && r->A == d->atom.mass && same_basis(d, w, &t)) return r->e;
    }
    return NAN;
}

static void check_pyscf_dhf(sb_case *c, const dfr_case *d, const dfr_wtbs *w, sb_validation *v, double energy)
{
    const char *table = "";
    const double e = dhf_same_basis(d, w, &table);
    if (!isfinite(e)) return;
    sb_counter_set(&c->counters, "pyscf_dhf_deviation", energy - e, "Eh");
    char src[160];
    snprintf(src, sizeof src, "PySCF DHF (libcint spinor integrals, Dirac-Coulomb) in the same basis, nucleus and c: "
             "%s by tools/dfr_pyscf.py", table);
    /* Both SCFs stop at |dE| < 1e-10 Eh or tighter and the energy is quadratic in the density
     * error; 1e-10 relative leaves room for integral round-off in a nearly singular metric */
    sb_check_add(v, "dirac_fock_same_basis_pyscf", energy, e, 1e-10, SB_TOL_REL, "Eh", src);
}

static void check_tables(sb_case *c, const dfr_case *d, sb_validation *v)
{
    check_pyscf_dhf(c, d, &d->w, v, d->r.energy);
    const dfr_result *r = &d->r;
    if (d->o.ham == DFR_SCHRODINGER && d->o.nucleus == DFR_NUC_POINT && d->atom.charge == 0) {
        const double limit = dfr_hf_limit(d);
        if (isfinite(limit)) {
            sb_counter_set(&c->counters, "hf_limit_deviation", r->energy - limit, "Eh");
            /* a basis from a file is as good as it was built to be (job=bsize: bsize_tol, checked
             * against the reference it records, below); the limit still bounds it from below */
            if (d->basis_file)
                sb_check_add(v, "not_below_hf_limit", limit - r->energy, 1e-9, 0.0, SB_TOL_MAX, "Eh",
                             "variational bound: a finite basis stays above the numerical HF limit (+1e-9 Eh of SCF "
                             "noise)");
            else if (d->w.K >= DFR_TABLE_MIN_K)
                sb_check_add(v, "hartree_fock_limit", r->energy, limit, 1e-6, SB_TOL_ABS, "Eh",
                             "numerical HF limit (point nucleus), data/REFERENCES.md");
        }
    }
}

/* The backend's G on the final density against dfr_g_element (the reference's formula and
 * order) on a deterministic sample of output elements */
static void check_oracle_elements(sb_case *c, dfr_case *d, sb_validation *v)
{
    if (d->oracle <= 0 || d->atom.one_electron || c->backend == SB_BACKEND_REFERENCE || d->job == DFR_JOB_BSOPT ||
        d->job == DFR_JOB_BATCH || d->job == DFR_JOB_BSIZE)
        return;
    const double *D = d->job == DFR_JOB_FOCK ? d->D0 : d->Dfinal;
    long n = dfr_set_size(&d->y);
    double *G = calloc(n, sizeof *G);
    if (!G || d->g.build(&d->g, D, G)) {
        free(G);
        sb_check_add(v, "oracle_G_elements", NAN, 0, 1e-12, SB_TOL_ABS, "1", "G build failed");
        return;
    }
    double maxg = 0.0, maxd = 0.0;
    for (long e = 0; e < n; ++e) maxg = fmax(maxg, fabs(G[e]));
    int m = d->oracle < d->g.nout ? d->oracle : d->g.nout;
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (int t = 0; t < m; ++t) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int o = m == d->g.nout ? t : (int)((state >> 33) % (uint64_t)d->g.nout);
        int s, blk, i, j;
        dfr_out_decode(d->g.out[o], &s, &blk, &i, &j);
        int N = d->y.n[s];
        double ref = dfr_g_element(&d->y, d->f, D, d->g.out[o]);
        maxd = fmax(maxd, fabs(G[d->y.moff[s] + (long)blk * N * N + i + (long)j * N] - ref));
    }
    free(G);
    char src[160];
    snprintf(src, sizeof src, "scalar reference formula on %d of %d elements; relative to max|G| = %.3g", m,
             d->g.nout, maxg);
    sb_check_add(v, "oracle_G_elements_max_rel", maxd / (maxg > 0 ? maxg : 1.0), 0.0, 1e-12, SB_TOL_ABS, "1", src);
}

/* The whole SCF on the scalar reference, when affordable: energy and iteration count */
static void check_oracle_scf(sb_case *c, dfr_case *d, sb_validation *v)
{
    if (d->job != DFR_JOB_SCF || c->backend == SB_BACKEND_REFERENCE || d->atom.one_electron) return;
    double cost = d->cnt.elem_per_build * (d->r.fock_builds + 1);
    if (cost > 3e8) {
        sb_counter_set(&c->counters, "oracle_scf_skipped_cost", cost, "elementary integrals");
        return;
    }
    dfr_gbuild g;
    dfr_result r;
    if (dfr_gbuild_init(&g, &d->y, d->f, d->o.ham == DFR_DIRAC)) return;
    g.build = dfr_g_reference;
    int rc = dfr_scf(&d->atom, &d->y, d->f, &d->o, &g, &r, 0, NULL);
    dfr_gbuild_free(&g);
    if (rc) r.energy = NAN;
    sb_check_add(v, "oracle_scf_energy", d->r.energy, r.energy, 1e-10, SB_TOL_REL, "Eh",
                 "the same SCF on the scalar reference backend");
    sb_check_add(v, "oracle_scf_iterations", d->r.iterations, r.iterations, 0.0, SB_TOL_ABS, "1",
                 "the same SCF on the scalar reference backend");
}

static void check_invariants(const dfr_case *d, sb_validation *v)
{
    const dfr_result *r = &d->r;
    double c = d->o.c;
    sb_check_add(v, "scf_converged", r->converged, 1.0, 0.0, SB_TOL_ABS, "1",
                 "dE < conv_e, dD(LL) < 1e-8, dD(LS) < 1e-10, dD(SS) < 1e-12");
    if (d->o.ham == DFR_DIRAC) {
        int bad = 0;
        for (int s = 0; s < d->y.ns; ++s) bad += r->below_minus_c2[s] != d->y.n[s];
        sb_check_add(v, "symmetries_with_wrong_positronic_count", bad, 0.0, 0.0, SB_TOL_ABS, "1",
                     "exactly N_S eigenvalues below -c^2 per symmetry (no variational collapse)");
        sb_check_add(v, "lowest_occupied_eps_above_minus_2c2", r->min_occ_eps > -2.0 * c * c, 1.0, 0.0, SB_TOL_ABS,
                     "1", "every occupied orbital energy above -2c^2");
    } else {
        /* with c -> infinity, j = l -/+ 1/2 partners share one radial equation */
        double dev = 0.0;
        for (int s = 1; s + 1 < d->y.ns; s += 2)
            for (int b = 0; b < d->atom.nocc[s] && b < 8; ++b)
                dev = fmax(dev, fabs(r->eps[s][b] - r->eps[s + 1][b]) / fabs(r->eps[s + 1][b]));
        if (d->y.ns > 2)
            sb_check_add(v, "nonrel_j_partner_eps_max_rel", dev, 0.0, 1e-8, SB_TOL_ABS, "1",
                         "kappa = l and -l-1 orbital energies equal without spin-orbit coupling");
    }
}

static void check_bsopt(sb_case *c, const dfr_case *d, sb_validation *v)
{
    const dfr_bsopt_result *b = &d->bs;
    check_pyscf_dhf(c, d, &d->w, v, b->e0); /* the start is the case's basis */
    sb_check_add(v, "bsopt_energy_not_above_start", b->energy, b->e0, 0.0, SB_TOL_MAX, "Eh",
                 "NEWUOA keeps the best point: E(optimum) <= E(start basis)");
    sb_check_add(v, "bsopt_optimum_reproduces", b->energy_rerun, b->energy, 1e-10, SB_TOL_REL, "Eh",
                 "a fresh SCF in the optimal basis");
    if (d->bs_scan > 0) /* NEWUOA starts from the best scanned basis and keeps its best point */
        sb_check_add(v, "bsopt_energy_not_above_scan_best", b->energy, b->scan_best + 1e-9, 0.0, SB_TOL_MAX, "Eh",
                     "the lowest energy of the batch scan (the first NEWUOA start) + 1e-9 Eh for the two "
                     "engines' round-off");
    const double limit = dfr_hf_limit(d);
    if (isfinite(limit))
        sb_check_add(v, "bsopt_not_below_hf_limit", limit - b->energy, 1e-9, 0.0, SB_TOL_MAX, "Eh",
                     "variational bound: a finite basis stays above the numerical HF limit");
}

double dfr_ratio_when_other_stopped(int ia, const double *ha, int ib, const double *hb)
{
    const int lo = ia < ib ? ia : ib;
    if (ia == ib) return 0.0;
    const double *h = ia > ib ? ha : hb;
    return lo >= 1 && lo <= DFR_HIST ? h[lo - 1] : INFINITY;
}

/* A batch: every candidate converged without collapse, and the first batch_check candidates
 * computed again by the other engine (batched: stored integrals and one contraction per
 * iteration; sequential: the direct SCF) agree */
static void check_batch(sb_case *c, dfr_case *d, sb_validation *v)
{
    const dfr_batch_out *o = &d->bo;
    sb_counters *cs = &c->counters;
    check_pyscf_dhf(c, d, &d->w, v, o->energy[0]); /* candidate 0 is the case's basis */
    int conv = 0, bad = 0;
    for (int j = 0; j < d->batch; ++j) conv += isfinite(o->energy[j]), bad += o->bad_spectrum[j];
    sb_check_add(v, "batch_converged", conv, d->batch, 0.0, SB_TOL_ABS, "1",
                 "every candidate's SCF: dE < conv_e, dD(LL) < 1e-8, dD(LS) < 1e-10, dD(SS) < 1e-12");
    if (d->o.ham == DFR_DIRAC)
        sb_check_add(v, "batch_candidates_collapsed", bad, 0.0, 0.0, SB_TOL_ABS, "1",
                     "per candidate: N_S eigenvalues below -c^2 per symmetry, occupied eps > -2c^2");
    const int n = d->batch_check;
    dfr_batch_out other;
    if (n < 1 || dfr_batch_out_alloc(&other, n)) return;
    const int engine = d->engine == DFR_ENGINE_BATCHED ? DFR_ENGINE_SEQUENTIAL : DFR_ENGINE_BATCHED;
    /* the other engine fills candidates 0 .. n-1 of its own arrays */
    int rc = dfr_batch_eval(d, engine, 0, n, &other);
    double dev = 0.0, near = 0.0;
    int miss = 0, apart = 0, most = 0;
    for (int j = 0; j < n; ++j) {
        double a = o->energy[j], b = other.energy[j];
        dev = rc || !isfinite(a) || !isfinite(b) ? INFINITY : fmax(dev, fabs(a - b) / fabs(b));
        const int ia = o->iters[j], ib = other.iters[j], di = abs(ia - ib);
        if (rc || !di) {
            miss += rc != 0;
            continue;
        }
        double r = dfr_ratio_when_other_stopped(ia, o->ratio + (long)j * DFR_HIST, ib, other.ratio + (long)j * DFR_HIST);
        near = fmax(near, r), apart++, most = di > most ? di : most;
        miss += !(r < 10.0);
    }
    const char *by = engine == DFR_ENGINE_BATCHED ? "batched" : "sequential (direct SCF)";
    char src[200];
    snprintf(src, sizeof src, "the first %d candidates by the %s engine", n, by);
    sb_check_add(v, "batch_engines_energy_max_rel", dev, 0.0, 1e-10, SB_TOL_ABS, "1", src);
    /* The engines sum G in different orders (a stored tensor times the density against the
     * direct build), so an SCF whose last density changes sit at the round-off floor of their
     * thresholds can stop in one engine and go on in the other, once or, with DIIS, twice (Xe
     * K = 30: 1 to 2 of 16 candidates, energies 1e-14 apart). A count that differs is accepted
     * only where the SCF that went on was within 10x of every threshold when the other stopped:
     * the same converged state, not a different SCF. */
    sb_counter_set(cs, "batch_engines_iterations_apart", apart, "candidates");
    sb_counter_set(cs, "batch_engines_iterations_apart_max", most, "iterations");
    sb_counter_set(cs, "batch_engines_apart_ratio_max", near, "1");
    snprintf(src, sizeof src,
             "the first %d candidates by the %s engine; a count that differs needs the SCF that went on within 10x "
             "of every threshold (dE, dD) when the other stopped",
             n, by);
    sb_check_add(v, "batch_engines_iterations_apart_not_converged", miss, 0.0, 0.0, SB_TOL_ABS, "1", src);
    dfr_batch_out_free(&other);
}

/* job=bsize: the final basis meets the tolerance, is locally minimal at every end the workflow
 * shrinks, and the basis file it wrote gives the same energy in a fresh direct SCF */
static void check_bsize(sb_case *c, dfr_case *d, sb_validation *v)
{
    const dfr_bsize_result *b = &d->bzr;
    const dfr_bsize_opts *o = &d->bz;
    static const char *const refs[] = {"", "numerical HF limit (point nucleus), data/REFERENCES.md",
                                       "the optimised start basis (bsize_max in every range)", "given by bsize_ref"};
    char src[160];
    snprintf(src, sizeof src, "%s; tolerance bsize_tol", refs[b->ref_kind]);
    sb_check_add(v, "bsize_final_within_tol", b->e_final, b->e_ref, o->tol, SB_TOL_REL, "Eh", src);
    const double limit = dfr_hf_limit(d);
    if (isfinite(limit))
        sb_check_add(v, "bsize_not_below_hf_limit", limit - b->e_final, 1e-9, 0.0, SB_TOL_MAX, "Eh",
                     "variational bound: a finite basis stays above the numerical HF limit (+1e-9 Eh of SCF noise)");
    static const char spdf[] = "spdf";
    for (int e = 0; e < b->nlocal; ++e) {
        char name[64];
        snprintf(name, sizeof name, "bsize_minimal_%c_%s", spdf[b->local_l[e]], b->local_hi[e] ? "upper" : "lower");
        /* value <= reference: the tolerance does not exceed the error of the basis one smaller */
        sb_check_add(v, name, o->tol, b->local_err[e], 0.0, SB_TOL_MAX, "1",
                     "bsize_tol <= relative error of the final basis less one function at this end, re-optimised "
                     "(inf: the range holds only the occupied shells)");
    }
    /* the written basis, read back, in a fresh direct SCF on the case's backend */
    dfr_wtbs w;
    double e_file = NAN;
    dfr_result r;
    memset(&r, 0, sizeof r);
    const int rc = dfr_basis_read(b->json, "(the written basis)", d, &w, &e_file, NULL);
    const double e = rc ? NAN : dfr_candidate_energy(d, &w, &r, NULL);
    d->r = r;
    sb_check_add(v, "bsize_written_basis_scf", e, b->e_final, 1e-10, SB_TOL_REL, "Eh",
                 "job=scf in the basis file read back (direct SCF) against the workflow's energy (batched engine)");
    sb_check_add(v, "bsize_written_basis_energy", e_file, b->e_final, 0.0, SB_TOL_ABS, "Eh",
                 "the energy the basis file records, read back: the same double");
    check_invariants(d, v);
    check_pyscf_dhf(c, d, &w, v, e);
    dfr_basis_build(&d->w, d->y.ns, &d->y, d->f); /* the case's own basis again */
}

int dfr_validate(sb_case *c, sb_validation *v)
{
    dfr_case *d = c->state;
    if (d->job == DFR_JOB_BATCH) check_batch(c, d, v);
    if (d->job == DFR_JOB_BSOPT) {
        check_bsopt(c, d, v);
        check_invariants(d, v);
    }
    if (d->job == DFR_JOB_SCF) {
        check_invariants(d, v);
        check_tables(c, d, v);
        check_oracle_scf(c, d, v);
        if (isfinite(d->basis_energy))
            sb_check_add(v, "basis_file_energy", d->r.energy, d->basis_energy, 1e-10, SB_TOL_REL, "Eh",
                         "the energy the basis file (basis=) records for these settings");
        if (isfinite(d->basis_tol_ref[0]))
            sb_check_add(v, "basis_file_within_tol", d->r.energy, d->basis_tol_ref[1], d->basis_tol_ref[0],
                         SB_TOL_REL, "Eh", "the reference energy and bsize_tol the basis file records (job=bsize)");
    }
    if (d->job == DFR_JOB_BSIZE) check_bsize(c, d, v);
    if (d->o.ham == DFR_DIRAC) check_hydrogenic(c, d, v);
    check_oracle_elements(c, d, v);
    return SB_OK;
}
