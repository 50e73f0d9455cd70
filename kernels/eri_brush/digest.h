/* The Coulomb digest of one canonical quartet's block (formula in eri.h above
 * eri_coulomb_finish), shared by the reference and the OpenMP backend. Host C only. */
#ifndef ERI_DIGEST_H
#define ERI_DIGEST_H

#include <stddef.h>

#define ERI_DIGEST_MAXKET 100 /* nc * nd up to two Cartesian f shells */

/* I[i][j][k][l], na x nb x nc x nd; fa..fd the shells' first functions; twice: P != Q. */
static inline void eri_digest_block(const double *I, int na, int nb, int nc, int nd, int fa,
                                    int fb, int fc, int fd, double f_ab, double f_cd, int twice,
                                    const double *D, int nbf, double *M)
{
    const int nkl = nc * nd;
    double acc[ERI_DIGEST_MAXKET]; /* sum_ij I D[i][j], per kl; only nkl zeroed: a whole-array
                                      initialiser was a 800-byte rep stos per quartet, 5 % of (ps|ss) */
    for (int x = 0; x < nkl; x++) acc[x] = 0.0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const double *row = I + ((size_t)i * nb + j) * nkl;
            const double dij = D[(size_t)(fa + i) * nbf + fb + j];
            double s = 0.0;
            for (int k = 0; k < nc; k++)
                for (int l = 0; l < nd; l++) {
                    s += row[k * nd + l] * D[(size_t)(fc + k) * nbf + fd + l];
                    acc[k * nd + l] += row[k * nd + l] * dij;
                }
            M[(size_t)(fa + i) * nbf + fb + j] += f_cd * s;
        }
    if (twice)
        for (int k = 0; k < nc; k++)
            for (int l = 0; l < nd; l++) M[(size_t)(fc + k) * nbf + fd + l] += f_ab * acc[k * nd + l];
}

#endif
