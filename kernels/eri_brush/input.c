/* eri_brush inputs: elements, XYZ files, the synthetic water cluster, data file lookup.
 *
 * Angstrom -> bohr multiplies by 1/ERI_BOHR_ANGSTROM, as libint2::read_dotxyz does, so that
 * a molecule read here and one read by libint2 have bit-identical coordinates. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "sb.h"

#define ANG_TO_BOHR (1.0 / ERI_BOHR_ANGSTROM)
#define ERI_XYZ_MAX_ANGSTROM 1e6

static const char *const ELEMENT[] = {
    "",   "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg",
    "Al", "Si", "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn",
    "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr"};
#define NELEMENT ((int)(sizeof ELEMENT / sizeof ELEMENT[0]) - 1)

int eri_element_z(const char *sym)
{
    if (!sym || !sym[0] || strlen(sym) > 2) return 0;
    for (int z = 1; z <= NELEMENT; z++) {
        const char *e = ELEMENT[z];
        if (tolower((unsigned char)sym[0]) == tolower((unsigned char)e[0]) &&
            tolower((unsigned char)sym[1]) == tolower((unsigned char)e[1]))
            return z;
    }
    return 0;
}

const char *eri_element_symbol(int Z) { return Z >= 1 && Z <= NELEMENT ? ELEMENT[Z] : "?"; }

void eri_molecule_free(eri_molecule *m)
{
    if (!m) return;
    free(m->atom);
    memset(m, 0, sizeof *m);
}

/* "dir/name.ext" -> "name" */
static void file_stem(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len >= n) len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

/* Next line with its trailing newline and \r removed; 0 at end of file. */
static int next_line(FILE *f, char **buf, size_t *cap, int *lineno)
{
    ssize_t len = getline(buf, cap, f);
    if (len < 0) return 0;
    while (len > 0 && ((*buf)[len - 1] == '\n' || (*buf)[len - 1] == '\r')) (*buf)[--len] = '\0';
    (*lineno)++;
    return 1;
}

