/* fullerene_ff: start geometry, the oracle's ff_tutte and ff_project (cuda.cu and
 * openmp_simd.c mirror these rules; constants in layout.h).
 *
 * Tutte layout. Face 0's atoms are atoms 0..d-1 in its cyclic order (graph.c's numbering),
 * d = 5 or 6 (= 5 + g[0].ftype[0]); atom k is pinned at corner k of the regular d-gon
 * (ff_polygon_x/y). Every other atom starts at (0, 0). A sweep computes, for every atom
 * t >= d from the previous positions, new = (p[nbr0] + p[nbr1] + p[nbr2]) / 3 (added left
 * to right, divided by 3.0), per coordinate; its move is dx^2 + dy^2. Sweeps repeat until
 * the largest move of a sweep is <= FF_TUTTE_TOL^2 (i.e. |move| <= FF_TUTTE_TOL) or
 * FF_TUTTE_MAXIT sweeps; the sweep count includes the last one.
 *
 * Spherical projection (after the thesis's zero-order geometry: graph distance from face 0
 * gives the latitude, the Tutte angle the longitude; with equal-area latitudes, smoothing
 * and a stretch for elongated cages, whose reasons follow):
 *   1. layer(t) = graph distance of atom t from face 0's atoms (those are layer 0, then BFS),
 *      L = the largest layer, n_l = atoms in layer l, C_l = atoms in layers < l;
 *   2. per layer, the centroid of its atoms' Tutte positions (summed in atom order, divided
 *      by the count);
 *   3. latitude: z = 1.0 - 2.0 * (C_l + 0.5 * n_l) / N for an atom of layer l (each layer
 *      gets the band of the unit sphere whose area is its share of the atoms: Archimedes'
 *      cap area is linear in z), s = sqrt(1.0 - z * z); longitude from (dx, dy) = Tutte
 *      position - its layer's centroid: (c, si) = (dx, dy) / sqrt(dx^2 + dy^2), or (1, 0)
 *      when that is 0;
 *   4. P = (s * c, s * si, z);
 *   5. FF_PROJECT_SMOOTH Jacobi sweeps on the unit sphere: for every atom t, from the previous
 *      positions, q = P[t] + P[nbr0] + P[nbr1] + P[nbr2] (per component, left to right), then
 *      P'[t] = q / sqrt(q.q) (three divisions by the same norm);
 *   6. stretch: lambda = (L + 1) / (FF_PROJECT_ELONG * sqrt((double)N)); if lambda > 1, every
 *      P.z *= lambda;
 *   7. centre: P -= mean of P (summed in atom order, times 1.0 / N);
 *   8. scale: X = P * (FF_PROJECT_BOND / mean bond length), the mean over the 3N/2 bonds
 *      (t < nbr[j], t = 0..N-1 then j = 0..2, lengths summed in that order).
 * Bonded atoms are on the same or adjacent parallels and the Tutte angle keeps their cyclic
 * order, so the start is a convex cage. That matters: the dihedral cosine is even under
 * folding an atom through its neighbours' plane, so a folded start can stay folded (E ~ 870
 * FFU instead of 101 for the C80 nanotube, isomer 1 of C80 in spiral order).
 * Measured (gtol 1e-5) over all 1812 C60 isomers, 700 of C80 (every 45th in spiral order)
 * and the 155 C80 isomers with >= 13 layers (the elongated ones), CG from the thesis's rule
 * (phi = pi (l + 0.5) / (L + 1), no smoothing, no stretch) took 158 / 229 / 312 evaluations
 * on average; one C60 start had collapsed bonds (layers that are not star-shaped about their
 * centroid put two atoms at nearly one longitude) and took 1727 evaluations, and the C80
 * nanotube stayed folded (not converged after 50 N iterations). Equal-area latitudes put the
 * layers where a round cage has them (C60 from a pentagon: z = 0.92, 0.75, 0.50, 0.17
 * against 0.93, 0.80, 0.49, 0.19 in the real cage), smoothing removes the collapsed bonds,
 * and the stretch gives nanotube-like cages (many layers for their size) room along the
 * axis. With all three every one of them converged, in 149 / 193 / 196 evaluations on
 * average (worst 177 / 224 / 255). */
#include <math.h>

#include "fullerene_ff/ff.h"
#include "fullerene_ff/layout.h"

