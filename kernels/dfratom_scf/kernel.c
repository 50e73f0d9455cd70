/* dfratom_scf: the sb_kernel the harness drives (parameters, repetitions, counters). */
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfratom_scf/dfratom_scf.h"
#include "dfratom_scf/dfrcase.h"
#include "sb_mpi.h"
#include "sb_omp.h"

static const sb_param_spec dfr_params[] = {
    {"atom", "Xe", "element symbol; with charge, a closed-shell configuration or one electron"},
    {"charge", "0", "ionic charge (Z - electrons), 0 .. Z-1: a closed-shell configuration or one electron"},
    {"job", "scf", "scf (a repetition: one SCF to convergence) | fock (one two-electron Fock build) | "
                   "bsopt (minimise E over alpha, beta with NLopt NEWUOA) | batch (an SCF for each of many candidate bases) | "
                   "bsize (the smallest basis within bsize_tol of the reference, range end by range end)"},
    {"basis", "", "job=scf/fock: the basis from this JSON file (job=bsize's bsize_out), instead of SIZE, alpha .. nf"},
    {"bsize_max", "40", "job=bsize: start basis s(1:M) p(1:M) d(1:M) f(1:M), K = M (SIZE is not used), 2 .. 60 (beyond, "
                        "the start basis passes the 1e14 bohr^-2 a candidate's exponents stay below)"},
    {"bsize_tol", "5e-8", "job=bsize: relative energy error allowed against the reference"},
    {"bsize_ref", "auto", "job=bsize: limit (numerical HF limit; nonrelativistic, point nucleus) | large (the optimised "
                          "start basis) | an energy in Eh; auto: limit without, large with the Dirac Hamiltonian"},
    {"bsize_evals", "60", "job=bsize: NEWUOA evaluations (SCFs) per candidate, over alpha, beta, gamma, delta"},
    {"bsize_groups", "4", "job=bsize, batched engine: a step's candidates, by size, in this many groups, each padded to "
                          "its largest (batch_mem is shared among them)"},
    {"bsize_side", "1", "job=bsize, batched engine: 1 runs a round's groups side by side, each on its share of the "
                        "cores (and on cuda its own stream); 0 one after another"},
    {"bsize_steps", "8", "job=bsize: steps run (the start basis, upper ends f d p s, lower ends f d p)"},
    {"bsize_local", "1", "job=bsize: 1 re-optimises the final basis less one function at every shrunk end (checks)"},
    {"bsize_out", "", "job=bsize: write the final basis as JSON to this file"},
    {"bsize_stall", "12", "job=bsize: a candidate's SCF is a failed point once its convergence ratio has not halved "
                          "in this many iterations, 8 .. 10000; 0: only maxit ends it"},
    {"bsize_warm", "1", "job=bsize: 1 starts each candidate's SCF from the density of its previous point, 0 from the "
                        "core Hamiltonian"},
    {"batch", "256", "job=batch: candidate bases, the case's basis and bsopt's Halton offsets around it"},
    {"batch_engine", "batched", "job=batch, bsize: batched (the SCFs in lockstep, integrals stored per candidate, one "
                                "batched contraction per iteration) | sequential (one direct SCF after another)"},
    {"batch_check", "16", "job=batch: candidates validated against the other engine"},
    {"batch_mem", "8", "job=batch, bsize: GiB of stored integrals in flight (more candidates run in chunks)"},
    {"batch_lanes", "2", "job=batch, bsize on cuda: 2 runs each chunk as two halves whose host steps and GPU work "
                         "overlap, 1 as one"},
    {"bsopt_evals", "40", "bsopt: SCF evaluations allowed (NEWUOA maxeval), per start"},
    {"bsopt_starts", "1", "bsopt: NEWUOA starts, the case's basis and Halton offsets around it; the best "
                          "optimum wins (under mpirun the starts are dealt to the ranks)"},
    {"bsopt_scan", "0", "bsopt: first evaluate this many candidate bases (the batch's) as one batch and start "
                        "NEWUOA from the best bsopt_starts of them (0: no scan)"},
    {"hamiltonian", "dirac", "dirac (Dirac-Coulomb) | schrodinger (the c -> infinity limit, exactly)"},
    {"c", "137.03599976", "speed of light, a.u. (10 .. 1000; dirac: above Z, where a point nucleus binds a 1s1/2); "
                          "past 1000 the Dirac SCF's round-off, eps c^2, stalls its 1e-8 density threshold: "
                          "hamiltonian=schrodinger is c -> infinity exactly"},
    {"eigensolver", "lapack", "Roothaan eigenproblem per symmetry and iteration: lapack (LAPACKE dsygvd, host) | "
                              "cusolver (cusolverDnDsygvd on the GPU, cuda backend only; job=batch batched: "
                              "every candidate's at once, L^-1 F L^-T with cusolverDnXsyevBatched)"},
    {"nucleus", "gauss", "gauss (Visscher-Dyall Gaussian charge, RMS radius 0.836 A^1/3 + 0.570 fm) | point"},
    {"A", "table", "mass number for the Gaussian nucleus (tabulated for the closed-shell atoms)"},
    {"alpha", "0.05", "well-tempered basis: zeta_k = alpha beta^(k-1) [1 + gamma (k/K)^delta], bohr^-2"},
    {"beta", "auto", "well-tempered ratio (1.5 .. 4; below 1.8 the s functions must reach 40 Z^2, else the SCF stalls); auto: alpha .. 4000 Z^2 in SIZE steps (job=bsize: bsize_max "
                     "steps, and at least 1.8: a larger start basis would be nearly linearly dependent)"},
    {"gamma", "0", "well-tempered gamma (-0.9 .. 100)"},
    {"delta", "0", "well-tempered delta (-100 .. 100; with gamma, the exponents must increase with k)"},
    {"np", "0.8 SIZE", "p functions: the first np exponents of the s sequence (1 .. SIZE, the exponents it has)"},
    {"nd", "0.6 SIZE", "d functions (first nd exponents, 1 .. SIZE)"},
    {"nf", "0.5 SIZE", "f functions (first nf exponents, 1 .. SIZE)"},
    {"maxit", "100", "SCF iteration limit, 30 .. 10000 (the SCFs converge in 9 to 23 iterations: fewer stop them unconverged)"},
    {"diis", "8", "DIIS subspace size (0: plain iteration)"},
    {"conv_e", "1e-10", "energy convergence, Eh (density: LL 1e-8, LS 1e-10, SS 1e-12)"},
    {"oracle", "2000", "G elements of the final Fock build checked against the scalar reference"},
    {NULL, NULL, NULL}};

