/* dfratom_scf: a basis as a JSON file (job=bsize writes it with bsize_out=, job=scf reads it with
 * basis=): the well-tempered parameters, K and the range of every l the atom occupies, with the
 * energy and the settings it was computed with. Reals are written with 17 significant digits,
 * so a read gives back the same doubles. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

static const char *const lname[4] = {"s", "p", "d", "f"};

/* The highest l with an occupied shell */
static int atom_lmax(const dfr_atom *a)
{
    int lmax = 0;
    for (int s = 0; s < DFR_NSYM; ++s)
        if (a->nocc[s] && dfr_l(dfr_kappa[s]) > lmax) lmax = dfr_l(dfr_kappa[s]);
    return lmax;
}

int dfr_basis_json(const dfr_case *d, const dfr_wtbs *w, double energy, char *buf, size_t n)
{
    json_t *o = json_object(), *rg = json_object();
    if (!o || !rg) return SB_EXIT_RUNTIME;
    json_object_set_new(o, "format", json_string("dfratom_scf basis 1"));
    json_object_set_new(o, "sequence", json_string("zeta_k = alpha beta^(k-1) [1 + gamma (k/K)^delta], k = 1 .. K"));
    json_object_set_new(o, "atom", json_string(d->atom.symbol));
    json_object_set_new(o, "charge", json_integer(d->atom.charge));
    json_object_set_new(o, "K", json_integer(w->K));
    json_object_set_new(o, "alpha", json_real(w->alpha));
    json_object_set_new(o, "beta", json_real(w->beta));
    json_object_set_new(o, "gamma", json_real(w->gamma));
    json_object_set_new(o, "delta", json_real(w->delta));
    for (int l = 0; l <= atom_lmax(&d->atom); ++l)
        json_object_set_new(rg, lname[l], json_pack("[ii]", w->start[l], w->start[l] + w->n[l] - 1));
    json_object_set_new(o, "ranges", rg);
    json_object_set_new(o, "hamiltonian", json_string(d->o.ham == DFR_DIRAC ? "dirac" : "schrodinger"));
    json_object_set_new(o, "nucleus", json_string(d->o.nucleus == DFR_NUC_POINT ? "point" : "gauss"));
    json_object_set_new(o, "A", json_integer(d->atom.mass));
    json_object_set_new(o, "c", json_real(d->o.c));
    json_object_set_new(o, "energy_Eh", json_real(energy));
    /* what the basis was built for: a job=scf in it checks its energy against these */
    json_object_set_new(o, "bsize_tol", json_real(d->bz.tol));
    json_object_set_new(o, "bsize_reference_Eh", json_real(d->bzr.e_ref));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!s) return SB_EXIT_RUNTIME;
    int fits = strlen(s) + 2 <= n;
    if (fits) snprintf(buf, n, "%s\n", s);
    free(s);
    return fits ? SB_OK : SB_EXIT_RUNTIME;
}

static int bad(const char *from, const char *what)
{
    sb_error("dfratom_scf: basis=%s: %s", from, what);
    return SB_EXIT_USAGE;
}

static int get_real(json_t *o, const char *key, double *v)
{
    json_t *j = json_object_get(o, key);
    if (!json_is_number(j)) return 0;
    *v = json_number_value(j);
    return isfinite(*v);
}

/* The file's energy, where it was computed with the case's Hamiltonian, nucleus, c and charge */
static double same_settings_energy(json_t *o, const dfr_case *d)
{
    double e = NAN, c = NAN;
    json_t *h = json_object_get(o, "hamiltonian"), *nuc = json_object_get(o, "nucleus"), *A = json_object_get(o, "A"),
           *q = json_object_get(o, "charge");
    if (!get_real(o, "energy_Eh", &e) || !get_real(o, "c", &c) || !json_is_string(h) || !json_is_string(nuc) ||
        !json_is_integer(A) || !json_is_integer(q))
        return NAN;
    const int same = !strcmp(json_string_value(h), d->o.ham == DFR_DIRAC ? "dirac" : "schrodinger") &&
                     !strcmp(json_string_value(nuc), d->o.nucleus == DFR_NUC_POINT ? "point" : "gauss") &&
                     (d->o.nucleus == DFR_NUC_POINT || json_integer_value(A) == d->atom.mass) && c == d->o.c &&
                     json_integer_value(q) == d->atom.charge;
    return same ? e : NAN;
}

int dfr_basis_read(const char *text, const char *from, const dfr_case *d, dfr_wtbs *w, double *energy,
                   double *tol_ref)
{
    const dfr_atom *a = &d->atom;
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);
    char msg[256];
    if (!o) {
        snprintf(msg, sizeof msg, "not JSON (line %d: %s)", err.line, err.text);
        return bad(from, msg);
    }
    int rc = SB_OK;
    json_t *atom = json_object_get(o, "atom"), *K = json_object_get(o, "K"), *rg = json_object_get(o, "ranges");
    memset(w, 0, sizeof *w);
    if (!json_is_string(atom) || strcmp(json_string_value(atom), a->symbol)) {
        snprintf(msg, sizeof msg, "a basis for atom %s, not %s", json_is_string(atom) ? json_string_value(atom) : "(none)",
                 a->symbol);
        rc = bad(from, msg);
    } else if (!json_is_integer(K) || json_integer_value(K) < 1 || json_integer_value(K) > DFR_MAXN) {
        snprintf(msg, sizeof msg, "\"K\" must be an integer 1..%d", DFR_MAXN);
        rc = bad(from, msg);
    } else if (!get_real(o, "alpha", &w->alpha) || !get_real(o, "beta", &w->beta) || !get_real(o, "gamma", &w->gamma) ||
               !get_real(o, "delta", &w->delta) || !(w->alpha > 0.0) || !(w->beta > 1.0)) {
        rc = bad(from, "\"alpha\" (> 0), \"beta\" (> 1), \"gamma\" and \"delta\" must be finite numbers");
    } else if (!json_is_object(rg)) {
        rc = bad(from, "no \"ranges\" object (e.g. {\"s\": [1, 31], \"p\": [3, 28]})");
    }
    if (!rc) w->K = (int)json_integer_value(K);
    for (int l = 0; l <= atom_lmax(a) && !rc; ++l) {
        json_t *r = json_object_get(rg, lname[l]);
        json_int_t lo = 0, hi = 0;
        if (json_unpack(r, "[II]", &lo, &hi) || lo < 1 || hi < lo || hi > w->K) {
            snprintf(msg, sizeof msg, "\"ranges\": \"%s\" must be [first, last] with 1 <= first <= last <= K = %d "
                     "(%s occupies %s shells)", lname[l], w->K, a->symbol, lname[l]);
            rc = bad(from, msg);
            break;
        }
        w->start[l] = (int)lo, w->n[l] = (int)(hi - lo + 1);
    }
    *energy = rc ? NAN : same_settings_energy(o, d);
    double tol = NAN, ref = NAN;
    const int has_tol = json_object_get(o, "bsize_tol") || json_object_get(o, "bsize_reference_Eh");
    if (!rc && has_tol &&
        !(get_real(o, "bsize_tol", &tol) && get_real(o, "bsize_reference_Eh", &ref) && tol > 0.0 && tol < 1.0 && ref < 0.0))
        rc = bad(from, "\"bsize_tol\" (0 < tol < 1) and \"bsize_reference_Eh\" (a negative energy) go together");
    if (tol_ref) /* only for the settings the file's energy is for */
        tol_ref[0] = isfinite(*energy) ? tol : NAN, tol_ref[1] = isfinite(*energy) ? ref : NAN;
    json_decref(o);
    return rc;
}
