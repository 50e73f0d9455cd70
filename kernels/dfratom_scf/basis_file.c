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
/* what a file holds, written and read here alike */
static const char format_1[] = "dfratom_scf basis 1";
static const char sequence_1[] = "zeta_k = alpha beta^(k-1) [1 + gamma (k/K)^delta], k = 1 .. K";

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
    json_object_set_new(o, "format", json_string(format_1));
    json_object_set_new(o, "sequence", json_string(sequence_1));
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
    json_object_set_new(o, "hamiltonian", json_string(dfr_ham_names[d->o.ham]));
    json_object_set_new(o, "nucleus", json_string(dfr_nucleus_names[d->o.nucleus]));
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

static const char *const fields[] = {"format", "sequence", "atom", "charge", "K", "alpha", "beta", "gamma", "delta",
                                     "ranges", "hamiltonian", "nucleus", "A", "c", "energy_Eh", "bsize_tol",
                                     "bsize_reference_Eh", NULL};

/* A number field held to the range of the parameter it records, `as` saying which (absent: SB_OK,
 * *v untouched, unless required); integer: a JSON integer */
static int real_in(json_t *o, const char *key, dfr_range r, int integer, int required, const char *as, const char *from,
                   double *v)
{
    json_t *j = json_object_get(o, key);
    char msg[320], accepted[96];
    if (!j && !required) return SB_OK;
    if (isinf(r.lo))
        snprintf(accepted, sizeof accepted, "%s <= %g", integer ? "an integer" : "a number", r.hi);
    else
        snprintf(accepted, sizeof accepted, "%s in [%g, %g]", integer ? "an integer" : "a number", r.lo, r.hi);
    if (integer ? !json_is_integer(j) : !json_is_number(j)) {
        snprintf(msg, sizeof msg, "\"%s\" is %s; accepted: %s (%s)", key,
                 !j ? "missing" : json_is_number(j) ? "not an integer" : "not a number", accepted, as);
        return bad(from, msg);
    }
    const double x = json_number_value(j);
    if (!(x >= r.lo && x <= r.hi)) {
        snprintf(msg, sizeof msg, "\"%s\" = %.17g is out of range; accepted: %s (%s)", key, x, accepted, as);
        return bad(from, msg);
    }
    *v = x;
    return SB_OK;
}

/* A string field that must be one of choices (absent: SB_OK, *v -1) */
static int choice_in(json_t *o, const char *key, const char *const *choices, const char *from, int *v)
{
    json_t *j = json_object_get(o, key);
    *v = -1;
    if (!j) return SB_OK;
    for (int i = 0; choices[i] && json_is_string(j); ++i)
        if (!strcmp(json_string_value(j), choices[i])) return *v = i, SB_OK;
    char list[160] = "", msg[320];
    for (int i = 0; choices[i]; ++i) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", choices[i]);
    snprintf(msg, sizeof msg, "\"%s\" is %s%.40s%s; accepted: %s", key, json_is_string(j) ? "\"" : "not a string",
             json_is_string(j) ? json_string_value(j) : "", json_is_string(j) ? "\"" : "", list);
    return bad(from, msg);
}