int ff_tutte(int N, const ff_atom *g, double *xy)
{
    const int d = 5 + g[0].ftype[0];
    /* two layouts, swapped after each sweep (interleaved x, y: one neighbour, one line) */
    double b0[2 * FF_MAX_N], b1[2 * FF_MAX_N];
    double *p = b0, *q = b1;
    for (int i = 0; i < 2 * N; i++) p[i] = q[i] = 0.0;
    for (int k = 0; k < d; k++) p[2 * k] = q[2 * k] = ff_polygon_x(d, k), p[2 * k + 1] = q[2 * k + 1] = ff_polygon_y(d, k);
    const double tol2 = FF_TUTTE_TOL * FF_TUTTE_TOL;
    int sweep = 0;
    double move;
    do {
        move = 0.0;
        for (int t = d; t < N; t++) {
            const int i = 2 * g[t].nbr[0], j = 2 * g[t].nbr[1], k = 2 * g[t].nbr[2];
            const double x = (p[i] + p[j] + p[k]) / 3.0;
            const double y = (p[i + 1] + p[j + 1] + p[k + 1]) / 3.0;
            const double dx = x - p[2 * t], dy = y - p[2 * t + 1], m = dx * dx + dy * dy;
            q[2 * t] = x, q[2 * t + 1] = y;
            move = m > move ? m : move;
        }
        double *tmp = p;
        p = q, q = tmp;
        sweep++;
    } while (move > tol2 && sweep < FF_TUTTE_MAXIT);
    for (int i = 0; i < 2 * N; i++) xy[i] = p[i];
    return sweep;
}

void ff_project(int N, const ff_atom *g, const double *xy, double *X)
{
    const int d = 5 + g[0].ftype[0];
    int layer[FF_MAX_N], queue[FF_MAX_N], count[FF_MAX_N];
    double cx[FF_MAX_N], cy[FF_MAX_N];
    for (int t = 0; t < N; t++) layer[t] = -1;
    int head = 0, tail = 0, L = 0;
    for (int k = 0; k < d; k++) layer[k] = 0, queue[tail++] = k;
    while (head < tail) {
        const int t = queue[head++];
        for (int j = 0; j < 3; j++) {
            const int n = g[t].nbr[j];
            if (layer[n] < 0) layer[n] = layer[t] + 1, queue[tail++] = n, L = layer[n];
        }
    }
    for (int l = 0; l <= L; l++) count[l] = 0, cx[l] = cy[l] = 0.0;
    for (int t = 0; t < N; t++) count[layer[t]]++, cx[layer[t]] += xy[2 * t], cy[layer[t]] += xy[2 * t + 1];
    for (int l = 0; l <= L; l++) cx[l] /= count[l], cy[l] /= count[l];

    int below[FF_MAX_N];
    below[0] = 0;
    for (int l = 1; l <= L; l++) below[l] = below[l - 1] + count[l - 1];
    double mx = 0, my = 0, mz = 0;
    for (int t = 0; t < N; t++) {
        const int l = layer[t];
        const double z = 1.0 - 2.0 * (below[l] + 0.5 * count[l]) / N, s = sqrt(1.0 - z * z);
        const double dx = xy[2 * t] - cx[l], dy = xy[2 * t + 1] - cy[l];
        const double r = sqrt(dx * dx + dy * dy);
        const double c = r > 0 ? dx / r : 1.0, si = r > 0 ? dy / r : 0.0;
        X[3 * t] = s * c, X[3 * t + 1] = s * si, X[3 * t + 2] = z;
    }
    double Y[3 * FF_MAX_N];
    for (int sweep = 0; sweep < FF_PROJECT_SMOOTH; sweep++) {
        for (int t = 0; t < N; t++) {
            const int a = g[t].nbr[0], b = g[t].nbr[1], c = g[t].nbr[2];
            const double qx = X[3 * t] + X[3 * a] + X[3 * b] + X[3 * c];
            const double qy = X[3 * t + 1] + X[3 * a + 1] + X[3 * b + 1] + X[3 * c + 1];
            const double qz = X[3 * t + 2] + X[3 * a + 2] + X[3 * b + 2] + X[3 * c + 2];
            const double r = sqrt(qx * qx + qy * qy + qz * qz);
            Y[3 * t] = qx / r, Y[3 * t + 1] = qy / r, Y[3 * t + 2] = qz / r;
        }
        for (int i = 0; i < 3 * N; i++) X[i] = Y[i];
    }
    const double lambda = (L + 1) / (FF_PROJECT_ELONG * sqrt((double)N));
    if (lambda > 1)
        for (int t = 0; t < N; t++) X[3 * t + 2] *= lambda;
    for (int t = 0; t < N; t++) mx += X[3 * t], my += X[3 * t + 1], mz += X[3 * t + 2];
    const double inv = 1.0 / N;
    mx *= inv, my *= inv, mz *= inv;
    double sum = 0;
    for (int t = 0; t < N; t++) X[3 * t] -= mx, X[3 * t + 1] -= my, X[3 * t + 2] -= mz;
    for (int t = 0; t < N; t++)
        for (int j = 0; j < 3; j++) {
            const int n = g[t].nbr[j];
            if (t > n) continue;
            const double ex = X[3 * n] - X[3 * t], ey = X[3 * n + 1] - X[3 * t + 1], ez = X[3 * n + 2] - X[3 * t + 2];
            sum += sqrt(ex * ex + ey * ey + ez * ez);
        }
    const double scale = FF_PROJECT_BOND / (sum / (1.5 * N));
    for (int i = 0; i < 3 * N; i++) X[i] *= scale;
}