/* The work of a repetition that made `builds` two-electron builds */
static void set_work(sb_case *c, const dfr_case *d, int builds)
{
    if (builds < 1) builds = 1;
    c->work.items = d->cnt.rint_per_build * builds;
    c->work.bytes = 16.0 * dfr_set_size(&d->y) * builds;
}

/* OpenBLAS's OpenMP build passes its thread count on to omp_set_num_threads, which would
 * leave every later parallel region of this thread with one thread: keep OpenMP's own. */
static void blas_threads_set(int n)
{
    const int omp = omp_get_max_threads();
    openblas_set_num_threads(n);
    omp_set_num_threads(omp);
}

static int dfr_setup(sb_case *c)
{
    dfr_case *d = calloc(1, sizeof *d);
    if (!d) return SB_EXIT_RUNTIME;
    c->state = d;
    d->backend = c->backend;
    /* Every matrix here is one symmetry's block (dimension at most 2 bsize_max): BLAS threads
     * would add only a fork and a join to each call, and the batched engine's candidates call
     * it side by side from their own threads. One thread a call for the whole case: this holds
     * OpenBLAS's pthread build to it; the OpenMP build follows OpenMP's count at every call,
     * which the SCF steps lower around themselves (scf.c). */
    d->blas_threads = openblas_get_num_threads();
    blas_threads_set(1);
    switch (c->backend) {
    case SB_BACKEND_REFERENCE: d->ops = &dfr_ops_reference; break;
    case SB_BACKEND_OPENMP_SIMD: d->ops = &dfr_ops_openmp_simd; break;
    default:
#ifdef SB_HAVE_CUDA
        d->ops = &dfr_ops_cuda;
#endif
        break;
    }
    if (!d->ops) { /* has_backend keeps the harness from asking */
        sb_error("dfratom_scf: backend %s is not built in (CUDA=0)", sb_backend_name(c->backend));
        return SB_EXIT_USAGE;
    }
    int rc = dfr_case_parse(c->params, d);
    if (rc) return rc;
    dfr_count(&d->y, d->f, d->o.ham == DFR_DIRAC, &d->cnt);
    set_work(c, d, 1); /* job=scf and bsopt: times the builds, set after the run */
    c->work.flops = 0.0; /* continued-fraction lengths vary: not countable */
    c->work.fp64 = 1;
    return SB_OK;
}

