/* lattice_mc: the sb_kernel the harness drives. */
#include <stdio.h>
#include <stdlib.h>

#include "lattice_mc/lattice_mc.h"
#include "lattice_mc/lmc.h"
#include "lattice_mc/validate.h"
#include "sb_mpi.h"

typedef struct {
    lmc m;
    int calls; /* run() calls so far: the first `warmup` ones may adapt the amplitude */
} lmc_case;

static const sb_param_spec lmc_params[] = {
    {"geometry", "bulk", "bulk (periodic L^3) | droplet (sphere of radius L/2-1, anchored surface)"},
    {"T", "1.0", "temperature, epsilon/k_B (Lebwohl-Lasher T_NI ~ 1.1232)"},
    {"W", "1.0", "droplet surface anchoring, epsilon; > 0 homeotropic, < 0 planar"},
    {"field", "0", "field coupling chi, epsilon: term -chi (n.z)^2 per site"},
    {"sweeps", "10", "Monte Carlo sweeps (L^3 trial moves each) per repetition"},
    {"step", "0.3", "trial amplitude a in n' = (n + a s)/|n + a s|; 'auto' adapts it during warm-up"},
    {"anneal", "", "T0:T1, linear temperature ramp over all sweeps (overrides T)"},
    {"init", "random", "random (isotropic) | aligned (all along z)"},
    {"fuse", "off", "cuda: off (a launch per tick) | slab, slab_l2 (a launch per sweep, z wavefront in L2; one rank)"},
    {"slab", "auto", "fuse=slab: planes a wavefront step advances, 1..1024; auto from the L2 size"},
    {NULL, NULL, NULL}};

static int lmc_setup(sb_case *c)
{
    lmc_config cfg;
    int rc = lmc_parse(c->params, &cfg);
    if (rc) return rc;
    if (c->backend == SB_BACKEND_REFERENCE && sb_mpi_size() > 1) {
        sb_error("lattice_mc: the reference backend runs on one MPI rank only, not %d; accepted: 1 rank, or "
                 "--backend openmp_simd|cuda",
                 sb_mpi_size());
        return SB_EXIT_USAGE;
    }
    if (cfg.fuse && c->backend != SB_BACKEND_CUDA) {
        sb_error("lattice_mc: --param fuse is for --backend cuda; accepted here: fuse=off (openmp_simd always runs "
                 "its z wavefront)");
        return SB_EXIT_USAGE;
    }
    if (cfg.fuse && sb_mpi_size() > 1 && sb_mpi_rank() == 0)
        fprintf(stderr, "scibench: note: lattice_mc: the fused sweep runs on one rank; with %d MPI ranks each slab "
                        "runs tick by tick (fuse=off)\n",
                sb_mpi_size());
    cfg.decompose = 1;
    lmc_case *lc = calloc(1, sizeof *lc);
    if (!lc) return SB_EXIT_RUNTIME;
    c->state = lc;
    if ((rc = lmc_create(&lc->m, &cfg, c->backend))) return rc;
    /* compulsory traffic: read and write one float3 director per update (+1 flag byte in a droplet) */
    double items = (double)lc->m.nactive * cfg.sweeps_per_rep;
    c->work.items = items;
    c->rank_items = (double)lc->m.nactive_local * cfg.sweeps_per_rep;
    c->work.bytes = items * (cfg.geometry == LMC_DROPLET ? 25.0 : 24.0);
    c->work.flops = 0.0; /* dominated by integer Philox rounds: no honest flop count */
    return SB_OK;
}

static int lmc_prepare(sb_case *c)
{
    lmc_case *lc = c->state;
    lc->m.E0 = lmc_energy(&lc->m);
    int rc = lc->m.ops->upload(&lc->m);
    if (rc || !lc->m.ops->launches) return rc;
    int n = lc->m.ops->launches(&lc->m, c->launch, SB_MAX_LAUNCH);
    if (n < 0) return SB_EXIT_RUNTIME;
    c->nlaunch = n;
    return SB_OK;
}

