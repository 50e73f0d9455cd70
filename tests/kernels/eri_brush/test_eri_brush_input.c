/* eri_brush inputs: the shipped molecules and basis sets, the g94 reader's conventions
 * (SP split, D exponents, libint2's normalisation), the XYZ reader's units and errors, the
 * water cluster's geometry, and data file lookup.
 *
 * Expected basis function counts come from the published compositions of the basis sets,
 * not from the code under test:
 *   STO-3G   O [2s1p]                 = 5,            H [1s]     = 1
 *   6-31G*   O [3s2p1d] (1s, 2 SP, d) = 14 pure, 15 Cartesian;   H [2s] = 2
 *   cc-pVDZ  C, N, O [3s2p1d]         = 14 pure, 15 Cartesian;   H [2s1p] = 5
 *   def2-SVP O [3s2p1d]               = 14 pure, 15 Cartesian;   H [2s1p] = 5
 * so water has 7 / 18 (19 Cartesian) / 24 (25) / 24 (25) functions and paclitaxel
 * (C47H51NO14) in cc-pVDZ has 62 * 14 + 51 * 5 = 1123 (1185 Cartesian). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eri_brush/eri.h"
#include "sb.h"

#define BOHR 0.529177210903 /* Angstrom, CODATA 2018, typed here on purpose */
#define PI 3.14159265358979323846

static const char *const BASES[] = {"sto-3g", "6-31gs", "cc-pvdz", "def2-svp"};

static void data_file(const char *rel, char *out)
{
    assert_int_equal(eri_data_path(rel, out, 4096), 0);
}

static void load_molecule(const char *name, eri_molecule *m)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "molecules/%s.xyz", name);
    data_file(rel, path);
    assert_int_equal(eri_read_xyz(path, m), 0);
}

static int build(const char *basis, const eri_molecule *m, int pure, eri_basis *b)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "basis/%s.g94", basis);
    data_file(rel, path);
    return eri_basis_build(path, m, pure, b);
}

/* A temporary file with the given text; the caller unlinks it. */
static void temp_file(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/test_eri_input_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* <x^l|x^l> of the contracted shell from Gaussian integrals: int x^2l e^(-g x^2) dx =
 * Gamma(l + 1/2) / g^(l + 1/2), times (pi / g) for y and z. */
static double self_overlap(const eri_shell *s)
{
    double S = 0;
    for (int p = 0; p < s->nprim; p++)
        for (int q = 0; q < s->nprim; q++) {
            const double g = s->alpha[p] + s->alpha[q];
            S += s->coef[p] * s->coef[q] * tgamma(s->l + 0.5) / pow(g, s->l + 0.5) * (PI / g);
        }
    return S;
}

/* Normalisation of the x^l component of a primitive, from the same integral. */
static double prim_norm(double a, int l) { return 1 / sqrt(tgamma(l + 0.5) / pow(2 * a, l + 0.5) * (PI / (2 * a))); }

/* ---- molecules ------------------------------------------------------------------------ */

static void count_elements(const eri_molecule *m, int *cnt)
{
    memset(cnt, 0, 37 * sizeof *cnt);
    for (int i = 0; i < m->natom; i++) cnt[m->atom[i].Z]++;
}

static void test_shipped_molecules(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int natom, C, H, N, O;
    } mol[] = {
        {"water", 3, 0, 2, 0, 1},          {"benzene", 12, 6, 6, 0, 0},
        {"vitamin_c", 20, 6, 8, 0, 6},     /* C6H8O6 */
        {"taxol", 113, 47, 51, 1, 14},     /* C47H51NO14 */
        {"valinomycin", 168, 54, 90, 6, 18} /* C54H90N6O18 */
    };
    for (size_t k = 0; k < sizeof mol / sizeof mol[0]; k++) {
        eri_molecule m;
        int cnt[37];
        load_molecule(mol[k].name, &m);
        assert_string_equal(m.name, mol[k].name);
        assert_int_equal(m.natom, mol[k].natom);
        count_elements(&m, cnt);
        assert_int_equal(cnt[6], mol[k].C);
        assert_int_equal(cnt[1], mol[k].H);
        assert_int_equal(cnt[7], mol[k].N);
        assert_int_equal(cnt[8], mol[k].O);
        /* no two atoms closer than 0.9 A: a broken geometry would show here */
        for (int i = 0; i < m.natom; i++)
            for (int j = 0; j < i; j++) {
                double d2 = 0;
                for (int c = 0; c < 3; c++) d2 += pow(m.atom[i].xyz[c] - m.atom[j].xyz[c], 2);
                assert_true(sqrt(d2) * BOHR > 0.9);
            }
        eri_molecule_free(&m);
    }
    /* the experimental water: O-H 0.9572 A, H-O-H 104.52 deg */
    eri_molecule w;
    load_molecule("water", &w);
    double u[2][3], r[2];
    for (int h = 0; h < 2; h++) {
        for (int c = 0; c < 3; c++) u[h][c] = (w.atom[1 + h].xyz[c] - w.atom[0].xyz[c]) * BOHR;
        r[h] = sqrt(u[h][0] * u[h][0] + u[h][1] * u[h][1] + u[h][2] * u[h][2]);
        assert_true(fabs(r[h] - 0.9572) < 1e-9);
    }
    const double ang = acos((u[0][0] * u[1][0] + u[0][1] * u[1][1] + u[0][2] * u[1][2]) / (r[0] * r[1]));
    assert_true(fabs(ang * 180 / PI - 104.52) < 1e-7);
    eri_molecule_free(&w);
}

