/* dfratom_scf: elements, closed-shell ground configurations, nuclear model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dfratom_scf/dfrcase.h"

const int dfr_kappa[DFR_NSYM] = {-1, 1, -2, 2, -3, 3, -4};

static const char *const symbols[] = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",  "Cl",
    "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se",
    "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb",
    "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er",
    "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At",
    "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No"};
#define NELEM ((int)(sizeof symbols / sizeof *symbols))

/* Madelung (aufbau) order of nl subshells; a closed-shell configuration fills a prefix of it.
 * (Pd, [Kr]4d10, breaks the rule and is not offered.) */
static const int madelung_l[] = {0, 0, 1, 0, 1, 0, 2, 1, 0, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1};
#define NSUB ((int)(sizeof madelung_l / sizeof *madelung_l))

const char *dfr_closed_counts(void)
{
    return "1 (one-electron ion), 2, 4, 10, 12, 18, 20, 30, 36, 38, 48, 54, 56, 70, 80, 86, 88, 102";
}

/* Mass numbers of the most abundant (or longest-lived) isotope, for the Gaussian nucleus of
 * the closed-shell neutral atoms and of H (others: --param A=). */
int dfr_default_mass(int Z)
{
    static const int zs[] = {1, 2, 4, 10, 12, 18, 20, 30, 36, 38, 48, 54, 56, 70, 80, 86, 88, 102};
    static const int as[] = {1, 4, 9, 20, 24, 40, 40, 64, 84, 88, 114, 132, 138, 174, 202, 222, 226, 259};
    for (unsigned i = 0; i < sizeof zs / sizeof *zs; ++i)
        if (zs[i] == Z) return as[i];
    return 0;
}

/* Visscher & Dyall's Gaussian nucleus: rho ~ exp(-xi r^2), xi = 3 / (2 r_rms^2),
 * r_rms = (0.836 A^(1/3) + 0.570) fm. */
double dfr_xi_from_mass(int A)
{
    /* bohr per fm with the 1986 Bohr radius, as Visscher & Dyall: their exponents reproduce
     * to 4e-11 (data/REFERENCES.md) */
    const double fm = 1e-15 / 0.529177249e-10;
    double rrms = (0.836 * cbrt((double)A) + 0.570) * fm;
    return 1.5 / (rrms * rrms);
}

int dfr_atom_z(const char *symbol)
{
    for (int i = 0; i < NELEM; ++i)
        if (!strcmp(symbols[i], symbol)) return i + 1;
    return 0;
}

int dfr_atom_parse(const char *symbol, int charge, dfr_atom *a)
{
    memset(a, 0, sizeof *a);
    const int Z = dfr_atom_z(symbol);
    if (!Z) {
        sb_error("dfratom_scf: atom=%s: unknown element (accepted: H ... No, by symbol, e.g. Xe)", symbol);
        return SB_EXIT_USAGE;
    }
    int N = Z - charge;
    if (N < 1) {
        sb_error("dfratom_scf: atom=%s charge=%d leaves %d electrons (need 1 .. Z)", symbol, charge, N);
        return SB_EXIT_USAGE;
    }
    a->Z = Z;
    a->charge = charge;
    a->nelec = N;
    snprintf(a->symbol, sizeof a->symbol, "%s", symbol);
    a->mass = dfr_default_mass(Z);
    if (N == 1) { /* one-electron ion: 1s1/2, no electron-electron terms */
        a->nocc[0] = 1;
        a->one_electron = 1;
        return SB_OK;
    }
    int filled = 0;
    for (int sub = 0; sub < NSUB && filled < N; ++sub) {
        int l = madelung_l[sub];
        filled += 2 * (2 * l + 1);
        /* both j = l -/+ 1/2 subshells: symmetries 2l-1 (kappa = l) and 2l (kappa = -l-1) */
        if (l > 0) a->nocc[2 * l - 1]++;
        a->nocc[2 * l]++;
    }
    if (filled != N) {
        sb_error("dfratom_scf: atom=%s charge=%d has %d electrons: not a closed-shell configuration "
                 "(electron counts accepted: %s)", symbol, charge, N, dfr_closed_counts());
        return SB_EXIT_USAGE;
    }
    return SB_OK;
}

/* Numerical Hartree-Fock limit energies, Eh (data/REFERENCES.md) */
static const struct {
    const char *sym;
    double e;
} hf_limit[] = {{"He", -2.86167999561}, {"Be", -14.5730231683}, {"Ne", -128.54709811},
                {"Ar", -526.81751280},  {"Kr", -2752.0549773},  {"Xe", -7232.1383639}};

double dfr_hf_limit(const dfr_case *d)
{
    if (d->o.ham != DFR_SCHRODINGER || d->o.nucleus != DFR_NUC_POINT || d->atom.charge != 0) return NAN;
    for (size_t i = 0; i < sizeof hf_limit / sizeof *hf_limit; ++i)
        if (!strcmp(hf_limit[i].sym, d->atom.symbol)) return hf_limit[i].e;
    return NAN;
}
