/* lattice_mc: parameters, geometry, initial state and the sweep driver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_omp.h"

const int lmc_tick_order[8] = {0, 1, 3, 2, 6, 7, 5, 4};

int lmc_parse(sb_params *p, lmc_config *cfg)
{
    static const char *const geometries[] = {"bulk", "droplet", NULL};
    static const char *const inits[] = {"random", "aligned", NULL};
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
        (rc = sb_param_choice(p, "init", inits, 0, &cfg->init_aligned)))
        return rc;
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

long lmc_sub_to_natural(int L, int s, long q)
{
    long h = L / 2;
    long xh = q % h, yh = (q / h) % h, zh = q / (h * h);
    long x = 2 * xh + (s & 1), y = 2 * yh + ((s >> 1) & 1), z = 2 * zh + ((s >> 2) & 1);
    return x + L * (y + L * z);
}

/* Droplet: sites within radius L/2 - 1 of the centre are active; an active site
 * with an inactive neighbour is on the surface and carries the anchoring. */
static void lmc_geometry(lmc *m)
{
    int L = m->cfg.L;
    double c = 0.5 * (L - 1), R = 0.5 * L - 1.0;
    long n = 0;
    for (int z = 0; z < L; z++)
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++) {
                double d2 = (x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c);
                int in = m->cfg.geometry == LMC_BULK || d2 <= R * R;
                m->flags[x + (long)L * (y + (long)L * z)] = in ? LMC_ACTIVE : 0;
                n += in;
            }
    m->nactive = n;
    if (m->cfg.geometry == LMC_BULK) return;
    for (int z = 1; z < L - 1; z++)
        for (int y = 1; y < L - 1; y++)
            for (int x = 1; x < L - 1; x++) {
                long i = x + (long)L * (y + (long)L * z);
                if (!(m->flags[i] & LMC_ACTIVE)) continue;
                long st[3] = {1, L, (long)L * L};
                for (int d = 0; d < 3; d++)
                    if (!(m->flags[i + st[d]] & LMC_ACTIVE) || !(m->flags[i - st[d]] & LMC_ACTIVE))
                        m->flags[i] |= LMC_SURFACE;
            }
}

static void lmc_initial_state(lmc *m)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < m->nsites; i++) {
        if (m->cfg.init_aligned) {
            m->nx[i] = 0.0f, m->ny[i] = 0.0f, m->nz[i] = 1.0f;
            continue;
        }
        philox4x32_ctr_t r = lmc_random(m->cfg.seed, (uint32_t)i, 0, 0, LMC_TAG_INIT);
        lmc_sphere(lmc_u01(r.v[0]), lmc_u01(r.v[1]), &m->nx[i], &m->ny[i], &m->nz[i]);
    }
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
    size_t fb = (size_t)m->nsites * sizeof(float);
    m->nx = sb_aligned_alloc(fb);
    m->ny = sb_aligned_alloc(fb);
    m->nz = sb_aligned_alloc(fb);
    m->flags = sb_aligned_alloc((size_t)m->nsites);
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
    sb_aligned_free(m->nx);
    sb_aligned_free(m->ny);
    sb_aligned_free(m->nz);
    sb_aligned_free(m->flags);
    memset(m, 0, sizeof *m);
}

int lmc_run_sweeps(lmc *m, long n, int adapt)
{
    double acc_prev = 0.0, dE;
    if (adapt && m->ops->totals(m, &dE, &acc_prev)) return SB_EXIT_RUNTIME;
    for (long k = 0; k < n; k++) {
        float beta = (float)(1.0 / lmc_temperature(m, m->sweep));
        int rc = m->ops->sweep(m, m->sweep, beta, (float)m->step);
        if (rc) return rc;
        m->sweep++;
        if (!adapt) continue;
        /* Feedback towards 50% acceptance; only while equilibrating, since a
         * changing amplitude is not a Markov chain with a fixed stationary law. */
        double acc;
        if (m->ops->totals(m, &dE, &acc)) return SB_EXIT_RUNTIME;
        double rate = (acc - acc_prev) / (double)m->nactive;
        acc_prev = acc;
        m->step *= rate > 0.5 ? 1.05 : 0.95;
        if (m->step > 10.0) m->step = 10.0;
        if (m->step < 1e-3) m->step = 1e-3;
    }
    return SB_OK;
}
