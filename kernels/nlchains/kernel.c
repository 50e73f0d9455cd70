/* nlchains: the sb_kernel the harness drives. */
#include <math.h>
#include <stdlib.h>

#include "nlchains/nlc.h"
#include "nlchains/nlchains.h"
#include "nlchains/validate.h"
#include "sb_mpi.h"

typedef struct {
    nlc m;
    nlc_driver d;
    nlc_start s0;
} nlc_case;

static const sb_param_spec nlc_params[] = {
    {"model", "fput", "fput | toda | dnkg | dnls (Hamiltonians in kernels/nlchains/physics.h)"},
    {"copies", "8192", "C, independent chains in the ensemble (1..16777216)"},
    {"alpha", "0.25", "fput: cubic coupling, -0.8 .. 0.8; toda: exponential steepness, -1 .. 1, != 0 (beyond, at the "
                      "default energy, the energy check fails: README)"},
    {"beta", "0.1", "fput: quartic coupling, 0 .. 3; dnkg: on-site quartic (0.1), 0 .. 5; dnls: nonlinearity (default 1), "
                    "-4 .. 8 (below 0 fput's and dnkg's potentials are unbounded below)"},
    {"m", "1.0", "dnkg: on-site linear mass term, 0 .. (0.25/dt)^2 - 4 (2.25 at dt = 0.1): dt sqrt(4 + m) <= 0.25"},
    {"dt", "0.1", "time step of the 6th-order composition, units of 1/omega (harmonic coupling 1): 1e-9 .. 0.18 (fput, "
                  "toda: 2 dt <= 0.36), 0.11 (dnkg), 0.3 (dnls); beyond, a chain with its energy in the fastest "
                  "modes fails the energy check"},
    {"steps", "100", "full 6th-order steps per repetition"},
    {"batch", "100", "collect mode energies and entropies every K steps (0: never)"},
    {"entropy_limit", "0", "stop stepping once the information entropy falls below this (0: off)"},
    {"collect", "async", "async: a collection overlaps the next steps (cuda; not with dump or entropy_limit) | sync"},
    {"energy", "0.1", "initial harmonic energy per site (norm per site for dnls), spread over `modes`, 1e-12 .. 2 "
                      "(fput, toda), 4 (dnkg), 0.7 (dnls; beyond, the energy check fails: README)"},
    {"modes", "1:N/32", "k0:k1, band of normal modes that holds the initial energy (random phases)"},
    {"init_file", "", "initial state: binary C x N x (q,p) native doubles, chain-major (16 C N bytes)"},
    {"dump", "", "prefix: writes <prefix>-<step> (state), <prefix>-linenergies-<step>, <prefix>-entropy"},
    {NULL, NULL, NULL}};

/* Flops per chain-site step, as written (physics.h, merged kicks: 7 force evaluations):
 *  fput: 7 x (drift 2 + bond r 1 + V'(r) 5 + b_i - b_{i-1} 1 + kick 2) = 77;
 *  toda: 7 x (drift 2 + r 1 + e(r) 12 + b_i - b_{i-1} 1 + kick 2) = 126, with e(r) =
 *        exp(2 alpha r) by nlc_toda_exp as executed: reduction fma 2 + 1 + fma 2, series
 *        2 fma 4 + 1, s (1 + em) fma 2 (the 1/(2 alpha) rides on the kick coefficient);
 *        the earlier expm1 form of e(r), with a degree-5 series, counted 161;
 *  dnkg: 7 x (drift 2 + force 8 + kick 2) = 84;
 *  dnls: 7 x (|psi|^2 beta t 5 + rotation 6 + phase multiply 6 + two FFTs 2 x 5 log2 N), sin/cos
 *        not counted (5 N log2 N per complex FFT, the usual convention).
 * Mode-energy collections are not counted. */
static double flops_per_site_step(const nlc_config *c)
{
    switch (c->model) {
    case NLC_FPUT: return 77.0;
    case NLC_TODA: return 126.0;
    case NLC_DNKG: return 84.0;
    default: return 7.0 * (17.0 + 10.0 * log2((double)c->N));
    }
}

/* MPI: each rank integrates a contiguous block of the ensemble's chains. */
static int split_copies(nlc_config *cfg)
{
    int ranks = sb_mpi_size();
    if (ranks == 1) return SB_OK;
    if (cfg->copies < ranks) {
        sb_error("nlchains: copies=%ld is fewer than the %d MPI ranks; accepted: copies >= ranks", cfg->copies,
                 ranks);
        return SB_EXIT_USAGE;
    }
    long lo, hi;
    sb_mpi_block(cfg->copies, &lo, &hi);
    cfg->copies_total = cfg->copies;
    cfg->copy0 = lo;
    cfg->copies = hi - lo;
    return SB_OK;
}

