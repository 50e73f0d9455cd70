/* dfratom_scf: angular coefficients of the closed-shell exchange,
 * Gamma^k(j, j') = (j k j'; 1/2 0 -1/2)^2 when l + k + l' is even (Grant, Adv. Phys. 19 (1970) 747). */
#include <math.h>
#include <stdlib.h>

#include "dfratom_scf/dfr.h"

static double fact(int n)
{
    double r = 1.0;
    for (int i = 2; i <= n; ++i) r *= i;
    return r;
}

/* Wigner 3j symbol by Racah's formula; arguments doubled (2j, 2m) so half-integers are exact */
static double threej(int j1, int j2, int j3, int m1, int m2, int m3)
{
    if (m1 + m2 + m3 != 0 || j3 > j1 + j2 || j3 < abs(j1 - j2)) return 0.0;
    if ((j1 + j2 + j3) % 2) return 0.0;
    int a = (j1 + j2 - j3) / 2, b = (j1 - j2 + j3) / 2, c = (-j1 + j2 + j3) / 2, d = (j1 + j2 + j3) / 2 + 1;
    double tri = sqrt(fact(a) * fact(b) * fact(c) / fact(d));
    double pre = sqrt(fact((j1 + m1) / 2) * fact((j1 - m1) / 2) * fact((j2 + m2) / 2) * fact((j2 - m2) / 2) *
                      fact((j3 + m3) / 2) * fact((j3 - m3) / 2));
    double sum = 0.0;
    for (int t = 0; t <= d; ++t) {
        int x1 = t, x2 = (j3 - j2 + m1) / 2 + t, x3 = (j3 - j1 - m2) / 2 + t;
        int x4 = (j1 + j2 - j3) / 2 - t, x5 = (j1 - m1) / 2 - t, x6 = (j2 + m2) / 2 - t;
        if (x2 < 0 || x3 < 0 || x4 < 0 || x5 < 0 || x6 < 0) continue;
        double term = 1.0 / (fact(x1) * fact(x2) * fact(x3) * fact(x4) * fact(x5) * fact(x6));
        sum += (t % 2) ? -term : term;
    }
    int phase = (j1 - j2 - m3) / 2;
    return ((phase % 2) ? -1.0 : 1.0) * tri * pre * sum;
}

void dfr_angular(dfr_sym *y)
{
    for (int s = 0; s < DFR_NSYM; ++s)
        for (int t = 0; t < DFR_NSYM; ++t) {
            int ka = dfr_kappa[s], kb = dfr_kappa[t];
            int ja = 2 * abs(ka) - 1, jb = 2 * abs(kb) - 1; /* 2j */
            for (int k = 0; k <= DFR_KMAX; ++k) {
                double g = 0.0;
                if ((dfr_l(ka) + k + dfr_l(kb)) % 2 == 0) {
                    double w = threej(ja, 2 * k, jb, 1, 0, -1);
                    g = w * w;
                }
                y->gam[s][t][k] = g;
            }
        }
}
