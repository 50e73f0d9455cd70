/* lattice_mc: parameters, geometry, initial state and the sweep driver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_mpi.h"
#include "sb_omp.h"

const int lmc_tick_order[8] = {0, 1, 3, 2, 6, 7, 5, 4};

int lmc_parse(sb_params *p, lmc_config *cfg)
{
    static const char *const geometries[] = {"bulk", "droplet", NULL};
    static const char *const inits[] = {"random", "aligned", NULL};
    static const char *const fuses[] = {"off", "slab", "slab_l2", NULL};
    long sweeps;
    int rc;
    memset(cfg, 0, sizeof *cfg);
    cfg->L = p->size;
    if (cfg->L % 2) {
        sb_error("lattice_mc: --size %d is odd; the 2x2x2 checkerboard needs an even L", cfg->L);
        return SB_EXIT_USAGE;
    }
    cfg->seed = p->seed;
    if ((rc = sb_param_choice(p, "geometry", geometries, LMC_BULK, &cfg->geometry)) ||
        (rc = sb_param_double(p, "T", 1.0, 1e-3, 1e3, &cfg->T0)) ||
        (rc = sb_param_double(p, "W", 1.0, -1e3, 1e3, &cfg->W)) ||
        (rc = sb_param_double(p, "field", 0.0, -1e3, 1e3, &cfg->chi)) ||
        (rc = sb_param_long(p, "sweeps", 10, 1, 1000000, &sweeps)) ||
        (rc = sb_param_choice(p, "init", inits, 0, &cfg->init_aligned)) ||
        (rc = sb_param_choice(p, "fuse", fuses, 0, &cfg->fuse)))
        return rc;
    const char *slab = sb_param_string(p, "slab");
    long planes = 0;
    if (slab && strcmp(slab, "auto") != 0 && (rc = sb_param_long(p, "slab", 0, 1, 1024, &planes))) return rc;
    cfg->slab = (int)planes;
    cfg->sweeps_per_rep = (int)sweeps;
    cfg->T1 = cfg->T0;
    const char *step = sb_param_string(p, "step");
    if (step && strcmp(step, "auto") == 0) {
        cfg->step_auto = 1;
        cfg->step = 0.3;
    } else if ((rc = sb_param_double(p, "step", 0.3, 1e-4, 100.0, &cfg->step))) {
        return rc;
    }
    const char *anneal = sb_param_string(p, "anneal");
    if (anneal) {
        char *end;
        double a = strtod(anneal, &end), b = NAN;
        if (*end == ':') b = strtod(end + 1, &end);
        if (*end || !(a >= 1e-3 && a <= 1e3) || !(b >= 1e-3 && b <= 1e3)) {
            sb_error("lattice_mc: --param anneal=%s: expected T0:T1 with both in [0.001, 1000]", anneal);
            return SB_EXIT_USAGE;
        }
        cfg->T0 = a;
        cfg->T1 = b;
    }
    cfg->total_sweeps = (long)(p->warmup + p->reps) * cfg->sweeps_per_rep;
    return SB_OK;
}

double lmc_temperature(const lmc *m, uint32_t sweep)
{
    const lmc_config *c = &m->cfg;
    if (c->T0 == c->T1 || c->total_sweeps < 2) return c->T0;
    double f = (double)sweep / (double)(c->total_sweeps - 1);
    return c->T0 + (c->T1 - c->T0) * (f > 1.0 ? 1.0 : f);
}

static int lmc_in(const lmc_config *c, int x, int y, int z)
{
    double h = 0.5 * (c->L - 1), R = 0.5 * c->L - 1.0;
    double d2 = (x - h) * (x - h) + (y - h) * (y - h) + (z - h) * (z - h);
    return c->geometry == LMC_BULK || d2 <= R * R;
}

/* Droplet: sites within radius L/2 - 1 of the centre are active; an active site
 * with an inactive neighbour is on the surface and carries the anchoring. The
 * outer planes are inactive, so a surface site never needs a wrapped neighbour.
 * Slab planes and both halo planes, from global coordinates. */
static void lmc_geometry(lmc *m)
{
    const lmc_config *c = &m->cfg;
    const int L = c->L;
    long n = 0;
#pragma omp parallel for reduction(+ : n) schedule(static)
    for (int lz = -1; lz <= m->nzl; lz++) {
        int z = (m->z0 + lz + L) % L;
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++) {
                int in = lmc_in(c, x, y, z), surf = 0;
                if (in && c->geometry == LMC_DROPLET)
                    surf = !lmc_in(c, x + 1, y, z) || !lmc_in(c, x - 1, y, z) || !lmc_in(c, x, y + 1, z) ||
                           !lmc_in(c, x, y - 1, z) || !lmc_in(c, x, y, z + 1) || !lmc_in(c, x, y, z - 1);
                m->flags[x + (long)L * (y + (long)L * lz)] = (uint8_t)((in ? LMC_ACTIVE : 0) | (surf ? LMC_SURFACE : 0));
                n += in && lz >= 0 && lz < m->nzl;
            }
    }
    m->nactive_local = m->nactive = n;
    if (m->ranks > 1) sb_mpi_sum_long(&m->nactive, 1);
}

