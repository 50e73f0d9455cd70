/* eri_brush basis sets: Gaussian-94 files -> normalised shells on the atoms of a molecule.
 *
 * Normalisation follows libint2's Shell (its default, unit-normalised contractions): each
 * primitive coefficient is multiplied by the normalisation of the x^l Cartesian component
 * of its primitive, then the whole contraction is scaled so that the contracted x^l
 * component has unit self-overlap. Every Cartesian component then carries x^l's factor
 * (xy of a d shell is not unit-normalised), which is libint2's convention too.
 *
 * The g94 reader accepts what libint2's reads: blocks separated by "****", "Sym 0" then
 * shells "L nprim 1.00" with nprim lines "exponent coefficient" ("exponent cS cP" for SP,
 * which becomes an S shell followed by a P shell), Fortran D exponents, blank lines and '!'
 * comments anywhere. Blocks of elements the molecule lacks are skipped unread. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "sb.h"

#define NZ 37 /* H..Kr, index by Z */
#define PI_32 5.568327996831707845284817982118835702014 /* pi^(3/2) */

typedef struct {
    int n, cap;
    eri_shell *sh; /* alpha and raw file coefficients; l and nprim */
} shell_list;

static int push_shell(shell_list *L, const eri_shell *s)
{
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 16;
        eri_shell *p = realloc(L->sh, (size_t)cap * sizeof *p);
        if (!p) return 0;
        L->sh = p, L->cap = cap;
    }
    L->sh[L->n++] = *s;
    return 1;
}

static double dfact(int k) /* k!!, k >= -1 */
{
    double r = 1;
    for (; k > 1; k -= 2) r *= k;
    return r;
}

/* libint2's convention, described above. Returns 0 when the contraction has no norm. */
static int normalise(eri_shell *s)
{
    const int l = s->l;
    const double df = dfact(2 * l - 1);
    for (int p = 0; p < s->nprim; p++) {
        const double ta = 2 * s->alpha[p];
        s->coef[p] *= sqrt(pow(2, l) * pow(ta, l + 1) * sqrt(ta) / (PI_32 * df));
    }
    /* <x^l|x^l> of two primitives with exponents a, b: (2l-1)!! pi^(3/2) / (2^l g^(l+3/2)) */
    double norm = 0;
    for (int p = 0; p < s->nprim; p++)
        for (int q = 0; q < s->nprim; q++) {
            const double g = s->alpha[p] + s->alpha[q];
            norm += s->coef[p] * s->coef[q] * df * PI_32 / (pow(2, l) * pow(g, l + 1) * sqrt(g));
        }
    if (!(norm > 0) || !isfinite(norm)) return 0;
    const double f = 1 / sqrt(norm);
    for (int p = 0; p < s->nprim; p++) s->coef[p] *= f;
    return 1;
}

/* Splits a line into at most max whitespace-separated tokens (in place). */
static int tokens(char *line, char **tok, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == max) return max + 1;
        tok[n++] = t;
    }
    return n;
}

static int number(char *tok, double *out) /* Fortran D exponents accepted */
{
    for (char *c = tok; *c; c++)
        if (*c == 'D' || *c == 'd') *c = 'E';
    char *end;
    errno = 0;
    *out = strtod(tok, &end);
    return end != tok && !*end && errno != ERANGE && isfinite(*out);
}

static int am_symbol(const char *t)
{
    static const char AM[] = "SPDFGHIKMNO"; /* J and L are skipped, as in libint2 */
    if (strlen(t) != 1) return -1;
    const char *p = strchr(AM, toupper((unsigned char)t[0]));
    return p ? (int)(p - AM) : -1;
}

static const char *const AM_NAME[] = {"s", "p", "d", "f", "g", "h", "i", "k", "m", "n", "o"};

typedef struct {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap;
    int lineno;
} reader;

