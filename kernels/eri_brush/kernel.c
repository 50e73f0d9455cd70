/* eri_brush: the sb_kernel the harness drives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri_brush.h"
#include "eri_brush/ericase.h"
#include "sb_mpi.h"

static const sb_param_spec eri_params[] = {
    {"molecule", "cluster", "cluster (SIZE waters, from the seed), water, benzene, vitamin_c, taxol, valinomycin, or FILE.xyz (Angstrom)"},
    {"basis", "cc-pvdz", "sto-3g, 6-31gs (6-31G*), cc-pvdz, def2-svp, cc-pvtz, def2-tzvp (f shells: digest mode only), or FILE.g94 (Gaussian-94 format; l <= 3)"},
    {"cartesian", "0", "1: Cartesian d and f shells instead of pure (solid-harmonic) ones"},
    {"mode", "digest", "digest: Coulomb matrix J[D] of a fixed pseudo-random density, no integral stored; store: keep every unique integral (s, p, d shells only)"},
    {"screen", "1e-12", "Schwarz threshold: quartets with sqrt((ab|ab)) sqrt((cd|cd)) below it are skipped, hartree"},
    {"prim_screen", "1e-18", "primitive-pair screening: each shell pair drops its smallest primitive pairs while the Schwarz bound on what they add to any integral stays below this (twice it with the ket's), hartree; 0 keeps every primitive pair"},
    {"pq_screen", "1e-15", "primitive-quartet screening (cuda and openmp_simd, digest mode): within a kept quartet, the primitive quartets whose primitive pairs' Schwarz factors multiply to less than this are skipped; its bound joins screen_error_bound; 0 computes every one; at most 1e-12, beyond which J can leave the 1e-11 check against the reference"},
    {"path", "auto", "auto: cheaper of HGP and MD per class and contraction pattern (flop model), and in digest mode the J engine for la+lb+lc+ld >= 6 (cuda: >= 5; measured); hgp or md: force one; jeng: J engine, digest through Hermite densities without forming the integrals (digest mode); classes with an f shell always run the J engine"},
    {"oracle", "4", "quartets per class recomputed by the scalar reference (large cases; small ones redo J whole)"},
    {NULL, NULL, NULL}};

static int ek_setup(sb_case *c)
{
    eri_config cfg;
    int rc = eri_case_parse(c->params, &cfg);
    if (rc) return rc;
    eri_case *ec = calloc(1, sizeof *ec);
    if (!ec) return SB_EXIT_RUNTIME;
    c->state = ec;
    if ((rc = eri_case_create(ec, &cfg, c->backend))) return rc;
    if (sb_mpi_size() > 1 && (rc = eri_mpi_split(ec))) return rc;
    ec->b.seg_seconds = calloc((size_t)(ec->w.nseg ? ec->w.nseg : 1), sizeof(double));
    if (!ec->b.seg_seconds) return SB_EXIT_RUNTIME;
    double nbf = ec->bas.nbf;
    c->work.items = ec->w.neris;
    /* compulsory traffic: primitive pairs, the quartet list and D in, J (or the integrals) out */
    c->work.bytes = (double)ec->ps.nprim * sizeof(eri_prim) + (double)ec->w.nq * sizeof(eri_quartet) +
                    8.0 * nbf * nbf + (cfg.mode == ERI_MODE_STORE ? 8.0 * ec->w.neris : 8.0 * nbf * nbf);
    c->work.flops = ec->w.flops;
    c->work.fp64 = 1;
    return SB_OK;
}

static int ek_prepare(sb_case *c)
{
    eri_case *ec = c->state;
    int rc = ec->ops->prepare(&ec->b);
    if (rc) return rc;
    ec->prepared = 1;
    if (sb_mpi_size() > 1 && (rc = eri_mpi_deal(ec, &c->rank_items))) return rc;
    if (ec->ops->launches) {
        int n = ec->ops->launches(&ec->b, c->launch, SB_MAX_LAUNCH);
        if (n < 0) return SB_EXIT_RUNTIME;
        c->nlaunch = n;
    }
    return SB_OK;
}

static int ek_run(sb_case *c)
{
    eri_case *ec = c->state;
    int rc = ec->ops->run(&ec->b);
    return rc || sb_mpi_size() == 1 ? rc : eri_mpi_reduce(ec);
}

/* Model flops per class of this rank's last run: its part of the worklist's segments, or
 * what the backend says it computed instead (the pair families share primitive work). */
static double class_flops(eri_case *ec, double f[ERI_NCLASS])
{
    double total = 0, all[ERI_NCLASS] = {0}; /* all: without the primitive-quartet screen */
    for (int k = 0; k < ERI_NCLASS; k++) f[k] = 0;
    for (int k = 0; k < ec->b.w->nseg; k++) {
        const eri_segment *s = &ec->b.w->seg[k];
        long q0, q1;
        eri_share_cut(ec->b.share, s->cls, s->q0, s->q1, &q0, &q1);
        f[s->cls] += eri_case_seg_flops(ec, k, q0, q1);
        all[s->cls] += (double)(q1 - q0) * eri_quartet_flops(s->cls, s->path, s->nb, s->nk, ec->cfg.pure);
    }
    for (int k = 0; k < ERI_NCLASS; k++) {
        double own = ec->ops->class_flops ? ec->ops->class_flops(&ec->b, k) : -1;
        /* the family kernels' model knows nothing of the screen: scaled by the share of the
         * class's work that the screen leaves in its one-pair quartets */
        if (own >= 0 && all[k] > 0) own *= f[k] / all[k];
        if (own >= 0) f[k] = own;
        total += f[k];
    }
    return total;
}

