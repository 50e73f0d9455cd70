/* fullerene_ff: the force field, shared verbatim by the scalar reference, the OpenMP-SIMD
 * loops and the CUDA kernels (see ff.h for the energy, the ownership of the terms by atoms
 * and the fixed-order gradient gather). Compiles as C11 and as CUDA C++; no tables in
 * memory (device code cannot read host arrays), the parameters are selected by ternaries,
 * which the CPU vectorises as blends.
 *
 * Every expression below is evaluated in the written order on every backend. The CPU is
 * built with -ffp-contract=off; a CUDA translation unit that wants the same roundings needs
 * -fmad=false (otherwise results agree to rounding, not bit for bit).
 *
 * Geometry of the terms of atom a (b_j = nbr[j], indices mod 3):
 *   bond j      a - b_j, owned by a when a < b_j; its two faces are face[j] and face[j+2],
 *               type = ftype[j] + ftype[j+2]: 0 pentagon-pentagon, 1 pentagon-hexagon,
 *               2 hexagon-hexagon.
 *   angle j     at a between b_j and b_{j+1}, the corner of face[j]; type ftype[j].
 *   dihedral j  points (a, b_j, b_{j+1}, b_{j+2}): cos of the angle between the normals
 *               m = (b_j - a) x (b_{j+1} - b_j) and n = (b_{j+1} - b_j) x (b_{j+2} - b_{j+1}),
 *               i.e. the usual dihedral of the chain a-b_j-b_{j+1}-b_{j+2}. A flat atom (a
 *               inside the triangle of its neighbours) has cos = +1 whatever the
 *               orientation; cos is even under reflecting a through the plane of its
 *               neighbours. cos0 index 4 ftype[j] + 2 ftype[j+1] + ftype[j+2], force
 *               constant by the number of hexagons among the three faces.
 *
 * Gradients are analytic:
 *   bond      dE/db = k (r - r0) (b - a)/r,  dE/da = -dE/db
 *   angle     c = u.v with u, v the unit vectors a->b, a->c:
 *             dc/db = (v - c u)/|b - a|, dc/dc = (u - c v)/|c - a|, dc/da = -(dc/db + dc/dc)
 *   dihedral  c = m^.n^ with b1 = b - a, b2 = c - b, b3 = d - c, m = b1 x b2, n = b2 x b3:
 *             P = (n^ - c m^)/|m|, Q = (m^ - c n^)/|n| (the parts of n^, m^ normal to m^, n^),
 *             dc/db1 = b2 x P, dc/db2 = P x b1 + b3 x Q, dc/db3 = Q x b2, and by the chain rule
 *             dc/da = -dc/db1, dc/db = dc/db1 - dc/db2, dc/dc = dc/db2 - dc/db3, dc/dd = dc/db3.
 * All are written with edge vectors (differences of nearby points), never with differences
 * of large sums, so their absolute error is a few ulps of the term's scale. */
#ifndef FULLERENE_FF_FF_PHYSICS_H
#define FULLERENE_FF_FF_PHYSICS_H

#include <math.h>

#include "fullerene_ff/ff.h"

/* always_inline on the CPU: a term left out of line turns the OpenMP-SIMD loop over atoms
 * into scalar calls (GCC 12 kept the per-atom terms out of line). */
#ifdef __CUDACC__
#define FF_HD __host__ __device__ static inline
#else
#define FF_HD static inline __attribute__((always_inline))
#endif

typedef struct {
    double x, y, z;
} ff_v3;

/* ---- parameters of the Fullerene program (Wirz/Pedersen force field) ---- */
#define FF_R0_PP 1.479 /* Angstrom */
#define FF_R0_PH 1.458
#define FF_R0_HH 1.401
#define FF_KB_PP 260.0 /* FFU/A^2 */
#define FF_KB_PH 390.0
#define FF_KB_HH 450.0
#define FF_COS0_P (-0.30901699437494734) /* cos 108 deg */
#define FF_COS0_H (-0.5)                 /* cos 120 deg */
#define FF_KA_P 100.0 /* FFU */
#define FF_KA_H 100.0

