/* fullerene_ff on the CPU: the force field's gradients against finite differences, its
 * conventions on known geometries, the dual -> cubic graph invariants, the start geometry,
 * the optimised C20 and C60-Ih against the force field's equilibrium values, OpenMP-SIMD
 * against the reference, and that these checks can fail.
 *
 * Inputs are built here from coordinates, independently of the generator: C20's dual is the
 * icosahedron, C60-Ih's the pentakis dodecahedron (icosahedron vertices = pentagons, face
 * centres = hexagons); each vertex's neighbours are sorted counter-clockwise seen from
 * outside, a consistent orientation like ff_windup's. The generator's C60-Ih and sampled
 * isomers (ff_windup, ff_sample) are used too. The MPI queue's two-slot ranges run against a fake
 * ranged backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/ff_physics.h"
#include "fullerene_ff/ffcase.h"
#include "fullerene_ff/layout.h"
#include "fullerene_ff/optimise.h"

/* ---- test inputs ---- */

static double dist2(const double *a, const double *b)
{
    return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

/* Sorts each vertex's neighbours by angle about its (unit) position vector. */
static void order_ccw(int M, const double *P, const int *deg, uint16_t *dual)
{
    for (int v = 0; v < M; v++) {
        const double *p = &P[3 * v], *q0 = &P[3 * dual[6 * v]];
        const double s = q0[0] * p[0] + q0[1] * p[1] + q0[2] * p[2];
        double e1[3], e2[3], ang[6];
        for (int i = 0; i < 3; i++) e1[i] = q0[i] - s * p[i];
        e2[0] = p[1] * e1[2] - p[2] * e1[1], e2[1] = p[2] * e1[0] - p[0] * e1[2], e2[2] = p[0] * e1[1] - p[1] * e1[0];
        for (int k = 0; k < deg[v]; k++) {
            const double *q = &P[3 * dual[6 * v + k]];
            ang[k] = atan2(q[0] * e2[0] + q[1] * e2[1] + q[2] * e2[2], q[0] * e1[0] + q[1] * e1[1] + q[2] * e1[2]);
        }
        for (int a = 1; a < deg[v]; a++)
            for (int b = a; b > 0 && ang[b] < ang[b - 1]; b--) {
                const double t = ang[b];
                ang[b] = ang[b - 1], ang[b - 1] = t;
                const uint16_t u = dual[6 * v + b];
                dual[6 * v + b] = dual[6 * v + b - 1], dual[6 * v + b - 1] = u;
            }
        if (deg[v] == 5) dual[6 * v + 5] = FF_NONE;
    }
}

/* Unit icosahedron and its 20 faces (vertex triples). */
static void icosahedron(double P[36], int faces[20][3])
{
    const double ph = (1 + sqrt(5.0)) / 2, r = sqrt(1 + ph * ph);
    int n = 0;
    for (int a = -1; a <= 1; a += 2)
        for (int b = -1; b <= 1; b += 2) {
            const double v[3][3] = {{0, a, b * ph}, {a, b * ph, 0}, {b * ph, 0, a}};
            for (int i = 0; i < 3; i++, n++)
                for (int c = 0; c < 3; c++) P[3 * n + c] = v[i][c] / r;
        }
    const double e2 = 4 / (1 + ph * ph) + 1e-9; /* squared edge, with slack */
    int f = 0;
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++)
            for (int k = j + 1; k < 12; k++)
                if (dist2(&P[3 * i], &P[3 * j]) < e2 && dist2(&P[3 * j], &P[3 * k]) < e2 && dist2(&P[3 * i], &P[3 * k]) < e2)
                    faces[f][0] = i, faces[f][1] = j, faces[f][2] = k, f++;
}

static void dual_c20(uint16_t dual[12 * 6], double P[36])
{
    int faces[20][3], deg[12], cnt[12] = {0};
    icosahedron(P, faces);
    const double ph = (1 + sqrt(5.0)) / 2, e2 = 4 / (1 + ph * ph) + 1e-9;
    for (int i = 0; i < 12; i++) {
        deg[i] = 5;
        for (int j = 0; j < 12; j++)
            if (j != i && dist2(&P[3 * i], &P[3 * j]) < e2) dual[6 * i + cnt[i]++] = (uint16_t)j;
    }
    order_ccw(12, P, deg, dual);
}