static int dfr_prepare(sb_case *c)
{
    dfr_case *d = c->state;
    int rc;
    if (d->eig_gpu && (rc = d->ops->eig_create(&d->y, d->o.ham == DFR_DIRAC, &d->eig))) return rc;
    if ((rc = dfr_builder_init(d, &d->g))) return rc;
    if (d->ops->batch_launches && (d->job == DFR_JOB_BATCH || d->job == DFR_JOB_BSIZE) &&
        d->engine == DFR_ENGINE_BATCHED) {
        /* the batched engine never launches the direct build: report its tensor pass (one chunk) */
        dfr_tshape t;
        if ((rc = dfr_tshape_init(&t, &d->g, d->o.ham == DFR_DIRAC))) return rc;
        const int B = dfr_batch_chunk(d, &t, d->batch);
        int n = d->ops->batch_launches(B * t.per, dfr_etab_group(t.tab, B) * t.tab->per, c->launch, SB_MAX_LAUNCH);
        dfr_tshape_free(&t);
        if (n < 0) return SB_EXIT_RUNTIME;
        c->nlaunch = n;
    } else if (d->ops->g_launches) {
        int n = d->ops->g_launches(&d->g, c->launch, SB_MAX_LAUNCH);
        if (n < 0) return SB_EXIT_RUNTIME;
        c->nlaunch = n;
    }
    if (d->job == DFR_JOB_BATCH && (rc = dfr_batch_out_alloc(&d->bo, d->batch))) return rc;
    if (d->job == DFR_JOB_FOCK) { /* the density after one SCF iteration (core guess) */
        dfr_scf_opts one = d->o;
        one.maxit = 1;
        d->D0 = calloc(dfr_set_size(&d->y), sizeof(double));
        d->G0 = calloc(dfr_set_size(&d->y), sizeof(double));
        if (!d->D0 || !d->G0) return SB_EXIT_RUNTIME;
        dfr_result r;
        if ((rc = dfr_scf(&d->atom, &d->y, d->f, &one, &d->g, &r, 0, d->D0))) return rc;
    }
    return SB_OK;
}

static int dfr_run(sb_case *c)
{
    dfr_case *d = c->state;
    if (d->job == DFR_JOB_FOCK) return d->g.build(&d->g, d->D0, d->G0);
    if (d->job == DFR_JOB_BATCH) {
        double t0 = sb_clock_seconds();
        int rc = dfr_batch_eval(d, d->engine, 0, d->batch, &d->bo);
        d->batch_time = sb_clock_seconds() - t0;
        return rc;
    }
    if (d->job == DFR_JOB_BSIZE) return dfr_bsize(d);
    if (d->job == DFR_JOB_BSOPT) {
        dfr_wtbs start = d->w; /* every repetition optimises from the same start */
        int rc = dfr_bsopt(d);
        d->w = start;
        return rc;
    }
    return dfr_scf(&d->atom, &d->y, d->f, &d->o, &d->g, &d->r, !c->params->quiet, d->Dfinal);
}

