/* dfratom_scf: the direct SCF engine as the jobs call it. A builder is the case's backend's Fock
 * build (its dfr_ops) for one basis; a candidate's energy is one SCF with it. job=scf, fock,
 * bsopt, the sequential batch and bsize's sequential engine all come through here. */
#include <math.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

int dfr_builder_init(dfr_case *d, dfr_gbuild *g)
{
    int rc = dfr_gbuild_init(g, &d->y, d->f, d->o.ham == DFR_DIRAC);
    if (rc) return rc;
    if (d->eig) { /* the case's eigen-solver state outlives its builders */
        g->eig = d->ops->eig;
        g->eig_priv = d->eig;
    }
    return d->ops->g_init(g);
}

void dfr_builder_free(dfr_case *d, dfr_gbuild *g)
{
    if (d->ops->g_free) d->ops->g_free(g);
    dfr_gbuild_free(g);
}

double dfr_candidate_energy(dfr_case *d, const dfr_wtbs *w, dfr_result *r, dfr_warm *warm)
{
    memset(r, 0, sizeof *r);
    dfr_gbuild g;
    int ns = d->y.ns, rc;
    if (dfr_basis_build(w, ns, &d->y, d->f) || dfr_builder_init(d, &g)) return NAN;
    const double *Dw0 = warm && warm->valid ? warm->Dw : NULL;
    rc = dfr_scf_from(&d->atom, &d->y, d->f, &d->o, &g, Dw0, r, 0, warm ? warm->Dw : NULL);
    dfr_builder_free(d, &g);
    if (warm) warm->valid = !rc && r->converged;
    return rc || !r->converged ? NAN : r->energy;
}