static void dual_c60(uint16_t dual[32 * 6])
{
    double P[32 * 3];
    int faces[20][3], deg[32], cnt[32] = {0};
    icosahedron(P, faces);
    for (int f = 0; f < 20; f++) {
        double c[3], r = 0;
        for (int k = 0; k < 3; k++) c[k] = P[3 * faces[f][0] + k] + P[3 * faces[f][1] + k] + P[3 * faces[f][2] + k], r += c[k] * c[k];
        for (int k = 0; k < 3; k++) P[3 * (12 + f) + k] = c[k] / sqrt(r);
    }
    for (int v = 0; v < 32; v++) deg[v] = v < 12 ? 5 : 6;
    for (int f = 0; f < 20; f++)
        for (int k = 0; k < 3; k++) {
            const int v = faces[f][k];
            dual[6 * v + cnt[v]++] = (uint16_t)(12 + f);
            dual[6 * (12 + f) + cnt[12 + f]++] = (uint16_t)v;
        }
    for (int f = 0; f < 20; f++)
        for (int h = 0; h < 20; h++) {
            int common = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) common += faces[f][a] == faces[h][b];
            if (h != f && common == 2) dual[6 * (12 + f) + cnt[12 + f]++] = (uint16_t)(12 + h);
        }
    order_ccw(32, P, deg, dual);
}

/* The same triangulation with its vertices renamed by a seeded permutation (another atom
 * numbering, face 0, Tutte layout and start: a different CG path to the same minimum). */
static void relabel(int F, const uint16_t *in, uint16_t *out, unsigned seed)
{
    int perm[FF_MAX_F], inv[FF_MAX_F];
    for (int i = 0; i < F; i++) perm[i] = i;
    for (int i = F - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        const int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < F; i++) inv[perm[i]] = i;
    for (int v = 0; v < F; v++)
        for (int k = 0; k < 6; k++) {
            const uint16_t u = in[6 * inv[v] + k];
            out[6 * v + k] = u == FF_NONE ? FF_NONE : (uint16_t)perm[u];
        }
}

static void start(int N, const uint16_t *dual, ff_atom *g, double *X)
{
    double xy[2 * FF_MAX_N];
    assert_int_equal(ff_dualise(N, dual, g), 0);
    assert_true(ff_tutte(N, g, xy) < FF_TUTTE_MAXIT);
    ff_project(N, g, xy, X);
}

static ff_opts default_opts(int N)
{
    ff_opts o = {FF_GTOL_DEFAULT, (long)FF_MAXIT_PER_ATOM * N};
    return o;
}

static double uniform(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xFFFFFF) / (double)0x1000000 - 0.5;
}

/* ---- gradients ---- */

/* max |central difference - analytic| / max |analytic| over the 3N coordinates */
static double fd_error(int N, const ff_atom *g, double *X)
{
    double grad[3 * FF_MAX_N], dummy[3 * FF_MAX_N], gmax = 0, err = 0;
    ff_energy_gradient(N, g, X, grad);
    const double h = 1e-5;
    for (int i = 0; i < 3 * N; i++) {
        const double x = X[i];
        X[i] = x + h;
        const double ep = ff_energy_gradient(N, g, X, dummy);
        X[i] = x - h;
        const double em = ff_energy_gradient(N, g, X, dummy);
        X[i] = x;
        err = fmax(err, fabs((ep - em) / (2 * h) - grad[i]));
        gmax = fmax(gmax, fabs(grad[i]));
    }
    return err / gmax;
}

static void test_gradient_matches_finite_differences(void **state)
{
    (void)state;
    uint16_t d20[72], d60[192];
    double P[36];
    dual_c20(d20, P);
    dual_c60(d60);
    const int Ns[2] = {20, 60};
    for (int c = 0; c < 2; c++) {
        const int N = Ns[c];
        ff_atom g[60];
        double X[180];
        start(N, c ? d60 : d20, g, X);
        unsigned s = 7;
        for (int i = 0; i < 3 * N; i++) X[i] += 0.1 * uniform(&s);
        const double err = fd_error(N, g, X);
        print_message("C%d perturbed start: gradient vs central differences (h = 1e-5 A): %.2e relative\n", N, err);
        assert_true(err <= 1e-6);
    }
}

/* One term of each kind on four random points (bond 1.4 A scale), every coordinate. */
static double term(int kind, const double *p, double *grad)
{
    ff_v3 q[4], gr[4];
    for (int i = 0; i < 4; i++) q[i] = ff_v3_make(p[3 * i], p[3 * i + 1], p[3 * i + 2]), gr[i] = ff_v3_make(0, 0, 0);
    double e = kind == 0   ? ff_bond_term(q[0], q[1], ff_bond_k(1), ff_bond_r0(1), &gr[0], &gr[1])
               : kind == 1 ? ff_angle_term(q[0], q[1], q[2], ff_angle_k(0), ff_angle_cos0(0), &gr[0], &gr[1], &gr[2])
                           : ff_dihedral_term(q[0], q[1], q[2], q[3], ff_dihedral_k(2), ff_dihedral_cos0(3), &gr[0], &gr[1],
                                              &gr[2], &gr[3]);
    for (int i = 0; i < 4; i++) grad[3 * i] = gr[i].x, grad[3 * i + 1] = gr[i].y, grad[3 * i + 2] = gr[i].z;
    return e;
}