/* From the global site index, so every decomposition starts from the same state. */
static void lmc_initial_state(lmc *m)
{
    const long L = m->cfg.L, plane = L * L;
#pragma omp parallel for schedule(static)
    for (long i = -plane; i < m->nlocal + plane; i++) {
        if (m->cfg.init_aligned) {
            m->nx[i] = 0.0f, m->ny[i] = 0.0f, m->nz[i] = 1.0f;
            continue;
        }
        long zg = (m->z0 + L + (i + plane) / plane - 1) % L;
        uint32_t site = (uint32_t)((i + plane) % plane + plane * zg);
        philox4x32_ctr_t r = lmc_random(m->cfg.seed, site, 0, 0, LMC_TAG_INIT);
        lmc_sphere(lmc_u01(r.v[0]), lmc_u01(r.v[1]), &m->nx[i], &m->ny[i], &m->nz[i]);
    }
}

/* The slab of this rank: an even split into slabs of an even number of planes, so
 * the 2x2x2 checkerboard parity of a site is the same as in the whole lattice. */
static int lmc_decompose(lmc *m)
{
    const int L = m->cfg.L, R = m->cfg.decompose ? sb_mpi_size() : 1;
    m->ranks = R, m->rank = R > 1 ? sb_mpi_rank() : 0, m->halo = R > 1;
    if (L % (2 * R)) {
        sb_error("lattice_mc: --size %d cannot be split along z over %d MPI ranks; accepted: L divisible by "
                 "2 x ranks = %d",
                 L, R, 2 * R);
        return SB_EXIT_USAGE;
    }
    m->nzl = L / R, m->z0 = m->rank * m->nzl;
    m->nlocal = (long)L * L * m->nzl;
    return SB_OK;
}

int lmc_create(lmc *m, const lmc_config *cfg, sb_backend b)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->nsites = (long)cfg->L * cfg->L * cfg->L;
    m->step = cfg->step;
    m->ops = b == SB_BACKEND_OPENMP_SIMD ? &lmc_ops_openmp_simd : &lmc_ops_reference;
    if (b == SB_BACKEND_CUDA) {
#ifdef SB_HAVE_CUDA
        m->ops = &lmc_ops_cuda;
#else
        sb_error("lattice_mc: this build has no CUDA backend (built with CUDA=0)");
        return SB_EXIT_USAGE;
#endif
    }
    int rc = lmc_decompose(m);
    if (rc) return rc;
    const long plane = (long)cfg->L * cfg->L;
    size_t n = (size_t)(m->nlocal + 2 * plane);
    float *x = sb_aligned_alloc(n * sizeof(float)), *y = sb_aligned_alloc(n * sizeof(float));
    float *z = sb_aligned_alloc(n * sizeof(float));
    uint8_t *f = sb_aligned_alloc(n);
    /* the host pointers address plane z0: the halo below sits at negative indices */
    m->nx = x ? x + plane : NULL, m->ny = y ? y + plane : NULL, m->nz = z ? z + plane : NULL;
    m->flags = f ? f + plane : NULL;
    if (!m->nx || !m->ny || !m->nz || !m->flags) {
        lmc_destroy(m);
        return SB_EXIT_RUNTIME;
    }
    lmc_geometry(m);
    lmc_initial_state(m);
    return SB_OK;
}

void lmc_destroy(lmc *m)
{
    if (m->dev && m->ops) m->ops->release(m);
    const long plane = (long)m->cfg.L * m->cfg.L;
    if (m->nx) sb_aligned_free(m->nx - plane);
    if (m->ny) sb_aligned_free(m->ny - plane);
    if (m->nz) sb_aligned_free(m->nz - plane);
    if (m->flags) sb_aligned_free(m->flags - plane);
    memset(m, 0, sizeof *m);
}

int lmc_run_sweeps(lmc *m, long n, int adapt)
{
    double acc_prev = 0.0, dE;
    if (adapt && lmc_totals(m, &dE, &acc_prev)) return SB_EXIT_RUNTIME;
    for (long k = 0; k < n; k++) {
        float beta = (float)(1.0 / lmc_temperature(m, m->sweep));
        int rc = m->ops->sweep(m, m->sweep, beta, (float)m->step);
        if (rc) return rc;
        m->sweep++;
        if (!adapt) continue;
        /* Feedback towards 50% acceptance; only while equilibrating, since a
         * changing amplitude is not a Markov chain with a fixed stationary law. */
        double acc;
        if (lmc_totals(m, &dE, &acc)) return SB_EXIT_RUNTIME;
        double rate = (acc - acc_prev) / (double)m->nactive;
        acc_prev = acc;
        m->step *= rate > 0.5 ? 1.05 : 0.95;
        if (m->step > 10.0) m->step = 10.0;
        if (m->step < 1e-3) m->step = 1e-3;
    }
    return SB_OK;
}