/* ---- basis sets ----------------------------------------------------------------------- */

static void test_water_counts(void **state)
{
    (void)state;
    static const int nbf_pure[] = {7, 18, 24, 24}, nbf_cart[] = {7, 19, 25, 25}, nshell[] = {5, 10, 12, 12};
    static const int lmax[] = {1, 2, 2, 2};
    eri_molecule m;
    load_molecule("water", &m);
    for (int k = 0; k < 4; k++) {
        eri_basis b;
        assert_int_equal(build(BASES[k], &m, 1, &b), 0);
        assert_string_equal(b.name, BASES[k]);
        assert_int_equal(b.nbf, nbf_pure[k]);
        assert_int_equal(b.nshell, nshell[k]);
        assert_int_equal(b.lmax, lmax[k]);
        /* shells in atom order, bf0 running, nbf per shell, centres on their atoms */
        int bf = 0, maxprim = 0;
        for (int s = 0; s < b.nshell; s++) {
            const eri_shell *sh = &b.sh[s];
            assert_int_equal(sh->bf0, bf);
            assert_int_equal(sh->nbf, sh->l >= 2 ? 2 * sh->l + 1 : (sh->l + 1) * (sh->l + 2) / 2);
            assert_int_equal(sh->pure, sh->l >= 2);
            if (s) assert_true(sh->atom >= b.sh[s - 1].atom);
            assert_memory_equal(sh->O, m.atom[sh->atom].xyz, sizeof sh->O);
            bf += sh->nbf;
            if (sh->nprim > maxprim) maxprim = sh->nprim;
        }
        assert_int_equal(bf, b.nbf);
        assert_int_equal(b.maxprim, maxprim);
        eri_basis_free(&b);
        assert_int_equal(build(BASES[k], &m, 0, &b), 0);
        assert_int_equal(b.nbf, nbf_cart[k]);
        for (int s = 0; s < b.nshell; s++) assert_int_equal(b.sh[s].pure, 0);
        eri_basis_free(&b);
    }
    eri_molecule_free(&m);
}

static void test_taxol_cc_pvdz(void **state)
{
    (void)state;
    eri_molecule m;
    eri_basis b;
    load_molecule("taxol", &m);
    assert_int_equal(build("cc-pvdz", &m, 1, &b), 0);
    assert_int_equal(b.nbf, 1123);
    assert_int_equal(b.nshell, 62 * 6 + 51 * 3);
    eri_basis_free(&b);
    assert_int_equal(build("cc-pvdz", &m, 0, &b), 0);
    assert_int_equal(b.nbf, 1185);
    eri_basis_free(&b);
    eri_molecule_free(&m);
}

/* Every shell of every shipped basis for H..Ar: the contracted x^l component has unit
 * self-overlap. */
static void test_normalisation(void **state)
{
    (void)state;
    eri_molecule m = {.name = "H-Ar", .natom = 18};
    m.atom = calloc(18, sizeof *m.atom);
    for (int z = 1; z <= 18; z++) m.atom[z - 1].Z = z, m.atom[z - 1].xyz[0] = z;
    for (int k = 0; k < 4; k++) {
        eri_basis b;
        assert_int_equal(build(BASES[k], &m, 1, &b), 0);
        double worst = 0;
        for (int s = 0; s < b.nshell; s++) worst = fmax(worst, fabs(self_overlap(&b.sh[s]) - 1));
        print_message("%-8s %3d shells of H..Ar: max |<x^l|x^l> - 1| = %.2e\n", BASES[k], b.nshell, worst);
        assert_true(worst < 1e-13);
        eri_basis_free(&b);
    }
    free(m.atom);
}