static void test_each_term_gradient(void **state)
{
    (void)state;
    const char *names[3] = {"bond", "angle", "dihedral"};
    unsigned s = 3;
    for (int kind = 0; kind < 3; kind++) {
        double worst = 0;
        for (int trial = 0; trial < 20; trial++) {
            /* a around the origin, its three neighbours near a flattened pyramid */
            double p[12] = {0, 0, 0.3, 1.4, 0, 0, -0.7, 1.2, 0, -0.7, -1.2, 0}, grad[12], dummy[12];
            for (int i = 0; i < 12; i++) p[i] += 0.3 * uniform(&s);
            term(kind, p, grad);
            double err = 0, gmax = 0;
            const double h = 1e-6;
            for (int i = 0; i < 12; i++) {
                const double x = p[i];
                p[i] = x + h;
                const double ep = term(kind, p, dummy);
                p[i] = x - h;
                const double em = term(kind, p, dummy);
                p[i] = x;
                err = fmax(err, fabs((ep - em) / (2 * h) - grad[i]));
                gmax = fmax(gmax, fabs(grad[i]));
            }
            worst = fmax(worst, err / gmax);
        }
        print_message("%s term: gradient vs central differences (h = 1e-6 A): %.2e relative (worst of 20)\n", names[kind], worst);
        assert_true(worst <= 1e-6);
    }
    /* an unowned bond (w = 0) contributes nothing */
    ff_v3 ga = ff_v3_make(0, 0, 0), gb = ga;
    assert_true(ff_bond_term(ff_v3_make(0, 0, 0), ff_v3_make(1.7, 0, 0), 0.0, FF_R0_HH, &ga, &gb) == 0.0);
    assert_true(ga.x == 0 && gb.x == 0);
}

/* Uniform scaling of a stress-free C60 leaves angles and dihedrals alone, so the energy
 * is the bonds' alone: 60 pentagon-hexagon and 30 hexagon-hexagon bonds, each counted once. */
static void test_bonds_counted_once(void **state)
{
    (void)state;
    uint16_t d60[192];
    dual_c60(d60);
    ff_atom g[60];
    double X[180], grad[180];
    start(60, d60, g, X);
    ff_opts o = default_opts(60);
    ff_result r;
    ff_optimise(60, g, X, &o, &r);
    const double s = 1.01;
    for (int i = 0; i < 180; i++) X[i] *= s;
    const double e = ff_energy_gradient(60, g, X, grad);
    const double dph = (s - 1) * FF_R0_PH, dhh = (s - 1) * FF_R0_HH;
    const double want = 60 * FF_KB_PH / 2 * dph * dph + 30 * FF_KB_HH / 2 * dhh * dhh;
    print_message("C60 scaled by 1.01: E = %.9f FFU, 90 bonds alone: %.9f FFU\n", e, want);
    assert_true(fabs(e - want) <= 1e-4 * want);
}

/* ---- conventions on known geometries ---- */

static void test_dihedral_flat_and_folded(void **state)
{
    (void)state;
    const double c = -0.5, s = 0.86602540378443865, R = 1.42;
    const ff_v3 a = ff_v3_make(0, 0, 0), b = ff_v3_make(R, 0, 0), cc = ff_v3_make(c * R, s * R, 0), d = ff_v3_make(c * R, -s * R, 0);
    assert_true(fabs(ff_dihedral_cos(a, b, cc, d) - 1.0) <= 1e-15);
    assert_true(fabs(ff_dihedral_cos(a, b, d, cc) - 1.0) <= 1e-15); /* the other orientation */
    const ff_v3 up = ff_v3_make(0, 0, 0.4), down = ff_v3_make(0, 0, -0.4);
    const double cu = ff_dihedral_cos(up, b, cc, d), cd = ff_dihedral_cos(down, b, cc, d);
    print_message("flat atom: dihedral cos = 1; pyramidalised by +-0.4 A: %.15f, %.15f\n", cu, cd);
    assert_true(cu < 1.0 && fabs(cu - cd) <= 1e-15);
}

/* The regular dodecahedron (atoms at the icosahedron's face centres) has every dihedral
 * cos = sqrt((5 + 2 sqrt 5) / 15) = 0.794654472291766 exactly. The force field's pentagon
 * triple value 0.7946545571495363 is 8.5e-8 (1.1e-7 relative) above it: it was rounded
 * elsewhere (it is ~1.4 single-precision ulps off). That strain is why optimised C20 ends
 * at E ~ 7.6e-12 FFU (60 dihedrals x 35/2 x (8.5e-8)^2), not at 0. */