/* bond type t = ftype[j] + ftype[j+2] (0 pp, 1 ph, 2 hh) */
FF_HD double ff_bond_r0(int t) { return t == 0 ? FF_R0_PP : t == 1 ? FF_R0_PH : FF_R0_HH; }
FF_HD double ff_bond_k(int t) { return t == 0 ? FF_KB_PP : t == 1 ? FF_KB_PH : FF_KB_HH; }
/* angle by its face type (0 pentagon, 1 hexagon) */
FF_HD double ff_angle_cos0(int t) { return t == 0 ? FF_COS0_P : FF_COS0_H; }
FF_HD double ff_angle_k(int t) { return t == 0 ? FF_KA_P : FF_KA_H; }
/* dihedral cos0 by i = 4 f1 + 2 f2 + f3 (f = face type of face[j], face[j+1], face[j+2]) */
FF_HD double ff_dihedral_cos0(int i)
{
    return i == 0   ? 0.7946545571495363
           : i <= 2 ? 0.872903607049519 /* 1 and 2 */
           : i == 3 ? 0.9410338472965512
           : i == 4 ? 0.8162879359966257
           : i <= 6 ? 0.9139497166300941 /* 5 and 6 */
                    : 1.0;
}
/* dihedral force constant by the number of hexagons h among the three faces, FFU */
FF_HD double ff_dihedral_k(int h) { return h == 0 ? 35.0 : h == 1 ? 65.0 : h == 2 ? 85.0 : 270.0; }