/* A batch: how many converged, the best candidate, where the time went */
static int batch_counters(sb_case *c, dfr_case *d)
{
    sb_counters *cs = &c->counters;
    const dfr_batch_out *o = &d->bo;
    int conv = 0, best = -1, iters = 0;
    for (int j = 0; j < d->batch; ++j) {
        iters += o->iters[j];
        if (!isfinite(o->energy[j])) continue;
        conv++;
        if (best < 0 || o->energy[j] < o->energy[best]) best = j;
    }
    set_work(c, d, o->fock_builds);
    sb_counter_set(cs, "batch_candidates", d->batch, "1");
    sb_counter_set(cs, "batch_converged", conv, "1");
    sb_counter_set(cs, "batch_engine_sequential", d->engine == DFR_ENGINE_SEQUENTIAL, "1");
    sb_counter_set(cs, "batch_chunk", o->chunk, "1");
    sb_counter_set(cs, "batch_scf_iterations", iters, "1");
    sb_counter_set(cs, "batch_scfs_per_s", d->batch / d->batch_time, "SCF/s");
    if (d->engine == DFR_ENGINE_BATCHED) {
        sb_counter_set(cs, "batch_time_tensors", o->t_tensor, "s");
        sb_counter_set(cs, "batch_tabulated_candidates", o->tabulated, "1");
        sb_counter_set(cs, "batch_table_integrals_per_candidate", (double)o->table_per, "1");
        sb_counter_set(cs, "batch_time_contractions", o->t_contract, "s");
        sb_counter_set(cs, "batch_time_host_scf", o->t_host, "s");
        if (d->eig_gpu) sb_counter_set(cs, "batch_time_gpu_eigensolves", o->t_eig, "s");
    }
    if (best >= 0) {
        double alpha, beta;
        dfr_bsopt_start(d, best, &alpha, &beta);
        sb_counter_set(cs, "batch_best_candidate", best, "1");
        sb_counter_set(cs, "batch_best_energy", o->energy[best], "Eh");
        sb_counter_set(cs, "batch_best_alpha", alpha, "bohr^-2");
        sb_counter_set(cs, "batch_best_beta", beta, "1");
    }
    if (conv < d->batch)
        sb_error("dfratom_scf: %d of %d candidate bases did not converge", d->batch - conv, d->batch);
    return SB_OK;
}