/* The relative weights of the primitives are the file's coefficients times each primitive's
 * x^l normalisation (libint2's convention), checked on a hand-made file that also exercises
 * D exponents, comments, blank lines, SP splitting and a d shell. */
static void test_g94_conventions(void **state)
{
    (void)state;
    static const double a[3] = {3.42525091, 0.62391373, 0.16885540};
    static const double cs[3] = {0.15432897, 0.53532814, 0.44463454}, cp[3] = {0.1, 0.6, 0.4};
    char path[64];
    temp_file(path,
              "! test basis\n\n****\nh 0\n"
              "SP 3 1.00\n  3.42525091D+00 0.15432897 0.1\n! a comment inside\n\n"
              "  0.62391373  0.53532814D0 0.6\n  .16885540 0.44463454 0.4D+00\n"
              "D 2 1.00\n 1.5D0 0.3\n 0.5 0.8\n****\nHe 0\nS 1 1.00\n 1.0 1.0\n****\n");
    eri_molecule m = {.name = "H2", .natom = 2};
    m.atom = calloc(2, sizeof *m.atom);
    m.atom[0].Z = m.atom[1].Z = 1;
    m.atom[1].xyz[2] = 1.4;
    eri_basis b;
    assert_int_equal(eri_basis_build(path, &m, 1, &b), 0);
    assert_int_equal(b.nshell, 6);
    assert_int_equal(b.nbf, 2 * (1 + 3 + 5));
    static const int want_l[3] = {0, 1, 2};
    for (int s = 0; s < 6; s++) {
        const eri_shell *sh = &b.sh[s];
        assert_int_equal(sh->l, want_l[s % 3]);
        assert_int_equal(sh->atom, s / 3);
        assert_true(fabs(self_overlap(sh) - 1) < 1e-13);
        if (sh->l < 2) {
            assert_int_equal(sh->nprim, 3);
            const double *raw = sh->l ? cp : cs;
            for (int p = 0; p < 3; p++) {
                assert_true(sh->alpha[p] == a[p]);
                const double want = raw[p] * prim_norm(a[p], sh->l) / (raw[0] * prim_norm(a[0], sh->l));
                assert_true(fabs(sh->coef[p] / sh->coef[0] - want) < 1e-13 * fabs(want));
            }
        } else {
            const double want = 0.8 * prim_norm(0.5, 2) / (0.3 * prim_norm(1.5, 2));
            assert_true(sh->alpha[0] == 1.5 && sh->alpha[1] == 0.5);
            assert_true(fabs(sh->coef[1] / sh->coef[0] - want) < 1e-13 * want);
        }
    }
    assert_string_equal(b.name, path + 5); /* stem: "test_eri_input_XXXXXX" */
    eri_basis_free(&b);
    /* a single normalised s primitive: c = (2a/pi)^(3/4), independent of the file's 1.0 */
    m.atom[0].Z = m.atom[1].Z = 2;
    assert_int_equal(eri_basis_build(path, &m, 1, &b), 0);
    assert_true(fabs(b.sh[0].coef[0] - pow(2 / PI, 0.75)) < 1e-15);
    eri_basis_free(&b);
    unlink(path);
    free(m.atom);
}