/* Next line that is not blank or a '!' comment, trailing whitespace removed; NULL at EOF. */
static char *data_line(reader *r)
{
    for (;;) {
        ssize_t len = getline(&r->buf, &r->cap, r->f);
        if (len < 0) return NULL;
        r->lineno++;
        while (len > 0 && isspace((unsigned char)r->buf[len - 1])) r->buf[--len] = '\0';
        char *s = r->buf;
        while (isspace((unsigned char)*s)) s++;
        if (*s && *s != '!') return s;
    }
}

#define FAIL(...)                                                                                      \
    do {                                                                                               \
        sb_error(__VA_ARGS__);                                                                         \
        goto out;                                                                                      \
    } while (0)

/* Reads the shells of the elements with need[Z] set into lib[Z]. */
static int read_g94(const char *path, const int *need, shell_list *lib)
{
    reader r = {.path = path};
    r.f = fopen(path, "r");
    if (!r.f) {
        sb_error("%s: cannot open basis set file: %s", path, strerror(errno));
        return SB_EXIT_USAGE;
    }
    int rc = SB_EXIT_USAGE, Z = -1; /* Z: -1 expecting an element line, 0 skipping a block */
    char *line, *tok[8];
    while ((line = data_line(&r))) {
        if (!strcmp(line, "****")) {
            Z = -1;
            continue;
        }
        if (Z < 0) {
            int nt = tokens(line, tok, 3);
            char *end;
            long zero = nt == 2 ? strtol(tok[1], &end, 10) : -1;
            if (nt != 2 || *end || zero != 0)
                FAIL("%s:%d: expected an element line \"Symbol 0\" after ****", path, r.lineno);
            Z = eri_element_z(tok[0]);
            if (Z && !need[Z]) Z = 0;
            continue;
        }
        if (Z == 0) continue;
        int nt = tokens(line, tok, 3);
        if (nt != 3) FAIL("%s:%d: expected a shell line \"L nprim 1.00\"", path, r.lineno);
        const int sp = !strcmp(tok[0], "SP") || !strcmp(tok[0], "sp");
        const int l = sp ? 1 : am_symbol(tok[0]);
        if (l < 0) FAIL("%s:%d: unknown angular momentum \"%s\"", path, r.lineno, tok[0]);
        if (l > ERI_LMAX)
            FAIL("%s:%d: %s shells (l=%d) need ERI_LMAX >= %d, this build has %d (element %s)", path, r.lineno,
                 AM_NAME[l], l, l, ERI_LMAX, eri_element_symbol(Z));
        char *end;
        long nprim = strtol(tok[1], &end, 10);
        if (*end || nprim < 1) FAIL("%s:%d: bad primitive count \"%s\"", path, r.lineno, tok[1]);
        if (nprim > ERI_MAXPRIM)
            FAIL("%s:%d: %ld primitives, more than ERI_MAXPRIM = %d", path, r.lineno, nprim, ERI_MAXPRIM);
        double scale;
        /* a scale factor would scale the exponents; libint2 ignores it, so only 1 is safe */
        if (!number(tok[2], &scale) || scale != 1.0)
            FAIL("%s:%d: scale factor \"%s\" (only 1.00 is supported)", path, r.lineno, tok[2]);
        eri_shell s[2];
        memset(s, 0, sizeof s);
        s[0].l = sp ? 0 : l, s[1].l = 1;
        s[0].nprim = s[1].nprim = (int)nprim;
        for (int p = 0; p < nprim; p++) {
            if (!(line = data_line(&r)))
                FAIL("%s:%d: file ends inside a shell (%d of %ld primitives read)", path, r.lineno, p, nprim);
            const int want = sp ? 3 : 2;
            if (tokens(line, tok, want) != want)
                FAIL("%s:%d: expected %s", path, r.lineno,
                     sp ? "\"exponent s-coefficient p-coefficient\"" : "\"exponent coefficient\"");
            double v[3];
            for (int c = 0; c < want; c++)
                if (!number(tok[c], &v[c])) FAIL("%s:%d: \"%s\" is not a number", path, r.lineno, tok[c]);
            if (!(v[0] > 0)) FAIL("%s:%d: exponent %g is not positive", path, r.lineno, v[0]);
            s[0].alpha[p] = s[1].alpha[p] = v[0];
            s[0].coef[p] = v[1];
            s[1].coef[p] = sp ? v[2] : 0;
        }
        for (int k = 0; k < 1 + sp; k++) {
            if (!normalise(&s[k]))
                FAIL("%s:%d: contraction of zero norm (element %s)", path, r.lineno, eri_element_symbol(Z));
            if (!push_shell(&lib[Z], &s[k])) {
                sb_error("%s: out of memory", path);
                rc = SB_EXIT_RUNTIME;
                goto out;
            }
        }
    }
    rc = 0;
out:
    free(r.buf);
    fclose(r.f);
    return rc;
}