/* ---- small vector algebra ---- */
FF_HD ff_v3 ff_v3_make(double x, double y, double z)
{
    ff_v3 r;
    r.x = x, r.y = y, r.z = z;
    return r;
}
FF_HD ff_v3 ff_v3_sub(ff_v3 a, ff_v3 b) { return ff_v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
FF_HD ff_v3 ff_v3_add(ff_v3 a, ff_v3 b) { return ff_v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
FF_HD ff_v3 ff_v3_scale(ff_v3 a, double s) { return ff_v3_make(a.x * s, a.y * s, a.z * s); }
FF_HD double ff_v3_dot(ff_v3 a, ff_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FF_HD ff_v3 ff_v3_cross(ff_v3 a, ff_v3 b)
{
    return ff_v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/* a - s b */
FF_HD ff_v3 ff_v3_subs(ff_v3 a, double s, ff_v3 b) { return ff_v3_make(a.x - s * b.x, a.y - s * b.y, a.z - s * b.z); }
FF_HD ff_v3 ff_v3_load(const double *X, int i) { return ff_v3_make(X[3 * i], X[3 * i + 1], X[3 * i + 2]); }

/* ---- the three kinds of terms: energy returned, gradient added to the g's ---- */

/* Bond a-b, force constant k (0 for a bond the atom does not own: then it adds only
 * signed zeros, which change nothing; no branch, so the SIMD loop needs no mask), rest
 * length r0. */
FF_HD double ff_bond_term(ff_v3 pa, ff_v3 pb, double k, double r0, ff_v3 *ga, ff_v3 *gb)
{
    const ff_v3 ab = ff_v3_sub(pb, pa);
    const double r = sqrt(ff_v3_dot(ab, ab));
    const double dr = r - r0;
    const ff_v3 f = ff_v3_scale(ab, k * dr / r);
    *gb = ff_v3_add(*gb, f);
    *ga = ff_v3_sub(*ga, f);
    return 0.5 * k * dr * dr;
}

/* Angle at a between b and c: force constant k, equilibrium cosine c0. */
FF_HD double ff_angle_term(ff_v3 pa, ff_v3 pb, ff_v3 pc, double k, double c0, ff_v3 *ga, ff_v3 *gb, ff_v3 *gc)
{
    const ff_v3 ab = ff_v3_sub(pb, pa), ac = ff_v3_sub(pc, pa);
    const double rab = sqrt(ff_v3_dot(ab, ab)), rac = sqrt(ff_v3_dot(ac, ac));
    const ff_v3 u = ff_v3_scale(ab, 1.0 / rab), v = ff_v3_scale(ac, 1.0 / rac);
    const double c = ff_v3_dot(u, v), dc = c - c0;
    const ff_v3 fb = ff_v3_scale(ff_v3_subs(v, c, u), k * dc / rab);
    const ff_v3 fc = ff_v3_scale(ff_v3_subs(u, c, v), k * dc / rac);
    *gb = ff_v3_add(*gb, fb);
    *gc = ff_v3_add(*gc, fc);
    *ga = ff_v3_sub(*ga, ff_v3_add(fb, fc));
    return 0.5 * k * dc * dc;
}

/* cos of the dihedral of the chain a-b-c-d (the convention of the file comment). */
FF_HD double ff_dihedral_cos(ff_v3 pa, ff_v3 pb, ff_v3 pc, ff_v3 pd)
{
    const ff_v3 b1 = ff_v3_sub(pb, pa), b2 = ff_v3_sub(pc, pb), b3 = ff_v3_sub(pd, pc);
    const ff_v3 m = ff_v3_cross(b1, b2), n = ff_v3_cross(b2, b3);
    return ff_v3_dot(m, n) / (sqrt(ff_v3_dot(m, m)) * sqrt(ff_v3_dot(n, n)));
}

/* Dihedral a-b-c-d: force constant k, equilibrium cosine c0. */
FF_HD double ff_dihedral_term(ff_v3 pa, ff_v3 pb, ff_v3 pc, ff_v3 pd, double k, double c0, ff_v3 *ga, ff_v3 *gb,
                              ff_v3 *gc, ff_v3 *gd)
{
    const ff_v3 b1 = ff_v3_sub(pb, pa), b2 = ff_v3_sub(pc, pb), b3 = ff_v3_sub(pd, pc);
    const ff_v3 m = ff_v3_cross(b1, b2), n = ff_v3_cross(b2, b3);
    const double rm = sqrt(ff_v3_dot(m, m)), rn = sqrt(ff_v3_dot(n, n));
    const ff_v3 mh = ff_v3_scale(m, 1.0 / rm), nh = ff_v3_scale(n, 1.0 / rn);
    const double c = ff_v3_dot(mh, nh), dc = c - c0;
    /* k dc folded into P and Q: the gradient of the energy directly */
    const ff_v3 P = ff_v3_scale(ff_v3_subs(nh, c, mh), k * dc / rm);
    const ff_v3 Q = ff_v3_scale(ff_v3_subs(mh, c, nh), k * dc / rn);
    const ff_v3 d1 = ff_v3_cross(b2, P);
    const ff_v3 d2 = ff_v3_add(ff_v3_cross(P, b1), ff_v3_cross(b3, Q));
    const ff_v3 d3 = ff_v3_cross(Q, b2);
    *ga = ff_v3_sub(*ga, d1);
    *gb = ff_v3_add(*gb, ff_v3_sub(d1, d2));
    *gc = ff_v3_add(*gc, ff_v3_sub(d2, d3));
    *gd = ff_v3_add(*gd, d3);
    return 0.5 * k * dc * dc;
}

/* ---- one atom's owned terms ---- */

/* The parameters of atom a's nine terms, slot j as in the file comment: bond j (bk = 0 when
 * a does not own it), angle j, dihedral j. They depend on the graph only, so the SIMD
 * backend tabulates them once per isomer; the values are the tables' exactly. */
typedef struct {
    double bk[3], br0[3], ak[3], ac0[3], dk[3], dc0[3];
} ff_atom_params;

/* n0..n2: nbr[], t0..t2: ftype[] */
FF_HD ff_atom_params ff_atom_params_of(int a, int n0, int n1, int n2, int t0, int t1, int t2)
{
    ff_atom_params q;
    q.bk[0] = a < n0 ? ff_bond_k(t0 + t2) : 0.0, q.br0[0] = ff_bond_r0(t0 + t2);
    q.bk[1] = a < n1 ? ff_bond_k(t1 + t0) : 0.0, q.br0[1] = ff_bond_r0(t1 + t0);
    q.bk[2] = a < n2 ? ff_bond_k(t2 + t1) : 0.0, q.br0[2] = ff_bond_r0(t2 + t1);
    q.ak[0] = ff_angle_k(t0), q.ac0[0] = ff_angle_cos0(t0);
    q.ak[1] = ff_angle_k(t1), q.ac0[1] = ff_angle_cos0(t1);
    q.ak[2] = ff_angle_k(t2), q.ac0[2] = ff_angle_cos0(t2);
    q.dk[0] = q.dk[1] = q.dk[2] = ff_dihedral_k(t0 + t1 + t2);
    q.dc0[0] = ff_dihedral_cos0(4 * t0 + 2 * t1 + t2);
    q.dc0[1] = ff_dihedral_cos0(4 * t1 + 2 * t2 + t0);
    q.dc0[2] = ff_dihedral_cos0(4 * t2 + 2 * t0 + t1);
    return q;
}

/* The energy of the nine terms of an atom at p0 with neighbours at p1, p2, p3 (nbr[0..2]),
 * gradient on p0..p3 into gr[0..3]. Order: bonds j = 0..2, angles j = 0..2, dihedrals
 * j = 0..2; the energy is summed in that order. */
FF_HD double ff_atom_terms_p(ff_v3 p0, ff_v3 p1, ff_v3 p2, ff_v3 p3, const ff_atom_params *q, ff_v3 gr[4])
{
    ff_v3 g0 = ff_v3_make(0, 0, 0), g1 = g0, g2 = g0, g3 = g0;
    double e = 0.0;
    e += ff_bond_term(p0, p1, q->bk[0], q->br0[0], &g0, &g1);
    e += ff_bond_term(p0, p2, q->bk[1], q->br0[1], &g0, &g2);
    e += ff_bond_term(p0, p3, q->bk[2], q->br0[2], &g0, &g3);
    e += ff_angle_term(p0, p1, p2, q->ak[0], q->ac0[0], &g0, &g1, &g2);
    e += ff_angle_term(p0, p2, p3, q->ak[1], q->ac0[1], &g0, &g2, &g3);
    e += ff_angle_term(p0, p3, p1, q->ak[2], q->ac0[2], &g0, &g3, &g1);
    e += ff_dihedral_term(p0, p1, p2, p3, q->dk[0], q->dc0[0], &g0, &g1, &g2, &g3);
    e += ff_dihedral_term(p0, p2, p3, p1, q->dk[1], q->dc0[1], &g0, &g2, &g3, &g1);
    e += ff_dihedral_term(p0, p3, p1, p2, q->dk[2], q->dc0[2], &g0, &g3, &g1, &g2);
    gr[0] = g0, gr[1] = g1, gr[2] = g2, gr[3] = g3;
    return e;
}

/* Energy of atom a's terms; their gradient on a (gr[0]) and on nbr[j] (gr[1+j]). */
FF_HD double ff_atom_terms(int a, const ff_atom *ga, const double *X, ff_v3 gr[4])
{
    const ff_atom_params q = ff_atom_params_of(a, ga->nbr[0], ga->nbr[1], ga->nbr[2], ga->ftype[0], ga->ftype[1], ga->ftype[2]);
    return ff_atom_terms_p(ff_v3_load(X, a), ff_v3_load(X, ga->nbr[0]), ff_v3_load(X, ga->nbr[1]), ff_v3_load(X, ga->nbr[2]), &q, gr);
}

/* grad[x] = own[x][0] + own[nbr[0]][1+back[0]] + own[nbr[1]][1+back[1]] + own[nbr[2]][1+back[2]],
 * added in that order. own[4*a + slot]. */
FF_HD ff_v3 ff_gather_gradient(int x, const ff_atom *gx, const ff_v3 *own)
{
    ff_v3 s = own[4 * x];
    s = ff_v3_add(s, own[4 * gx->nbr[0] + 1 + gx->back[0]]);
    s = ff_v3_add(s, own[4 * gx->nbr[1] + 1 + gx->back[1]]);
    s = ff_v3_add(s, own[4 * gx->nbr[2] + 1 + gx->back[2]]);
    return s;
}

#endif