/* Per-class time of the last repetition and its rate from the flop model; returns the
 * run's model flops. */
static double class_counters(eri_case *ec, sb_counters *cs)
{
    double t[ERI_NCLASS] = {0}, f[ERI_NCLASS];
    const double total = class_flops(ec, f);
    for (int k = 0; k < ec->b.w->nseg; k++) t[ec->b.w->seg[k].cls] += ec->b.seg_seconds[k];
    for (int k = 0; k < ERI_NCLASS; k++) {
        if (t[k] <= 0) continue;
        const eri_class_info *ci = eri_class(k);
        char name[48];
        static const char L[] = "spdf";
        char cl[5] = {L[ci->la], L[ci->lb], L[ci->lc], L[ci->ld], 0};
        snprintf(name, sizeof name, "t_%s", cl);
        sb_counter_set(cs, name, t[k], "s");
        snprintf(name, sizeof name, "gflops_%s", cl);
        sb_counter_set(cs, name, f[k] / t[k] * 1e-9, "GFLOP/s");
    }
    return total;
}

static int ek_finish(sb_case *c)
{
    eri_case *ec = c->state;
    /* MPI: summed in each run, on the hosts or (then downloaded here) on the GPUs */
    int rc = sb_mpi_size() > 1 && !ec->reduced_on_device ? SB_OK : ec->ops->download(&ec->b);
    if (rc) return rc;
    if (ec->cfg.mode == ERI_MODE_DIGEST) eri_coulomb_finish(&ec->bas, ec->M);
    sb_counters *cs = &c->counters;
    const eri_worklist *w = &ec->w;
    double nbf = ec->bas.nbf, total = 0;
    for (int k = 0; k < w->nseg; k++) total += ec->b.seg_seconds[k];
    const double mine_q = sb_mpi_size() > 1 ? ec->share_quartets : (double)w->nq;
    sb_counter_set(cs, "basis_functions", nbf, "functions");
    sb_counter_set(cs, "shells", ec->bas.nshell, "shells");
    sb_counter_set(cs, "atoms", ec->mol.natom, "atoms");
    sb_counter_set(cs, "shell_quartets", (double)w->nq, "quartets");
    sb_counter_set(cs, "primitive_quartets", w->nprimq_full, "quartets"); /* sum of Ka Kb Kc Kd */
    sb_counter_set(cs, "primitive_quartets_computed", w->nprimq, "quartets");
    double all = (double)ec->ps.npair * ((double)ec->ps.npair + 1) / 2;
    sb_counter_set(cs, "screened_fraction", all > 0 ? (double)w->nq / all : 0, "1");
    /* what the screening can have moved any element of J by (screen_bound.c) */
    sb_counter_set(cs, "screen_error_bound", ec->screen_bound, "Eh");
    sb_counter_set(cs, "segments", w->nseg, "segments");
    if (total > 0) { /* this rank's quartets over its own segment times */
        const double part = w->nq > 0 ? mine_q / (double)w->nq : 0;
        sb_counter_set(cs, "shell_quartets_per_s", mine_q / total, "quartets/s");
        sb_counter_set(cs, "primitive_quartets_per_s", part * w->nprimq_full / total, "quartets/s");
        sb_counter_set(cs, "primitive_quartets_computed_per_s", part * w->nprimq / total, "quartets/s");
    }
    if (sb_mpi_size() > 1) {
        /* every quartet once over the ranks: the same count as one rank's */
        double q = mine_q;
        sb_mpi_sum(&q, 1);
        sb_counter_set(cs, "shell_quartets_digested", q, "quartets");
        sb_counter_set(cs, "mpi_cost_imbalance", ec->mpi_imbalance, "max/mean");
    } else {
        sb_counter_set(cs, "shell_quartets_digested", (double)w->nq, "quartets");
    }
    sb_counter_set(cs, "t_setup", ec->setup_seconds, "s");
    if (ec->cfg.mode == ERI_MODE_DIGEST) {
        double ej = 0;
        for (size_t i = 0; i < (size_t)(nbf * nbf); i++) ej += ec->M[i] * ec->D[i];
        sb_counter_set(cs, "coulomb_energy_trJD", ej, "hartree");
    }
    const double flops = class_counters(ec, cs);
    if (sb_mpi_size() == 1) c->work.flops = flops; /* the flops computed, where the backend shared work (families) */
    return SB_OK;
}

static int ek_validate(sb_case *c, sb_validation *v)
{
    eri_case *ec = c->state;
    return eri_validate_all(ec, c->backend, v, &c->counters);
}

static void ek_teardown(sb_case *c)
{
    eri_case *ec = c->state;
    if (!ec) return;
    free(ec->b.seg_seconds);
    eri_case_destroy(ec);
    free(ec);
    c->state = NULL;
}

const sb_kernel eri_brush_kernel = {
    .name = "eri_brush",
    .summary = "two-electron repulsion integrals over contracted Gaussians (BRUSH: generated HGP/MD code per class)",
    .item = "ERIs",
    .size_meaning = "water molecules in the cluster (molecule=cluster)",
    .default_size = 16,
    .min_size = 1,
    .max_size = 4096,
    .ci_size = 4,
    .params = eri_params,
    .profile_as_range = 1,
#ifdef SB_HAVE_CUDA
    .has_backend = {1, 1, 1},
#else
    .has_backend = {1, 0, 1},
#endif
    .setup = ek_setup,
    .prepare = ek_prepare,
    .run = ek_run,
    .finish = ek_finish,
    .validate = ek_validate,
    .teardown = ek_teardown,
};