int dfr_basis_read(const char *text, const char *from, const dfr_case *d, dfr_wtbs *w, double *energy,
                   double *tol_ref)
{
    const dfr_atom *a = &d->atom;
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);
    char msg[320];
    memset(w, 0, sizeof *w);
    *energy = NAN;
    if (tol_ref) tol_ref[0] = tol_ref[1] = NAN;
    if (!o) {
        snprintf(msg, sizeof msg, "not JSON (line %d: %s)", err.line, err.text);
        return bad(from, msg);
    }
    if (!json_is_object(o)) {
        json_decref(o);
        return bad(from, "not a JSON object");
    }
    int rc = SB_OK, ham = -1, nuc = -1;
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        int known = 0;
        for (int i = 0; fields[i]; ++i) known |= !strcmp(key, fields[i]);
        if (!known) {
            snprintf(msg, sizeof msg, "unknown field \"%.40s\"; accepted: format, sequence, atom, charge, K, alpha, beta, "
                     "gamma, delta, ranges, hamiltonian, nucleus, A, c, energy_Eh, bsize_tol, bsize_reference_Eh", key);
            rc = bad(from, msg);
            break;
        }
    }
    json_t *fmt = json_object_get(o, "format"), *seq = json_object_get(o, "sequence"), *atom = json_object_get(o, "atom"),
           *rg = json_object_get(o, "ranges");
    double K = 0, charge = a->charge, A = 0, c = NAN, e = NAN, tol = NAN, ref = NAN;
    const dfr_range any_charge = {0.0, a->Z - 1}, any_energy = {-HUGE_VAL, 0.0}, any_K = dfr_range_bsize_max;
    if (rc) {
    } else if (fmt && !(json_is_string(fmt) && !strcmp(json_string_value(fmt), format_1))) {
        snprintf(msg, sizeof msg, "\"format\" is not \"%s\", the one format this kernel reads and writes", format_1);
        rc = bad(from, msg);
    } else if (seq && !(json_is_string(seq) && !strcmp(json_string_value(seq), sequence_1))) {
        snprintf(msg, sizeof msg, "\"sequence\" is not \"%s\", the one sequence this kernel builds", sequence_1);
        rc = bad(from, msg);
    } else if (!json_is_string(atom) || strcmp(json_string_value(atom), a->symbol)) {
        snprintf(msg, sizeof msg, "a basis for atom %.40s, not %s", json_is_string(atom) ? json_string_value(atom) : "(none)",
                 a->symbol);
        rc = bad(from, msg);
    } else if ((rc = real_in(o, "K", any_K, 1, 1, "as --param bsize_max, which writes it", from, &K)) ||
               (rc = real_in(o, "alpha", dfr_range_alpha, 0, 1, "as --param alpha", from, &w->alpha)) ||
               (rc = real_in(o, "beta", dfr_range_beta, 0, 1, "as --param beta", from, &w->beta)) ||
               (rc = real_in(o, "gamma", dfr_range_gamma, 0, 1, "as --param gamma", from, &w->gamma)) ||
               (rc = real_in(o, "delta", dfr_range_delta, 0, 1, "as --param delta", from, &w->delta)) ||
               (rc = real_in(o, "charge", any_charge, 1, 0, "as --param charge", from, &charge)) ||
               (rc = real_in(o, "A", dfr_range_A, 1, 0, "as --param A", from, &A)) ||
               (rc = real_in(o, "c", dfr_range_c, 0, 0, "as --param c", from, &c)) ||
               (rc = real_in(o, "energy_Eh", any_energy, 0, 0, "a total energy, Eh", from, &e)) ||
               (rc = real_in(o, "bsize_tol", dfr_range_bsize_tol, 0, 0, "as --param bsize_tol", from, &tol)) ||
               (rc = real_in(o, "bsize_reference_Eh", any_energy, 0, 0, "as --param bsize_ref=<energy>", from, &ref)) ||
               (rc = choice_in(o, "hamiltonian", dfr_ham_names, from, &ham)) ||
               (rc = choice_in(o, "nucleus", dfr_nucleus_names, from, &nuc))) {
    } else if (!json_is_object(rg)) {
        rc = bad(from, "no \"ranges\" object (e.g. {\"s\": [1, 31], \"p\": [3, 28]})");
    } else if (isfinite(tol) != isfinite(ref)) {
        rc = bad(from, "\"bsize_tol\" and \"bsize_reference_Eh\" go together (job=bsize writes both)");
    }
    if (!rc) w->K = (int)K;
    json_object_foreach(rg, key, val) {
        if (rc) break;
        int l = 0;
        while (l < 4 && strcmp(key, lname[l])) l++;
        json_int_t lo = 0, hi = 0;
        if (l == 4 || json_unpack(val, "[II]", &lo, &hi) || lo < 1 || hi < lo || hi > w->K) {
            snprintf(msg, sizeof msg, "\"ranges\": \"%.10s\" must be [first, last] with 1 <= first <= last <= K = %d, "
                     "for l = s, p, d, f", key, w->K);
            rc = bad(from, msg);
        }
    }
    for (int l = 0; l <= atom_lmax(a) && !rc; ++l) {
        json_int_t lo = 0, hi = 0;
        if (json_unpack(json_object_get(rg, lname[l]), "[II]", &lo, &hi)) {
            snprintf(msg, sizeof msg, "\"ranges\": \"%s\" must be [first, last] with 1 <= first <= last <= K = %d "
                     "(%s occupies %s shells)", lname[l], w->K, a->symbol, lname[l]);
            rc = bad(from, msg);
            break;
        }
        w->start[l] = (int)lo, w->n[l] = (int)(hi - lo + 1);
    }
    const int k = rc ? 0 : dfr_wtbs_bad_k(w, atom_lmax(a));
    if (k) {
        char which[64];
        dfr_wtbs_bad_what(w, k, which, sizeof which);
        snprintf(msg, sizeof msg, "alpha %g, beta %g, gamma %g, delta %g give %s; accepted: exponents that are positive "
                 "and increase with k over the ranges", w->alpha, w->beta, w->gamma, w->delta, which);
        rc = bad(from, msg);
    }
    /* the file's energy and tolerance, where it was computed with the case's Hamiltonian, nucleus,
     * c and charge */
    const int same = !rc && isfinite(e) && isfinite(c) && ham == (int)d->o.ham && nuc == (int)d->o.nucleus &&
                     (d->o.nucleus == DFR_NUC_POINT || (int)A == d->atom.mass) && c == d->o.c &&
                     (int)charge == d->atom.charge && json_object_get(o, "charge") && json_object_get(o, "A");
    if (same) *energy = e;
    if (same && tol_ref) tol_ref[0] = tol, tol_ref[1] = ref;
    json_decref(o);
    return rc;
}