/* job=bsize: the workflow's tables (stdout, rank 0), its outcome and where the time went */
static int bsize_counters(sb_case *c, dfr_case *d)
{
    sb_counters *cs = &c->counters;
    const dfr_bsize_result *b = &d->bzr;
    if (b->report && !c->params->quiet && sb_mpi_rank() == 0) fputs(b->report, stdout), fflush(stdout);
    c->work.items = b->items;
    c->rank_items = b->rank_items;
    c->work.bytes = 0.0; /* the stored tensors' traffic depends on the engine: no single model */
    sb_counter_set(cs, "bsize_energy", b->e_final, "Eh");
    sb_counter_set(cs, "bsize_reference", b->e_ref, "Eh");
    sb_counter_set(cs, "bsize_reference_hf_limit", b->ref_kind == DFR_REF_LIMIT, "1");
    sb_counter_set(cs, "bsize_error_rel", b->err_rel, "1");
    sb_counter_set(cs, "bsize_tol", d->bz.tol, "1");
    sb_counter_set(cs, "bsize_energy_start", b->e_start, "Eh");
    sb_counter_set(cs, "bsize_scfs", b->scfs, "1");
    sb_counter_set(cs, "bsize_failed_points", b->failed_scfs, "1");
    sb_counter_set(cs, "bsize_rounds", b->rounds, "1");
    sb_counter_set(cs, "bsize_local_taken", b->local_taken, "1");
    sb_counter_set(cs, "bsize_scfs_per_s", b->scfs / b->seconds, "SCF/s");
    sb_counter_set(cs, "bsize_fock_builds", b->fock_builds, "1");
    sb_counter_set(cs, "bsize_maxit_scfs", b->maxit_scfs, "1");
    sb_counter_set(cs, "bsize_maxit_fock_builds", b->maxit_builds, "1");
    sb_counter_set(cs, "bsize_stalled_scfs", b->stalled_scfs, "1");
    sb_counter_set(cs, "bsize_stalled_fock_builds", b->stalled_builds, "1");
    sb_counter_set(cs, "bsize_critical_iterations", b->critical_iters, "1");
    sb_counter_set(cs, "bsize_engine_sequential", d->engine == DFR_ENGINE_SEQUENTIAL, "1");
    sb_counter_set(cs, "bsize_groups_side_by_side", d->engine == DFR_ENGINE_BATCHED && d->bz.side, "1");
    if (d->engine == DFR_ENGINE_BATCHED) {
        sb_counter_set(cs, "bsize_time_tensors", b->t_tensor, "s");
        sb_counter_set(cs, "bsize_time_contractions", b->t_contract, "s");
        sb_counter_set(cs, "bsize_time_host_scf", b->t_host, "s");
        if (d->eig_gpu) sb_counter_set(cs, "bsize_time_gpu_eigensolves", b->t_eig, "s");
    }
    static const char *const first[4] = {"bsize_s_first", "bsize_p_first", "bsize_d_first", "bsize_f_first"};
    static const char *const last[4] = {"bsize_s_last", "bsize_p_last", "bsize_d_last", "bsize_f_last"};
    int funs = 0, funs0 = 0;
    for (int s = 0; s < d->y.ns; ++s) {
        const int l = dfr_l(dfr_kappa[s]);
        funs += b->final.n[l], funs0 += b->start.n[l];
        if (s && l == dfr_l(dfr_kappa[s - 1])) continue;
        sb_counter_set(cs, first[l], b->final.start[l], "1");
        sb_counter_set(cs, last[l], b->final.start[l] + b->final.n[l] - 1, "1");
    }
    sb_counter_set(cs, "bsize_functions", funs, "1");
    sb_counter_set(cs, "bsize_functions_start", funs0, "1");
    sb_counter_set(cs, "bsize_K", b->final.K, "1");
    sb_counter_set(cs, "bsize_alpha", b->final.alpha, "bohr^-2");
    sb_counter_set(cs, "bsize_beta", b->final.beta, "1");
    sb_counter_set(cs, "bsize_gamma", b->final.gamma, "1");
    sb_counter_set(cs, "bsize_delta", b->final.delta, "1");
    return SB_OK;
}