static int nlc_setup(sb_case *c)
{
    nlc_config cfg;
    nlc_init_spec init;
    int rc = nlc_parse(c->params, &cfg, &init);
    if (rc) return rc;
    if ((rc = split_copies(&cfg))) return rc;
    nlc_case *nc = calloc(1, sizeof *nc);
    if (!nc) return SB_EXIT_RUNTIME;
    c->state = nc;
    if ((rc = nlc_create(&nc->m, &cfg, &init, c->backend)) || (rc = nlc_driver_init(&nc->d, &nc->m))) return rc;
    double sites = (double)cfg.N * (double)(cfg.copies_total ? cfg.copies_total : cfg.copies);
    c->work.items = sites * cfg.steps_per_rep;
    c->rank_items = (double)cfg.N * (double)cfg.copies * cfg.steps_per_rep;
    c->work.flops = c->work.items * flops_per_site_step(&cfg);
    c->work.fp64 = 1;
    /* compulsory traffic: a steps() call reads and writes each chain once (16 B per site
     * each way); each mode-energy collection in the repetition reads the state once more */
    double collections = cfg.batch > 0 ? (double)(cfg.steps_per_rep / cfg.batch) : 0.0;
    c->work.bytes = sites * (32.0 + 16.0 * collections);
    return SB_OK;
}

static int nlc_prepare(sb_case *c)
{
    nlc_case *nc = c->state;
    nlc_record_start(&nc->m, &nc->s0);
    int rc = nc->m.ops->upload(&nc->m);
    if (rc || !nc->m.ops->launches) return rc;
    int n = nc->m.ops->launches(&nc->m, c->launch, SB_MAX_LAUNCH);
    if (n < 0) return SB_EXIT_RUNTIME;
    c->nlaunch = n;
    return SB_OK;
}

static int nlc_run(sb_case *c)
{
    nlc_case *nc = c->state;
    return nlc_driver_advance(&nc->m, &nc->d, nc->m.cfg.steps_per_rep);
}

static void set_finite(sb_counters *cs, const char *name, double v, const char *unit)
{
    if (isfinite(v)) sb_counter_set(cs, name, v, unit); /* S_wt is +inf while a mode is empty */
}

static int nlc_finish(sb_case *c)
{
    nlc_case *nc = c->state;
    nlc *m = &nc->m;
    const nlc_config *cfg = &m->cfg;
    int rc;
    if ((rc = nlc_driver_flush(m, &nc->d))) return rc;
    if (nc->d.collections == 0) { /* batch = 0: one collection now, for the report */
        if ((rc = nlc_mode_energies(m, nc->d.ek))) return rc;
        nlc_entropies(nc->d.ek, cfg->N, nlc_skip_mode0(cfg), &nc->d.s_wt, &nc->d.s_info);
    }
    if ((rc = m->ops->download(m))) return rc;
    double sites = (double)cfg->N * (double)(cfg->copies_total ? cfg->copies_total : cfg->copies);
    double H = nlc_total_energy(m);
    sb_counters *cs = &c->counters;
    sb_counter_set(cs, "energy_per_site", H / sites, "1");
    sb_counter_set(cs, "energy_rel_drift", fabs(H - nc->s0.H0) / fabs(nc->s0.H0), "1");
    if (cfg->model == NLC_DNLS) {
        double n = nlc_total_norm(m);
        sb_counter_set(cs, "norm_per_site", n / sites, "1");
        sb_counter_set(cs, "norm_rel_drift", fabs(n - nc->s0.norm0) / nc->s0.norm0, "1");
    }
    if (cfg->model == NLC_FPUT || cfg->model == NLC_TODA)
        sb_counter_set(cs, "momentum_change", fabs(nlc_total_momentum(m) - nc->s0.P0), "1");
    set_finite(cs, "entropy_wt", nc->d.s_wt, "1");
    set_finite(cs, "entropy_info", nc->d.s_info, "1");
    sb_counter_set(cs, "mode_energy_collections", (double)nc->d.collections, "1");
    sb_counter_set(cs, "collections_async", (double)nc->d.async, "1");
    sb_counter_set(cs, "steps_total", (double)m->step, "steps");
    sb_counter_set(cs, "time_total", m->step * cfg->dt, "1/omega");
    sb_counter_set(cs, "flops_per_site_step", flops_per_site_step(cfg), "flop");
    if (nc->d.stop_step >= 0) {
        /* repetitions after the stop did no work: their throughput is meaningless */
        sb_counter_set(cs, "entropy_limit_reached_step", (double)nc->d.stop_step, "steps");
        sb_error("nlchains: information entropy fell below %g at step %ld; later repetitions did no work",
                 cfg->entropy_limit, nc->d.stop_step);
    }
    return SB_OK;
}

static int nlc_validate(sb_case *c, sb_validation *v)
{
    nlc_case *nc = c->state;
    return nlc_validate_all(&nc->m, &nc->s0, c->backend, v, &c->counters);
}

static void nlc_teardown(sb_case *c)
{
    nlc_case *nc = c->state;
    if (!nc) return;
    nlc_driver_free(&nc->d);
    nlc_destroy(&nc->m);
    free(nc);
    c->state = NULL;
}

const sb_kernel nlchains_kernel = {
    .name = "nlchains",
    .summary = "6th-order symplectic ensembles of FPUT/Toda/DNKG/DNLS chains, energy per normal mode by FFT",
    .item = "chain-site steps",
    .size_meaning = "N, sites per chain (periodic)",
    .default_size = 1024,
    .min_size = 8,
    .max_size = 65536,
    .ci_size = 64,
    .params = nlc_params,
#ifdef SB_HAVE_CUDA
    .has_backend = {1, 1, 1},
#else
    .has_backend = {1, 0, 1},
#endif
    .setup = nlc_setup,
    .prepare = nlc_prepare,
    .run = nlc_run,
    .finish = nlc_finish,
    .validate = nlc_validate,
    .teardown = nlc_teardown,
};
