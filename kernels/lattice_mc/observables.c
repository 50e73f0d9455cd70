/* lattice_mc observables, in double precision from the stored float directors. */
#include <math.h>

#include "lattice_mc/lmc.h"
#include "lattice_mc/physics.h"

/* E = -sum_<ij> P2(n_i.n_j) - W sum_surface (n.nu)^2 - chi sum_i n_z^2, in epsilon;
 * each bond once, periodic in bulk (a droplet's boundary planes are inactive). */
double lmc_energy(const lmc *m)
{
    const int L = m->cfg.L;
    double e = 0.0;
#pragma omp parallel for reduction(+ : e) schedule(static)
    for (int z = 0; z < L; z++)
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++) {
                long i = x + L * (y + (long)L * z);
                if (!(m->flags[i] & LMC_ACTIVE)) continue;
                long nb[3] = {(x + 1) % L + L * (y + (long)L * z), x + L * ((y + 1) % L + (long)L * z),
                              x + L * (y + (long)L * ((z + 1) % L))};
                double nx = m->nx[i], ny = m->ny[i], nz = m->nz[i];
                for (int d = 0; d < 3; d++) {
                    long j = nb[d];
                    if (!(m->flags[j] & LMC_ACTIVE)) continue;
                    double c = nx * m->nx[j] + ny * m->ny[j] + nz * m->nz[j];
                    e -= 1.5 * c * c - 0.5;
                }
                if (m->flags[i] & LMC_SURFACE) {
                    float ux, uy, uz;
                    lmc_normal(L, x, y, z, &ux, &uy, &uz);
                    double a = nx * ux + ny * uy + nz * uz;
                    e -= m->cfg.W * a * a;
                }
                e -= m->cfg.chi * nz * nz;
            }
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
    double sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0;
#pragma omp parallel for reduction(+ : sxx, syy, szz, sxy, sxz, syz) schedule(static)
    for (long i = 0; i < m->nsites; i++) {
        if (!(m->flags[i] & LMC_ACTIVE)) continue;
        double x = m->nx[i], y = m->ny[i], z = m->nz[i];
        sxx += x * x, syy += y * y, szz += z * z, sxy += x * y, sxz += x * z, syz += y * z;
    }
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
    for (long i = 0; i < m->nsites; i++) {
        double n2 = (double)m->nx[i] * m->nx[i] + (double)m->ny[i] * m->ny[i] + (double)m->nz[i] * m->nz[i];
        double e = fabs(sqrt(n2) - 1.0);
        if (e > worst) worst = e;
    }
    return worst;
}
