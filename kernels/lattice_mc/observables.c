/* lattice_mc observables, in double precision from the stored float directors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"
#include "sb_mpi.h"

/* Per-plane sums (each in a fixed order) added in global plane order: the result
 * does not depend on the thread count or on how the planes are spread over ranks.
 * part holds nq sums for each of this rank's nzl planes. */
static void plane_total(const lmc *m, int nq, double *part, double *out)
{
    double *all = part;
    if (m->ranks > 1) {
        all = malloc(sizeof(double) * (size_t)nq * (size_t)m->cfg.L);
        if (!all) sb_mpi_abort(SB_EXIT_RUNTIME);
        /* every slab has the same number of planes */
        sb_mpi_allgather(part, sizeof(double) * (size_t)nq * (size_t)m->nzl, all);
    }
    for (int k = 0; k < nq; k++) out[k] = 0.0;
    for (int z = 0; z < m->nzl * m->ranks; z++)
        for (int k = 0; k < nq; k++) out[k] += all[(long)z * nq + k];
    if (all != part) free(all);
}

/* E = -sum_<ij> P2(n_i.n_j) - W sum_surface (n.nu)^2 - chi sum_i n_z^2, in epsilon;
 * each bond once, to the +x, +y, +z neighbour: periodic in x and y, the halo plane
 * above the slab in z (a droplet's boundary planes are inactive). */
double lmc_energy(const lmc *m)
{
    const int L = m->cfg.L;
    double *part = malloc(sizeof(double) * (size_t)m->nzl), e;
    if (!part) sb_mpi_abort(SB_EXIT_RUNTIME);
#pragma omp parallel for schedule(static)
    for (int z = 0; z < m->nzl; z++) {
        double ep = 0.0;
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++) {
                long i = x + L * (y + (long)L * z);
                if (!(m->flags[i] & LMC_ACTIVE)) continue;
                long nb[3] = {(x + 1) % L + L * (y + (long)L * z), x + L * ((y + 1) % L + (long)L * z),
                              i + (long)L * L};
                double nx = m->nx[i], ny = m->ny[i], nz = m->nz[i];
                for (int d = 0; d < 3; d++) {
                    long j = nb[d];
                    if (!(m->flags[j] & LMC_ACTIVE)) continue;
                    double c = nx * m->nx[j] + ny * m->ny[j] + nz * m->nz[j];
                    ep -= 1.5 * c * c - 0.5;
                }
                if (m->flags[i] & LMC_SURFACE) {
                    float ux, uy, uz;
                    lmc_normal(L, x, y, m->z0 + z, &ux, &uy, &uz);
                    double a = nx * ux + ny * uy + nz * uz;
                    ep -= m->cfg.W * a * a;
                }
                ep -= m->cfg.chi * nz * nz;
            }
        part[z] = ep;
    }
    plane_total(m, 1, part, &e);
    free(part);
    return e;
}

/* Largest eigenvalue of a symmetric 3x3 matrix (trigonometric closed form). */
static double sym3_max_eig(const double q[3][3])
{
    double p1 = q[0][1] * q[0][1] + q[0][2] * q[0][2] + q[1][2] * q[1][2];
    double tr = (q[0][0] + q[1][1] + q[2][2]) / 3.0;
    if (p1 == 0.0) return fmax(q[0][0], fmax(q[1][1], q[2][2]));
    double p2 = (q[0][0] - tr) * (q[0][0] - tr) + (q[1][1] - tr) * (q[1][1] - tr) +
                (q[2][2] - tr) * (q[2][2] - tr) + 2.0 * p1;
    double p = sqrt(p2 / 6.0), b[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) b[i][j] = (q[i][j] - (i == j ? tr : 0.0)) / p;
    double r = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) / 2.0;
    double phi = r <= -1.0 ? 1.04719755119659775 : r >= 1.0 ? 0.0 : acos(r) / 3.0;
    return tr + 2.0 * p * cos(phi);
}

/* Nematic order parameter S: largest eigenvalue of Q = <3/2 n n - 1/2 I> over
 * active sites; 1 when aligned, O(N^-1/2) when isotropic. */
double lmc_order_parameter(const lmc *m)
{
    const long plane = (long)m->cfg.L * m->cfg.L;
    double *part = malloc(sizeof(double) * 6 * (size_t)m->nzl), t[6];
    if (!part) sb_mpi_abort(SB_EXIT_RUNTIME);
#pragma omp parallel for schedule(static)
    for (int lz = 0; lz < m->nzl; lz++) {
        double sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0;
        for (long i = lz * plane; i < (lz + 1) * plane; i++) {
            if (!(m->flags[i] & LMC_ACTIVE)) continue;
            double x = m->nx[i], y = m->ny[i], z = m->nz[i];
            sxx += x * x, syy += y * y, szz += z * z, sxy += x * y, sxz += x * z, syz += y * z;
        }
        double *p = part + 6 * lz;
        p[0] = sxx, p[1] = syy, p[2] = szz, p[3] = sxy, p[4] = sxz, p[5] = syz;
    }
    plane_total(m, 6, part, t);
    free(part);
    double sxx = t[0], syy = t[1], szz = t[2], sxy = t[3], sxz = t[4], syz = t[5];
    double n = (double)m->nactive;
    double q[3][3] = {{1.5 * sxx / n - 0.5, 1.5 * sxy / n, 1.5 * sxz / n},
                      {1.5 * sxy / n, 1.5 * syy / n - 0.5, 1.5 * syz / n},
                      {1.5 * sxz / n, 1.5 * syz / n, 1.5 * szz / n - 0.5}};
    return sym3_max_eig(q);
}

double lmc_max_norm_error(const lmc *m)
{
    double worst = 0.0;
#pragma omp parallel for reduction(max : worst) schedule(static)
    for (long i = 0; i < m->nlocal; i++) {
        double n2 = (double)m->nx[i] * m->nx[i] + (double)m->ny[i] * m->ny[i] + (double)m->nz[i] * m->nz[i];
        double e = fabs(sqrt(n2) - 1.0);
        if (e > worst) worst = e;
    }
    if (m->ranks > 1) sb_mpi_max(&worst, 1);
    return worst;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double lmc_checksum(const lmc *m)
{
    const long base = (long)m->z0 * m->cfg.L * m->cfg.L;
    long sum = 0; /* at most 2^30 sites of 32-bit hashes: no overflow, any order */
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < m->nlocal; i++) {
        uint32_t b[3];
        memcpy(&b[0], &m->nx[i], 4), memcpy(&b[1], &m->ny[i], 4), memcpy(&b[2], &m->nz[i], 4);
        uint64_t k = mix64(((uint64_t)b[0] << 32 | b[1]) ^ mix64((uint64_t)b[2] << 32 | (uint64_t)(base + i)));
        sum += (long)(k >> 32);
    }
    if (m->ranks > 1) sb_mpi_sum_long(&sum, 1);
    return (double)(sum & ((1L << 52) - 1));
}