static int parse_double(const char *tok, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    if (end == tok || *end || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

int eri_read_xyz(const char *path, eri_molecule *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        sb_error("%s: cannot open: %s", path, strerror(errno));
        return SB_EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = SB_EXIT_USAGE;
    if (!next_line(f, &line, &cap, &lineno)) {
        sb_error("%s:1: empty file (expected the atom count)", path);
        goto out;
    }
    char *end;
    errno = 0;
    long natom = strtol(line, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (end == line || *end || errno || natom < 1 || natom > 10000000) {
        sb_error("%s:1: bad atom count \"%s\" (expected a positive integer)", path, line);
        goto out;
    }
    if (!next_line(f, &line, &cap, &lineno)) {
        sb_error("%s:2: missing comment line (expected %ld atoms)", path, natom);
        goto out;
    }
    m->atom = calloc((size_t)natom, sizeof *m->atom);
    if (!m->atom) {
        sb_error("%s: out of memory for %ld atoms", path, natom);
        rc = SB_EXIT_RUNTIME;
        goto out;
    }
    for (long i = 0; i < natom; i++) {
        if (!next_line(f, &line, &cap, &lineno)) {
            sb_error("%s:%d: file ends after %ld of %ld atoms", path, lineno + 1, i, natom);
            goto out;
        }
        char *save = NULL, *tok[4];
        int nt = 0;
        for (char *t = strtok_r(line, " \t", &save); t && nt < 4; t = strtok_r(NULL, " \t", &save))
            tok[nt++] = t;
        if (nt < 4) {
            sb_error("%s:%d: expected \"Symbol x y z\", found %d field%s", path, lineno, nt, nt == 1 ? "" : "s");
            goto out;
        }
        int Z = eri_element_z(tok[0]);
        if (!Z) {
            sb_error("%s:%d: unknown element \"%s\" (H to Kr are known)", path, lineno, tok[0]);
            goto out;
        }
        m->atom[i].Z = Z;
        for (int c = 0; c < 3; c++) {
            double x;
            if (!parse_double(tok[1 + c], &x)) {
                sb_error("%s:%d: coordinate \"%s\" is not a number", path, lineno, tok[1 + c]);
                goto out;
            }
            /* a molecule, not a galaxy: beyond this the bohr value and its squares overflow */
            if (fabs(x) > ERI_XYZ_MAX_ANGSTROM) {
                sb_error("%s:%d: coordinate %s Angstrom is out of range (|x| <= %g)", path, lineno, tok[1 + c],
                         ERI_XYZ_MAX_ANGSTROM);
                goto out;
            }
            m->atom[i].xyz[c] = x * ANG_TO_BOHR;
        }
    }
    m->natom = (int)natom;
    file_stem(path, m->name, sizeof m->name);
    rc = 0;
out:
    free(line);
    fclose(f);
    if (rc) eri_molecule_free(m);
    return rc;
}

/* ---- the water cluster ----------------------------------------------------------------
 * Molecule i's oxygen sits at grid point (i % k, (i / k) % k, i / k^2) * 3.0 A, k =
 * ceil(cbrt(n)), moved by a uniform random vector of length <= 0.2 A; the molecule (O-H
 * 0.9572 A, H-O-H 104.52 deg) is turned by a uniformly random rotation. Oxygens are therefore
 * at least 3.0 - 2 * 0.2 = 2.6 A apart. Atoms in the order O, H, H per molecule. The random
 * numbers are splitmix64 from the seed, so the cluster depends on (n, seed) only. */
#define WC_SPACING 3.0
#define WC_JITTER 0.2
#define WC_ROH 0.9572
#define WC_HOH_DEG 104.52
#define PI 3.14159265358979323846

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0); }

/* Shoemake's uniform random unit quaternion, as a rotation matrix. */
static void random_rotation(uint64_t *s, double R[3][3])
{
    const double u1 = uniform01(s), u2 = 2 * PI * uniform01(s), u3 = 2 * PI * uniform01(s);
    const double a = sqrt(1 - u1), b = sqrt(u1);
    const double w = a * sin(u2), x = a * cos(u2), y = b * sin(u3), z = b * cos(u3);
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

int eri_water_cluster(int n, uint64_t seed, eri_molecule *m)
{
    memset(m, 0, sizeof *m);
    if (n < 1 || n > 1000000) {
        sb_error("water cluster: %d molecules (1 to 1000000 allowed)", n);
        return SB_EXIT_USAGE;
    }
    m->atom = calloc(3 * (size_t)n, sizeof *m->atom);
    if (!m->atom) {
        sb_error("water cluster: out of memory for %d molecules", n);
        return SB_EXIT_RUNTIME;
    }
    int k = 1;
    while ((long)k * k * k < n) k++;
    /* Frame of one molecule: O at the origin, the H atoms in the xz plane. The rotation is
     * orthogonal to rounding, so O-H stays 0.9572 A to ~1e-16 relative. */
    const double half = 0.5 * WC_HOH_DEG * PI / 180.0;
    const double hx = WC_ROH * sin(half), hz = WC_ROH * cos(half);
    const double H[2][3] = {{hx, 0, hz}, {-hx, 0, hz}};
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        double O[3] = {(i % k) * WC_SPACING, ((i / k) % k) * WC_SPACING, (i / (k * k)) * WC_SPACING};
        double d[3], d2;
        do { /* uniform in the ball of radius WC_JITTER */
            for (int c = 0; c < 3; c++) d[c] = (2 * uniform01(&s) - 1) * WC_JITTER;
            d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        } while (d2 > WC_JITTER * WC_JITTER);
        for (int c = 0; c < 3; c++) O[c] += d[c];
        double R[3][3];
        random_rotation(&s, R);
        eri_atom *a = &m->atom[3 * i];
        a[0].Z = 8;
        for (int c = 0; c < 3; c++) a[0].xyz[c] = O[c] * ANG_TO_BOHR;
        for (int h = 0; h < 2; h++) {
            a[1 + h].Z = 1;
            for (int c = 0; c < 3; c++)
                a[1 + h].xyz[c] = (O[c] + R[c][0] * H[h][0] + R[c][1] * H[h][1] + R[c][2] * H[h][2]) * ANG_TO_BOHR;
        }
    }
    m->natom = 3 * n;
    snprintf(m->name, sizeof m->name, "water%d", n);
    return 0;
}

int eri_data_path(const char *rel, char *out, size_t n) { return sb_data_path("eri_brush", rel, out, n); }