static void test_dodecahedron_dihedral(void **state)
{
    (void)state;
    uint16_t d20[72];
    double P[36], X[60];
    dual_c20(d20, P);
    ff_atom g[20];
    assert_int_equal(ff_dualise(20, d20, g), 0);
    for (int t = 0; t < 20; t++) {
        double c[3] = {0, 0, 0}, r = 0;
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) c[k] += P[3 * g[t].face[j] + k];
        for (int k = 0; k < 3; k++) r += c[k] * c[k];
        for (int k = 0; k < 3; k++) X[3 * t + k] = 2.0 * c[k] / sqrt(r);
    }
    const double exact = sqrt((5 + 2 * sqrt(5.0)) / 15);
    double worst = 0, worst_angle = 0;
    for (int t = 0; t < 20; t++)
        for (int j = 0; j < 3; j++) {
            const ff_v3 a = ff_v3_load(X, t), b = ff_v3_load(X, g[t].nbr[j]), c = ff_v3_load(X, g[t].nbr[(j + 1) % 3]),
                        d = ff_v3_load(X, g[t].nbr[(j + 2) % 3]);
            worst = fmax(worst, fabs(ff_dihedral_cos(a, b, c, d) - exact));
            const ff_v3 u = ff_v3_sub(b, a), v = ff_v3_sub(c, a);
            worst_angle = fmax(worst_angle, fabs(ff_v3_dot(u, v) / sqrt(ff_v3_dot(u, u) * ff_v3_dot(v, v)) - FF_COS0_P));
        }
    print_message("regular dodecahedron: dihedral cos within %.1e of %.15f; table %.16f differs by %.2e\n", worst, exact,
                  ff_dihedral_cos0(0), ff_dihedral_cos0(0) - exact);
    assert_true(worst <= 1e-14 && worst_angle <= 1e-14);
    assert_true(fabs(ff_dihedral_cos0(0) - exact) <= 1e-6);
}

/* ---- graph ---- */

static void check_graph(int N, const uint16_t *dual, const ff_atom *g)
{
    const int F = ff_faces(N);
    int seen[FF_MAX_F] = {0}, d0 = dual[5] == FF_NONE ? 5 : 6;
    for (int t = 0; t < N; t++)
        for (int j = 0; j < 3; j++) {
            const ff_atom *a = &g[t];
            assert_true(a->nbr[j] < N && a->nbr[j] != t);
            assert_true(a->nbr[j] != a->nbr[(j + 1) % 3]);
            assert_int_equal(g[a->nbr[j]].nbr[a->back[j]], t);
            /* face[j] is a corner face of nbr[j] and nbr[j+1] too */
            for (int side = 0; side < 2; side++) {
                const ff_atom *b = &g[a->nbr[(j + side) % 3]];
                assert_true(b->face[0] == a->face[j] || b->face[1] == a->face[j] || b->face[2] == a->face[j]);
            }
            assert_int_equal(a->ftype[j], dual[6 * a->face[j] + 5] != FF_NONE);
            seen[a->face[j]]++;
        }
    int pent = 0;
    for (int f = 0; f < F; f++) {
        const int deg = dual[6 * f + 5] == FF_NONE ? 5 : 6;
        assert_int_equal(seen[f], deg); /* every face has deg corner atoms */
        pent += deg == 5;
    }
    assert_int_equal(pent, 12);
    for (int t = 0; t < d0; t++) assert_int_equal(g[t].face[0], 0); /* face 0's atoms come first */
}

static void test_dualise_invariants(void **state)
{
    (void)state;
    uint16_t d20[72], d60[192], r60[192];
    double P[36];
    dual_c20(d20, P);
    dual_c60(d60);
    ff_atom g[60];
    assert_int_equal(ff_dualise(20, d20, g), 0);
    check_graph(20, d20, g);
    assert_int_equal(ff_dualise(60, d60, g), 0);
    check_graph(60, d60, g);
    relabel(32, d60, r60, 5);
    assert_int_equal(ff_dualise(60, r60, g), 0);
    check_graph(60, r60, g);
    /* one vertex listed clockwise: inconsistent orientation */
    uint16_t bad[192];
    memcpy(bad, d60, sizeof bad);
    for (int k = 0; k < 2; k++) {
        const uint16_t t = bad[6 * 3 + k];
        bad[6 * 3 + k] = bad[6 * 3 + 4 - k], bad[6 * 3 + 4 - k] = t;
    }
    assert_int_equal(ff_dualise(60, bad, g), -1);
    /* wrong N: C62 reads 33 vertices (an array of C62's size), the 33rd not a C60 vertex */
    uint16_t d62[6 * 33] = {0};
    ff_atom g62[62];
    memcpy(d62, d60, sizeof d60);
    assert_int_equal(ff_dualise(62, d62, g62), -1);
}

