/* dfratom_scf: the bases around the case's: bsopt's NEWUOA starts and job=batch's candidates. */
#include <math.h>

#include "dfratom_scf/dfrcase.h"

void dfr_bsopt_params(const double *x, double *alpha, double *beta)
{
    *alpha = exp(x[0]);
    *beta = 1.0 + exp(x[1]);
}

/* j = 0 is the case's basis itself; j >= 1 a Halton point (bases 2 and 3) in [-0.5, 0.5] x
 * [-0.3, 0.3], so the starts do not depend on how many there are */
void dfr_bsopt_start_x(const dfr_case *d, int j, double *x)
{
    double da = 0.0, db = 0.0;
    if (j > 0) {
        double f = 1.0, h2 = 0.0, h3 = 0.0;
        for (int i = j; i > 0; i /= 2) f *= 0.5, h2 += f * (i % 2);
        f = 1.0;
        for (int i = j; i > 0; i /= 3) f /= 3.0, h3 += f * (i % 3);
        da = h2 - 0.5;
        db = 0.6 * (h3 - 0.5);
    }
    x[0] = log(d->w.alpha) + da;
    x[1] = log(d->w.beta - 1.0) + db;
}

void dfr_bsopt_start(const dfr_case *d, int j, double *alpha, double *beta)
{
    double x[2];
    dfr_bsopt_start_x(d, j, x);
    dfr_bsopt_params(x, alpha, beta);
}