static int dfr_finish(sb_case *c)
{
    dfr_case *d = c->state;
    sb_counters *cs = &c->counters;
    sb_counter_set(cs, "radial_2e_integrals_per_build", d->cnt.rint_per_build, "1");
    sb_counter_set(cs, "elementary_integrals_per_build", d->cnt.elem_per_build, "1");
    sb_counter_set(cs, "basis_functions", d->y.nf, "1");
    sb_counter_set(cs, "Z", d->atom.Z, "1");
    sb_counter_set(cs, "eigensolver_cusolver", d->eig_gpu, "1");
    if (d->job == DFR_JOB_FOCK) return SB_OK;
    const dfr_result *r = &d->r;
    if (d->job == DFR_JOB_BATCH) return batch_counters(c, d);
    if (d->job == DFR_JOB_BSIZE) return bsize_counters(c, d);
    if (d->job == DFR_JOB_BSOPT) { /* the optimisation's totals; r is the optimum's SCF */
        const dfr_bsopt_result *b = &d->bs;
        sb_counter_set(cs, "bsopt_energy_start", b->e0, "Eh");
        sb_counter_set(cs, "bsopt_energy", b->energy, "Eh");
        sb_counter_set(cs, "bsopt_alpha", b->alpha, "bohr^-2");
        sb_counter_set(cs, "bsopt_beta", b->beta, "1");
        sb_counter_set(cs, "bsopt_scfs", b->evals, "1");
        sb_counter_set(cs, "bsopt_failed_scfs", b->failures, "1");
        sb_counter_set(cs, "bsopt_fock_builds", b->fock_builds, "1");
        sb_counter_set(cs, "bsopt_best_start", b->best_start, "1");
        if (d->bs_scan > 0) {
            sb_counter_set(cs, "bsopt_scan_scfs", b->scan_scfs, "1");
            sb_counter_set(cs, "bsopt_scan_best_energy", b->scan_best, "Eh");
        }
        sb_counter_set(cs, "energy", r->energy, "Eh");
        set_work(c, d, b->fock_builds);
        c->rank_items = d->cnt.rint_per_build * b->rank_fock_builds;
        return r->converged ? SB_OK : SB_EXIT_RUNTIME;
    }
    if (!r->converged)
        sb_error("dfratom_scf: SCF not converged in %d iterations (dE %.1e Eh, dD(LL) %.1e): raise maxit or "
                 "change the basis", r->iterations, r->de, r->dd_ll);
    set_work(c, d, r->fock_builds);
    sb_counter_set(cs, "energy", r->energy, "Eh");
    sb_counter_set(cs, "energy_kinetic", r->e_kin, "Eh");
    sb_counter_set(cs, "energy_nuclear", r->e_ne, "Eh");
    sb_counter_set(cs, "energy_electron_repulsion", r->e_ee, "Eh");
    sb_counter_set(cs, "virial_minus_V_over_T", -(r->e_ne + r->e_ee) / r->e_kin, "1");
    sb_counter_set(cs, "scf_iterations", r->iterations, "1");
    sb_counter_set(cs, "fock_builds", r->fock_builds, "1");
    sb_counter_set(cs, "eigensolve_time", r->t_eig, "s");
    sb_counter_set(cs, "converged", r->converged, "1");
    sb_counter_set(cs, "final_energy_change", r->de, "Eh");
    sb_counter_set(cs, "final_density_change_LL", r->dd_ll, "1");
    sb_counter_set(cs, "final_density_change_LS", r->dd_ls, "1");
    sb_counter_set(cs, "final_density_change_SS", r->dd_ss, "1");
    static const char *const names[DFR_NSYM] = {"s1/2", "p1/2", "p3/2", "d3/2", "d5/2", "f5/2", "f7/2"};
    static const char spd[] = "spdf";
    for (int s = 0; s < d->y.ns; ++s) {
        int l = dfr_l(dfr_kappa[s]);
        for (int b = 0; b < d->atom.nocc[s] && b < 8; ++b) {
            char name[48];
            snprintf(name, sizeof name, "eps_%d%c%s", b + l + 1, spd[l], names[s] + 1);
            sb_counter_set(cs, name, r->eps[s][b], "Eh");
        }
    }
    return r->converged ? SB_OK : SB_EXIT_RUNTIME;
}

static void dfr_teardown(sb_case *c)
{
    dfr_case *d = c->state;
    if (!d) return;
    if (d->ops) dfr_builder_free(d, &d->g);
    if (d->eig) d->ops->eig_destroy(d->eig);
    free(d->f);
    free(d->D0);
    free(d->G0);
    free(d->Dfinal);
    dfr_batch_out_free(&d->bo);
    free(d->bzr.report);
    if (d->blas_threads > 0) blas_threads_set(d->blas_threads);
    free(d);
    c->state = NULL;
}

const sb_kernel dfratom_scf_kernel = {
    .name = "dfratom_scf",
    .summary = "Dirac-Fock-Roothaan SCF of closed-shell atoms in a kinetically balanced well-tempered Gaussian basis",
    .item = "radial 2e integrals",
    .size_meaning = "K, s functions of the well-tempered basis (p, d, f follow np, nd, nf)",
    .default_size = 30,
    .min_size = 4,
    .max_size = DFR_MAXN,
    .ci_size = 12,
    .params = dfr_params,
#ifdef SB_HAVE_CUDA
    .has_backend = {1, 1, 1},
#else
    .has_backend = {1, 0, 1},
#endif
    .setup = dfr_setup,
    .prepare = dfr_prepare,
    .run = dfr_run,
    .finish = dfr_finish,
    .validate = dfr_validate,
    .teardown = dfr_teardown,
};