static void test_basis_errors(void **state)
{
    (void)state;
    eri_molecule w;
    eri_basis b;
    load_molecule("water", &w);
    /* f shells on O in cc-pVTZ are served (ERI_LMAX = 3): O 4s3p2d1f, H 3s2p1d */
    assert_int_equal(build("cc-pvtz", &w, 1, &b), 0);
    assert_int_equal(b.lmax, 3);
    assert_int_equal(b.nbf, 30 + 2 * 14);
    eri_basis_free(&b);
    /* g shells on Fe in cc-pVTZ are not */
    eri_molecule fe = {.name = "Fe", .natom = 1};
    fe.atom = calloc(1, sizeof *fe.atom);
    fe.atom[0].Z = 26;
    assert_int_equal(build("cc-pvtz", &fe, 1, &b), SB_EXIT_USAGE);
    assert_null(b.sh);
    free(fe.atom);
    /* K is not in psi4's cc-pVDZ */
    eri_molecule k = {.name = "K", .natom = 1};
    k.atom = calloc(1, sizeof *k.atom);
    k.atom[0].Z = 19;
    assert_int_equal(build("cc-pvdz", &k, 1, &b), SB_EXIT_USAGE);
    assert_int_equal(build("def2-svp", &k, 1, &b), 0);
    eri_basis_free(&b);
    free(k.atom);
    char path[64];
    static const char *const bad[] = {
        "****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n",               /* no O for water */
        "****\nO 0\nS 1 1.00\n 1.0 abc\n****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n", /* non-numeric */
        "****\nO 0\nS 2 1.00\n 1.0 1.0\n",                      /* truncated shell */
        "****\nO 0\nX 1 1.00\n 1.0 1.0\n****\n",               /* unknown l */
        "****\nO 0\nS 1 1.20\n 1.0 1.0\n****\n",               /* scale factor */
        "****\nO 0\nS 1 1.00\n -1.0 1.0\n****\n",              /* negative exponent */
        "****\nO\nS 1 1.00\n 1.0 1.0\n****\n",                 /* element line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        temp_file(path, bad[i]);
        assert_int_equal(eri_basis_build(path, &w, 1, &b), SB_EXIT_USAGE);
        unlink(path);
    }
    /* more primitives than ERI_MAXPRIM */
    char text[4096] = "****\nO 0\n", line[64];
    snprintf(line, sizeof line, "S %d 1.00\n", ERI_MAXPRIM + 1);
    strcat(text, line);
    for (int p = 0; p <= ERI_MAXPRIM; p++) {
        snprintf(line, sizeof line, " %d.0 0.1\n", p + 1);
        strcat(text, line);
    }
    strcat(text, "****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n");
    temp_file(path, text);
    assert_int_equal(eri_basis_build(path, &w, 1, &b), SB_EXIT_USAGE);
    unlink(path);
    assert_int_equal(eri_basis_build("/nonexistent/x.g94", &w, 1, &b), SB_EXIT_USAGE);
    eri_molecule_free(&w);
}

/* ---- XYZ ------------------------------------------------------------------------------ */

static void test_xyz(void **state)
{
    (void)state;
    char path[64];
    eri_molecule m;
    temp_file(path, "2\ncomment\nh 1.0 0 0\nKR -2.5e0 0.0 1\n");
    assert_int_equal(eri_read_xyz(path, &m), 0);
    assert_int_equal(m.natom, 2);
    assert_int_equal(m.atom[0].Z, 1);
    assert_int_equal(m.atom[1].Z, 36);
    assert_true(fabs(m.atom[0].xyz[0] - 1 / BOHR) <= 1e-15 / BOHR);
    assert_true(fabs(m.atom[1].xyz[0] + 2.5 / BOHR) <= 2.5e-15 / BOHR);
    assert_true(m.atom[0].xyz[1] == 0 && m.atom[1].xyz[2] == 1 / BOHR);
    eri_molecule_free(&m);
    unlink(path);
    static const char *const bad[] = {
        "2\ncomment\nH 0 0 0\nXx 1 0 0\n", /* unknown element */
        "2\ncomment\nRb 0 0 0\nH 1 0 0\n", /* beyond Kr */
        "two\ncomment\nH 0 0 0\n",         /* bad count */
        "-1\ncomment\n",                   /* bad count */
        "2\ncomment\nH 0 0 0\nH 1 0 z\n",  /* non-numeric */
        "2\ncomment\nH 0 0 0\nH 1 0\n",    /* too few fields */
        "3\ncomment\nH 0 0 0\nH 1 0 0\n",  /* too few lines */
        "1\n",                             /* no comment line */
        "",                                /* empty */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        temp_file(path, bad[i]);
        assert_int_equal(eri_read_xyz(path, &m), SB_EXIT_USAGE);
        assert_null(m.atom);
        unlink(path);
    }
    assert_int_equal(eri_read_xyz("/nonexistent/x.xyz", &m), SB_EXIT_USAGE);
}

static void test_elements(void **state)
{
    (void)state;
    assert_int_equal(eri_element_z("H"), 1);
    assert_int_equal(eri_element_z("c"), 6);
    assert_int_equal(eri_element_z("cL"), 17);
    assert_int_equal(eri_element_z("Kr"), 36);
    assert_int_equal(eri_element_z("Rb"), 0);
    assert_int_equal(eri_element_z("Q"), 0);
    assert_int_equal(eri_element_z(""), 0);
    assert_int_equal(eri_element_z("Hex"), 0);
    for (int z = 1; z <= 36; z++) assert_int_equal(eri_element_z(eri_element_symbol(z)), z);
    assert_string_equal(eri_element_symbol(26), "Fe");
}

/* ---- water cluster -------------------------------------------------------------------- */

static double dist(const eri_atom *a, const eri_atom *b)
{
    double d2 = 0;
    for (int c = 0; c < 3; c++) d2 += pow(a->xyz[c] - b->xyz[c], 2);
    return sqrt(d2) * BOHR; /* Angstrom */
}

static void test_water_cluster(void **state)
{
    (void)state;
    for (int n = 1; n <= 70; n += 23) { /* 1, 24, 47, 70: full and partly filled grids */
        eri_molecule a, b, c;
        assert_int_equal(eri_water_cluster(n, 7, &a), 0);
        assert_int_equal(eri_water_cluster(n, 7, &b), 0);
        assert_int_equal(eri_water_cluster(n, 8, &c), 0);
        assert_int_equal(a.natom, 3 * n);
        char name[32];
        snprintf(name, sizeof name, "water%d", n);
        assert_string_equal(a.name, name);
        assert_memory_equal(a.atom, b.atom, 3 * (size_t)n * sizeof *a.atom);
        assert_memory_not_equal(a.atom, c.atom, 3 * (size_t)n * sizeof *a.atom);
        int k = 1;
        while (k * k * k < n) k++;
        double min_oo = 1e300;
        for (int i = 0; i < n; i++) {
            const eri_atom *w = &a.atom[3 * i];
            assert_int_equal(w[0].Z, 8);
            assert_int_equal(w[1].Z, 1);
            assert_int_equal(w[2].Z, 1);
            const double r1 = dist(&w[0], &w[1]), r2 = dist(&w[0], &w[2]);
            assert_true(fabs(r1 - 0.9572) < 1e-12);
            assert_true(fabs(r2 - 0.9572) < 1e-12);
            double dot = 0;
            for (int x = 0; x < 3; x++) dot += (w[1].xyz[x] - w[0].xyz[x]) * (w[2].xyz[x] - w[0].xyz[x]);
            const double ang = acos(dot * BOHR * BOHR / (r1 * r2)) * 180 / PI;
            assert_true(fabs(ang - 104.52) < 1e-9);
            /* the oxygen within 0.2 A of its grid point, filled x fastest */
            const double g[3] = {3.0 * (i % k), 3.0 * ((i / k) % k), 3.0 * (i / (k * k))};
            double d2 = 0;
            for (int x = 0; x < 3; x++) d2 += pow(w[0].xyz[x] * BOHR - g[x], 2);
            assert_true(sqrt(d2) <= 0.2 + 1e-12);
            for (int j = 0; j < i; j++) min_oo = fmin(min_oo, dist(&w[0], &a.atom[3 * j]));
        }
        if (n > 1) assert_true(min_oo > 2.3);
        eri_molecule_free(&a);
        eri_molecule_free(&b);
        eri_molecule_free(&c);
    }
    eri_molecule m;
    assert_int_equal(eri_water_cluster(0, 1, &m), SB_EXIT_USAGE);
}

/* ---- data path ------------------------------------------------------------------------ */

static void test_data_path(void **state)
{
    (void)state;
    char out[4096], root[4096];
    const char *old = getenv("SB_DATA");
    char *saved = old ? strdup(old) : NULL;
    unsetenv("SB_DATA");
    assert_int_equal(eri_data_path("basis/cc-pvdz.g94", out, sizeof out), 0);
    assert_int_equal(access(out, R_OK), 0);
    assert_int_equal(eri_data_path("basis/no-such-basis.g94", out, sizeof out), SB_EXIT_USAGE);
    /* SB_DATA as the repository root and as the data directory */
    assert_int_equal(eri_data_path("molecules/water.xyz", out, sizeof out), 0);
    const char *cut = strstr(out, "kernels/eri_brush/data/molecules/water.xyz");
    assert_non_null(cut);
    snprintf(root, sizeof root, "%.*s.", (int)(cut - out), out); /* "<root>/." or "." */
    setenv("SB_DATA", root, 1);
    assert_int_equal(eri_data_path("molecules/water.xyz", out, sizeof out), 0);
    strcat(root, "/kernels/eri_brush/data");
    setenv("SB_DATA", root, 1);
    assert_int_equal(eri_data_path("molecules/water.xyz", out, sizeof out), 0);
    setenv("SB_DATA", "/nonexistent", 1);
    assert_int_equal(eri_data_path("molecules/water.xyz", out, sizeof out), SB_EXIT_USAGE);
    if (saved) setenv("SB_DATA", saved, 1);
    else unsetenv("SB_DATA");
    free(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_molecules), cmocka_unit_test(test_water_counts),
        cmocka_unit_test(test_taxol_cc_pvdz),     cmocka_unit_test(test_normalisation),
        cmocka_unit_test(test_g94_conventions),   cmocka_unit_test(test_basis_errors),
        cmocka_unit_test(test_xyz),               cmocka_unit_test(test_elements),
        cmocka_unit_test(test_water_cluster),     cmocka_unit_test(test_data_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