/* The generator's C60-Ih (spiral 1 7 9 11 13 15 18 20 22 24 26 32) and a sample of other
 * isomers give graphs with the same invariants. */
static void test_dualise_generated(void **state)
{
    (void)state;
    const int c60[12] = {1, 7, 9, 11, 13, 15, 18, 20, 22, 24, 26, 32};
    ff_spiral sp;
    for (int i = 0; i < 12; i++) sp.pent[i] = (uint16_t)(c60[i] - 1);
    uint16_t dual[6 * FF_MAX_F];
    ff_atom g[FF_MAX_N];
    assert_int_equal(ff_windup(60, &sp, dual), 0);
    assert_int_equal(ff_dualise(60, dual, g), 0);
    check_graph(60, dual, g);
    const int Ns[3] = {24, 100, 400};
    for (int c = 0; c < 3; c++) {
        ff_spiral *s = NULL;
        const long n = ff_sample(Ns[c], 5, 3, &s);
        assert_true(n >= 1);
        for (long m = 0; m < n; m++) {
            assert_int_equal(ff_windup(Ns[c], &s[m], dual), 0);
            assert_int_equal(ff_dualise(Ns[c], dual, g), 0);
            check_graph(Ns[c], dual, g);
        }
        free(s);
    }
}

/* ---- start geometry ---- */

static void test_tutte_and_projection(void **state)
{
    (void)state;
    uint16_t d60[192];
    dual_c60(d60);
    ff_atom g[60];
    double xy[120], X[180];
    assert_int_equal(ff_dualise(60, d60, g), 0);
    const int sweeps = ff_tutte(60, g, xy);
    const int d = 5 + g[0].ftype[0];
    double worst = 0;
    for (int k = 0; k < d; k++) assert_true(xy[2 * k] == ff_polygon_x(d, k) && xy[2 * k + 1] == ff_polygon_y(d, k));
    for (int t = d; t < 60; t++)
        for (int c = 0; c < 2; c++) {
            const double m = (xy[2 * g[t].nbr[0] + c] + xy[2 * g[t].nbr[1] + c] + xy[2 * g[t].nbr[2] + c]) / 3.0;
            worst = fmax(worst, fabs(m - xy[2 * t + c]));
            assert_true(fabs(xy[2 * t + c]) < 1.0);
        }
    ff_project(60, g, xy, X);
    double c[3] = {0, 0, 0}, bonds = 0;
    for (int t = 0; t < 60; t++) {
        for (int k = 0; k < 3; k++) c[k] += X[3 * t + k] / 60;
        for (int j = 0; j < 3; j++)
            if (t < g[t].nbr[j]) bonds += sqrt(dist2(&X[3 * t], &X[3 * g[t].nbr[j]])) / 90;
    }
    print_message("C60 Tutte: %d sweeps, largest residual %.1e; projection: centroid %.1e A, mean bond %.12f A\n", sweeps,
                  worst, fmax(fabs(c[0]), fmax(fabs(c[1]), fabs(c[2]))), bonds);
    assert_true(worst <= FF_TUTTE_TOL); /* a Jacobi residual is the last sweep's move */
    assert_true(fabs(c[0]) <= 1e-12 && fabs(c[1]) <= 1e-12 && fabs(c[2]) <= 1e-12);
    assert_true(fabs(bonds - FF_PROJECT_BOND) <= 1e-12);
}

/* ---- optimised cages ---- */

typedef struct {
    double bond_lo[3], bond_hi[3]; /* by bond type, A */
    double spread;                 /* (max - min) / max of the centroid distances */
} cage;

static cage measure(int N, const ff_atom *g, const double *X)
{
    cage m = {{9, 9, 9}, {0, 0, 0}, 0};
    double c[3] = {0, 0, 0}, rmin = 1e9, rmax = 0;
    for (int t = 0; t < N; t++)
        for (int k = 0; k < 3; k++) c[k] += X[3 * t + k] / N;
    for (int t = 0; t < N; t++) {
        const double r = sqrt(dist2(&X[3 * t], c));
        rmin = fmin(rmin, r), rmax = fmax(rmax, r);
        for (int j = 0; j < 3; j++) {
            const int ty = g[t].ftype[j] + g[t].ftype[(j + 2) % 3];
            const double b = sqrt(dist2(&X[3 * t], &X[3 * g[t].nbr[j]]));
            m.bond_lo[ty] = fmin(m.bond_lo[ty], b), m.bond_hi[ty] = fmax(m.bond_hi[ty], b);
        }
    }
    m.spread = (rmax - rmin) / rmax;
    return m;
}