void eri_basis_free(eri_basis *b)
{
    if (!b) return;
    free(b->sh);
    memset(b, 0, sizeof *b);
}

int eri_basis_build(const char *g94_path, const eri_molecule *m, int pure, eri_basis *b)
{
    memset(b, 0, sizeof *b);
    int need[NZ] = {0};
    for (int i = 0; i < m->natom; i++) {
        if (m->atom[i].Z < 1 || m->atom[i].Z >= NZ) {
            sb_error("%s: atom %d has Z = %d, outside H..Kr", m->name, i + 1, m->atom[i].Z);
            return SB_EXIT_USAGE;
        }
        need[m->atom[i].Z] = 1;
    }
    shell_list lib[NZ];
    memset(lib, 0, sizeof lib);
    int rc = read_g94(g94_path, need, lib);
    if (rc) goto out;
    long nshell = 0;
    for (int i = 0; i < m->natom; i++) {
        const int Z = m->atom[i].Z;
        if (!lib[Z].n) {
            sb_error("%s: no basis functions for element %s (atom %d of %s)", g94_path, eri_element_symbol(Z),
                     i + 1, m->name);
            rc = SB_EXIT_USAGE;
            goto out;
        }
        nshell += lib[Z].n;
    }
    if (nshell > 100000000) {
        sb_error("%s: %ld shells is too many", g94_path, nshell);
        rc = SB_EXIT_USAGE;
        goto out;
    }
    b->sh = malloc((size_t)nshell * sizeof *b->sh);
    if (!b->sh) {
        sb_error("%s: out of memory for %ld shells", g94_path, nshell);
        rc = SB_EXIT_RUNTIME;
        goto out;
    }
    long nbf = 0;
    for (int i = 0; i < m->natom; i++) {
        const shell_list *L = &lib[m->atom[i].Z];
        for (int k = 0; k < L->n; k++) {
            eri_shell *s = &b->sh[b->nshell++];
            *s = L->sh[k];
            s->atom = i;
            s->pure = pure && s->l >= 2;
            s->nbf = s->pure ? ERI_NSPH(s->l) : ERI_NCART(s->l);
            s->bf0 = (int)nbf;
            nbf += s->nbf;
            memcpy(s->O, m->atom[i].xyz, sizeof s->O);
            if (s->l > b->lmax) b->lmax = s->l;
            if (s->nprim > b->maxprim) b->maxprim = s->nprim;
        }
    }
    if (nbf > 2147483647L) {
        sb_error("%s: %ld basis functions overflow an int", g94_path, nbf);
        rc = SB_EXIT_USAGE;
        goto out;
    }
    b->nbf = (int)nbf;
    const char *base = strrchr(g94_path, '/');
    base = base ? base + 1 : g94_path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len >= sizeof b->name) len = sizeof b->name - 1;
    memcpy(b->name, base, len);
    b->name[len] = '\0';
out:
    for (int z = 0; z < NZ; z++) free(lib[z].sh);
    if (rc) eri_basis_free(b);
    return rc;
}