static int lmc_run(sb_case *c)
{
    lmc_case *lc = c->state;
    int adapt = lc->m.cfg.step_auto && lc->calls < c->params->warmup;
    lc->calls++;
    return lmc_run_sweeps(&lc->m, lc->m.cfg.sweeps_per_rep, adapt);
}

static int lmc_finish(sb_case *c)
{
    lmc_case *lc = c->state;
    lmc *m = &lc->m;
    double dE, acc;
    int rc = lmc_totals(m, &dE, &acc);
    if (rc || (rc = lmc_download(m))) return rc;
    double n = (double)m->nactive;
    sb_counter_set(&c->counters, "energy_per_site", lmc_energy(m) / n, "epsilon");
    sb_counter_set(&c->counters, "order_parameter_S", lmc_order_parameter(m), "1");
    sb_counter_set(&c->counters, "acceptance_rate", m->sweep ? acc / (n * m->sweep) : 0.0, "1");
    /* bit-identical states give equal checksums, for any rank count and backend */
    sb_counter_set(&c->counters, "lattice_checksum", lmc_checksum(m), "1");
    sb_counter_set(&c->counters, "accepted_moves", acc, "moves");
    sb_counter_set(&c->counters, "temperature_final", lmc_temperature(m, m->sweep ? m->sweep - 1 : 0), "epsilon/k_B");
    sb_counter_set(&c->counters, "trial_amplitude", m->step, "1");
    sb_counter_set(&c->counters, "sweeps_total", m->sweep, "sweeps");
    sb_counter_set(&c->counters, "active_sites", n, "sites");
    sb_counter_set(&c->counters, "bytes_per_update_model", c->work.bytes / c->work.items, "B");
    /* What the scheme really streams once the lattice exceeds the caches. CUDA, tick
     * by tick: the own sub-lattice is read and written and its three neighbours read,
     * 5 x 12 B per update; fused (one rank), 2 x 12 B as long as its slabs fit in L2.
     * OpenMP on one rank, the z wavefront: each plane is read and written once a
     * sweep, 2 x 12 B (the compulsory traffic); in a slab, plane-fused half
     * sweeps: a plane is read and written once for its four ticks and the other parity's
     * planes read once more, 3 x 12 B. Droplets add the flag bytes. The scalar reference is
     * not modelled. */
    int droplet = m->cfg.geometry == LMC_DROPLET;
    if (c->backend == SB_BACKEND_CUDA) {
        const int fused = m->slab_used > 0;
        sb_counter_set(&c->counters, "bytes_per_update_traffic",
                       fused ? (droplet ? 25.0 : 24.0) : (droplet ? 64.0 : 60.0), "B");
        sb_counter_set(&c->counters, "fused_slab_planes", m->slab_used, "planes");
    } else if (c->backend == SB_BACKEND_OPENMP_SIMD)
        sb_counter_set(&c->counters, "bytes_per_update_traffic",
                       m->halo ? (droplet ? 38.0 : 36.0) : (droplet ? 25.0 : 24.0), "B");
    return SB_OK;
}

static int lmc_validate(sb_case *c, sb_validation *v)
{
    lmc_case *lc = c->state;
    return lmc_validate_all(&lc->m, c->backend, c->params->seed, v, &c->counters);
}

static void lmc_teardown(sb_case *c)
{
    lmc_case *lc = c->state;
    if (!lc) return;
    lmc_destroy(&lc->m);
    free(lc);
    c->state = NULL;
}

const sb_kernel lattice_mc_kernel = {
    .name = "lattice_mc",
    .summary = "Metropolis MC of a nematic liquid crystal (Lebwohl-Lasher), 2x2x2 checkerboard, bulk or droplet",
    .item = "site updates",
    .size_meaning = "L, lattice edge (L^3 sites), even",
    .default_size = 128,
    .min_size = 4,
    .max_size = 1024,
    .ci_size = 32,
    .params = lmc_params,
#ifdef SB_HAVE_CUDA
    .has_backend = {1, 1, 1},
#else
    .has_backend = {1, 0, 1},
#endif
    .setup = lmc_setup,
    .prepare = lmc_prepare,
    .run = lmc_run,
    .finish = lmc_finish,
    .validate = lmc_validate,
    .teardown = lmc_teardown,
};