/* The C60-Ih acceptance: converged, pentagon-hexagon bonds within 5e-3 A of 1.458,
 * hexagon-hexagon within 5e-3 A of 1.401, no pentagon-pentagon bond, all atoms at one
 * distance from the centroid (1e-6 relative). */
static int c60_ok(const ff_atom *g, const double *X, const ff_result *r)
{
    const cage m = measure(60, g, X);
    return r->converged && m.bond_lo[0] > 8 && fabs(m.bond_lo[1] - 1.458) <= 5e-3 && fabs(m.bond_hi[1] - 1.458) <= 5e-3 &&
           fabs(m.bond_lo[2] - 1.401) <= 5e-3 && fabs(m.bond_hi[2] - 1.401) <= 5e-3 && m.spread <= 1e-6;
}

static void test_optimised_c60_and_c20(void **state)
{
    (void)state;
    {   /* the generator's C60-Ih */
        const int c60[12] = {1, 7, 9, 11, 13, 15, 18, 20, 22, 24, 26, 32};
        ff_spiral sp;
        for (int i = 0; i < 12; i++) sp.pent[i] = (uint16_t)(c60[i] - 1);
        uint16_t dual[6 * FF_MAX_F];
        ff_atom gw[60];
        double Xw[180];
        ff_result rw;
        assert_int_equal(ff_windup(60, &sp, dual), 0);
        start(60, dual, gw, Xw);
        ff_opts ow = default_opts(60);
        ff_optimise(60, gw, Xw, &ow, &rw);
        const cage mw = measure(60, gw, Xw);
        print_message("C60 from spiral 1 7 9 11 13 15 18 20 22 24 26 32: E = %.3e FFU, %d iterations, %d evaluations; "
                      "bonds ph %.6f..%.6f A, hh %.6f..%.6f A; spread %.1e\n",
                      rw.energy, rw.iters, rw.evals, mw.bond_lo[1], mw.bond_hi[1], mw.bond_lo[2], mw.bond_hi[2], mw.spread);
        assert_true(c60_ok(gw, Xw, &rw));
    }
    uint16_t d20[72], d60[192];
    double P[36];
    dual_c20(d20, P);
    dual_c60(d60);
    ff_atom g[60];
    double X[180];
    ff_result r;
    start(60, d60, g, X);
    ff_opts o = default_opts(60);
    ff_optimise(60, g, X, &o, &r);
    cage m = measure(60, g, X);
    print_message("C60: E = %.3e FFU, RMS gradient %.2e FFU/A, %d iterations, %d evaluations; bonds ph %.6f..%.6f A, "
                  "hh %.6f..%.6f A; centroid distance spread %.1e\n",
                  r.energy, r.grms, r.iters, r.evals, m.bond_lo[1], m.bond_hi[1], m.bond_lo[2], m.bond_hi[2], m.spread);
    assert_true(c60_ok(g, X, &r));
    assert_true(r.grms <= FF_GTOL_DEFAULT && r.energy >= 0 && r.energy < 1e-8);

    start(20, d20, g, X);
    o = default_opts(20);
    ff_optimise(20, g, X, &o, &r);
    m = measure(20, g, X);
    print_message("C20: E = %.3e FFU, %d iterations, %d evaluations; bonds %.6f..%.6f A; spread %.1e\n", r.energy, r.iters,
                  r.evals, m.bond_lo[0], m.bond_hi[0], m.spread);
    assert_true(r.converged && fabs(m.bond_lo[0] - FF_R0_PP) <= 1e-5 && fabs(m.bond_hi[0] - FF_R0_PP) <= 1e-5);
    assert_true(m.spread <= 1e-6 && r.energy < 1e-10);
}

/* The C60 acceptance must fail on a cage that is not the force field's C60: a uniformly
 * swollen one (bonds 0.5 % long), and one optimised with doctored parameters (every face
 * typed as a hexagon: one bond length, flat dihedrals wanted). */
