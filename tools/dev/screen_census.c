/* eri_brush screening census: for one molecule (cc-pVDZ, pure, the benchmark's density) the
 * canonical quartets kept and the bound on what dropping the rest moves J by (screen_bound.c's
 * argument, summed pair by pair), for Schwarz screening (Q_P Q_Q >= screen) and for
 * density-weighted screening (Q_P Q_Q max(maxD_P, maxD_Q) >= screen). O(pairs^2): taxol about
 * a minute on one core. Build from the repository root after `make`:
 *   gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -fopenmp -Ikernels -Icore -Iharness \
 *       -Iruntime/openmp_simd -Ibuild/gen tools/dev/screen_census.c -o screen_census \
 *       build/libscibench.a <the LDLIBS of the Makefile>
 * Usage: screen_census MOLECULE [SCREEN]   (molecule as for --param molecule=, screen 1e-12) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eri_brush/eri.h"

int main(int argc, char **argv)
{
    const char *mol = argc > 1 ? argv[1] : "taxol";
    const double t = argc > 2 ? atof(argv[2]) : 1e-12;
    char path[512], rel[128];
    eri_molecule m;
    eri_basis b;
    eri_pairs ps;
    snprintf(rel, sizeof rel, "molecules/%s.xyz", mol);
    if (eri_data_path(rel, path, sizeof path) || eri_read_xyz(path, &m)) return 2;
    if (eri_data_path("basis/cc-pvdz.g94", path, sizeof path) || eri_basis_build(path, &m, 1, &b)) return 2;
    if (eri_pairs_build(&b, ERI_PRIM_SCREEN_DEFAULT, &ps)) return 2;
    const long np = ps.npair;
    double *S = malloc(sizeof(double) * np), *Dm = malloc(sizeof(double) * np), *q = malloc(sizeof(double) * np);
    if (!S || !Dm || !q) return 3;
    for (long p = 0; p < np; p++) { /* S: f_cd sum |D| over the block; Dm: its largest |D| */
        const eri_shell *c = &b.sh[ps.pair[p].a], *d = &b.sh[ps.pair[p].b];
        double s = 0.0, mx = 0.0;
        for (int k = c->bf0; k < c->bf0 + c->nbf; k++)
            for (int l = d->bf0; l < d->bf0 + d->nbf; l++) {
                const double v = fabs(eri_density_elem(1, k, l));
                s += v;
                mx = v > mx ? v : mx;
            }
        S[p] = ps.pair[p].a != ps.pair[p].b ? 2.0 * s : s, Dm[p] = mx, q[p] = ps.pair[p].schwarz;
    }
    double ks = 0.0, kd = 0.0, worst_s = 0.0, worst_d = 0.0;
    for (long P = 0; P < np; P++) {
        double bs = 0.0, bd = 0.0;
        for (long Q = 0; Q < np; Q++) {
            const double qq = q[P] * q[Q];
            const int keep_s = qq >= t, keep_d = qq * (Dm[P] > Dm[Q] ? Dm[P] : Dm[Q]) >= t;
            if (Q <= P) ks += keep_s, kd += keep_d;
            if (!keep_s) bs += q[Q] * S[Q];
            if (!keep_d) bd += q[Q] * S[Q];
        }
        worst_s = fmax(worst_s, q[P] * bs), worst_d = fmax(worst_d, q[P] * bd);
    }
    printf("%s, %d functions, %ld pairs, screen %g: Schwarz keeps %.4g quartets (J bound %.3g Eh); "
           "density-weighted %.4g (%.1f %%, J bound %.3g Eh)\n",
           mol, b.nbf, np, t, ks, worst_s, kd, 100.0 * kd / ks, worst_d);
    free(S), free(Dm), free(q);
    eri_pairs_free(&ps);
    eri_basis_free(&b);
    eri_molecule_free(&m);
    return 0;
}