static void test_c60_check_can_fail(void **state)
{
    (void)state;
    uint16_t d60[192];
    dual_c60(d60);
    ff_atom g[60], doctored[60];
    double X[180], Y[180];
    ff_result r, rd;
    ff_opts o = default_opts(60);
    start(60, d60, g, X);
    memcpy(Y, X, sizeof Y);
    ff_optimise(60, g, X, &o, &r);
    assert_true(c60_ok(g, X, &r));
    double S[180];
    for (int i = 0; i < 180; i++) S[i] = 1.005 * X[i];
    assert_false(c60_ok(g, S, &r));
    memcpy(doctored, g, sizeof g);
    for (int t = 0; t < 60; t++)
        for (int j = 0; j < 3; j++) doctored[t].ftype[j] = 1;
    ff_optimise(60, doctored, Y, &o, &rd);
    const cage m = measure(60, g, Y);
    print_message("C60 with every face typed hexagon: ph bonds %.4f..%.4f A, hh %.4f..%.4f A -> rejected\n", m.bond_lo[1],
                  m.bond_hi[1], m.bond_lo[2], m.bond_hi[2]);
    assert_false(c60_ok(g, Y, &rd));
}

/* ---- backends ---- */

static void run_backend(const ff_ops *ops, ff_batch *b)
{
    assert_int_equal(ops->prepare(b), SB_OK);
    assert_int_equal(ops->run(b), SB_OK);
    assert_int_equal(ops->download(b), SB_OK);
    ops->release(b);
}

static void test_openmp_matches_reference(void **state)
{
    (void)state;
    enum { M = 6, N = 60, F = 32 };
    uint16_t d60[192];
    dual_c60(d60);
    uint16_t *dual = malloc(sizeof(uint16_t) * M * F * 6);
    assert_non_null(dual);
    for (int m = 0; m < M; m++) relabel(F, d60, dual + m * F * 6, 100u + (unsigned)m);
    ff_batch b[2];
    const ff_ops *ops[2] = {&ff_ops_reference, &ff_ops_openmp_simd};
    for (int k = 0; k < 2; k++) {
        memset(&b[k], 0, sizeof b[k]);
        b[k].N = N, b[k].F = F, b[k].M = M, b[k].dual = dual;
        b[k].graph = malloc(sizeof(ff_atom) * M * N);
        b[k].X = malloc(sizeof(double) * M * N * 3);
        b[k].res = malloc(sizeof(ff_result) * M);
        assert_true(b[k].graph && b[k].X && b[k].res);
        run_backend(ops[k], &b[k]);
    }
    double de = 0, dx = 0, it = 0, ev = 0;
    for (int m = 0; m < M; m++) {
        const ff_result *r0 = &b[0].res[m], *r1 = &b[1].res[m];
        assert_true(r0->converged && r1->converged);
        assert_int_equal(r0->tutte_sweeps, r1->tutte_sweeps);
        assert_true(c60_ok(b[0].graph + m * N, b[0].X + m * N * 3, r0));
        assert_true(c60_ok(b[1].graph + m * N, b[1].X + m * N * 3, r1));
        /* C60's minimum is at E ~ 1.5e-10 FFU: relative to 1 FFU, not to E */
        de = fmax(de, fabs(r0->energy - r1->energy) / fmax(1.0, fabs(r0->energy)));
        for (int i = 0; i < N * 3; i++) dx = fmax(dx, fabs(b[0].X[m * N * 3 + i] - b[1].X[m * N * 3 + i]));
        it += r0->iters, ev += r0->evals;
    }
    assert_memory_equal(b[0].graph, b[1].graph, sizeof(ff_atom) * M * N);
    print_message("C60 x %d numberings: reference vs openmp_simd: energies within %.1e, coordinates within %.1e A; "
                  "reference mean %.1f iterations, %.1f evaluations per isomer\n",
                  M, de, dx, it / M, ev / M);
    assert_true(de <= 1e-6 && dx <= 1e-4);
    for (int k = 0; k < 2; k++) free(b[k].graph), free(b[k].X), free(b[k].res);
    free(dual);
}

/* Distinct isomers with a strained minimum (E of several FFU): energies to 1e-6 relative. */
static void test_openmp_matches_reference_sampled(void **state)
{
    (void)state;
    const int Ns[2] = {60, 100};
    const long Ms[2] = {8, 3};
    for (int c = 0; c < 2; c++) {
        const int N = Ns[c], F = ff_faces(N);
        ff_spiral *s = NULL;
        const long M = ff_sample(N, Ms[c], 11, &s);
        assert_true(M == Ms[c]);
        uint16_t *dual = malloc(sizeof(uint16_t) * (size_t)(M * F * 6));
        assert_non_null(dual);
        for (long m = 0; m < M; m++) assert_int_equal(ff_windup(N, &s[m], dual + m * F * 6), 0);
        ff_batch b[2];
        const ff_ops *ops[2] = {&ff_ops_reference, &ff_ops_openmp_simd};
        for (int k = 0; k < 2; k++) {
            memset(&b[k], 0, sizeof b[k]);
            b[k].N = N, b[k].F = F, b[k].M = M, b[k].dual = dual;
            b[k].graph = malloc(sizeof(ff_atom) * (size_t)(M * N));
            b[k].X = malloc(sizeof(double) * (size_t)(M * N * 3));
            b[k].res = malloc(sizeof(ff_result) * (size_t)M);
            assert_true(b[k].graph && b[k].X && b[k].res);
            run_backend(ops[k], &b[k]);
        }
        double de = 0, emin = 1e300, ev = 0;
        for (long m = 0; m < M; m++) {
            assert_true(b[0].res[m].converged && b[1].res[m].converged);
            de = fmax(de, fabs(b[0].res[m].energy - b[1].res[m].energy) / fabs(b[0].res[m].energy));
            emin = fmin(emin, b[0].res[m].energy);
            ev += b[0].res[m].evals;
        }
        print_message("C%d x %ld sampled isomers: reference vs openmp_simd energies within %.1e relative (E >= %.2f FFU); "
                      "reference %.1f evaluations per isomer\n",
                      N, M, de, emin, ev / M);
        assert_true(emin > 0.1 && de <= 1e-6);
        for (int k = 0; k < 2; k++) free(b[k].graph), free(b[k].X), free(b[k].res);
        free(dual);
        free(s);
    }
}

/* ---- the MPI queue's ranges (mpi_share.c) with a fake ranged backend: on one rank the queue
 * must hand out every isomer exactly once, at most two chunks in flight, a slot reused only
 * after its wait ---- */

static struct {
    long start[2], take[2];
    int busy[2], in_flight, max_in_flight, launches, waits;
    int *hits;
} fake;

static int fake_launch(ff_batch *b, int slot, long start, long take)
{
    assert_true(slot == 0 || slot == 1);
    assert_false(fake.busy[slot]);
    assert_true(start >= 0 && take >= 1 && start + take <= b->M);
    fake.busy[slot] = 1, fake.start[slot] = start, fake.take[slot] = take;
    fake.in_flight++, fake.launches++;
    if (fake.in_flight > fake.max_in_flight) fake.max_in_flight = fake.in_flight;
    return SB_OK;
}

static int fake_wait(ff_batch *b, int slot)
{
    (void)b;
    assert_true(fake.busy[slot]);
    for (long i = fake.start[slot]; i < fake.start[slot] + fake.take[slot]; i++) fake.hits[i]++;
    fake.busy[slot] = 0, fake.in_flight--, fake.waits++;
    return SB_OK;
}

static void test_mpi_queue_ranges(void **state)
{
    (void)state;
    const ff_ops ops = {NULL, NULL, NULL, NULL, NULL, fake_launch, fake_wait};
    const long sizes[] = {1, 7, 50, 51};
    for (int z = 0; z < 4; z++) {
        ff_case fc;
        memset(&fc, 0, sizeof fc);
        fc.M = fc.b.M = sizes[z];
        fc.cfg.mpi_chunk = 7;
        fc.ops = &ops;
        assert_int_equal(ff_mpi_begin(&fc), SB_OK);
        for (int rep = 0; rep < 2; rep++) { /* the second repetition starts the counter again */
            memset(&fake, 0, sizeof fake);
            fake.hits = calloc((size_t)fc.M, sizeof(int));
            assert_non_null(fake.hits);
            assert_int_equal(ff_mpi_run(&fc), SB_OK);
            for (long i = 0; i < fc.M; i++) {
                assert_int_equal(fake.hits[i], 1);
                assert_int_equal(fc.mpi.owner[i], 0);
            }
            assert_int_equal(fake.in_flight, 0);
            assert_int_equal(fake.launches, fake.waits);
            assert_int_equal(fake.launches, (fc.M + 6) / 7);
            assert_int_equal(fake.max_in_flight, fc.M > 7 ? 2 : 1);
            free(fake.hits);
        }
        assert_int_equal(fc.mpi.done, 2 * fc.M);
        ff_mpi_end(&fc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_term_gradient),
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_dihedral_flat_and_folded),
        cmocka_unit_test(test_dodecahedron_dihedral),
        cmocka_unit_test(test_dualise_invariants),
        cmocka_unit_test(test_dualise_generated),
        cmocka_unit_test(test_tutte_and_projection),
        cmocka_unit_test(test_bonds_counted_once),
        cmocka_unit_test(test_optimised_c60_and_c20),
        cmocka_unit_test(test_c60_check_can_fail),
        cmocka_unit_test(test_openmp_matches_reference),
        cmocka_unit_test(test_openmp_matches_reference_sampled),
        cmocka_unit_test(test_mpi_queue_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
